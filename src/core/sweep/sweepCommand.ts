/**
 * The transfer sweep as the run flow runs it: one builder of its helper command (subcommand,
 * run id tag, backend, the timeline as a produced file, the refined sweep) for every front:
 * the editor's sweep, refinement rounds and fleet nodes, and the CLI's.
 */
import type { BackendChoice } from '../backendChoice';
import type { SweepOptions } from './sweepOptions';
import { checkSweepOptions, sweepArgs } from './sweepOptions';

/** The file a sweep with a timeline writes, copied into the run's folder. */
export const SWEEP_TIMELINE_FILE = 'timeline.sdmatl';

/**
 * A sweep's helper command, in the shape of the run flow's `HelperCommand`
 * (src/core/runtime/runFlow.ts); spelled here because this folder stays browser-safe.
 */
export interface SweepCommand {
  command: 'sweep';
  idTag: string;
  backend: BackendChoice;
  produces: readonly string[];
  refines?: string;
  args(out: (name: string) => string): string[];
}

export interface SweepCommandExtra {
  /** The run id's second part; default: the backend. */
  idTag?: string;
  /** A refinement round: the id of the sweep it refines. */
  refines?: string;
}

/**
 * The helper command of a sweep of `options` (checked now: a bad option is said before the
 * helper is looked for). A timeline size makes the helper write the timeline where the target
 * wants it (`--timeline-out`), and the run flow brings it into the run's folder.
 */
export function sweepCommand(options: SweepOptions, extra: SweepCommandExtra = {}): SweepCommand {
  checkSweepOptions(options);
  const timeline = options.timelineSizeBytes !== undefined;
  return {
    command: 'sweep',
    idTag: extra.idTag ?? options.backend,
    backend: options.backend,
    produces: timeline ? [SWEEP_TIMELINE_FILE] : [],
    ...(extra.refines !== undefined ? { refines: extra.refines } : {}),
    args: (out) => sweepArgs(timeline ? { ...options, timelineOut: out(SWEEP_TIMELINE_FILE) } : options),
  };
}
