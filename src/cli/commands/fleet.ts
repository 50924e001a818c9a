/**
 * `sdma-lens fleet`: the same sweep (and optionally a matrix) on every node of a Slurm
 * allocation, each node's run saved as a run of its own, then the nodes compared with each
 * other (src/core/fleet/). `sdma-lens fleet show [ID]` prints a saved fleet again.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FleetRequest } from '../../core/fleetRun/fleetRun';
import { DEFAULT_PARALLEL, runFleet } from '../../core/fleetRun/fleetRun';
import { loadFleet } from '../../core/fleetRun/fleetLoad';
import { cancelQueuedFleet, collectFleet, queueFleet } from '../../core/fleetRun/fleetQueue';
import type { HelperCommand } from '../../core/runtime/runFlow';
import { FleetStore } from '../../core/fleetRun/fleetStore';
import { fleetTable } from '../../core/fleet/fleetTable';
import type { FleetView } from '../../core/fleet/fleetView';
import { fleetView, judgeFleet } from '../../core/fleet/fleetView';
import { fleetJsonPieces } from '../../core/fleet/fleetJson';
import type { AllocationRequest } from '../../core/fleetRun/slurm';
import { allocationArgs, checkJobId, checkSlurmName } from '../../core/fleetRun/slurm';
import { SlurmError } from '../../core/fleetRun/slurmTools';
import type { Thresholds } from '../../core/fleet/thresholds';
import { parseThresholds } from '../../core/fleet/thresholds';
import { matrixCommand } from '../../core/matrix/matrixCommand';
import { LocalTarget } from '../../core/runtime/localTarget';
import type { Target } from '../../core/runtime/target';
import { SshTarget } from '../../core/ssh/sshTarget';
import { sweepCommand } from '../../core/sweep/sweepCommand';
import { readSafeFileSync, SafeFileError } from '../../core/runs/safeFile';
import { jsonText, terminalLine } from '../../core/text';
import { cliHelpers } from '../console';
import { parseFlags } from '../flags';
import { matrixOptionsOf, sweepOptionsOf } from '../measure';
import {
  MEASURE_OPTIONS,
  RUN_OPTIONS,
  UsageError,
  asUsage,
  helperOption,
  int,
  sshConnection,
  stallTimeout,
  storeOf,
} from '../options';

const FLEET_OPTIONS = {
  nodes: { type: 'string' },
  partition: { type: 'string' },
  nodelist: { type: 'string' },
  jobid: { type: 'string' },
  time: { type: 'string' },
  account: { type: 'string' },
  parallel: { type: 'string' },
  matrix: { type: 'boolean', default: false },
  'matrix-size': { type: 'string' },
  sizes: { type: 'string' },
  thresholds: { type: 'string' },
  'fail-on-outliers': { type: 'boolean', default: false },
  queue: { type: 'boolean', default: false },
} as const;

export async function fleet(argv: string[], signal: AbortSignal): Promise<number> {
  if (argv[0] === 'show') return show(argv.slice(1), signal);
  if (argv[0] === 'collect') return collect(argv.slice(1), signal);
  if (argv[0] === 'cancel') return cancelQueued(argv.slice(1));
  const { values } = parseFlags({
    args: argv,
    strict: true,
    options: { ...FLEET_OPTIONS, ...MEASURE_OPTIONS, ...RUN_OPTIONS },
  });
  const thresholds = values.thresholds ? readThresholds(values.thresholds) : undefined;
  const allocation = asUsage((): FleetRequest['allocation'] => {
    const job =
      values.jobid ??
      (values.nodes === undefined && values.nodelist === undefined ? process.env.SLURM_JOB_ID : undefined);
    if (job !== undefined) {
      if (values.nodes !== undefined || values.nodelist !== undefined || values.partition !== undefined)
        throw new Error('--jobid uses an allocation as it is: leave out --nodes, --nodelist and --partition');
      return { job: checkJobId(job) };
    }
    if (values.nodes === undefined && values.nodelist === undefined)
      throw new Error(
        'say which nodes: --nodes N (with --partition P), --nodelist LIST, or --jobid J for an allocation you hold (inside one, $SLURM_JOB_ID is used)',
      );
    const request: AllocationRequest = {
      ...(values.nodes !== undefined ? { nodes: int('nodes', values.nodes, 0) } : {}),
      ...(values.partition !== undefined ? { partition: checkSlurmName('--partition', values.partition) } : {}),
      ...(values.nodelist !== undefined ? { nodelist: checkSlurmName('--nodelist', values.nodelist) } : {}),
      ...(values.time !== undefined ? { timeMinutes: int('time', values.time, 0) } : {}),
      ...(values.account !== undefined ? { account: checkSlurmName('--account', values.account) } : {}),
    };
    // salloc's arguments made now, so a bad count or time limit is said before anything starts.
    allocationArgs(request);
    return request;
  });
  const parallel = int('parallel', values.parallel, DEFAULT_PARALLEL);
  if (parallel < 1 || parallel > 1024)
    throw new UsageError(`--parallel must be a whole number in 1..1024 (got ${parallel})`);
  // Every node's sweep at the node's default pair (the nodes' GPUs need not be numbered alike).
  const sweep = sweepOptionsOf(values, []);
  const matrix = values.matrix
    ? matrixOptionsOf(values, { flag: 'matrix-size', text: values['matrix-size'] }, false)
    : undefined;

  const helper = helperOption(values);
  const stallTimeoutS = stallTimeout(values);
  if (values.queue) {
    if (matrix) throw new UsageError('--queue runs the sweep only: leave out --matrix (or run the fleet live)');
    if (values.target && values.target !== 'local')
      throw new UsageError('--queue submits from the login node itself: run sdma-lens there, without --target');
    if ('job' in allocation)
      throw new UsageError('--queue asks for a new allocation: give --nodes or --nodelist, not --jobid');
    return queue(allocation, sweepCommand(sweep), values, helper, signal);
  }
  const conn = sshConnection(values);
  const base: Target = conn ? new SshTarget(conn) : new LocalTarget();
  const store = storeOf(values);
  const fleets = new FleetStore(store.root);
  const say = (text: string) => process.stderr.write(`sdma-lens: ${terminalLine(text)}\n`);
  try {
    const result = await runFleet(
      {
        allocation,
        parallel,
        commands: {
          sweep: sweepCommand(sweep),
          ...(matrix ? { matrix: matrixCommand(matrix) } : {}),
        },
      },
      {
        base,
        helpers: cliHelpers(helper),
        store,
        fleets,
        signal,
        stallTimeoutS,
        onEvent: (e) => {
          if (e.kind === 'queued') say(`queued as Slurm job ${e.job}; waiting for the nodes (Ctrl+C cancels it)`);
          if (e.kind === 'allocated') say(`job ${e.job}: ${e.nodes.length} nodes (${e.nodes.join(',')})`);
          if (e.kind === 'node-end')
            say(`${e.node}: ${e.command} ${e.status}${e.message ? ` (${e.message})` : ''} [${e.done}/${e.total}]`);
          if (e.kind === 'releasing') say(`job ${e.job} cancelled; waiting for Slurm to stop listing it (${e.state})`);
          if (e.kind === 'released' && e.gone) say(`allocation ${e.job} given back: Slurm no longer lists it`);
        },
        onLog: (level, text) => (level === 'error' || level === 'warn') && say(text),
      },
    );
    const view = fleetView(result.index, result.runs, thresholds);
    await printStreamed(view, values.json === true, result.file, signal);
    if (result.index.status === 'cancelled') return 130;
    return exitCode(view, values['fail-on-outliers'] === true);
  } catch (err) {
    // Slurm said no (a partition that is not there, a job that is gone, no Slurm at all): its words, exit 1.
    if (!(err instanceof SlurmError)) throw err;
    say(signal.aborted ? `cancelled: ${err.message}` : err.message);
    return signal.aborted ? 130 : 1;
  } finally {
    await conn?.close();
  }
}

async function queue(
  allocation: AllocationRequest,
  sweep: HelperCommand,
  values: { 'runs-dir'?: string; json?: boolean },
  helper: string | undefined,
  signal: AbortSignal,
): Promise<number> {
  const fleets = new FleetStore(storeOf(values).root);
  try {
    const index = await queueFleet(allocation, sweep, {
      base: new LocalTarget(),
      helpers: cliHelpers(helper),
      fleets,
      signal,
    });
    if (values.json)
      process.stdout.write(
        `${jsonText({ fleet: index.id, job: index.slurm.job, status: index.status, fleetFile: fleets.fileOf(index.id) }, 2)}\n`,
      );
    else {
      const lines = [
        `# fleet ${index.id}: queued as Slurm job ${index.slurm.job}`,
        `# collect it once it has run: sdma-lens fleet collect ${index.id} (--wait to wait for it); cancel: sdma-lens fleet cancel ${index.id}`,
        `# saved: ${fleets.fileOf(index.id)}`,
      ];
      process.stdout.write(`${lines.map(terminalLine).join('\n')}\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof SlurmError)) throw err;
    process.stderr.write(`sdma-lens: ${terminalLine(err.message)}\n`);
    return 1;
  }
}

/** The newest queued fleet, when no id is given. */
function queuedId(fleets: FleetStore, given: string | undefined): string {
  if (given !== undefined) return given;
  const id = fleets.list().find((f) => {
    try {
      return fleets.read(f).status === 'queued';
    } catch {
      return false;
    }
  });
  if (id === undefined)
    throw new UsageError(`no queued fleet in ${fleets.root} (queue one with: sdma-lens fleet --queue --nodes N)`);
  return id;
}

async function collect(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      json: RUN_OPTIONS.json,
      'runs-dir': RUN_OPTIONS['runs-dir'],
      wait: { type: 'boolean', default: false },
      thresholds: FLEET_OPTIONS.thresholds,
      'fail-on-outliers': FLEET_OPTIONS['fail-on-outliers'],
    },
  });
  if (positionals.length > 1) throw new UsageError('fleet collect takes at most one fleet id');
  const thresholds = values.thresholds ? readThresholds(values.thresholds) : undefined;
  const store = storeOf(values);
  const fleets = new FleetStore(store.root);
  const id = queuedId(fleets, positionals[0]);
  try {
    const result = await collectFleet(id, {
      base: new LocalTarget(),
      helpers: cliHelpers(undefined),
      fleets,
      store,
      signal,
      wait: values.wait,
    });
    if (result.kind === 'waiting') {
      process.stderr.write(
        `sdma-lens: ${terminalLine(`job ${result.index.slurm.job} of fleet ${id} is ${result.state}; collect it when it has ended (or add --wait)`)}\n`,
      );
      return signal.aborted ? 130 : 3;
    }
    const view = fleetView(result.index, result.runs, thresholds);
    await printStreamed(view, values.json === true, result.file, signal);
    return result.index.status === 'cancelled' ? 130 : exitCode(view, values['fail-on-outliers'] === true);
  } catch (err) {
    if (!(err instanceof SlurmError)) throw err;
    process.stderr.write(`sdma-lens: ${terminalLine(err.message)}\n`);
    return 1;
  }
}

async function cancelQueued(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { 'runs-dir': RUN_OPTIONS['runs-dir'] },
  });
  if (positionals.length > 1) throw new UsageError('fleet cancel takes at most one fleet id');
  const fleets = new FleetStore(storeOf(values).root);
  const id = queuedId(fleets, positionals[0]);
  try {
    const index = await cancelQueuedFleet(id, { base: new LocalTarget(), helpers: cliHelpers(undefined), fleets });
    const r = index.slurm.released;
    const left =
      r && !r.gone
        ? ` but still listed as ${r.state} after ${(r.waitedMs / 1000).toFixed(0)} s`
        : ', gone from the queue';
    process.stdout.write(
      `${terminalLine(`# fleet ${index.id}: Slurm job ${index.slurm.job} cancelled${left}; what its nodes wrote: sdma-lens fleet collect ${index.id}`)}\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof SlurmError)) throw err;
    process.stderr.write(`sdma-lens: ${terminalLine(err.message)}\n`);
    return 1;
  }
}

function readThresholds(file: string): Thresholds {
  let text: string;
  try {
    text = readSafeFileSync(file, 'thresholds').toString('utf8');
  } catch (err) {
    throw new UsageError(
      `--thresholds: ${err instanceof SafeFileError ? err.message : `${file} could not be read: ${(err as Error).message}`}`,
    );
  }
  try {
    return parseThresholds(text, file);
  } catch (err) {
    throw new UsageError(`--thresholds ${(err as Error).message}`);
  }
}

/** 0: every node ok (and passed); 1: a node failed or failed a threshold (or an outlier, with --fail-on-outliers). */
function exitCode(view: FleetView, failOnOutliers: boolean): number {
  if (view.nodes.some((n) => n.status !== 'ok' || n.failures.length > 0)) return 1;
  if (failOnOutliers && view.outliers.length > 0) return 1;
  return 0;
}

function print(view: FleetView, json: boolean, file: string): void {
  if (json) process.stdout.write(`${jsonText({ ...view, fleetFile: file }, 2)}\n`);
  else process.stdout.write(`${fleetTable(view)}\n${terminalLine(`# saved: ${file}`)}\n`);
}

/** Pieces gathered into writes of about this many characters. */
const WRITE_CHARS = 64 * 1024;

/**
 * Writes `pieces` to stdout as the pipe takes them: after a write the pipe did not take whole,
 * the next waits for 'drain', so a slow reader never makes the output pile up in memory. Stops
 * (false) when stdout is gone (EPIPE: main.ts's watchOutput says so and sets the exit status)
 * or `signal` is aborted.
 */
export async function writePieces(
  pieces: Iterable<string>,
  signal: AbortSignal,
  out: NodeJS.WritableStream & { destroyed?: boolean } = process.stdout,
): Promise<boolean> {
  const gone = () => signal.aborted || out.destroyed === true;
  const put = async (text: string): Promise<boolean> => {
    if (gone()) return false;
    if (!out.write(text))
      await new Promise<void>((resolve) => {
        const done = () => {
          out.off('drain', done);
          out.off('error', done);
          out.off('close', done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        out.on('drain', done);
        out.on('error', done);
        out.on('close', done);
        signal.addEventListener('abort', done);
      });
    return !gone();
  };
  let parts: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    parts.push(piece);
    size += piece.length;
    if (size < WRITE_CHARS) continue;
    if (!(await put(parts.join('')))) return false;
    parts = [];
    size = 0;
  }
  return put(parts.join(''));
}

/** `print`, with the JSON written piece by piece as stdout takes it (`fleet show --json` of a large fleet). */
async function printStreamed(view: FleetView, json: boolean, file: string, signal: AbortSignal): Promise<void> {
  if (!json) return print(view, false, file);
  await writePieces(
    (function* () {
      yield* fleetJsonPieces(view, file);
      yield '\n';
    })(),
    signal,
  );
}

/**
 * The script of the fleet's reader threads: dist/fleetReader.js beside this bundle
 * (core/fleetRun/fleetReaderThread.ts). Run from the sources (a test), or where it is missing,
 * none: the nodes are read in-process.
 */
function readerScript(): string | undefined {
  if (typeof __filename !== 'string' || !/\.c?js$/.test(__filename)) return undefined;
  const script = join(dirname(__filename), 'fleetReader.js');
  return existsSync(script) ? script : undefined;
}

async function show(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      json: RUN_OPTIONS.json,
      'runs-dir': RUN_OPTIONS['runs-dir'],
      thresholds: FLEET_OPTIONS.thresholds,
      'fail-on-outliers': FLEET_OPTIONS['fail-on-outliers'],
    },
  });
  if (positionals.length > 1) throw new UsageError('fleet show takes at most one fleet id');
  const thresholds = values.thresholds ? readThresholds(values.thresholds) : undefined;
  const store = storeOf(values);
  const fleets = new FleetStore(store.root);
  let loaded;
  try {
    const script = readerScript();
    loaded = await loadFleet(store, fleets, positionals[0], { signal, ...(script ? { workers: { script } } : {}) });
  } catch (err) {
    if (signal.aborted) return 130;
    process.stderr.write(`sdma-lens: ${terminalLine((err as Error).message)}\n`);
    return 1;
  }
  for (const p of loaded.problems) process.stderr.write(`sdma-lens: ${terminalLine(p)}\n`);
  const view = judgeFleet(loaded.index, loaded.nodes, thresholds);
  await printStreamed(view, values.json === true, fleets.fileOf(loaded.index.id), signal);
  return exitCode(view, values['fail-on-outliers'] === true);
}
