/**
 * Two runs compared point by point against their noise: a driver, library or firmware
 * change, or two nodes, measured with the same sweep, matrix or collective sweep.
 *
 * Points are matched by what was measured, never by position: a sweep sample by path, endpoint
 * pair, size, CU count and timing mode; a matrix cell by path, pair and size; a collective
 * point by operation, variant, ranks, size, placement and data type.
 *
 * The ratio is B / A of bandwidth, so below 1 means B is slower. It is median-based where the
 * per-iteration times allow (a sample's times, a matrix cell's median); a side with a mean
 * only (a summary-only sample, a collective's average) is compared by its mean.
 *
 * The interval is a spread interval, the rule crossover.ts applies to two paths: each side's
 * spread is the interquartile range of its per-iteration times (min..max where a run kept only
 * those, as a matrix cell does), and the interval crosses them, A's fast end against B's slow
 * end and the reverse: [B slow / A fast, B fast / A slow] in bandwidth. It excludes 1 exactly
 * when the two spreads do not overlap, so "beyond noise" means every iteration in B's middle
 * half was slower (or faster) than every one in A's. It is not a confidence interval of the
 * median: it does not narrow with more iterations, so a long run does not turn a 0.1 % drift
 * into a finding. A side with fewer than MIN_REPETITIONS repetitions, or no per-iteration
 * times and no min..max, has no spread: the point gets its ratio and the verdict
 * "unknown noise".
 *
 * One run's spread does not see what changes between runs (clocks, placement, another
 * process), so the interval is widened by a run-to-run tolerance t before it is held against
 * 1: [low / (1 + t), high × (1 + t)] (noise.ts: given, estimated from A's repeats, or the
 * default measured in bench/results). A regression or improvement is a widened interval
 * that excludes 1.
 *
 * Pure and browser-safe: the CLI prints it and the compare panel draws it.
 */
import { pairKind, pairName } from '../endpoints';
import { evidenceWord, movedDifferently } from '../moverEvidence';
import type { CollectivePoint, MatrixCell, MoverEvidence, PathName, Sample } from '../protocol';
import type { ShmemSdma, SplitOver } from '../protocol';
import { COLLECTIVE_OPS, COLLECTIVE_VARIANTS, PATHS, SHMEM_SDMA, collectiveModeOf, pathName } from '../protocol';
import type { SeriesDimensions } from '../seriesKey';
import { DEFAULT_WAVE_SIZE, dimensionWords, pairSeriesKey, seriesDimensions } from '../seriesKey';
import type { Run } from '../run';
import { isSimulated, runStatus } from '../run';
import { MIN_REPETITIONS, quantile, sortedTimes } from '../advice/crossover';
import { formatBytes } from '../units';
import type { NoiseModel, PointValues, Tolerances } from './noise';
import { DEFAULT_TOLERANCE, estimated, groupLine, uniform } from './noise';

export type CompareKind = 'sweep' | 'matrix' | 'collective';
export const VERDICTS = ['regression', 'improvement', 'same', 'unknown noise'] as const;
export type PointVerdict = (typeof VERDICTS)[number];
/** quartiles: both sides' interquartile ranges; range: min..max on at least one side; none: a side has no spread. */
export const SPREADS = ['quartiles', 'range', 'none'] as const;
export type SpreadMethod = (typeof SPREADS)[number];

/** The method in words, for the table, the JSON and the panel. */
export const METHOD =
  'ratio = B / A of bandwidth (medians where the per-iteration times allow); [low, high] = B slow / A fast and B fast / A slow, ' +
  "from each run's spread: the interquartile range of its per-iteration times (min..max where a run kept only those); " +
  'regression or improvement: the interval widened by the run-to-run tolerance t, [low / (1 + t), high × (1 + t)], excludes 1, beyond noise.';

/** One run's measurement at a point. */
export interface Side {
  gbps: number;
  /** The bandwidth is size over the median per-iteration time, or over the mean (a summary, a collective's average). */
  basis: 'median' | 'mean';
  repetitions: number;
  /** The spread used, absent when the run gives none to judge. */
  spread?: 'quartiles' | 'range';
  /** Bandwidth at the spread's slow and fast ends. */
  gbpsLow?: number;
  gbpsHigh?: number;
  /** Why there is no spread. */
  noSpread?: string;
}

interface Located {
  /** Unique within the kind: the group and the size. */
  key: string;
  /** The curve the point lies on (everything but the size). */
  group: string;
  groupLabel: string;
  label: string;
  sizeBytes: number;
  /** A sweep point's curve dimensions (the table's columns); absent for matrix and collective points. */
  dimensions?: CurveDimensions;
}

export interface PointComparison extends Located {
  a: Side;
  b: Side;
  /** B / A of bandwidth. */
  ratio: number;
  /** [low, high] of the ratio from both spreads; absent when a side has none. */
  interval?: [number, number];
  /** The run-to-run tolerance t at this point (its path and size band where estimated). */
  tolerance: number;
  /** The interval widened by it, [low / (1 + t), high × (1 + t)]: what the verdict holds against 1. */
  widened?: [number, number];
  spread: SpreadMethod;
  verdict: PointVerdict;
  /** Unknown noise: which side lacks a spread, and why. */
  why?: string;
  /** Each run's mover evidence word at the point ("not recorded" for a side without); absent when neither run has any. */
  evidence?: { a: string; b: string };
  /**
   * The two runs' evidence says their bytes were moved differently (a different observed mover,
   * or one run's evidence contradicts its label): the sentence saying so. The ratio and verdict
   * stand as computed, but they are not a like-for-like change.
   */
  movedDifferently?: string;
}

/** A point only one run measured. */
export interface OnePoint extends Located {
  side: Side;
}

export interface RunInfo {
  id: string;
  createdAt: string;
  /** The node's model (and SSH host), as the other views name it. */
  node: string;
  status: string;
  simulated: boolean;
  /** Where an imported run came from (header.source): tool and file. */
  source?: string;
}

export interface CompareSummary {
  common: number;
  regressions: number;
  improvements: number;
  same: number;
  unknownNoise: number;
  onlyInA: number;
  onlyInB: number;
  /** Common points whose bytes the two runs moved differently (PointComparison.movedDifferently); absent when none. */
  movedDifferently?: number;
  /** The regression with the lowest ratio. */
  worstRegression?: { key: string; label: string; ratio: number; interval: [number, number] };
  /** Geometric mean of the common points' ratios; null when there are none. */
  geomeanRatio: number | null;
}

export interface Comparison {
  kind: CompareKind;
  a: RunInfo;
  b: RunInfo;
  /** The run-to-run tolerance where no path and size band of its own applies (noise.tolerance). */
  tolerance: number;
  /** Where the run-to-run tolerance comes from: given, estimated from baseline runs, or the default. */
  noise: NoiseModel;
  method: string;
  /** What the GB/s columns are: a copy's bandwidth, or a collective's bus bandwidth. */
  bandwidth: 'GB/s' | 'busbw GB/s';
  points: PointComparison[];
  onlyInA: OnePoint[];
  onlyInB: OnePoint[];
  summary: CompareSummary;
  notes: string[];
}

/** Neither a tolerance nor baseline runs: DEFAULT_TOLERANCE, measured in bench/results (noise.ts). */
export interface CompareOptions {
  /** The run-to-run tolerance, a fraction 0 <= tolerance < 1, at every point (0: each run's own spread alone). */
  tolerance?: number;
  /** Repeats of A's setup (same kind, node and backend): the tolerance is estimated from them and A, per path and size band. */
  baselines?: readonly Run[];
}

/** Runs that cannot be compared: of different kinds, one with nothing to compare, or one too large. */
export class CompareError extends Error {}

/**
 * The most points (samples, cells or collective points) a run may have to be compared. Two
 * runs of this size, their comparison (about 600 bytes a point) and its printout (`--json`:
 * about 850 characters a point) fit in 2 GB with room to spare; a larger run is refused with
 * a sentence rather than left to run out of memory.
 */
export const MAX_COMPARED_POINTS = 100_000;

const KIND_NOUN: Record<CompareKind, [one: string, many: string]> = {
  sweep: ['sample', 'samples'],
  matrix: ['cell', 'cells'],
  collective: ['collective point', 'collective points'],
};

/** What a run has to compare: sweep samples, matrix cells or collective points (in that order when, oddly, several). */
export function kindOf(run: Run): { kind: CompareKind; count: number } | undefined {
  if (run.samples.length > 0) return { kind: 'sweep', count: run.samples.length };
  if ((run.matrixCells?.length ?? 0) > 0) return { kind: 'matrix', count: run.matrixCells!.length };
  if ((run.collectives?.length ?? 0) > 0) return { kind: 'collective', count: run.collectives!.length };
  return undefined;
}

const plural = (n: number, [one, many]: [string, string]) => `${n} ${n === 1 ? one : many}`;

// The sides are object literals of one shape each (no spreads): a comparison holds two per point.
const noSpread = (gbps: number, basis: Side['basis'], repetitions: number, why: string): Side => ({
  gbps,
  basis,
  repetitions,
  noSpread: why,
});
const withSpread = (
  gbps: number,
  basis: Side['basis'],
  repetitions: number,
  spread: 'quartiles' | 'range',
  gbpsLow: number,
  gbpsHigh: number,
): Side => ({ gbps, basis, repetitions, spread, gbpsLow, gbpsHigh });
const tooFew = (n: number) =>
  `${n} repetition${n === 1 ? '' : 's'}, too few to judge the spread (${MIN_REPETITIONS} or more)`;

function spreadOfTimes(sizeBytes: number, times: readonly number[]): Side {
  const sorted = sortedTimes(times);
  const median = quantile(sorted, 0.5);
  const gbps = median > 0 ? sizeBytes / median : 0;
  if (sorted.length < MIN_REPETITIONS) return noSpread(gbps, 'median', sorted.length, tooFew(sorted.length));
  const q25 = quantile(sorted, 0.25);
  const q75 = quantile(sorted, 0.75);
  if (!(q25 > 0)) return noSpread(gbps, 'median', sorted.length, 'per-iteration times of 0 ns');
  return withSpread(gbps, 'median', sorted.length, 'quartiles', sizeBytes / q75, sizeBytes / q25);
}

/** min..max as the spread, when a run kept only those and enough repetitions stand behind them. */
function withRange(
  gbps: number,
  basis: Side['basis'],
  repetitions: number,
  sizeBytes: number,
  minNs: number | undefined,
  maxNs: number | undefined,
  iters: number,
  what: string,
): Side {
  if (minNs === undefined || maxNs === undefined || !(minNs > 0) || maxNs < minNs)
    return noSpread(gbps, basis, repetitions, `no per-iteration times (${what})`);
  if (iters < MIN_REPETITIONS) return noSpread(gbps, basis, repetitions, tooFew(iters));
  return withSpread(gbps, basis, repetitions, 'range', sizeBytes / maxNs, sizeBytes / minNs);
}

function sampleSide(s: Sample): Side {
  if (s.timesNs && s.timesNs.length > 0) return spreadOfTimes(s.sizeBytes, s.timesNs);
  const median = s.medianNs !== undefined && s.medianNs > 0 ? s.sizeBytes / s.medianNs : s.gbpsMedian;
  return median !== undefined
    ? withRange(median, 'median', s.iters, s.sizeBytes, s.minNs, s.maxNs, s.iters, 'a summary')
    : withRange(s.gbps, 'mean', s.iters, s.sizeBytes, s.minNs, s.maxNs, s.iters, 'a summary');
}

function cellSide(c: MatrixCell): Side {
  return withRange(c.gbps, 'median', c.iters, c.sizeBytes, c.minNs, c.maxNs, c.iters, 'a matrix cell');
}

function collectiveSide(p: CollectivePoint): Side {
  return {
    gbps: p.busbwGbps,
    basis: 'mean',
    repetitions: p.iters,
    noSpread: 'a collective point carries its mean time only',
  };
}

/** The order endpoints.comparePairs shows pairs in: GPU to GPU, host to GPU, GPU to host, GPU-local; by index inside. */
const PAIR_KINDS = ['peer', 'host-to-gpu', 'gpu-to-host', 'local'] as const;
const pairRank = (p: { src: number; dst: number }) => [PAIR_KINDS.indexOf(pairKind(p)), p.src, p.dst];
const pathRank = (p: PathName) => PATHS.indexOf(p);

/**
 * The curve a point lies on (everything but its size), made once per curve: its key, its words
 * and its display order: pair, path, CUs, mode (sweep); path, pair (matrix); op, variant, ranks,
 * placement, type (collective). Points are ordered by their curve, then by size.
 */
interface Curve {
  group: string;
  groupLabel: string;
  order: (number | string)[];
  /** A sweep curve's dimensions (seriesKey.ts), for the table's columns. */
  dimensions?: CurveDimensions;
}

/** A sweep curve's seed dimensions, each written out (split 1, batch 0 where the run names none). */
export interface CurveDimensions {
  wavesPerCu?: number;
  waveSize?: number;
  split: number;
  splitOver?: SplitOver;
  batch: number;
  /** engine/device only. */
  shmemSdma?: ShmemSdma;
}

function curveDimensions(d: SeriesDimensions): CurveDimensions {
  return {
    ...(d.wavesPerCu !== undefined ? { wavesPerCu: d.wavesPerCu, waveSize: d.waveSize ?? DEFAULT_WAVE_SIZE } : {}),
    split: d.split,
    ...(d.splitOver ? { splitOver: d.splitOver } : {}),
    batch: d.batch,
    ...(d.path === 'engine/device' && !d.series ? { shmemSdma: d.shmemSdma } : {}),
  };
}

/** How a kind of record is located and measured. */
interface PointKind<T> {
  records(run: Run): readonly T[];
  /** What the run-to-run tolerance is estimated per (with the size band): the path, a collective's op and variant. */
  path(x: T): string;
  /** The curve's key; `curve` is asked once per key. */
  group(x: T): string;
  curve(x: T, group: string): Curve;
  size(x: T): number;
  side(x: T): Side;
  /** What moved the point's bytes as the platform saw it (sweep samples, matrix cells; absent before the helper printed it). */
  evidence?(x: T): MoverEvidence | undefined;
}

/**
 * The path a sample's curve is of: its own, or for the runtime-default series (whatever mover the
 * runtime used at each size) the engine path of its initiator, the copy API it was asked through.
 */
const samplePath = (s: Sample): PathName => seriesDimensions(s).path;

const SWEEP: PointKind<Sample> = {
  records: (run) => run.samples.toArray(),
  path: samplePath,
  // A curve is a series' whole key (seriesKey.ts: path, CUs, waves, split, batch, rocSHMEM SDMA mode; the
  // runtime-default series never matched with the helper's path of the same name) with its pair and mode.
  group: (s) => `${pairSeriesKey(s)}|${s.mode ?? ''}`,
  curve: (s, group) => {
    const d = seriesDimensions(s);
    const path = d.path;
    const cus = s.mover === 'cu' && !s.series ? ` · ${s.cus} CU${s.cus === 1 ? '' : 's'}` : '';
    const words = dimensionWords(d)
      .map((w) => ` · ${w}`)
      .join('');
    const mode = s.mode ? ` · ${s.mode}` : '';
    return {
      group,
      groupLabel: `${s.series ? `runtime default (${path})` : path} · ${pairName(s)}${cus}${words}${mode}`,
      order: [
        ...pairRank(s),
        pathRank(path),
        s.series ? 1 : 0,
        d.cus,
        d.threads,
        d.split,
        d.batch,
        SHMEM_SDMA.indexOf(d.shmemSdma),
        s.mode ?? '',
      ],
      dimensions: curveDimensions(d),
    };
  },
  size: (s) => s.sizeBytes,
  side: sampleSide,
  evidence: (s) => s.moverEvidence,
};

const MATRIX: PointKind<MatrixCell> = {
  records: (run) => run.matrixCells ?? [],
  path: (c) => pathName(c.mover, c.initiator),
  group: (c) => `${c.src}:${c.dst}|${pathName(c.mover, c.initiator)}`,
  curve: (c, group) => {
    const path = pathName(c.mover, c.initiator);
    return { group, groupLabel: `${path} · ${pairName(c)}`, order: [pathRank(path), ...pairRank(c)] };
  },
  size: (c) => c.sizeBytes,
  side: cellSide,
  evidence: (c) => c.moverEvidence,
};

const COLLECTIVE: PointKind<CollectivePoint> = {
  records: (run) => run.collectives ?? [],
  path: (p) => `${p.op} · ${p.variant}`,
  group: (p) => `${p.op}|${p.variant}|${p.ranks}|${p.inPlace ? 'in' : 'out'}|${p.dtype}`,
  curve: (p, group) => ({
    group,
    groupLabel: `${p.op} · ${p.variant} · ${p.ranks} ranks · ${p.inPlace ? 'in-place' : 'out-of-place'} · ${p.dtype}`,
    order: [COLLECTIVE_OPS.indexOf(p.op), COLLECTIVE_VARIANTS.indexOf(p.variant), p.ranks, p.inPlace ? 1 : 0, p.dtype],
  }),
  size: (p) => p.sizeBytes,
  side: collectiveSide,
};

function byOrder(x: { order: (number | string)[] }, y: { order: (number | string)[] }): number {
  for (let i = 0; i < Math.max(x.order.length, y.order.length); i++) {
    const p = x.order[i] ?? '';
    const q = y.order[i] ?? '';
    if (p === q) continue;
    if (typeof p === 'number' && typeof q === 'number') return p - q;
    return String(p) < String(q) ? -1 : 1;
  }
  return 0;
}

/** One run's points on one curve, by size. */
interface CurvePoints<T> {
  curve: Curve;
  bySize: Map<number, T>;
  /** The curve's place in the display order, once both runs are indexed. */
  rank: number;
}

interface Indexed<T> {
  curves: Map<string, CurvePoints<T>>;
  /** Each point once, where it was first measured: its curve and size. */
  firstCurve: CurvePoints<T>[];
  firstSize: number[];
}

/** A run's points by curve and size, in one pass; a point measured twice keeps its last measurement, and the note says so. */
function indexed<T>(records: readonly T[], k: PointKind<T>, side: 'A' | 'B', notes: string[]): Indexed<T> {
  const curves = new Map<string, CurvePoints<T>>();
  const firstCurve: CurvePoints<T>[] = [];
  const firstSize: number[] = [];
  let repeated = 0;
  for (const x of records) {
    const group = k.group(x);
    let c = curves.get(group);
    if (!c) curves.set(group, (c = { curve: k.curve(x, group), bySize: new Map(), rank: 0 }));
    const size = k.size(x);
    if (c.bySize.has(size)) repeated++;
    else {
      firstCurve.push(c);
      firstSize.push(size);
    }
    c.bySize.set(size, x);
  }
  if (repeated > 0)
    notes.push(
      `${side} measured ${repeated} point${repeated === 1 ? '' : 's'} more than once; the last measurement of each is compared`,
    );
  return { curves, firstCurve, firstSize };
}

const located = (curve: Curve, sizeBytes: number): Located => ({
  key: `${curve.group}|${sizeBytes}`,
  group: curve.group,
  groupLabel: curve.groupLabel,
  label: `${curve.groupLabel} · ${formatBytes(sizeBytes)}`,
  sizeBytes,
  ...(curve.dimensions ? { dimensions: curve.dimensions } : {}),
});

const byCurveThenSize = (x: { c: { rank: number }; size: number }, y: { c: { rank: number }; size: number }) =>
  x.c.rank - y.c.rank || x.size - y.size;

/** The points of `mine` that `other` lacks, in display order. */
function onlyIn<T>(mine: Indexed<T>, other: Indexed<T>, k: PointKind<T>): OnePoint[] {
  const out: { c: CurvePoints<T>; size: number }[] = [];
  for (const [group, c] of mine.curves) {
    const theirs = other.curves.get(group)?.bySize;
    for (const size of c.bySize.keys()) if (!theirs?.has(size)) out.push({ c, size });
  }
  return out
    .sort(byCurveThenSize)
    .map(({ c, size }) => ({ ...located(c.curve, size), side: k.side(c.bySize.get(size)!) }));
}

/** Every point of A and B matched by curve and size: linear in the points, then one sort. */
function matched<T>(
  a: Run,
  b: Run,
  k: PointKind<T>,
  tolerances: Tolerances,
  notes: string[],
): { points: PointComparison[]; onlyInA: OnePoint[]; onlyInB: OnePoint[]; unusable: number } {
  const inA = indexed(k.records(a), k, 'A', notes);
  const inB = indexed(k.records(b), k, 'B', notes);
  // The curves of both runs in display order, ranked once.
  const curves = [...inA.curves.values(), ...inB.curves.values()].sort((x, y) => byOrder(x.curve, y.curve));
  for (const [i, c] of curves.entries()) c.rank = i;
  for (const c of inB.curves.values()) {
    const same = inA.curves.get(c.curve.group);
    if (same) c.rank = same.rank;
  }
  const common: { c: CurvePoints<T>; size: number; pa: Side; pb: Side; tolerance: number; xa: T; xb: T }[] = [];
  let unusable = 0;
  for (let i = 0; i < inA.firstCurve.length; i++) {
    const c = inA.firstCurve[i]!;
    const size = inA.firstSize[i]!;
    const xb = inB.curves.get(c.curve.group)?.bySize.get(size);
    if (xb === undefined) continue;
    const xa = c.bySize.get(size)!;
    const pa = k.side(xa);
    const pb = k.side(xb);
    if (pa.gbps > 0 && pb.gbps > 0 && Number.isFinite(pa.gbps) && Number.isFinite(pb.gbps))
      common.push({ c, size, pa, pb, tolerance: tolerances.at(k.path(xa), size), xa, xb });
    else {
      unusable++;
      notes.push(
        `${located(c.curve, size).label}: ${pa.gbps > 0 ? 'B' : 'A'} reports no bandwidth (0 GB/s); not compared`,
      );
    }
  }
  const points = common.sort(byCurveThenSize).map(({ c, size, pa, pb, tolerance, xa, xb }) => {
    const p = compare(located(c.curve, size), pa, pb, tolerance);
    if (c.curve.dimensions) p.dimensions = c.curve.dimensions;
    const ea = k.evidence?.(xa);
    const eb = k.evidence?.(xb);
    // Runs without evidence compare as before: nothing is added to their points.
    if (ea || eb) p.evidence = { a: evidenceWord(ea), b: evidenceWord(eb) };
    const moved = movedDifferently(ea, eb);
    if (moved) p.movedDifferently = moved;
    return p;
  });
  // Whole curves one run alone has (a waves value, a split, a batch only A or B measured): named once each.
  for (const [side, mine, other] of [
    ['A', inA, inB],
    ['B', inB, inA],
  ] as const) {
    const alone = [...mine.curves.values()]
      .filter((c) => !other.curves.has(c.curve.group))
      .sort((x, y) => x.rank - y.rank);
    if (alone.length > 0)
      notes.push(
        `${alone.length === 1 ? 'a curve' : `${alone.length} curves`} only in ${side}: ${alone.map((c) => c.curve.groupLabel).join('; ')}`,
      );
  }
  return { points, onlyInA: onlyIn(inA, inB, k), onlyInB: onlyIn(inB, inA, k), unusable };
}

function verdictOf(widened: [number, number] | undefined): PointVerdict {
  if (!widened) return 'unknown noise';
  if (widened[1] < 1) return 'regression';
  if (widened[0] > 1) return 'improvement';
  return 'same';
}

function compare(located: Located, a: Side, b: Side, tolerance: number): PointComparison {
  const ratio = b.gbps / a.gbps;
  const spreads =
    a.spread &&
    b.spread &&
    a.gbpsLow !== undefined &&
    a.gbpsHigh !== undefined &&
    b.gbpsLow !== undefined &&
    b.gbpsHigh !== undefined;
  const interval: [number, number] | undefined = spreads
    ? [b.gbpsLow! / a.gbpsHigh!, b.gbpsHigh! / a.gbpsLow!]
    : undefined;
  const spread: SpreadMethod = !interval
    ? 'none'
    : a.spread === 'quartiles' && b.spread === 'quartiles'
      ? 'quartiles'
      : 'range';
  const { key, group, groupLabel, label, sizeBytes } = located;
  const widened: [number, number] | undefined = interval
    ? [interval[0] / (1 + tolerance), interval[1] * (1 + tolerance)]
    : undefined;
  const verdict = verdictOf(widened);
  // One literal per shape (no spreads): a comparison holds one per point.
  if (interval)
    return { key, group, groupLabel, label, sizeBytes, a, b, ratio, interval, tolerance, widened, spread, verdict };
  const why = [a.noSpread && `A: ${a.noSpread}`, b.noSpread && `B: ${b.noSpread}`].filter(Boolean).join('; ');
  return why
    ? { key, group, groupLabel, label, sizeBytes, a, b, ratio, tolerance, spread, verdict, why }
    : { key, group, groupLabel, label, sizeBytes, a, b, ratio, tolerance, spread, verdict };
}

function runInfo(run: Run): RunInfo {
  const node = run.topology?.node;
  const source = run.header.source;
  return {
    id: run.header.id,
    createdAt: run.header.createdAt,
    node: node ? `${node.model}${run.header.target.host ? ` on ${run.header.target.host}` : ''}` : 'unknown node',
    status: runStatus(run),
    simulated: isSimulated(run),
    ...(source ? { source: `${source.tool}${source.version ? ` ${source.version}` : ''}: ${source.file}` } : {}),
  };
}

/** What the reader should know before trusting the verdicts: partial or damaged runs, simulated data, different set-ups. */
function runNotes(a: Run, b: Run, kind: CompareKind): string[] {
  const notes: string[] = [];
  for (const [side, run] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const status = runStatus(run);
    if (status !== 'ok') notes.push(`${side} (${run.header.id}) ended ${status}: it may lack points`);
    // Counted as walked: a big run's samples are built one at a time, never all held.
    let contradicting = 0;
    const count = (x: { moverEvidence?: { verdict?: string } }) => {
      if (x.moverEvidence?.verdict === 'contradicts') contradicting++;
    };
    run.samples.forEach(count);
    run.matrixCells?.forEach(count);
    if (contradicting > 0)
      notes.push(
        `${side} (${run.header.id}) has ${contradicting} ${kind === 'matrix' ? 'cell' : 'sample'}${contradicting === 1 ? '' : 's'} whose mover evidence contradicts ${contradicting === 1 ? 'its label' : 'their labels'} (mover-mismatch): ${contradicting === 1 ? 'its' : 'their'} GB/s is not that path's`,
      );
    if (run.problems.length > 0)
      notes.push(
        `${side} (${run.header.id}) has ${run.problems.length} line${run.problems.length === 1 ? '' : 's'} that could not be used (first: ${run.problems[0]})`,
      );
  }
  if (isSimulated(a) !== isSimulated(b))
    notes.push(
      `${isSimulated(a) ? 'A' : 'B'} is simulated, the other measured: the ratios compare a model with a machine`,
    );
  if (kind === 'collective') {
    const ma = collectiveModeOf(a.collectiveVariants ?? []);
    const mb = collectiveModeOf(b.collectiveVariants ?? []);
    if (ma !== mb)
      notes.push(
        `${ma === 'unknown' ? 'A' : 'B'} does not say how its ranks ran (the other is ${ma === 'unknown' ? mb : ma}): if they ran differently, the ratios include that`,
      );
  }
  if (kind === 'matrix') {
    const concurrent = (r: Run) => (r.matrixCells ?? []).some((c) => c.concurrent === true);
    if (concurrent(a) !== concurrent(b))
      notes.push(
        `${concurrent(a) ? 'A' : 'B'} ran every pair of a path at once (--concurrent), the other each pair alone: the ratios include that load`,
      );
    const cuCounts = (r: Run) =>
      [...new Set((r.matrixCells ?? []).filter((c) => c.mover === 'cu').map((c) => c.cus))]
        .sort((x, y) => x - y)
        .join(',');
    if (cuCounts(a) && cuCounts(b) && cuCounts(a) !== cuCounts(b))
      notes.push(`the cu/* cells used ${cuCounts(a)} CUs in A and ${cuCounts(b)} in B`);
  }
  return notes;
}

/**
 * Compares B with A at every point both measured. Throws CompareError when a run has nothing
 * to compare or the two are of different kinds (a sweep and a matrix share no point).
 */
export function compareRuns(a: Run, b: Run, options: CompareOptions = {}): Comparison {
  const { tolerance, baselines = [] } = options;
  if (tolerance !== undefined && !(tolerance >= 0 && tolerance < 1))
    throw new CompareError(`the tolerance must be a fraction from 0 to below 1 (got ${tolerance})`);
  if (tolerance !== undefined && baselines.length > 0)
    throw new CompareError('a given tolerance and baseline runs both set the run-to-run tolerance: give one of them');
  const ka = kindOf(a);
  const kb = kindOf(b);
  for (const [side, run, k] of [
    ['A', a, ka],
    ['B', b, kb],
  ] as const) {
    if (!k)
      throw new CompareError(
        `run ${side} (${run.header.id}, a ${run.header.command} run) has nothing to compare: no sweep samples, matrix cells or collective points`,
      );
  }
  if (ka!.kind !== kb!.kind) {
    throw new CompareError(
      `run A (${a.header.id}) is a ${ka!.kind} (${plural(ka!.count, KIND_NOUN[ka!.kind])}) and run B (${b.header.id}) a ${kb!.kind} (${plural(kb!.count, KIND_NOUN[kb!.kind])}): runs of different kinds have no point in common`,
    );
  }
  const kind = ka!.kind;
  if (kind === 'collective') checkSameMode(a, b);
  for (const [side, run, k] of [
    ['A', a, ka!],
    ['B', b, kb!],
  ] as const) {
    if (k.count > MAX_COMPARED_POINTS) {
      throw new CompareError(
        `run ${side} (${run.header.id}) has more than ${plural(MAX_COMPARED_POINTS, KIND_NOUN[kind])}, too large to compare: at most ${MAX_COMPARED_POINTS} a run, so that two runs and their comparison fit in memory; compare smaller runs (fewer sizes, pairs or CU counts)`,
      );
    }
  }
  const notes = runNotes(a, b, kind);
  const tolerances =
    tolerance !== undefined
      ? uniform('given', tolerance)
      : baselines.length > 0
        ? baselineTolerances(a, b, kind, baselines, notes)
        : uniform('default', DEFAULT_TOLERANCE);
  const { points, onlyInA, onlyInB, unusable } =
    kind === 'sweep'
      ? matched(a, b, SWEEP, tolerances, notes)
      : kind === 'matrix'
        ? matched(a, b, MATRIX, tolerances, notes)
        : matched(a, b, COLLECTIVE, tolerances, notes);
  const noise = tolerances.model();
  const moved = points.filter((p) => p.movedDifferently).length;
  if (moved > 0)
    notes.push(
      `${moved} point${moved === 1 ? '' : 's'} flagged "moved differently": the two runs' bytes were moved differently there (their mover evidence saw different movers, or one contradicts its label), so the difference is not a like-for-like change`,
    );
  const mixed = points.filter((p) => p.a.basis !== p.b.basis).length;
  if (mixed > 0)
    notes.push(`${mixed} point${mixed === 1 ? '' : 's'} compare a median with a mean (one run kept a summary only)`);
  if (points.length === 0 && unusable === 0)
    notes.push(
      `the runs have no point in common: ${plural(onlyInA.length, KIND_NOUN[kind])} only in A, ${plural(onlyInB.length, KIND_NOUN[kind])} only in B`,
    );
  return {
    kind,
    a: runInfo(a),
    b: runInfo(b),
    tolerance: noise.tolerance,
    noise,
    method: METHOD,
    bandwidth: kind === 'collective' ? 'busbw GB/s' : 'GB/s',
    points,
    onlyInA,
    onlyInB,
    summary: summarize(points, onlyInA.length, onlyInB.length),
    notes,
  };
}

/**
 * Two collective runs are compared only when their ranks ran alike: one process per GPU and one
 * process driving every GPU launch and synchronise differently, so their times differ for that
 * alone. A run saved before the mode was recorded was single-process; an import that could not
 * tell is compared with a note, not refused.
 */
function checkSameMode(a: Run, b: Run): void {
  const ma = collectiveModeOf(a.collectiveVariants ?? []);
  const mb = collectiveModeOf(b.collectiveVariants ?? []);
  if (ma === mb || ma === 'unknown' || mb === 'unknown') return;
  const [other, otherMode, mode] = ma === 'single-process' ? ['B', mb, ma] : ['A', ma, mb];
  throw new CompareError(
    `run A (${a.header.id}) is ${ma} and run B (${b.header.id}) ${mb}: collectives whose ranks ran differently are not compared (one process per GPU and one process for every GPU time differently). Rerun ${other} as ${mode} (sdma-lens collective --mode ${mode}, or the sdmaLens.collective.mode setting), or compare it with another ${otherMode} run`,
  );
}

/** What makes a run a repeat of A's setup: its node (model, SSH host, host name, GPUs), backend, and simulated or not (and a collective's mode). */
function setupOf(run: Run): [what: string, value: string][] {
  const info = runInfo(run);
  return [
    ...(run.collectives?.length
      ? [['collective mode', collectiveModeOf(run.collectiveVariants ?? [])] as [string, string]]
      : []),
    ['node', info.node],
    ['host name', run.topology?.node.hostname ?? ''],
    ['GPU count', run.topology ? String(run.topology.gpus.length) : ''],
    ['backend', run.hello?.backend ?? ''],
    ['data', info.simulated ? 'simulated' : 'measured'],
  ];
}

/** One run's bandwidth at each point, its last measurement of each (as the comparison takes it). */
function pointValues<T>(run: Run, k: PointKind<T>): PointValues {
  const values: PointValues = new Map();
  for (const x of k.records(run))
    values.set(`${k.group(x)}|${k.size(x)}`, { path: k.path(x), sizeBytes: k.size(x), gbps: k.side(x).gbps });
  return values;
}

/** A run's bandwidth at each point, keyed as the comparison matches points (for estimating run-to-run variation; empty for a run with nothing to compare). */
export function pointValuesOf(run: Run): PointValues {
  const k = kindOf(run)?.kind;
  return k === 'sweep'
    ? pointValues(run, SWEEP)
    : k === 'matrix'
      ? pointValues(run, MATRIX)
      : k === 'collective'
        ? pointValues(run, COLLECTIVE)
        : new Map();
}

/** The tolerance estimated from A and its repeats; refuses a baseline that is B, A again, or another kind, node or backend. */
function baselineTolerances(a: Run, b: Run, kind: CompareKind, baselines: readonly Run[], notes: string[]): Tolerances {
  const ids = new Set([a.header.id]);
  const mine = setupOf(a);
  for (const run of baselines) {
    const id = run.header.id;
    if (id === b.header.id)
      throw new CompareError(
        `baseline run ${id} is B: the run-to-run tolerance comes from repeats of A, not from the run it judges`,
      );
    if (ids.has(id))
      throw new CompareError(
        `baseline run ${id} is ${id === a.header.id ? 'A itself' : 'named twice'}: each baseline run must be another repeat of A`,
      );
    ids.add(id);
    const k = kindOf(run);
    if (k?.kind !== kind)
      throw new CompareError(
        `baseline run ${id} is ${k ? `a ${k.kind}` : 'a run with nothing to compare'}, A a ${kind}: a baseline run repeats A's measurement`,
      );
    if (k.count > MAX_COMPARED_POINTS)
      throw new CompareError(
        `baseline run ${id} has more than ${plural(MAX_COMPARED_POINTS, KIND_NOUN[kind])}, too large to compare`,
      );
    const theirs = setupOf(run);
    for (const [i, [what, value]] of mine.entries()) {
      const other = theirs[i]![1];
      // Runs saved before the helper recorded them lack a host name or a topology: those cannot tell.
      if ((what === 'host name' || what === 'GPU count') && (value === '' || other === '')) continue;
      if (value !== other)
        throw new CompareError(
          `baseline run ${id} is not a repeat of A's setup: its ${what} is ${other || 'not recorded'}, A's ${value || 'not recorded'}; the run-to-run tolerance must come from runs of A's node and backend`,
        );
    }
    const status = runStatus(run);
    if (status !== 'ok') notes.push(`baseline run ${id} ended ${status}: it may lack points`);
  }
  const values = [a, ...baselines].map(pointValuesOf);
  for (const [i, run] of baselines.entries()) {
    const shared = [...values[i + 1]!.keys()].filter((key) => values[0]!.has(key)).length;
    if (shared === 0)
      notes.push(
        `baseline run ${run.header.id} has no point in common with A: it adds nothing to the run-to-run tolerance`,
      );
  }
  return estimated([...ids], values);
}

function summarize(points: PointComparison[], onlyInA: number, onlyInB: number): CompareSummary {
  const moved = points.filter((p) => p.movedDifferently).length;
  const count = (v: PointVerdict) => points.filter((p) => p.verdict === v).length;
  const regressions = points.filter((p) => p.verdict === 'regression');
  const worst = regressions.reduce<PointComparison | undefined>((w, p) => (!w || p.ratio < w.ratio ? p : w), undefined);
  const geomean =
    points.length > 0 ? Math.exp(points.reduce((s, p) => s + Math.log(p.ratio), 0) / points.length) : null;
  return {
    common: points.length,
    regressions: regressions.length,
    improvements: count('improvement'),
    same: count('same'),
    unknownNoise: count('unknown noise'),
    onlyInA,
    onlyInB,
    ...(moved > 0 ? { movedDifferently: moved } : {}),
    ...(worst
      ? { worstRegression: { key: worst.key, label: worst.label, ratio: worst.ratio, interval: worst.interval! } }
      : {}),
    geomeanRatio: geomean,
  };
}

/**
 * The regressions whose whole interval lies below `threshold` (the CLI's --fail-below): slower
 * than A beyond both runs' spread and the run-to-run tolerance, and below the threshold by their
 * own spread. With tolerance 0 and a threshold of 1 or less, every point whose interval lies below it.
 */
export function belowBeyondNoise(c: Comparison, threshold: number): PointComparison[] {
  return c.points.filter((p) => p.verdict === 'regression' && p.interval !== undefined && p.interval[1] < threshold);
}

/** Points below `threshold` whose noise is unknown: they cannot fail a gate, and are named instead. */
export function belowNoiseUnknown(c: Comparison, threshold: number): PointComparison[] {
  return c.points.filter((p) => p.interval === undefined && p.ratio < threshold);
}

/** 0.962 [0.935, 0.990], or 0.962 alone when the noise is unknown. */
export function formatRatio(p: Pick<PointComparison, 'ratio' | 'interval'>): string {
  const r = (x: number) => x.toFixed(3);
  return p.interval ? `${r(p.ratio)} [${r(p.interval[0])}, ${r(p.interval[1])}]` : r(p.ratio);
}

/** The summary in a few lines, the same in the CLI and the panel. */
export function summaryLines(c: Comparison): string[] {
  const s = c.summary;
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const lines = [
    `${n(s.common, 'point')} in common: ${s.same} same, ${n(s.regressions, 'regression')}, ${n(s.improvements, 'improvement')}, ${s.unknownNoise} unknown noise; ${s.onlyInA} only in A, ${s.onlyInB} only in B`,
  ];
  lines.push(
    `run-to-run tolerance ${c.noise.description}; a regression or improvement must clear it as well as both runs' spread`,
  );
  if (s.worstRegression) lines.push(`worst regression: ${s.worstRegression.label}: ${formatRatio(s.worstRegression)}`);
  else if (s.common > 0 && s.unknownNoise === s.common)
    lines.push('no common point has a known spread, so none is a regression or improvement beyond noise');
  else if (s.common > 0) lines.push('no regression beyond noise');
  if (s.geomeanRatio !== null) lines.push(`geometric mean of the ratios: ${s.geomeanRatio.toFixed(3)}`);
  if (s.movedDifferently)
    lines.push(
      `${n(s.movedDifferently, 'point')} moved differently: the two runs' bytes were moved differently, so ${s.movedDifferently === 1 ? 'its difference is' : 'their differences are'} not like-for-like`,
    );
  return lines;
}

/** Each path and size band's run-to-run tolerance, where it was estimated from baseline runs; none otherwise. */
export function toleranceLines(c: Pick<Comparison, 'noise'>): string[] {
  return (c.noise.groups ?? []).map((g) => `run-to-run tolerance of ${groupLine(g)}`);
}
