/**
 * A run: the header the host writes, then every helper record as it arrived, then how it
 * ended. `applyLine` is the one reducer used both while a run streams and when a saved run
 * is read back, so a reopened run is exactly what was seen live.
 */
import * as v from 'valibot';
import type {
  CollectivePoint,
  CollectiveVariant,
  CopyOp,
  Dispatch,
  Done,
  ErrorRecord,
  Hello,
  HelperRecord,
  LibraryCalls,
  MatrixCell,
  MatrixTotal,
  OverlapPoint,
  PathUnsupported,
  Program,
  RuntimeKnob,
  Timeline,
  Topology,
  Warning,
} from './protocol';
import { validateRecord } from './protocol';
import { SampleTable } from './sampleTable';
import type { DeviceSpanColumns } from './deviceSpans';
import { addDeviceSpan, newDeviceSpans } from './deviceSpans';

export const RUN_FORMAT = 'sdma-lens-run';
export const RUN_FORMAT_VERSION = 1;
export const RUN_FILE_NAME = 'run.ndjson';

export const RunHeaderSchema = v.object({
  type: v.literal('run'),
  format: v.literal(RUN_FORMAT),
  version: v.literal(RUN_FORMAT_VERSION),
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,128}$/)),
  command: v.picklist(['sweep', 'info', 'matrix', 'collective', 'overlap', 'run', 'import']),
  createdAt: v.string(),
  target: v.object({ kind: v.picklist(['local', 'ssh']), host: v.optional(v.string()) }),
  helper: v.object({ path: v.string(), args: v.array(v.string()) }),
  /**
   * A run read from another tool's output (`sdma-lens import`): which tool, its version and
   * command line where the output says, and the file. Absent in runs the helper measured.
   */
  source: v.optional(
    v.object({
      tool: v.string(),
      format: v.string(),
      file: v.string(),
      version: v.optional(v.string()),
      commandLine: v.optional(v.string()),
    }),
  ),
  /** A refinement run (`sweep --refine`): the id of the sweep whose crossovers it measures closer. */
  refines: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,128}$/))),
  /** One node's run of a fleet sweep (`sdma-lens fleet`): the fleet, the Slurm node it ran on and the job. */
  fleet: v.optional(
    v.object({ id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,128}$/)), node: v.string(), job: v.string() }),
  ),
});
export type RunHeader = v.InferOutput<typeof RunHeaderSchema>;

/** The header of a new run: where it runs (an SSH host, or this machine) and what is started. */
export function runHeader(
  id: string,
  command: RunHeader['command'],
  helperPath: string,
  args: string[],
  sshHost?: string,
): RunHeader {
  return {
    type: 'run',
    format: RUN_FORMAT,
    version: RUN_FORMAT_VERSION,
    id,
    command,
    createdAt: new Date().toISOString(),
    target: sshHost !== undefined ? { kind: 'ssh', host: sshHost } : { kind: 'local' },
    helper: { path: helperPath, args },
  };
}

/** How a run ended, as the host saw it (the helper's own `done` may be missing after a crash). */
export const RunEndSchema = v.object({
  type: v.literal('run-end'),
  status: v.picklist(['ok', 'error', 'cancelled', 'crashed']),
  exitCode: v.nullable(v.number()),
  signal: v.nullable(v.string()),
  message: v.string(),
  endedAt: v.string(),
  /** Lines the host could not use (malformed, unknown, out of order), and the first one's reason. */
  problems: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  firstProblem: v.optional(v.string()),
});
export type RunEnd = v.InferOutput<typeof RunEndSchema>;

/** A line the host could not use; kept in the file so a reopened run shows the same problems. */
export const HostProblemSchema = v.object({
  type: v.literal('host-problem'),
  message: v.string(),
});
export type HostProblem = v.InferOutput<typeof HostProblemSchema>;

export interface Run {
  header: RunHeader;
  hello?: Hello;
  topology?: Topology;
  /** The sweep's samples, as columns (sampleTable.ts): a big run's samples are not one object each. */
  samples: SampleTable;
  /** Paths the helper said cannot exist between an endpoint pair (absent when none). */
  pathUnsupported?: PathUnsupported[];
  timeline?: Timeline;
  warnings: Warning[];
  errors: ErrorRecord[];
  done?: Done;
  end?: RunEnd;
  problems: string[];
  progress: { done: number; total: number };
  /** `matrix` runs: one cell per GPU pair and path, in arrival order (absent elsewhere). */
  matrixCells?: MatrixCell[];
  /** `matrix --concurrent` runs: one aggregate per path whose pairs all measured. */
  matrixTotals?: MatrixTotal[];
  /** `collective` and `overlap` runs (absent in sweeps). */
  collectiveVariants?: CollectiveVariant[];
  collectives?: CollectivePoint[];
  overlaps?: OverlapPoint[];
  /** `run`: the program's start, then its exit once seen. */
  program?: { start?: Program; exit?: Program };
  /** `run`: kernel launches and memory copies, in arrival order. */
  dispatches: Dispatch[];
  copies: CopyOp[];
  /** `run`: the device-trace spans (which CU ran what, when), as columns (absent when none came). */
  deviceSpans?: DeviceSpanColumns;
  /** `run --library-log`: the library's own count of each collective's path (absent elsewhere). */
  libraryCalls?: LibraryCalls[];
}

export function newRun(header: RunHeader): Run {
  return {
    header,
    samples: new SampleTable(),
    warnings: [],
    errors: [],
    problems: [],
    progress: { done: 0, total: 0 },
    dispatches: [],
    copies: [],
  };
}

/** Folds one validated helper record into the run. */
export function applyRecord(run: Run, record: HelperRecord): void {
  switch (record.type) {
    case 'hello':
      run.hello = record;
      break;
    case 'topology':
      run.topology = record;
      break;
    case 'progress':
      run.progress = { done: record.done, total: record.total };
      break;
    case 'heartbeat':
      break;
    case 'sample':
      run.samples.push(record);
      break;
    case 'timeline':
      run.timeline = record;
      break;
    case 'warning':
      run.warnings.push(record);
      break;
    case 'error':
      run.errors.push(record);
      break;
    case 'path-unsupported':
      (run.pathUnsupported ??= []).push(record);
      break;
    case 'done':
      run.done = record;
      break;
    case 'matrix-cell':
      (run.matrixCells ??= []).push(record);
      break;
    case 'matrix-total':
      (run.matrixTotals ??= []).push(record);
      break;
    case 'collective-variant':
      (run.collectiveVariants ??= []).push(record);
      break;
    case 'collective':
      (run.collectives ??= []).push(record);
      break;
    case 'overlap':
      (run.overlaps ??= []).push(record);
      break;
    case 'program':
      run.program = { ...run.program, [record.event]: record };
      break;
    case 'dispatch':
      run.dispatches.push(record);
      break;
    case 'copy':
      run.copies.push(record);
      break;
    case 'device-span':
      addDeviceSpan((run.deviceSpans ??= newDeviceSpans()), record);
      break;
    case 'library-calls':
      (run.libraryCalls ??= []).push(record);
      break;
    default: {
      const never: never = record;
      throw new Error(`unhandled record ${JSON.stringify(never)}`);
    }
  }
}

/** Folds one line of a saved run file (header excluded) into the run. Never throws. */
export function applySavedValue(run: Run, value: unknown): void {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (type === 'run-end') {
    const end = v.safeParse(RunEndSchema, value);
    if (end.success) run.end = end.output;
    else run.problems.push('unreadable run-end line');
    return;
  }
  if (type === 'host-problem') {
    const problem = v.safeParse(HostProblemSchema, value);
    if (problem.success) run.problems.push(problem.output.message);
    return;
  }
  const result = validateRecord(value);
  if (result.kind === 'record') applyRecord(run, result.record);
  else if (result.kind === 'unknown-type') run.problems.push(`skipped a record of unknown type "${result.type}"`);
  else run.problems.push(`skipped a malformed record: ${result.reason}`);
}

/**
 * The runtime variables the helper set for this run's measurements (hello.runtimeKnobs).
 * Undefined when the hello named none: an older run, an import, a command that sets none, or
 * an NVIDIA run; such a run cannot show that its AMD engine samples below 1 MiB were SDMA.
 */
export function runtimeKnobs(run: Run): RuntimeKnob[] | undefined {
  return run.hello?.runtimeKnobs;
}

export function isSimulated(run: Run): boolean {
  return run.hello?.simulated ?? run.topology?.node.simulated ?? false;
}

/** The status a user should see: the host's view wins, since the helper may have died before `done`. */
export function runStatus(run: Run): RunEnd['status'] | 'running' | 'incomplete' {
  if (run.end) return run.end.status;
  if (run.done) return run.done.status;
  return 'incomplete';
}
