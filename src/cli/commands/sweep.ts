/** `sdma-lens sweep`: a transfer sweep on this machine or an SSH node, printed as a table (or JSON) with its advice. */
import { parseArgs } from 'node:util';
import { adviseAllPairs } from '../../core/advice/advice';
import { adviceText } from '../../core/advice/adviceText';
import type { EndpointPair } from '../../core/endpoints';
import { pairName, parseEndpoint, parsePairList } from '../../core/endpoints';
import type { PathName } from '../../core/protocol';
import { PATHS } from '../../core/protocol';
import type { Run } from '../../core/run';
import { HelperError } from '../../core/runtime/helper';
import { checkPairsOnTopology, readNodeInfo } from '../../core/runtime/nodeInfo';
import type { BackendChoice, SweepOptions } from '../../core/sweep/sweepOptions';
import { DEFAULT_SWEEP, sweepArgs } from '../../core/sweep/sweepOptions';
import { sweepTable } from '../../core/sweep/sweepTable';
import { sweepView } from '../../core/sweep/sweepView';
import { parseSizeList } from '../../core/units';
import { runOnConsole, savedLines } from '../console';
import { MEASURE_OPTIONS, RUN_OPTIONS, UsageError, asUsage, int, list, storeOf } from '../options';

export async function sweep(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { sizes: { type: 'string' }, src: { type: 'string' }, dst: { type: 'string' }, pairs: { type: 'string' }, 'timeline-size': { type: 'string' }, ...MEASURE_OPTIONS, ...RUN_OPTIONS },
  });
  const options: SweepOptions = asUsage(() => {
    const o: SweepOptions = {
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
    sweepArgs(o);
    return o;
  });
  const timeline = options.timelineSizeBytes !== undefined;
  const ran = await runOnConsole(
    {
      command: 'sweep',
      idTag: options.backend,
      backend: options.backend,
      produces: timeline ? ['timeline.sdmatl'] : [],
      args: (out) => sweepArgs(timeline ? { ...options, timelineOut: out('timeline.sdmatl') } : options),
    },
    {
      values,
      signal,
      // Named endpoints are checked against the node's GPUs (`info`) before anything is run or saved.
      beforeStart: async (helper, target) => {
        if (options.pairs.length === 0) return;
        const info = await readNodeInfo(target, helper.path, options.backend, options.simGpus, signal).catch((err: Error) => {
          throw new HelperError(`the endpoints could not be checked: ${err.message}`, 'Check that the helper runs on this node (sdma-probe info), or leave --src/--dst/--pairs out to sweep the node default.');
        });
        asUsage(() => checkPairsOnTopology(options.pairs, info.topology));
      },
    },
  );
  if (!ran.run) return ran.code;
  const runFile = storeOf(values).fileOf(ran.run.header.id);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(jsonResult(ran.run, runFile), null, 2)}\n`);
  } else {
    process.stdout.write(`${sweepTable(ran.run)}\n`);
    if (ran.run.samples.length > 0) for (const advice of adviseAllPairs(ran.run)) process.stdout.write(`#\n${adviceText(advice)}\n`);
    process.stdout.write(savedLines(runFile));
  }
  return ran.code;
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
