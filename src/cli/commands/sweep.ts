/** `sdma-lens sweep`: a transfer sweep on this machine or an SSH node, printed as a table (or JSON) with its advice. */
import { adviseAllPairs, adviseFromRun } from '../../core/advice/advice';
import { adviceText } from '../../core/advice/adviceText';
import { allKnobs } from '../../core/advice/knobs';
import type { EndpointPair } from '../../core/endpoints';
import { pairName, parseEndpoint, parsePairList } from '../../core/endpoints';
import { LIMITS } from '../../core/limits';
import type { Run } from '../../core/run';
import { refinementStore } from '../../core/runs/refinements';
import { HelperError } from '../../core/runtime/helper';
import { checkPairsOnTopology } from '../../core/runtime/nodeInfo';
import type { SweepOptions } from '../../core/sweep/sweepOptions';
import { sweepCommand } from '../../core/sweep/sweepCommand';
import type { RefineResult } from '../../core/sweep/refine';
import { refineCrossovers, refineRoundCommand, refinementSummary, withRefinements } from '../../core/sweep/refine';
import { sweepTable } from '../../core/sweep/sweepTable';
import { sweepSeriesDimensions, sweepView } from '../../core/sweep/sweepView';
import { dimensionFields } from '../../core/seriesKey';
import { escapeControls, jsonText, terminalLine } from '../../core/text';
import { formatBytes } from '../../core/units';
import { SampleTable } from '../../core/sampleTable';
import { runOnConsole, savedLines } from '../console';
import { parseFlags } from '../flags';
import { sweepOptionsOf } from '../measure';
import type { RunValues } from '../options';
import { MEASURE_OPTIONS, RUN_OPTIONS, UsageError, asUsage, int, storeOf } from '../options';

export async function sweep(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseFlags({
    args: argv,
    strict: true,
    options: {
      sizes: { type: 'string' },
      src: { type: 'string' },
      dst: { type: 'string' },
      pairs: { type: 'string' },
      'timeline-size': { type: 'string' },
      'runtime-default': { type: 'boolean', default: false },
      'waves-per-cu': { type: 'string' },
      engines: { type: 'string' },
      batch: { type: 'string' },
      'shmem-sdma': { type: 'string' },
      refine: { type: 'boolean', default: false },
      'refine-tolerance': { type: 'string' },
      'refine-budget': { type: 'string' },
      ...MEASURE_OPTIONS,
      ...RUN_OPTIONS,
    },
  });
  const refine = values.refine ? refineOptions(values) : undefined;
  const options = sweepOptionsOf(values, sweepPairs(values));
  const gridStarted = Date.now();
  const ran = await runOnConsole(sweepCommand(options), {
    values,
    signal,
    // The advice printed after the table (and the refinement's focus) reads the knob catalog: parsed while the helper measures (scripts/build.mjs).
    ...(values.json && !refine ? {} : { whileRunning: allKnobs }),
    // Named endpoints are checked against the node's GPUs (`info`, inside the run flow) before anything is run or saved.
    ...(options.pairs.length > 0
      ? {
          nodeInfo: {
            backend: options.backend,
            ...(options.simGpus !== undefined ? { simGpus: options.simGpus } : {}),
          },
        }
      : {}),
    beforeStart: async ({ node }) => {
      if (!node) return;
      if ('error' in node)
        throw new HelperError(
          `the endpoints could not be checked: ${node.error.message}`,
          'Check that the helper runs on this node (sdma-probe info), or leave --src/--dst/--pairs out to sweep the node default.',
        );
      asUsage(() => checkPairsOnTopology(options.pairs, node.info.topology));
    },
  });
  if (!ran.run) return ran.code;
  const gridMs = Date.now() - gridStarted;
  const runFile = storeOf(values).fileOf(ran.run.header.id);
  let shown = ran.run;
  let refined: { result: RefineResult; gridMs: number } | undefined;
  let code = ran.code;
  if (refine && ran.code === 0) {
    const result = await refineOnConsole(ran.run, options, refine, values, signal);
    refined = { result, gridMs };
    shown = withRefinements(ran.run, result.runs);
    if (result.stopped === 'failed') code = 1;
  }
  if (values.json) {
    process.stdout.write(
      `${jsonText({ ...jsonResult(shown, runFile), ...(refined ? { refinement: refinementJson(ran.run, refined.result, refined.gridMs, refine!) } : {}) }, 2)}\n`,
    );
  } else {
    // The table's own line breaks stay; controls and bidi marks in the run's text do not reach the terminal.
    const out = [`${escapeControls(sweepTable(shown), { newlines: true })}\n`];
    if (refined) out.push(`${refinementText(ran.run, refined.result, refined.gridMs, refine!)}\n`);
    if (shown.samples.length > 0) for (const advice of adviseAllPairs(shown)) out.push(`#\n${adviceText(advice)}\n`);
    out.push(savedLines(runFile));
    // One write: the printout reaches stdout whole, in one system call where it fits.
    process.stdout.write(out.join(''));
  }
  return code;
}

interface RefineFlags {
  tolerance: number;
  budgetMs: number;
}

function refineOptions(values: { 'refine-tolerance'?: string; 'refine-budget'?: string }): RefineFlags {
  const t = values['refine-tolerance'] === undefined ? 0.1 : Number(values['refine-tolerance']);
  if (!Number.isFinite(t) || t < 0.01 || t > 0.5)
    throw new UsageError(`--refine-tolerance must be a fraction in 0.01..0.5 (got "${values['refine-tolerance']}")`);
  const budget = int('refine-budget', values['refine-budget'], 300);
  if (budget < 1 || budget > 86_400)
    throw new UsageError(`--refine-budget must be a whole number of seconds in 1..86400 (got ${budget})`);
  return { tolerance: t, budgetMs: budget * 1000 };
}

/** Rounds of probes through the run flow, each saved in the sweep's own folder, said on stderr as they go. */
async function refineOnConsole(
  grid: Run,
  options: SweepOptions,
  flags: RefineFlags,
  values: RunValues,
  signal: AbortSignal,
): Promise<RefineResult> {
  const focus = adviseFromRun(grid).focus;
  const cus = Object.fromEntries(focus.map((c) => [c.initiator, c.cus]));
  const store = refinementStore(storeOf(values), grid.header.id);
  return refineCrossovers(
    grid,
    {
      tolerance: flags.tolerance,
      budgetMs: flags.budgetMs,
      cus,
      iters: options.iters,
      maxIters: Math.min(LIMITS.itersMax, options.iters * 16),
    },
    async (probe, round) => {
      process.stderr.write(
        `sdma-lens: refine round ${round}: ${probe.initiator}-initiated ${pairName(probe.pair)} at ${probe.sizes.map(formatBytes).join(', ')} (${probe.iters} repetitions)\n`,
      );
      const probeOptions: SweepOptions = {
        ...options,
        sizes: probe.sizes,
        paths: [...probe.paths],
        cus: [probe.cus],
        iters: probe.iters,
        pairs: [probe.pair],
      };
      delete probeOptions.timelineSizeBytes;
      delete probeOptions.fault;
      const roundOutcome = await runOnConsole(refineRoundCommand(probeOptions, round, grid.header.id), {
        values,
        signal,
        store,
        quiet: true,
      });
      if (!roundOutcome.run)
        return {
          ...grid,
          samples: new SampleTable(),
          end: {
            type: 'run-end',
            status: 'cancelled',
            exitCode: null,
            signal: null,
            message: 'the round did not start',
            endedAt: new Date().toISOString(),
          },
        };
      return roundOutcome.run;
    },
  );
}

function refinementText(grid: Run, r: RefineResult, gridMs: number, flags: RefineFlags): string {
  const { summary, crossovers } = refinementSummary(grid, r, gridMs, flags.tolerance);
  return [`# ${summary}`, ...crossovers.map((c) => `#   ${c}`), ...r.runs.map((x) => `#   round run: ${x.header.id}`)]
    .map(terminalLine)
    .join('\n');
}

function refinementJson(grid: Run, r: RefineResult, gridMs: number, flags: RefineFlags) {
  const { summary, crossovers, estimate } = refinementSummary(grid, r, gridMs, flags.tolerance);
  return {
    summary,
    crossovers,
    rounds: r.rounds,
    stopped: r.stopped,
    newSamples: r.samples.length,
    elapsedMs: r.elapsedMs,
    gridMs,
    fullGridEstimateMs: estimate?.ms ?? null,
    runs: r.runs.map((x) => x.header.id),
  };
}

/** The endpoint pairs the flags name: --src/--dst (both), or --pairs; none: the node's default. */
export function sweepPairs(values: { src?: string; dst?: string; pairs?: string }): EndpointPair[] {
  const one = values.src !== undefined || values.dst !== undefined;
  if (one && values.pairs !== undefined)
    throw new UsageError(
      '--pairs cannot be combined with --src/--dst: give every pair in --pairs (e.g. --pairs host:0,0:1)',
    );
  if (values.pairs !== undefined) {
    try {
      return parsePairList(values.pairs);
    } catch (err) {
      throw new UsageError(`--pairs: ${(err as Error).message}`);
    }
  }
  if (!one) return [];
  if (values.src === undefined || values.dst === undefined)
    throw new UsageError(
      `--${values.src === undefined ? 'dst' : 'src'} needs --${values.src === undefined ? 'src' : 'dst'} too: name both endpoints (a GPU index or host), or use --pairs`,
    );
  const endpoint = (flag: string, text: string) => {
    try {
      return parseEndpoint(text);
    } catch (err) {
      throw new UsageError(`--${flag}: ${(err as Error).message}`);
    }
  };
  const pair = { src: endpoint('src', values.src), dst: endpoint('dst', values.dst) };
  if (pair.src === -1 && pair.dst === -1)
    throw new UsageError('--src host --dst host is not a GPU copy: at least one endpoint must be a GPU');
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
    series: view.series.map((s) => ({
      path: s.path,
      src: s.src,
      dst: s.dst,
      pair: pairName(s),
      cus: s.cus,
      ...(s.series ? { series: s.series } : {}),
      // The seed's dimensions, each only where not the default (a run saved before them has none).
      ...dimensionFields(sweepSeriesDimensions(s)),
      points: s.points.map((p) => ({
        sizeBytes: p.sizeBytes,
        gbps: p.gbps,
        meanNs: p.meanNs,
        ...(p.mover ? { mover: p.mover } : {}),
        // What moved the bytes (null: not recorded); `flagged` when it contradicts the label.
        evidence: p.evidence
          ? {
              source: p.evidence.source,
              observed: p.evidence.observed,
              verdict: p.evidence.verdict,
              detail: p.evidence.detail,
              word: p.evidence.word,
            }
          : null,
        ...(p.evidence?.state === 'contradicts' ? { flagged: true } : {}),
      })),
    })),
    unsupported: view.unsupported,
    problems: view.problems,
  };
}
