/**
 * Refining a sweep's crossovers by measurement: where the engine path overtakes the
 * load/store path between two measured sizes, measure the size halfway between them (in
 * log2 size) and repeat until the crossing is placed within a tolerance or a time budget
 * runs out. Where too few repetitions were taken to judge the spreads, the next round
 * measures with more. Each round is a run of its own (its header's
 * `refines` names the sweep), saved inside the sweep's folder, so the runs folder lists the
 * sweep once and the sweep opens with its refined points.
 *
 * Pure apart from `runProbe`, which the caller supplies (the CLI and the extension run the
 * helper through the run flow).
 */
import type { EndpointPair } from '../endpoints';
import { pairName } from '../endpoints';
import type { Crossover } from '../advice/crossover';
import type { DimensionChoice } from '../advice/crossover';
import { MIN_REPETITIONS, crossoverAt, indexSamples } from '../advice/crossover';
import { pairSeriesKey } from '../seriesKey';
import { standsForItsPath } from '../moverEvidence';
import type { Initiator, PathName, Sample } from '../protocol';
import { pathName } from '../protocol';
import type { Run } from '../run';
import type { BackendChoice } from '../backendChoice';
import { BACKEND_CHOICES } from '../backendChoice';
import type { SweepOptions } from './sweepOptions';
import type { SweepCommand } from './sweepCommand';
import { sweepCommand } from './sweepCommand';
import { formatBytes } from '../units';

export interface RefineOptions {
  /** The crossing is placed when it is known within ±tolerance (0.1: ±10%). */
  tolerance: number;
  /** Stop starting rounds after this many milliseconds of refinement. */
  budgetMs: number;
  /** The CU count of the load/store path to compare with, per initiator (the advice's focus). */
  cus: Partial<Record<Initiator, number>>;
  /** Repetitions of a probe; doubled where the spreads overlap (at most maxIters). */
  iters: number;
  maxIters: number;
  /** Most rounds, whatever the budget. */
  maxRounds?: number;
  /** The waves per CU the crossovers compare at (advice's `wavesPerCu`; absent or 0: the default threads). */
  wavesPerCu?: number;
}

/** One more measurement: the engine and load/store paths of an initiator at new sizes, on one pair. */
export interface Probe {
  initiator: Initiator;
  pair: EndpointPair;
  paths: [PathName, PathName];
  cus: number;
  /** The load/store series' waves per CU where the crossover compared one that names them (absent: the default threads). */
  wavesPerCu?: number;
  sizes: number[];
  iters: number;
}

/** Where one crossover stands after refinement. */
export interface RefinedCrossover {
  pair: EndpointPair;
  initiator: Initiator;
  crossover: Crossover;
  /** Placed within the tolerance (the two sizes around the crossing close enough and the spreads apart). */
  placed: boolean;
  /** Why not, when not. */
  reason?: string;
}

export interface RefineResult {
  rounds: number;
  /** The runs the rounds made, in order (each a genuine helper run). */
  runs: Run[];
  /** Every sample the rounds added. */
  samples: Sample[];
  elapsedMs: number;
  crossovers: RefinedCrossover[];
  /** Why it stopped: every crossover placed, the budget, the round limit, or a round that failed. */
  stopped: 'placed' | 'budget' | 'rounds' | 'failed' | 'nothing-to-refine';
  /** A round that did not end well, with its run's message. */
  failure?: string;
}

/** The folder inside a sweep's run folder where its refinement rounds are saved. */
export const REFINEMENTS_DIR = 'refinements';

/** Sizes a probe may use: whole multiples of 256 bytes (the copy kernels' natural grain), of 4 below 64 KiB where 256 is too coarse. */
const GRAIN = 256;
const grainOf = (size: number) => (size < 64 * 1024 ? 4 : GRAIN);
const onGrain = (size: number) => Math.max(4, Math.round(size / grainOf(size)) * grainOf(size));

/** The size halfway between two in log2, on the grain; undefined when no such size lies strictly between them. */
export function midSize(lo: number, hi: number): number | undefined {
  const mid = onGrain(2 ** ((Math.log2(lo) + Math.log2(hi)) / 2));
  return mid > lo && mid < hi ? mid : undefined;
}

/** The bracket ratio hi/lo within which a crossing counts as placed within ±tolerance. */
export function placedRatio(tolerance: number): number {
  return (1 + tolerance) / (1 - tolerance);
}

/** The samples of each pair, the pairs in the order first measured: one pass. */
function byPair(samples: readonly Sample[]): { pair: EndpointPair; samples: Sample[] }[] {
  const pairs = new Map<string, { pair: EndpointPair; samples: Sample[] }>();
  for (const s of samples) {
    // Crossovers are of the helper's own paths, by samples whose label stands.
    if (!standsForItsPath(s)) continue;
    const key = `${s.src}:${s.dst}`;
    const group = pairs.get(key);
    if (group) group.samples.push(s);
    else pairs.set(key, { pair: { src: s.src, dst: s.dst }, samples: [s] });
  }
  return [...pairs.values()];
}

/**
 * What makes a sample the same point as another: its series' whole key (path, CUs, waves, split,
 * batch, rocSHMEM SDMA mode, runtime default) with its pair, the size, and (optionally) the timing mode.
 */
export const pointKey = (s: Sample, withMode: boolean) =>
  `${s.sizeBytes}|${pairSeriesKey(s)}${withMode ? `|${s.mode ?? 'pipelined'}` : ''}`;

/** Each pair and initiator that has both paths measured, with its crossover at the chosen CU count. */
export function crossoversOf(
  samples: readonly Sample[],
  cus: RefineOptions['cus'],
  choice: DimensionChoice = {},
): { pair: EndpointPair; initiator: Initiator; crossover: Crossover }[] {
  const out: { pair: EndpointPair; initiator: Initiator; crossover: Crossover }[] = [];
  for (const { pair, samples: mine } of byPair(samples)) {
    for (const initiator of ['host', 'device'] as const) {
      const n = cus[initiator];
      if (n === undefined) continue;
      // The series compared are crossover.ts's choice: the default dimensions (or the nearest measured).
      const index = indexSamples(mine, choice);
      const hasEngine = index[initiator].engineBySize.size > 0;
      const hasCu = index[initiator].cuByCus.has(n);
      if (hasEngine && hasCu) out.push({ pair, initiator, crossover: crossoverAt(index, initiator, n) });
    }
  }
  return out;
}

/**
 * The two measured sizes around the crossing: the last one the engine did not win and the
 * first from which it stays ahead; and, where the medians cross further down (among sizes whose
 * spreads overlap), the two sizes around that crossing. Both are narrowed: the first places
 * where the engine surely leads, the second the estimate itself.
 */
function brackets(c: Crossover): [number, number][] | undefined {
  if (c.kind !== 'crossover' || c.fromBytes === undefined) return undefined;
  const i = c.verdicts.findIndex((v) => v.sizeBytes === c.fromBytes);
  if (i <= 0) return undefined;
  const lead: [number, number] = [c.verdicts[i - 1]!.sizeBytes, c.fromBytes];
  const est = c.estimateBracket;
  return est && est[0] < est[1] && (est[0] !== lead[0] || est[1] !== lead[1]) ? [lead, est] : [lead];
}

/**
 * Whether a crossover is placed within the tolerance, and if not why; with the probe that
 * would narrow it. Placed means the two measured sizes around the crossing are within the
 * tolerance of each other, and so are the two the medians cross between. At the crossing
 * itself the two paths take nearly the same time, so their spreads overlap there however
 * often it is measured; more repetitions are asked only where too few were taken to judge a
 * spread at all.
 */
export function judge(
  c: Crossover,
  o: Pick<RefineOptions, 'tolerance'>,
): { placed: boolean; reason?: string; sizes?: number[]; moreIters?: boolean } {
  const all = brackets(c);
  if (!all)
    return {
      placed: false,
      reason: c.kind === 'crossover' ? 'no bracketing sizes' : `no crossover to refine (${c.kind})`,
    };
  const fewReps = c.repetitions < MIN_REPETITIONS;
  const wide = all.filter(([lo, hi]) => hi / lo > placedRatio(o.tolerance));
  if (wide.length === 0 && !fewReps) return { placed: true };
  const mids = wide.map(([lo, hi]) => midSize(lo, hi)).filter((m): m is number => m !== undefined);
  if (mids.length > 0)
    return {
      placed: false,
      reason: wide.map(([lo, hi]) => `between ${formatBytes(lo)} and ${formatBytes(hi)}`).join(', '),
      sizes: [...new Set(mids)].sort((a, b) => a - b),
      moreIters: fewReps,
    };
  const [lo, hi] = wide[0] ?? all[0]!;
  if (fewReps)
    return { placed: false, reason: `only ${c.repetitions} repetitions around it`, sizes: [lo, hi], moreIters: true };
  return { placed: false, reason: `no size on the probe grain lies between ${formatBytes(lo)} and ${formatBytes(hi)}` };
}

const choiceOf = (o: RefineOptions): DimensionChoice =>
  o.wavesPerCu !== undefined && o.wavesPerCu > 0 ? { wavesPerCu: o.wavesPerCu } : {};

/** Runs rounds of probes until every crossover is placed, the budget is spent or a round fails. */
export async function refineCrossovers(
  run: Run,
  o: RefineOptions,
  runProbe: (probe: Probe, round: number) => Promise<Run>,
  now: () => number = Date.now,
): Promise<RefineResult> {
  const started = now();
  // By point: a re-measured size replaces what was there (and moves to the end).
  const added = new Map<string, Sample>();
  const runs: Run[] = [];
  let rounds = 0;
  const iters = new Map<string, number>();
  const maxRounds = o.maxRounds ?? 12;
  const all = () => [...run.samples, ...added.values()];
  const result = (stopped: RefineResult['stopped'], failure?: string): RefineResult => ({
    rounds,
    runs,
    samples: [...added.values()],
    elapsedMs: now() - started,
    crossovers: crossoversOf(all(), o.cus, choiceOf(o)).map(({ pair, initiator, crossover }) => {
      const j = judge(crossover, o);
      return { pair, initiator, crossover, placed: j.placed, ...(j.reason ? { reason: j.reason } : {}) };
    }),
    stopped,
    ...(failure ? { failure } : {}),
  });

  const found = crossoversOf(all(), o.cus, choiceOf(o));
  if (found.every((x) => judge(x.crossover, o).reason?.startsWith('no crossover') ?? true))
    return result('nothing-to-refine');
  for (let round = 1; round <= maxRounds; round++) {
    const probes: Probe[] = [];
    for (const { pair, initiator, crossover } of crossoversOf(all(), o.cus, choiceOf(o))) {
      const j = judge(crossover, o);
      if (j.placed || !j.sizes) continue;
      const key = `${pairName(pair)} ${initiator}`;
      const n = j.moreIters ? Math.min(o.maxIters, (iters.get(key) ?? o.iters) * 2) : (iters.get(key) ?? o.iters);
      iters.set(key, n);
      probes.push({
        initiator,
        pair,
        paths: [pathName('engine', initiator), pathName('cu', initiator)],
        cus: crossover.cus,
        ...(crossover.wavesPerCu !== undefined ? { wavesPerCu: crossover.wavesPerCu } : {}),
        sizes: j.sizes,
        iters: n,
      });
    }
    if (probes.length === 0) return result('placed');
    if (now() - started >= o.budgetMs) return result('budget');
    rounds = round;
    for (const probe of probes) {
      const r = await runProbe(probe, round);
      runs.push(r);
      if (r.end?.status !== 'ok') return result('failed', r.end?.message ?? 'the round did not finish');
      // A re-measured size replaces what was there: the later, longer measurement decides.
      for (const s of r.samples) {
        const key = pointKey(s, false);
        added.delete(key);
        added.set(key, s);
      }
    }
  }
  return result(
    crossoversOf(all(), o.cus, choiceOf(o)).every((x) => judge(x.crossover, o).placed) ? 'placed' : 'rounds',
  );
}

/**
 * The sweep with its refinement rounds: their samples join the sweep's (a size measured
 * again in a round replaces the grid's), and `refinedSamples` says which they are.
 */
export function withRefinements(run: Run, rounds: readonly Run[]): Run & { refinedSamples: Sample[] } {
  // By point, the last round's measurement of each (moved to the end when measured again).
  const byPoint = new Map<string, Sample>();
  for (const r of rounds) {
    for (const s of r.samples) {
      const key = pointKey(s, true);
      byPoint.delete(key);
      byPoint.set(key, s);
    }
  }
  const refined = [...byPoint.values()];
  // The grid's points not measured again, then the rounds', in order of size (stably): done on
  // the columns, so a sweep of a million points is reordered without building its samples.
  const kept: number[] = [];
  if (byPoint.size === 0) for (let i = 0; i < run.samples.length; i++) kept.push(i);
  else run.samples.forEach((x, i) => byPoint.has(pointKey(x, true)) || kept.push(i));
  const samples = run.samples.select(kept);
  for (const r of refined) samples.push(r);
  const sizes = samples.numbersOf('sizeBytes');
  let sorted = true;
  for (let i = 1; i < sizes.length && sorted; i++) sorted = sizes[i - 1]! <= sizes[i]!;
  if (sorted) return { ...run, samples, refinedSamples: refined };
  const order = Array.from(sizes.keys()).sort((a, b) => sizes[a]! - sizes[b]! || a - b);
  return { ...run, samples: samples.select(order), refinedSamples: refined };
}

/**
 * Milliseconds a uniform grid would take to place every crossing within the same tolerance:
 * the grid's own time per point, times the points a log-spaced grid over the measured range
 * needs at a spacing of placedRatio(tolerance), for the grid's paths, CU counts and pairs.
 */
export function fullGridEstimateMs(
  grid: Run,
  gridElapsedMs: number,
  tolerance: number,
): { ms: number; points: number } | undefined {
  const points = grid.samples.length;
  const sizes = [...new Set(grid.samples.map((s) => s.sizeBytes))].sort((a, b) => a - b);
  if (points === 0 || sizes.length < 2) return undefined;
  const fineSizes = Math.ceil(Math.log2(sizes.at(-1)! / sizes[0]!) / Math.log2(placedRatio(tolerance))) + 1;
  const finePoints = Math.round((points / sizes.length) * Math.max(fineSizes, sizes.length));
  return { ms: (gridElapsedMs / points) * finePoints, points: finePoints };
}

/** The sizes of such a uniform grid: from `lo` to `hi`, each `placedRatio(tolerance)` times the one before, on the grain. */
export function uniformGrid(lo: number, hi: number, tolerance: number): number[] {
  const n = Math.ceil(Math.log2(hi / lo) / Math.log2(placedRatio(tolerance)));
  const sizes = Array.from({ length: n + 1 }, (_, i) => onGrain(lo * (hi / lo) ** (i / n)));
  return [...new Set(sizes)];
}

/**
 * The sweep options of a probe: the sizes, paths, CU count, repetitions and pair it names,
 * on the backend, seed and simulated node of the sweep it refines (read from that run's
 * helper arguments, so a saved sweep can be refined later).
 */
export function probeOptions(gridArgs: readonly string[], probe: Probe): SweepOptions {
  const flag = (name: string) => {
    const i = gridArgs.indexOf(name);
    return i >= 0 ? gridArgs[i + 1] : undefined;
  };
  const whole = (name: string) => {
    const text = flag(name);
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const backend = flag('--backend');
  const simGpus = whole('--sim-gpus');
  const simDelayMs = whole('--sim-delay-ms');
  return {
    backend: backend && (BACKEND_CHOICES as readonly string[]).includes(backend) ? (backend as BackendChoice) : 'auto',
    sizes: probe.sizes,
    paths: [...probe.paths],
    cus: [probe.cus],
    // The same series as the crossover compared: its waves per CU (engine/device issued at them too).
    ...(probe.wavesPerCu !== undefined ? { wavesPerCu: [probe.wavesPerCu] } : {}),
    iters: probe.iters,
    seed: whole('--seed') ?? 1,
    pairs: [probe.pair],
    ...(simGpus !== undefined ? { simGpus } : {}),
    ...(simDelayMs !== undefined ? { simDelayMs } : {}),
  };
}

/** The helper command of refinement round `round` of the sweep `gridId`, measuring `options` (a probe's). */
export function refineRoundCommand(options: SweepOptions, round: number, gridId: string): SweepCommand {
  return sweepCommand(options, { idTag: `refine-${round}`, refines: gridId });
}

/** How a refinement went, in the words the CLI and the editor both use. */
export function refinementSummary(
  grid: Run,
  r: RefineResult,
  gridMs: number,
  tolerance: number,
): { summary: string; crossovers: string[]; estimate?: { ms: number; points: number } } {
  const estimate = fullGridEstimateMs(grid, gridMs, tolerance);
  const pct = Math.round(tolerance * 100);
  const placed = r.crossovers.filter((c) => c.placed).length;
  const why = {
    placed: 'every crossover placed',
    budget: 'the time budget ran out',
    rounds: 'the round limit was reached',
    failed: `a round failed: ${r.failure ?? ''}`,
    'nothing-to-refine': 'no crossover between two measured sizes to refine',
  }[r.stopped];
  const vs = estimate
    ? `; a uniform grid fine enough for ±${pct}% everywhere (${estimate.points} points) would take about ${(estimate.ms / 1000).toFixed(1)} s: grid and refinement took ${((100 * (gridMs + r.elapsedMs)) / estimate.ms).toFixed(0)}% of that`
    : '';
  const summary = `refinement: ${placed} of ${r.crossovers.length} crossovers placed within ±${pct}% in ${r.rounds} rounds (${r.samples.length} new samples, ${(r.elapsedMs / 1000).toFixed(1)} s; ${why}); the grid took ${(gridMs / 1000).toFixed(1)} s${vs}`;
  const crossovers = r.crossovers.map((c) => {
    const x = c.crossover;
    const at =
      x.estimateBytes !== undefined
        ? `crossing near ${formatBytes(Math.round(x.estimateBytes))}${x.rangeBytes ? `, between ${formatBytes(Math.round(x.rangeBytes[0]))} and ${formatBytes(Math.round(x.rangeBytes[1]))}` : ''}`
        : x.kind;
    return `${c.initiator}-initiated ${pairName(c.pair)} against ${x.cus} CUs: ${at}${c.placed ? '' : ` (not placed: ${c.reason})`}`;
  });
  return { summary, crossovers, ...(estimate ? { estimate } : {}) };
}
