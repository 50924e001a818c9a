/**
 * `sdma-lens`: the headless front on the same core as the extension, for batch jobs and
 * CI pipelines on clusters. It prints a table (or JSON with --json) and writes the same run
 * files the extension opens.
 */
import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AdviceOptions } from '../core/advice/advice';
import { adviseAllPairs, adviseFromRun, shellExports } from '../core/advice/advice';
import { adviceText } from '../core/advice/adviceText';
import type { EndpointPair } from '../core/endpoints';
import { pairName, parseEndpoint, parsePair, parsePairList } from '../core/endpoints';
import type { HelperInfo } from '../core/runtime/helper';
import { HelperError, bundledHelperPaths, locateHelper } from '../core/runtime/helper';
import { LocalTarget } from '../core/runtime/localTarget';
import { checkPairsOnTopology, readNodeInfo } from '../core/runtime/nodeInfo';
import type { PathName } from '../core/protocol';
import { PATHS } from '../core/protocol';
import type { Run, RunHeader } from '../core/run';
import { runHeader } from '../core/run';
import { RunFileError, RunStore, makeRunId } from '../core/runs/runStore';
import { runSession } from '../core/runtime/session';
import { SshConnection } from '../core/ssh/connection';
import { checkBackendOnNode, deployHelper } from '../core/ssh/deploy';
import { parseDestination } from '../core/ssh/destination';
import { fetchRemoteRunFile, makeRemoteRunDir, removeRemoteRunDir } from '../core/ssh/remoteFiles';
import type { SshSettings } from '../core/ssh/sshArgs';
import { DEFAULT_CONNECT_TIMEOUT_S, checkExtraArgs } from '../core/ssh/sshArgs';
import { SshTarget } from '../core/ssh/sshTarget';
import type { BackendChoice, SweepOptions } from '../core/sweep/sweepOptions';
import { DEFAULT_SWEEP, sweepArgs } from '../core/sweep/sweepOptions';
import { sweepTable } from '../core/sweep/sweepTable';
import type { MatrixOptions } from '../core/matrix/matrixOptions';
import { DEFAULT_MATRIX, matrixArgs } from '../core/matrix/matrixOptions';
import { matrixTable } from '../core/matrix/matrixTable';
import { matrixPageView } from '../core/matrix/matrixView';
import { parseSize } from '../core/units';
import { parseSizeList } from '../core/units';
import { sweepView } from '../core/sweep/sweepView';

const USAGE = `Usage: sdma-lens <command> [options]

Commands:
  sweep     run a transfer sweep (bandwidth vs message size for each path and CU count)
  matrix    measure a GPU x GPU bandwidth matrix per copy path (each ordered pair alone, or all at once)
  advise    suggest thresholds and NCCL_GIN_TYPE from a saved run (default: the newest)
  runs      list saved runs

Sweep options:
  --backend auto|sim|hip|cuda   helper backend (default auto: real GPUs when present, else sim)
  --sizes LIST                  message sizes, e.g. 4K,64K,1M,1G (default: 13 sizes 4 KiB..1 GiB)
  --paths LIST|all              cu/host,cu/device,engine/host,engine/device (default: all)
  --cus LIST                    CU counts for cu/* paths (default: 1,2,4,...,256)
  --iters N                     timed iterations per point (default 20)
  --seed N                      simulator seed (default 1)
  --src E --dst E               one endpoint pair; E = a GPU index or host (pinned host memory);
                                --src 0 --dst 0 is a GPU-local copy
  --pairs LIST                  several pairs, e.g. host:0,0:host,0:0 (not with --src/--dst);
                                default: 0:1 with 2+ GPUs, host:0,0:host,0:0 with one GPU
  --sim-gpus N                  simulated node's GPU count, 1..8 (sim backend; default 8)
  --timeline-size SIZE          also record a timeline at this size
  --json                        print the result as JSON instead of a table
  --target local|DEST           where the helper runs: this machine (default) or an SSH node,
                                DEST = user@host[:port] or a ~/.ssh/config alias; the helper is
                                found or built on the node (see docs/REMOTE.md)
  --ssh-config FILE             ssh config file for --target (default: the ssh client's own)
  --connect-timeout SECONDS     how long an SSH node may take to answer (default 10)

Matrix options (docs/MATRIX.md):
  --backend, --paths, --iters, --seed, --json, --target, --ssh-config, --connect-timeout as for sweep
  --size SIZE                   bytes per copy (default 256M)
  --cus N                       CUs of the cu/* paths (default 64, cut to the GPUs' CU count)
  --gpus LIST|all               endpoints to pair, e.g. 0,1,2,3 or host,0,1 (a host row and
                                column); default all GPUs, host,0 on a one-GPU node
  --sim-gpus N                  as for sweep
  --concurrent                  all pairs of a path at the same time (all-to-all): each pair's
                                GB/s under that load, per-GPU send/receive sums, the path's total

Advise options:
  advise [RUN_ID] [--pair SRC:DST] [--cus N] [--sizes LIST] [--rccl-version V] [--rocshmem-version V] [--json]
  --pair SRC:DST                the endpoint pair to advise on, e.g. host:0 (default: the run's
                                first GPU -> GPU pair, else its first pair)
  --cus N                       CUs your library's load/store path occupies (default 64)
  --sizes LIST                  your message sizes (default: the run's sizes)
  --rccl-version V              the node's RCCL version when the run did not detect it

Common options:
  --runs-dir DIR                where runs are saved (default .sdma-lens/runs)
  --helper PATH                 sdma-probe binary (default: $SDMA_LENS_HELPER, the bundled build, or build from source);
                                with --target, a path on the node
  -h, --help                    this text

Exit codes: 0 ok, 1 the run failed or crashed (the partial run is kept), 2 bad arguments, 130 cancelled.`;

class UsageError extends Error {}

function int(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} needs a whole number (got "${text}")`);
  return Number(text);
}

function list<T extends string>(text: string | undefined, fallback: T[]): T[] {
  return text === undefined ? fallback : (text.split(',').map((s) => s.trim()).filter(Boolean) as T[]);
}

const packageRoot = resolve(__dirname, '..');

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'sdma-lens');
}

async function findHelper(configured: string | undefined, signal: AbortSignal): Promise<HelperInfo> {
  return locateHelper({
    configuredPath: configured ?? process.env.SDMA_LENS_HELPER,
    bundledPaths: bundledHelperPaths(packageRoot),
    build: {
      sourceDir: join(packageRoot, 'native'),
      cacheDir: cacheDir(),
      onProgress: (m) => process.stderr.write(`sdma-lens: ${m}...\n`),
    },
    signal,
  });
}

/** Options of every command that runs the helper: where, with which helper, how to report. */
const RUN_OPTIONS = {
  json: { type: 'boolean', default: false },
  'runs-dir': { type: 'string' },
  helper: { type: 'string' },
  target: { type: 'string' },
  'ssh-config': { type: 'string' },
  'connect-timeout': { type: 'string' },
} as const;

/** What the helper measures with: shared by the sweep and the matrix. */
const MEASURE_OPTIONS = {
  backend: { type: 'string' },
  paths: { type: 'string' },
  cus: { type: 'string' },
  iters: { type: 'string' },
  seed: { type: 'string' },
  'sim-gpus': { type: 'string' },
  'sim-delay-ms': { type: 'string' },
  fault: { type: 'string' },
} as const;

/** 0 ok, 130 cancelled, 1 otherwise; anything but ok is said on stderr. */
function exitCodeOf(run: Run): number {
  const status = run.end?.status;
  if (status !== 'ok') process.stderr.write(`sdma-lens: ${status}: ${run.end?.message ?? ''}\n`);
  return status === 'ok' ? 0 : status === 'cancelled' ? 130 : 1;
}

async function sweep(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      sizes: { type: 'string' },
      src: { type: 'string' },
      dst: { type: 'string' },
      pairs: { type: 'string' },
      'timeline-size': { type: 'string' },
      ...MEASURE_OPTIONS,
      ...RUN_OPTIONS,
    },
  });
  let options: SweepOptions;
  try {
    options = {
      backend: (values.backend ?? DEFAULT_SWEEP.backend) as BackendChoice,
      sizes: values.sizes ? parseSizeList(values.sizes) : DEFAULT_SWEEP.sizes,
      paths: values.paths === 'all' ? [...PATHS] : list<PathName>(values.paths, DEFAULT_SWEEP.paths),
      cus: values.cus ? values.cus.split(',').map((c) => int('cus', c.trim(), 0)) : DEFAULT_SWEEP.cus,
      iters: int('iters', values.iters, DEFAULT_SWEEP.iters),
      seed: int('seed', values.seed, DEFAULT_SWEEP.seed),
      pairs: sweepPairs(values),
      ...(values['sim-gpus'] !== undefined ? { simGpus: int('sim-gpus', values['sim-gpus'], 0) } : {}),
      ...(values['timeline-size'] ? { timelineSizeBytes: parseSizeList(values['timeline-size'])[0]! } : {}),
      ...(values['sim-delay-ms'] ? { simDelayMs: int('sim-delay-ms', values['sim-delay-ms'], 0) } : {}),
      ...(values.fault ? { fault: values.fault } : {}),
    };
    sweepArgs(options);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }

  const conn = values.target && values.target !== 'local' ? sshConnection(values.target, values['ssh-config'], values['connect-timeout']) : undefined;
  try {
    return await sweepOn(conn, options, values, signal);
  } finally {
    // A batch job should leave no background ssh behind.
    await conn?.close();
  }
}

/** The endpoint pairs the flags name: --src/--dst (both), or --pairs; none: the node's default. */
export function sweepPairs(values: { src?: string; dst?: string; pairs?: string }): EndpointPair[] {
  const one = values.src !== undefined || values.dst !== undefined;
  if (one && values.pairs !== undefined) throw new UsageError('--pairs cannot be combined with --src/--dst: give every pair in --pairs (e.g. --pairs host:0,0:1)');
  if (values.pairs !== undefined) {
    try {
      return parsePairList(values.pairs);
    } catch (err) {
      throw new UsageError(`--pairs: ${(err as Error).message}`);
    }
  }
  if (!one) return [];
  if (values.src === undefined || values.dst === undefined) throw new UsageError(`--${values.src === undefined ? 'dst' : 'src'} needs --${values.src === undefined ? 'src' : 'dst'} too: name both endpoints (a GPU index or host), or use --pairs`);
  const endpoint = (flag: string, text: string) => {
    try {
      return parseEndpoint(text);
    } catch (err) {
      throw new UsageError(`--${flag}: ${(err as Error).message}`);
    }
  };
  const pair = { src: endpoint('src', values.src), dst: endpoint('dst', values.dst) };
  if (pair.src === -1 && pair.dst === -1) throw new UsageError('--src host --dst host is not a GPU copy: at least one endpoint must be a GPU');
  return [pair];
}

/** Checks named endpoints against the node's GPUs (`info`) before anything is run or saved. */
async function checkEndpointsOnNode(conn: SshConnection | undefined, helperPath: string, options: SweepOptions, signal: AbortSignal): Promise<void> {
  if (options.pairs.length === 0) return;
  const info = await readNodeInfo(conn ? new SshTarget(conn) : new LocalTarget(), helperPath, options.backend, options.simGpus, signal).catch((err: Error) => {
    throw new HelperError(`the endpoints could not be checked: ${err.message}`, 'Check that the helper runs on this node (sdma-probe info), or leave --src/--dst/--pairs out to sweep the node default.');
  });
  try {
    checkPairsOnTopology(options.pairs, info.topology);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function sshConnection(target: string, config: string | undefined, timeout: string | undefined): SshConnection {
  try {
    const settings: SshSettings = {
      connectTimeoutSeconds: int('connect-timeout', timeout, DEFAULT_CONNECT_TIMEOUT_S),
      extraArgs: config ? checkExtraArgs(['-F', config]) : [],
    };
    return new SshConnection(parseDestination(target), settings);
  } catch (err) {
    throw new UsageError(`--target: ${(err as Error).message}`);
  }
}

/** The helper on the node (found or built there) or on this machine. */
async function helperOn(conn: SshConnection | undefined, backend: BackendChoice, configured: string | undefined, signal: AbortSignal): Promise<{ path: string }> {
  if (!conn) return findHelper(configured, signal);
  const remote = await deployHelper(conn, {
    sourceDir: join(packageRoot, 'native'),
    configuredPath: configured ?? '',
    signal,
    onProgress: (m) => process.stderr.write(`sdma-lens: ${m}...\n`),
  });
  checkBackendOnNode(remote, backend);
  return remote;
}

/** One helper run on the target, reported on the console: progress on a terminal, warnings unless --json, errors always. */
async function consoleSession(conn: SshConnection | undefined, store: RunStore, header: RunHeader, json: boolean, signal: AbortSignal): Promise<Run> {
  const interactive = !json && process.stderr.isTTY;
  const run = await runSession({
    target: conn ? new SshTarget(conn) : new LocalTarget(),
    store,
    header,
    signal,
    onRecord: (_live, record) => {
      if (interactive && record.type === 'progress') process.stderr.write(`\r${record.done}/${record.total} `);
      if (record.type === 'warning' && !json) process.stderr.write(`${interactive ? '\n' : ''}warning: ${record.message}\n`);
    },
    onLog: (level, message) => {
      if (level === 'error') process.stderr.write(`${message}\n`);
    },
  });
  if (interactive) process.stderr.write('\r');
  return run;
}

async function sweepOn(conn: SshConnection | undefined, options: SweepOptions, values: { helper?: string; json?: boolean; 'runs-dir'?: string }, signal: AbortSignal): Promise<number> {
  const store = new RunStore(values['runs-dir'] ?? join(process.cwd(), '.sdma-lens', 'runs'));
  const id = makeRunId('sweep', options.backend);
  const helper = await helperOn(conn, options.backend, values.helper, signal);
  await checkEndpointsOnNode(conn, helper.path, options, signal);
  if (options.timelineSizeBytes !== undefined) options.timelineOut = conn ? `${await makeRemoteRunDir(conn, id)}/timeline.sdmatl` : join(store.dirOf(id), 'timeline.sdmatl');
  const run = await consoleSession(conn, store, runHeader(id, 'sweep', helper.path, sweepArgs(options), conn?.label), values.json === true, signal);
  if (await refusedByHelper(run, store, id)) {
    if (conn) await removeRemoteRunDir(conn, id).catch(() => {});
    return 2;
  }
  if (conn && options.timelineOut) {
    if (!(await fetchRemoteRunFile(conn, id, 'timeline.sdmatl', join(store.dirOf(id), 'timeline.sdmatl')).catch(() => false))) process.stderr.write(`sdma-lens: the timeline could not be copied from ${conn.label}\n`);
    await removeRemoteRunDir(conn, id).catch(() => {});
  }
  const runFile = store.fileOf(id);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(jsonResult(run, runFile), null, 2)}\n`);
  } else {
    process.stdout.write(`${sweepTable(run)}\n`);
    if (run.samples.length > 0) for (const advice of adviseAllPairs(run)) process.stdout.write(`#\n${adviceText(advice)}\n`);
    process.stdout.write(`# saved: ${runFile}\n`);
    process.stdout.write('# open it in VS Code: "SDMA Lens: Open Run" (or: code . then run that command)\n');
  }
  return exitCodeOf(run);
}

async function matrix(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      size: { type: 'string' },
      gpus: { type: 'string' },
      concurrent: { type: 'boolean' },
      ...MEASURE_OPTIONS,
      ...RUN_OPTIONS,
    },
  });
  let options: MatrixOptions;
  try {
    options = {
      backend: (values.backend ?? DEFAULT_MATRIX.backend) as BackendChoice,
      paths: values.paths === undefined || values.paths === 'all' ? DEFAULT_MATRIX.paths : list<PathName>(values.paths, DEFAULT_MATRIX.paths),
      sizeBytes: values.size ? parseSize(values.size) : DEFAULT_MATRIX.sizeBytes,
      iters: int('iters', values.iters, DEFAULT_MATRIX.iters),
      seed: int('seed', values.seed, DEFAULT_MATRIX.seed),
      ...(values.cus !== undefined ? { cus: int('cus', values.cus, 0) } : {}),
      ...(values.gpus !== undefined && values.gpus !== 'all' ? { gpus: matrixEndpoints(values.gpus) } : {}),
      ...(values['sim-gpus'] !== undefined ? { simGpus: int('sim-gpus', values['sim-gpus'], 0) } : {}),
      ...(values.concurrent ? { concurrent: true } : {}),
      ...(values['sim-delay-ms'] ? { simDelayMs: int('sim-delay-ms', values['sim-delay-ms'], 0) } : {}),
      ...(values.fault ? { fault: values.fault } : {}),
    };
    matrixArgs(options);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const conn = values.target && values.target !== 'local' ? sshConnection(values.target, values['ssh-config'], values['connect-timeout']) : undefined;
  try {
    const store = new RunStore(values['runs-dir'] ?? join(process.cwd(), '.sdma-lens', 'runs'));
    const id = makeRunId('matrix', options.backend);
    const helper = await helperOn(conn, options.backend, values.helper, signal);
    const run = await consoleSession(conn, store, runHeader(id, 'matrix', helper.path, matrixArgs(options), conn?.label), values.json === true, signal);
    if (await refusedByHelper(run, store, id)) return 2;
    const runFile = store.fileOf(id);
    if (values.json) {
      const view = matrixPageView(run);
      process.stdout.write(`${JSON.stringify({ runFile, ...view, message: run.end?.message ?? '' }, null, 2)}\n`);
    } else {
      process.stdout.write(`${matrixTable(run)}\n# saved: ${runFile}\n# open it in VS Code: "SDMA Lens: Open Run"\n`);
    }
    return exitCodeOf(run);
  } finally {
    await conn?.close();
  }
}

/**
 * The helper refused the arguments (its usage error, exit 2) before measuring anything: say
 * what it said and keep no run, so `advise` cannot pick an empty sweep.
 */
async function refusedByHelper(run: Run, store: RunStore, id: string): Promise<boolean> {
  if (run.end?.status !== 'error' || run.end.exitCode !== 2 || run.samples.length > 0 || (run.matrixCells?.length ?? 0) > 0) return false;
  process.stderr.write(`sdma-lens: the helper refused the arguments: ${run.end.message}\n`);
  await rm(store.dirOf(id), { recursive: true, force: true });
  return true;
}

function jsonResult(run: Run, runFile: string) {
  const view = sweepView(run);
  return {
    runId: view.runId,
    runFile,
    status: view.status,
    message: view.statusMessage,
    simulated: view.simulated,
    backend: view.backend,
    node: view.nodeLabel,
    src: view.src,
    dst: view.dst,
    pairs: view.pairs,
    series: view.series.map((s) => ({ path: s.path, src: s.src, dst: s.dst, pair: pairName(s), cus: s.cus, points: s.points.map((p) => ({ sizeBytes: p.sizeBytes, gbps: p.gbps, meanNs: p.meanNs })) })),
    unsupported: view.unsupported,
    problems: view.problems,
  };
}

/** `--gpus host,0,1`: GPU indices and `host`. */
export function matrixEndpoints(text: string): number[] {
  return text.split(',').map((g) => {
    try {
      return parseEndpoint(g);
    } catch (err) {
      throw new UsageError(`--gpus: ${(err as Error).message}`);
    }
  });
}

/** The newest sweep with samples: a sweep that measured nothing has nothing to advise on. */
async function newestSweepWithSamples(store: RunStore): Promise<string | undefined> {
  const candidates = (await store.list()).filter((r) => r.status !== 'corrupt' && r.header?.command === 'sweep').slice(0, 50);
  for (const r of candidates) {
    const run = await store.open(r.id).catch(() => undefined);
    if (run && run.samples.length > 0) return r.id;
  }
  return undefined;
}

async function advise(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      'runs-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
      cus: { type: 'string' },
      sizes: { type: 'string' },
      'rccl-version': { type: 'string' },
      'rocshmem-version': { type: 'string' },
      pair: { type: 'string' },
    },
  });
  if (positionals.length > 1) throw new UsageError('advise takes at most one run id');
  const store = new RunStore(values['runs-dir'] ?? join(process.cwd(), '.sdma-lens', 'runs'));
  const id = positionals[0] ?? (await newestSweepWithSamples(store));
  if (!id) {
    process.stderr.write(`sdma-lens: no sweep with samples in ${store.root}; run \`sdma-lens sweep\` first\n`);
    return 1;
  }
  const run = await store.open(id);
  let options: AdviceOptions;
  try {
    options = {
      ...(values.cus !== undefined ? { loadStoreCus: int('cus', values.cus, 64) } : {}),
      ...(values.sizes !== undefined ? { messageSizes: parseSizeList(values.sizes) } : {}),
      libraries: {
        ...(values['rccl-version'] ? { rccl: values['rccl-version'] } : {}),
        ...(values['rocshmem-version'] ? { rocshmem: values['rocshmem-version'] } : {}),
      },
      ...(values.pair !== undefined ? { pair: parsePair(values.pair) } : {}),
    };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (options.pair && !run.samples.some((s) => s.src === options.pair!.src && s.dst === options.pair!.dst)) {
    throw new UsageError(`--pair ${values.pair}: run ${id} has no samples for ${pairName(options.pair)} (it measured ${[...new Set(run.samples.map((s) => pairName(s)))].join(', ') || 'nothing'})`);
  }
  const advice = adviseFromRun(run, options);
  if (values.json) process.stdout.write(`${JSON.stringify({ runId: id, ...advice }, null, 2)}\n`);
  else process.stdout.write(`# run ${id}, ${advice.pairLabel}\n${adviceText(advice)}\n# shell:\n${shellExports(advice)}\n`);
  return 0;
}

async function runs(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, strict: true, options: { 'runs-dir': { type: 'string' }, json: { type: 'boolean', default: false } } });
  const store = new RunStore(values['runs-dir'] ?? join(process.cwd(), '.sdma-lens', 'runs'));
  const list = await store.list();
  if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else for (const r of list) process.stdout.write(`${r.id}  ${r.status}${r.error ? `  (${r.error})` : ''}\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    switch (command) {
      case 'sweep':
        return await sweep(rest, controller.signal);
      case 'matrix':
        return await matrix(rest, controller.signal);
      case 'advise':
        return await advise(rest);
      case 'runs':
        return await runs(rest);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`sdma-lens: ${(err as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof RunFileError) {
      process.stderr.write(`sdma-lens: ${err.message}\n`);
      return 1;
    }
    if (err instanceof HelperError) {
      process.stderr.write(`sdma-lens: ${err.message}\n  ${err.remedy}\n`);
      return 1;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
