/**
 * The simulator's timeline that the timeline benchmarks read (bench/timelineCore.bench.ts,
 * bench/timelineEngine.bench.ts), made as bench/timeline.mjs makes it: `sdma-probe sweep
 * --backend sim --sizes 1M --cus 64` with as many timeline iterations as give about `events`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Events of one iteration of the four paths at 1 MiB with 64 CUs (docs/SIMULATOR.md). */
const EVENTS_PER_ITERATION = 136;

/** Writes the timeline of about `events` events into `dir` with `helper`; its path. */
export function makeSimTimeline(helper: string, dir: string, events: number): string {
  const iters = Math.max(1, Math.round(events / EVENTS_PER_ITERATION));
  const file = join(dir, `timeline-${iters}.sdmatl`);
  const sweep = ['--sizes', '1M', '--paths', 'all', '--cus', '64', '--iters', '1'];
  const timeline = ['--timeline-size', '1M', '--timeline-cus', '64', '--timeline-iters', String(iters)];
  execFileSync(helper, ['sweep', '--backend', 'sim', ...sweep, ...timeline, '--timeline-out', file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return file;
}
