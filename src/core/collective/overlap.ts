/**
 * The overlap run as the panel, the CLI and the advice read it: a pure function of the
 * `overlap` records `sdma-probe overlap` prints. Each row is one copy beside one compute kind,
 * set beside the CU arithmetic ((total CUs - CUs the copy holds) / total CUs: the compute a
 * copy should leave if CUs were all that mattered), with what decided the compute it kept
 * (`decidedBy`). The claims put the fused-kernel argument to a test: the compute kept beside the
 * best engine path over that beside the CU copy, against the same ratio of the CU arithmetic
 * (255/192 = 1.33x for a 64-CU copy on a 256-CU MI350X).
 */
import type { OverlapBound, OverlapCompute, OverlapPoint, PathName } from '../protocol';
import { OVERLAP_BOUND_OF, OVERLAP_COMPUTES, PATHS } from '../protocol';
import { formatBytes } from '../units';
import type { DecidedBy, OverlapClaim, OverlapRow, OverlapView } from './collectiveMessages';

/** A board within this share of its power limit is at the cap. */
const AT_CAP = 0.95;
/** Clock changes smaller than this are noise: a board at its cap moves its clock a few tenths of a percent. */
const CLOCK_NOISE = 0.01;
/**
 * Compute kept within this of the CU arithmetic is the arithmetic holding: the mean of the
 * alone runs before and after absorbs slow drift, but a GEMM at its power cap still moves a
 * few percent from phase to phase (docs/COLLECTIVES.md, the 2x H200 run), and one CU of 256 is 0.4%.
 */
export const CU_ARITHMETIC_TOLERANCE = 0.05;
/**
 * A copy that kept less than this of its bandwidth alone lost it to the compute beside it: both
 * competed for memory bandwidth. Above it, the copy's own run-to-run spread.
 */
export const BANDWIDTH_KEPT_MIN = 0.95;
/** Rounding slack on comparisons of measured fractions with the thresholds above. */
const EPS = 1e-9;

/** What limits a compute kind, from the record where it says (runs saved before it: gemm and fma were the only kinds, both compute-bound). */
export function boundOf(p: Pick<OverlapPoint, 'compute' | 'bound'>): OverlapBound {
  return p.bound ?? OVERLAP_BOUND_OF[p.compute];
}

/** "GEMM (compute-bound)". */
export function computeName(compute: OverlapCompute, bound: OverlapBound = OVERLAP_BOUND_OF[compute]): string {
  return `${compute.toUpperCase()} (${bound}-bound)`;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const mean = (xs: readonly (number | null | undefined)[]) => {
  const v = xs.filter((x): x is number => x !== null && x !== undefined);
  return v.length > 0 ? v.reduce((a, b) => a + b, 0) / v.length : null;
};

/** The order rows are listed in: compute kind, copy size, path, CUs. */
function rowOrder(a: OverlapRow, b: OverlapRow): number {
  return (
    OVERLAP_COMPUTES.indexOf(a.compute) - OVERLAP_COMPUTES.indexOf(b.compute) ||
    a.copySizeBytes - b.copySizeBytes ||
    PATHS.indexOf(a.path as PathName) - PATHS.indexOf(b.path as PathName) ||
    (a.cus ?? 0) - (b.cus ?? 0)
  );
}

type Alone = OverlapView['alone'][OverlapCompute];

/**
 * What decided the compute a copy left, in this order:
 * - `cus`: kept within CU_ARITHMETIC_TOLERANCE of the CU arithmetic;
 * - `power`: lost more than the arithmetic while the SM clock fell by CLOCK_NOISE or more against
 *   the compute alone, at AT_CAP of the power limit or above;
 * - `shared`: compute-bound, kept more than the arithmetic while the copy lost bandwidth: the
 *   copy's CUs ran the compute's blocks too (a copy kernel that leaves threads and registers free
 *   does not hold its CUs alone; on one H200 an FMA kernel kept 87-89% beside a 33-SM copy whose
 *   arithmetic is 75%, and the copy fell to 63% of its bandwidth);
 * - `memory`: memory-bound compute, or a copy that lost bandwidth too (below BANDWIDTH_KEPT_MIN of
 *   its rate alone), kept off the arithmetic: memory bandwidth decides, not CUs;
 * - `other`: off the arithmetic for no reason the data shows (e.g. wave quantization);
 * - `unknown`: a run saved before the arithmetic was recorded.
 */
export function decidedBy(
  p: OverlapPoint & { keptFraction: number },
  alone: Alone | undefined,
): { decidedBy: DecidedBy; why: string } {
  const kept = p.keptFraction;
  const arithmetic = p.cuArithmetic ?? null;
  if (arithmetic === null) return { decidedBy: 'unknown', why: 'the run did not record the CU arithmetic' };
  const against = `kept ${pct(kept)} against ${pct(arithmetic)} by the CU arithmetic`;
  const off = kept - arithmetic;
  if (Math.abs(off) <= CU_ARITHMETIC_TOLERANCE + EPS)
    return { decidedBy: 'cus', why: `the arithmetic holds: ${against}` };
  const base = alone?.smClockMHz ?? null;
  const clockFell = base !== null && p.smClockMHz !== null && p.smClockMHz <= base * (1 - CLOCK_NOISE) + EPS;
  const atCap =
    p.powerW !== null && p.powerLimitW !== null && p.powerLimitW > 0 && p.powerW >= AT_CAP * p.powerLimitW - EPS;
  if (off < 0 && clockFell && atCap)
    return {
      decidedBy: 'power',
      why: `power: ${against}; the SM clock fell ${base!.toFixed(0)} -> ${p.smClockMHz!.toFixed(0)} MHz at ${p.powerW!.toFixed(0)} of ${p.powerLimitW!.toFixed(0)} W`,
    };
  const bandwidthKept = p.bandwidthKept ?? null;
  const copyLost = bandwidthKept !== null && bandwidthKept < BANDWIDTH_KEPT_MIN - EPS;
  if (off > 0 && copyLost && boundOf(p) === 'compute')
    return {
      decidedBy: 'shared',
      why: `the compute shared the copy's CUs: ${against}; the copy kept ${pct(bandwidthKept!)} of its bandwidth alone`,
    };
  if (boundOf(p) === 'memory' || copyLost) {
    const copy = bandwidthKept !== null ? `; the copy kept ${pct(bandwidthKept)} of its bandwidth alone` : '';
    return {
      decidedBy: 'memory',
      why: `memory bandwidth, not CUs: ${against}${copy}${boundOf(p) === 'memory' ? ` (${p.compute} is memory-bound)` : ''}`,
    };
  }
  return {
    decidedBy: 'other',
    why:
      off < 0
        ? `lost more than the CUs taken, for no reason the data shows (e.g. wave quantization): ${against}`
        : `kept more than the CUs left, for no reason the data shows: ${against}`,
  };
}

/** The old classification, kept for runs saved before the CU arithmetic: lost SMs, power, both, none. */
function causeOf(p: OverlapPoint & { keptFraction: number }, alone: Alone | undefined): OverlapRow['cause'] {
  if (p.keptFraction >= 1 - CLOCK_NOISE) return 'none';
  const lostSms = p.path.startsWith('cu/');
  if (alone?.smClockMHz != null && p.smClockMHz !== null) {
    const clockFell = p.smClockMHz < alone.smClockMHz * (1 - CLOCK_NOISE);
    const atCap = p.powerW !== null && p.powerLimitW !== null && p.powerW >= AT_CAP * p.powerLimitW;
    return clockFell && atCap ? (lostSms ? 'both' : 'power') : lostSms ? 'sms' : 'unknown';
  }
  return lostSms ? 'sms' : 'unknown';
}

export function overlapView(points: readonly OverlapPoint[]): OverlapView {
  const alone: OverlapView['alone'] = {};
  for (const compute of OVERLAP_COMPUTES) {
    const runs = points.filter((p) => p.compute === compute && p.path === 'alone');
    if (runs.length === 0) continue;
    alone[compute] = {
      tflops: mean(runs.map((r) => r.computeTflops)) ?? 0,
      gbps: mean(runs.map((r) => r.computeGbps)),
      smClockMHz: mean(runs.map((r) => r.smClockMHz)),
      powerW: mean(runs.map((r) => r.powerW)),
      powerLimitW: mean(runs.map((r) => r.powerLimitW)),
    };
  }
  const rows: OverlapRow[] = points
    .filter((p): p is OverlapPoint & { keptFraction: number } => p.path !== 'alone' && p.keptFraction !== null)
    .map((p) => {
      const base = alone[p.compute];
      return {
        compute: p.compute,
        bound: boundOf(p),
        path: p.path,
        label: p.cus !== undefined ? `${p.path} ${p.cus} CUs` : p.path,
        ...(p.cus !== undefined ? { cus: p.cus } : {}),
        copySizeBytes: p.copySizeBytes,
        keptFraction: p.keptFraction,
        copyGbps: p.copyGbps,
        copyAloneGbps: p.copyAloneGbps ?? null,
        bandwidthKept: p.bandwidthKept ?? null,
        cusUsed: p.cusUsed ?? null,
        totalCus: p.totalCus ?? null,
        cuArithmetic: p.cuArithmetic ?? null,
        mechanism: p.mechanism ?? null,
        telemetry: p.telemetry ?? null,
        smClockMHz: p.smClockMHz,
        powerW: p.powerW,
        powerLimitW: p.powerLimitW,
        cause: causeOf(p, base),
        ...decidedBy(p, base),
      };
    })
    .sort(rowOrder);
  const sizes = [...new Set(rows.map((r) => r.copySizeBytes))].sort((a, b) => a - b);
  return { rows, alone, sizes, claims: overlapClaims(rows) };
}

/** What the claim's verdict says after the figures. */
const VERDICT_WORDS: Record<Exclude<OverlapClaim['verdict'], 'unknown'>, string> = {
  holds: 'the arithmetic holds.',
  memory: 'memory bandwidth decides, not CUs.',
  power: 'power decides, not CUs: the clock fell at the cap.',
  shared: "the compute shared the copy's CUs, and the copy paid in bandwidth.",
  other: 'off the arithmetic for no reason the data shows (e.g. wave quantization).',
};

/** The verdict of a claim from its two rows: holds when both kept what the arithmetic says, else what decided the one that did not. */
function claimVerdict(engine: OverlapRow, cu: OverlapRow): OverlapClaim['verdict'] {
  const both = [engine.decidedBy, cu.decidedBy];
  if (both.includes('unknown')) return 'unknown';
  if (both.every((d) => d === 'cus')) return 'holds';
  for (const d of ['power', 'memory', 'shared'] as const) if (both.includes(d)) return d;
  return 'other';
}

/**
 * The compute a copy leaves is only half of the trade: a copy that kept less than
 * BANDWIDTH_KEPT_MIN of its bandwidth alone was paid for. On one H200 a GPU-local
 * cudaMemcpyAsync kept 5.5% of its bandwidth beside the GEMM that kept 99.7%.
 */
function starvedNote(engine: OverlapRow, cu: OverlapRow): string {
  const starved = [engine, cu].filter((r) => r.bandwidthKept !== null && r.bandwidthKept < BANDWIDTH_KEPT_MIN - EPS);
  if (starved.length === 0) return '';
  return ` The copies kept ${starved.map((r) => `${pct(r.bandwidthKept!)} (${r.label})`).join(' and ')} of their bandwidth alone.`;
}

/**
 * For each compute kind and copy size where an engine path and cu/host both ran: one claim per
 * cu/host CU count, the best engine path (the most compute kept) against it.
 */
export function overlapClaims(rows: readonly OverlapRow[]): OverlapClaim[] {
  const claims: OverlapClaim[] = [];
  const groups = new Map<string, OverlapRow[]>();
  for (const r of rows) {
    const key = `${r.compute}|${r.copySizeBytes}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const group of groups.values()) {
    const engines = group.filter((r) => r.path.startsWith('engine/'));
    if (engines.length === 0) continue;
    const best = engines.reduce((a, b) => (b.keptFraction > a.keptFraction ? b : a));
    for (const cu of group.filter((r) => r.path === 'cu/host' && r.cus !== undefined && r.keptFraction > 0)) {
      const measured = best.keptFraction / cu.keptFraction;
      const arithmetic =
        best.cuArithmetic !== null && cu.cuArithmetic !== null && cu.cuArithmetic > 0
          ? best.cuArithmetic / cu.cuArithmetic
          : null;
      const verdict = arithmetic === null ? 'unknown' : claimVerdict(best, cu);
      const free =
        best.totalCus !== null && best.totalCus === cu.totalCus && best.cusUsed !== null && cu.cusUsed !== null
          ? ` (${best.totalCus - best.cusUsed} against ${cu.totalCus - cu.cusUsed} of ${best.totalCus} CUs free)`
          : '';
      const figures = `${computeName(best.compute, best.bound)}, ${formatBytes(best.copySizeBytes)}: ${best.path} keeps ${pct(best.keptFraction)}, ${cu.label} ${pct(cu.keptFraction)}`;
      const text =
        arithmetic === null || verdict === 'unknown'
          ? `${figures}: ${measured.toFixed(2)}x measured; the run did not record the CU arithmetic.`
          : `${figures}: ${measured.toFixed(2)}x measured vs ${arithmetic.toFixed(2)}x by the CU arithmetic${free} \u2014 ${VERDICT_WORDS[verdict]}${starvedNote(best, cu)}`;
      claims.push({
        compute: best.compute,
        bound: best.bound,
        sizeBytes: best.copySizeBytes,
        enginePath: best.path,
        engineKept: best.keptFraction,
        engineArithmetic: best.cuArithmetic,
        cus: cu.cus!,
        cuKept: cu.keptFraction,
        cuArithmetic: cu.cuArithmetic,
        measuredRatio: measured,
        arithmeticRatio: arithmetic,
        verdict,
        text,
      });
    }
  }
  return claims;
}
