/**
 * The run-to-run term of a comparison: how far two runs of the same setup (node, backend,
 * options) land apart at the same point, which neither run's own spread shows: clocks,
 * placement, another process, a reboot. A point's within-run interval is widened by it,
 * [low / (1 + t), high × (1 + t)], before it is held against 1 (compare.ts).
 *
 * t comes from one of three places, and the comparison says which:
 * - given: `--tolerance F` (the panel's `tolerance`), the same at every point;
 * - baseline runs: A's repeats (`--baseline-runs`): for every point, every pair of those runs
 *   and A gives |ln(x / y)| of the point's bandwidth; t is the 95th percentile of them, per
 *   path and size band (RUN_TO_RUN_QUANTILE, SIZE_BANDS), where a band has MIN_PAIRS or more,
 *   else over the path's sizes, else over every point;
 * - default: DEFAULT_TOLERANCE, the same statistic over the real runs measured twice in
 *   bench/results (docs/COMPARE.md, "The run-to-run tolerance").
 *
 * Pure and browser-safe.
 */
import { quantile } from '../advice/crossover';
import { formatBytes } from '../units';

/** 95 % of the same points measured in two runs of one setup differ by less than t. */
export const RUN_TO_RUN_QUANTILE = 0.95;

/**
 * The default run-to-run tolerance: the 95th percentile of |ratio − 1| (larger over smaller)
 * of the same point's median bandwidth in two runs of the same command on the same node, over
 * the 1x H200 sweeps measured twice an hour apart with the same measurement code:
 * bench/results/h200x1-2026-12-01/sweep-{default,full}.ndjson against
 * bench/results/h200x1-rerun-2026-12-01/sweep-{default,full}.ndjson, 1,371 points: 6.29 %,
 * rounded to 6.3 % (`npm run bench -- compareNoise` prints it; test/unit/compareNoise.test.ts
 * recomputes it). The median of the same figure is 1.72 %: as the tolerance it would leave
 * about 40 % of those points "beyond noise" between two runs of one node.
 */
export const DEFAULT_TOLERANCE = 0.063;

/** Where the default comes from, in words. */
export const DEFAULT_TOLERANCE_SOURCE =
  '95th percentile of |ratio − 1| of the same point in two runs of one node (1x H200, bench/results h200x1-2026-12-01 and h200x1-rerun-2026-12-01, 1,371 points)';

/** Pairs of runs at points of one path and size band needed to estimate that band's own tolerance. */
export const MIN_PAIRS = 10;

const MiB = 1 << 20;
/** Small copies are bound by launches and doorbells, large ones by the link: they vary differently between runs. */
export const SIZE_BANDS = [
  { upTo: MiB, label: `below ${formatBytes(MiB)}` },
  { upTo: 64 * MiB, label: `${formatBytes(MiB)} to below ${formatBytes(64 * MiB)}` },
  { upTo: Number.POSITIVE_INFINITY, label: `${formatBytes(64 * MiB)} and above` },
] as const;

export function sizeBand(sizeBytes: number): string {
  return SIZE_BANDS.find((b) => sizeBytes < b.upTo)!.label;
}

export const TOLERANCE_SOURCES = ['given', 'baseline runs', 'default'] as const;
export type ToleranceSource = (typeof TOLERANCE_SOURCES)[number];
/** band: the band's own pairs; path: all sizes of its path; all: every point of the runs; default: too few pairs. */
export const TOLERANCE_FROM = ['band', 'path', 'all', 'default'] as const;
export type ToleranceFrom = (typeof TOLERANCE_FROM)[number];

/** One path and size band of an estimate. */
export interface NoiseGroup {
  /** The path (a sweep's or matrix's), or a collective's operation and variant. */
  path: string;
  band: string;
  tolerance: number;
  /** Same-point pairs of runs in this band. */
  pairs: number;
  from: ToleranceFrom;
}

export interface NoiseModel {
  source: ToleranceSource;
  /** The tolerance where no group applies: the given one, the default, or the estimate over every point. */
  tolerance: number;
  /** The figure and where it came from, in one line. */
  description: string;
  /** baseline runs: the runs it was estimated from (A first), and each path and band of the comparison. */
  runs?: string[];
  groups?: NoiseGroup[];
}

/** One run's bandwidth at each point: key (curve and size) -> path, size, GB/s. */
export type PointValues = Map<string, { path: string; sizeBytes: number; gbps: number }>;

/** |ln(x / y)| of every point two runs share, for every pair of runs: the same setup measured again. */
export interface Deviation {
  path: string;
  band: string;
  value: number;
}

export function sameSetupDeviations(runs: readonly PointValues[]): Deviation[] {
  const out: Deviation[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      for (const [key, x] of runs[i]!) {
        const y = runs[j]!.get(key);
        if (!y || !(x.gbps > 0) || !(y.gbps > 0) || !Number.isFinite(x.gbps) || !Number.isFinite(y.gbps)) continue;
        out.push({ path: x.path, band: sizeBand(x.sizeBytes), value: Math.abs(Math.log(x.gbps / y.gbps)) });
      }
    }
  }
  return out;
}

/** The RUN_TO_RUN_QUANTILE of the deviations as a fraction (e^q − 1); NaN when there are none. */
export function runToRun(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return Math.expm1(quantile(Float64Array.from(values).sort(), RUN_TO_RUN_QUANTILE));
}

/** 6.3 %, 0.41 %: a tolerance in words. */
export function percent(t: number): string {
  return `${+(t * 100).toFixed(2)} %`;
}

/** The tolerance of a point: one figure everywhere (given, default), or by path and size band (baseline runs). */
export interface Tolerances {
  model(): NoiseModel;
  at(path: string, sizeBytes: number): number;
}

export function uniform(source: 'given' | 'default', tolerance: number): Tolerances {
  const description =
    source === 'given'
      ? `${percent(tolerance)} (given)`
      : `${percent(tolerance)} (default: ${DEFAULT_TOLERANCE_SOURCE})`;
  return { model: () => ({ source, tolerance, description }), at: () => tolerance };
}

/** Estimated from A and its repeats (`runs`, ids alongside, A first). */
export function estimated(ids: readonly string[], runs: readonly PointValues[]): Tolerances {
  const deviations = sameSetupDeviations(runs);
  const byBand = new Map<string, number[]>();
  const byPath = new Map<string, number[]>();
  const push = (m: Map<string, number[]>, key: string, value: number) => {
    const list = m.get(key);
    if (list) list.push(value);
    else m.set(key, [value]);
  };
  for (const d of deviations) {
    push(byBand, `${d.path}|${d.band}`, d.value);
    push(byPath, d.path, d.value);
  }
  const all = deviations.map((d) => d.value);
  const overall = all.length >= MIN_PAIRS ? runToRun(all) : DEFAULT_TOLERANCE;
  const groups = new Map<string, NoiseGroup>();
  const group = (path: string, band: string): NoiseGroup => {
    const key = `${path}|${band}`;
    let g = groups.get(key);
    if (g) return g;
    const own = byBand.get(key) ?? [];
    const along = byPath.get(path) ?? [];
    if (own.length >= MIN_PAIRS) g = { path, band, tolerance: runToRun(own), pairs: own.length, from: 'band' };
    else if (along.length >= MIN_PAIRS) g = { path, band, tolerance: runToRun(along), pairs: own.length, from: 'path' };
    else if (all.length >= MIN_PAIRS) g = { path, band, tolerance: overall, pairs: own.length, from: 'all' };
    else g = { path, band, tolerance: DEFAULT_TOLERANCE, pairs: own.length, from: 'default' };
    groups.set(key, g);
    return g;
  };
  const others = ids.length - 1;
  const description =
    `from ${ids.length} runs of A's setup (A and ${others} baseline run${others === 1 ? '' : 's'}), per path and size band: ` +
    `the ${RUN_TO_RUN_QUANTILE * 100}th percentile of |ratio − 1| of the same point across them (${all.length} pairs of points; ` +
    `a band with fewer than ${MIN_PAIRS} takes its path's, then every point's${all.length < MIN_PAIRS ? `, then the default ${percent(DEFAULT_TOLERANCE)}` : ''})`;
  return {
    at: (path, sizeBytes) => group(path, sizeBand(sizeBytes)).tolerance,
    model: () => {
      const bandRank = (b: string) => SIZE_BANDS.findIndex((x) => x.label === b);
      const listed = [...groups.values()].sort((x, y) =>
        x.path === y.path ? bandRank(x.band) - bandRank(y.band) : x.path < y.path ? -1 : 1,
      );
      return { source: 'baseline runs', tolerance: overall, description, runs: [...ids], groups: listed };
    },
  };
}

/** How a group's figure was found, in words. */
export function groupLine(g: NoiseGroup): string {
  const from =
    g.from === 'band'
      ? `${g.pairs} pairs`
      : g.from === 'path'
        ? `${g.pairs} pairs here, so the path's sizes`
        : g.from === 'all'
          ? `${g.pairs} pairs here, so every point`
          : 'too few pairs, so the default';
  return `${g.path}, ${g.band}: ${percent(g.tolerance)} (${from})`;
}
