/**
 * Records the timeline of one sweep point that the run's own timeline does not show: a small
 * timeline-only helper run on the run's own target (the local node, or the SSH node it was
 * measured on), saved as a run under `<run>/timelines/`. The run flow brings the file back
 * from the target (over SSH it is written in the node's cache folder, copied, then removed
 * there, whether the recording ended well or not); it is then moved next to the run.
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Run } from '../run';
import type { HelperCommand, HelperProvider, RunFlowResult } from './runFlow';
import { runHelperCommand } from './runFlow';
import type { LogLevel } from './session';
import type { Target } from './target';
import { TIMELINES_DIR } from '../runs/runFolder';
import { RunStore } from '../runs/runStore';
import type { TimelinePoint } from '../runs/timelineSource';
import { timelineArgs } from '../runs/timelineSource';

/** Where the recordings of a run's points are kept as runs of their own. */
export function pointTimelineStore(runDir: string): RunStore {
  return new RunStore(join(runDir, TIMELINES_DIR));
}

/** The helper command that records `point` of `run` into a file named like `file`. */
export function pointTimelineCommand(run: Run, point: TimelinePoint, file: string): HelperCommand {
  const name = basename(file);
  return {
    command: 'sweep',
    idPrefix: 'timeline',
    idTag: run.hello?.backend ?? 'auto',
    produces: [name],
    args: (out) => timelineArgs(run, point, out(name)),
  };
}

/** Moves the recorded file to `file`: true once it is there, false when cancelled; throws with the helper's reason otherwise. */
export async function placePointTimeline(result: RunFlowResult, store: RunStore, file: string): Promise<boolean> {
  if (result.kind === 'not-started') return false;
  if (result.kind === 'refused') throw new Error(`the helper could not record the timeline: ${result.message}`);
  const { run } = result;
  if (run.end?.status === 'cancelled') return false;
  const recorded = join(store.dirOf(run.header.id), basename(file));
  if (run.end?.status === 'ok' && existsSync(recorded)) {
    await rename(recorded, file);
    return true;
  }
  throw new Error(
    `the helper could not record the timeline: ${run.end?.status === 'ok' ? 'it wrote no timeline file' : (run.end?.message ?? 'no result')}`,
  );
}

export interface PointTimelineOptions {
  run: Run;
  /** The run's folder; the recording's own run goes under `<runDir>/timelines/`. */
  runDir: string;
  point: TimelinePoint;
  /** Where the timeline file ends up, an absolute path in the run's folder. */
  file: string;
  /** The run's own target: where it was measured. */
  target: Target;
  helpers: HelperProvider;
  signal?: AbortSignal;
  onLog?: (level: LogLevel, message: string) => void;
}

/** True once the file is in place; false when cancelled. Throws with the helper's reason otherwise. */
export async function recordPointTimeline(o: PointTimelineOptions): Promise<boolean> {
  checkTargetOfRun(o.run, o.target);
  const store = pointTimelineStore(o.runDir);
  const result = await runHelperCommand(pointTimelineCommand(o.run, o.point, o.file), {
    target: o.target,
    helpers: o.helpers,
    store,
    signal: o.signal,
    onLog: o.onLog,
  });
  return placePointTimeline(result, store, o.file);
}

/** A point of a run measured over SSH is recorded on that node, nowhere else. */
export function checkTargetOfRun(run: Run, target: Target): void {
  const wanted = run.header.target;
  if (wanted.kind === 'ssh' && (target.kind !== 'ssh' || target.label !== wanted.host)) {
    throw new Error(
      `run ${run.header.id} was measured over SSH on ${wanted.host}, but the timeline would be recorded on ${target.label}`,
    );
  }
  if (wanted.kind === 'local' && target.kind !== 'local')
    throw new Error(`run ${run.header.id} was measured on this machine, not on ${target.label}`);
}
