import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newRun } from '../../src/core/run';
import type { Run } from '../../src/core/run';
import {
  runTimeline,
  runTimelineCovers,
  timelineArgs,
  timelineFileName,
  timelineMeta,
} from '../../src/core/runs/timelineSource';

function sweepRun(args: string[]): Run {
  const run = newRun({
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'r1',
    command: 'sweep',
    createdAt: '2026-11-30T00:00:00Z',
    target: { kind: 'local' },
    helper: { path: '/x/sdma-probe', args },
  });
  run.hello = {
    type: 'hello',
    protocol: 1,
    helper: { name: 'sdma-probe', version: '0.1.0' },
    command: 'sweep',
    backend: 'sim',
    simulated: true,
    backendsBuilt: ['sim'],
    pid: 1,
  };
  run.timeline = {
    type: 'timeline',
    path: '/elsewhere/timeline.sdmatl',
    format: 'sdmatl',
    version: 1,
    eventCount: 10,
    fileBytes: 100,
    sizeBytes: 1048576,
  };
  return run;
}

const ARGS = [
  'sweep',
  '--backend',
  'auto',
  '--sizes',
  '4K,1M',
  '--paths',
  'cu/host,engine/device',
  '--cus',
  '8,64',
  '--iters',
  '20',
  '--seed',
  '7',
  '--src',
  '2',
  '--dst',
  '5',
  '--timeline-size',
  '1M',
  '--timeline-out',
  '/elsewhere/timeline.sdmatl',
];

describe('timeline sources', () => {
  it('uses the run`s own timeline only for the points it shows', () => {
    const run = sweepRun(ARGS);
    expect(runTimelineCovers(run, { sizeBytes: 1048576, path: 'cu/host', cus: 64 })).toBe(true);
    expect(runTimelineCovers(run, { sizeBytes: 1048576, path: 'cu/host', cus: 8 })).toBe(false);
    expect(runTimelineCovers(run, { sizeBytes: 1048576, path: 'engine/device', cus: 1 })).toBe(true);
    expect(runTimelineCovers(run, { sizeBytes: 4096, path: 'engine/device', cus: 1 })).toBe(false);
    expect(runTimelineCovers(run, { sizeBytes: 1048576, path: 'engine/host', cus: 0 })).toBe(false);
  });

  it('records another point on the run`s backend and GPUs, as an argument array', () => {
    const run = sweepRun(ARGS);
    const out = '/runs/r1/timeline-4K-cu-host-8.sdmatl';
    expect(timelineFileName({ sizeBytes: 4096, path: 'cu/host', cus: 8 })).toBe('timeline-4K-cu-host-8.sdmatl');
    expect(timelineFileName({ sizeBytes: 4096, path: 'engine/host', cus: 0 })).toBe('timeline-4K-engine-host-0.sdmatl');
    expect(timelineArgs(run, { sizeBytes: 4096, path: 'cu/host', cus: 8 }, out)).toEqual([
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '4K',
      '--paths',
      'cu/host',
      '--cus',
      '8',
      '--iters',
      '1',
      '--seed',
      '7',
      '--src',
      '2',
      '--dst',
      '5',
      '--timeline-size',
      '4K',
      '--timeline-cus',
      '8',
      '--timeline-out',
      out,
    ]);
    expect(() => timelineArgs(run, { sizeBytes: 4096, path: 'cu/host', cus: 8 }, 'relative.sdmatl')).toThrow(
      /absolute/,
    );
  });

  it('finds the timeline file in the run folder when the runs folder has moved', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-tl-'));
    try {
      writeFileSync(join(dir, 'timeline.sdmatl'), '');
      expect(runTimeline(sweepRun(ARGS), dir)).toEqual({ kind: 'file', file: join(dir, 'timeline.sdmatl') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('labels simulated data and names what the user clicked', () => {
    const meta = timelineMeta(sweepRun(ARGS), 'r1/timeline.sdmatl', 1048576, 'cu/host', 64);
    expect(meta.simulated).toBe(true);
    expect(meta.title).toBe('Timeline · GPU 2 → GPU 5 · 1 MiB · cu/host · 64 CUs');
  });
});
