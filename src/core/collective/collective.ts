/**
 * Collectives and compute interference as pure functions of the records `sdma-probe
 * collective` and `sdma-probe overlap` print: the nccl-tests formulas, the environment a
 * variant needs (built from the knob catalog, so the helper and the advice cannot drift),
 * the curves and crossovers the collective panel draws, and the advice they feed.
 */
import type { Recommendation } from '../advice/advice';
import { DEFAULT_LOAD_STORE_CUS } from '../advice/advice';
import type { Knob } from '../advice/knobs';
import { knob, sdmaValues } from '../advice/knobs';
import { compareVersions, describeRange } from '../advice/version';
import type { CollectiveCrossover, Curve } from './collectiveMessages';
import type {
  CollectiveOp,
  CollectivePoint,
  CollectiveVariant,
  CollectiveVariantName,
  OverlapPoint,
} from '../protocol';
import type { CuFigure } from './collectiveMessages';

export type {
  CollectiveCrossover,
  CuFigure,
  Curve,
  CurvePoint,
  OverlapClaim,
  OverlapRow,
  OverlapView,
} from './collectiveMessages';
import { overlapView } from './overlap';
import { overlapBudget } from './overlapAdvice';
import { formatBytes } from '../units';
import { crossing, quantile, sortedTimes } from '../advice/crossover';

// ---- variant environment from the catalog ----

import { variantEnv } from './variantEnv';
import type { Vendor } from './variantEnv';
export { variantEnv } from './variantEnv';
export type { Vendor } from './variantEnv';

/** The variants `sdma-probe collective` runs on each vendor when none are named. */
export const DEFAULT_VARIANTS: Readonly<Record<Vendor, readonly CollectiveVariantName[]>> = {
  amd: ['default', 'ce', 'gin-sdma-lib'],
  nvidia: ['default', 'ce'],
};

/**
 * The variants that move bytes with engines on each vendor, in the order their crossovers are
 * listed: on AMD librccl's AlltoAll GIN-SDMA path, rccl-tests' device-API kernels (imports) and
 * RCCL's copy-engine collectives; on NVIDIA NCCL's copy-engine collectives.
 */
export function engineVariantsOf(vendor: Vendor): CollectiveVariantName[] {
  return vendor === 'amd' ? ['gin-sdma-lib', 'gin-sdma-dev', 'ce'] : ['ce'];
}

/** The engine variant a run is compared against for `op` when it ran none. */
function primaryEngineVariant(vendor: Vendor, op: CollectiveOp): CollectiveVariantName {
  return vendor === 'amd' && op === 'alltoall' ? 'gin-sdma-lib' : 'ce';
}

// ---- how the ranks ran ----

// The run's mode is read from its variant records by the core root (compare reads it too).
export { collectiveLauncherOf, collectiveModeOf } from '../protocol';

// ---- curves ----

/** Transports that mean "the engine carried it", by variant. */
const ENGINE_TRANSPORTS: Record<CollectiveVariantName, readonly string[]> = {
  default: [],
  // NCCL's copy-engine collectives, and RCCL's NCCL_CTA_POLICY=ZERO host path, report ce.
  ce: ['ce'],
  'gin-sdma-lib': ['sdma'],
  'gin-sdma-dev': ['sdma'],
  unknown: [],
};

/** True when a point of an engine variant reports a transport that is not the engine's. */
export function isOffPath(p: CollectivePoint): boolean {
  const want = ENGINE_TRANSPORTS[p.variant];
  return want.length > 0 && p.transport !== null && !want.includes(p.transport);
}

export function curvesOf(points: readonly CollectivePoint[]): Curve[] {
  const byKey = new Map<string, Curve>();
  for (const p of points) {
    const key = `${p.op}|${p.variant}|${p.inPlace}`;
    let curve = byKey.get(key);
    if (!curve) {
      curve = { op: p.op, variant: p.variant, inPlace: p.inPlace, points: [] };
      byKey.set(key, curve);
    }
    const t = timeInterval(p);
    const spread = t.n >= MIN_COLLECTIVE_REPEATS && t.q25 > 0 && t.q75 > 0 && p.timeUs > 0;
    curve.points.push({
      sizeBytes: p.sizeBytes,
      busbwGbps: p.busbwGbps,
      algbwGbps: p.algbwGbps,
      timeUs: p.timeUs,
      ...(spread
        ? { busbwLowGbps: (p.busbwGbps * p.timeUs) / t.q75, busbwHighGbps: (p.busbwGbps * p.timeUs) / t.q25 }
        : {}),
      transport: p.transport,
      offPath: isOffPath(p),
      wrong: p.wrong,
      ...(p.cusUsed
        ? {
            cusUsed: {
              count: p.cusUsed.count,
              source: p.cusUsed.source,
              ...(p.cusUsed.evidence !== undefined ? { evidence: p.cusUsed.evidence } : {}),
            },
          }
        : {}),
    });
  }
  const curves = [...byKey.values()];
  for (const c of curves) c.points.sort((a, b) => a.sizeBytes - b.sizeBytes);
  return curves.sort(
    (a, b) => a.op.localeCompare(b.op) || a.variant.localeCompare(b.variant) || Number(a.inPlace) - Number(b.inPlace),
  );
}

// ---- crossover between the default and the engine variant ----

/** Fewer repeats than this leave a point without an interval: its verdict cannot be clear. */
export const MIN_COLLECTIVE_REPEATS = 3;

export type CollectiveSizeVerdict = {
  sizeBytes: number;
  /** engine/default: that variant's slower quartile beat the other's faster one; tie: the intervals overlap; path: a variant did not take its own path there. */
  verdict: 'engine' | 'default' | 'tie' | 'path';
  /** Why a verdict is tie or path, in a phrase. */
  why?: string;
};

interface Interval {
  q25: number;
  median: number;
  q75: number;
  n: number;
}

/** A point's time per call as an interval: the quartiles of its repeats (one repeat: no spread). */
export function timeInterval(p: CollectivePoint): Interval {
  const xs = p.samplesUs && p.samplesUs.length > 0 ? sortedTimes(p.samplesUs) : [p.timeUs];
  return { q25: quantile(xs, 0.25), median: quantile(xs, 0.5), q75: quantile(xs, 0.75), n: xs.length };
}

/** The path a point took, against the path its variant is for: undefined when it is its own. */
export function pathProblem(p: CollectivePoint): string | undefined {
  const want = ENGINE_TRANSPORTS[p.variant];
  if (p.transport === null) return `${p.variant} did not record its path at ${formatBytes(p.sizeBytes)}`;
  if (
    want.length > 0
      ? !want.includes(p.transport)
      : Object.values(ENGINE_TRANSPORTS).some((t) => t.includes(p.transport!))
  ) {
    return `${p.variant} ran ${p.transport}, not its own path, at ${formatBytes(p.sizeBytes)}`;
  }
  return undefined;
}

/**
 * Where the engine variant overtakes the default, from each point's repeats. At each size both
 * variants ran, a variant wins only when its slower quartile beats the other's faster one, and
 * only when both took their own path (the transport the run recorded); anything else is a tie or
 * a path problem, never a winner. The crossover is the smallest size from which the engine stays
 * ahead; it is clear exactly when the default won, on its own path, at the size just below.
 */
export function findCollectiveCrossover(
  points: readonly CollectivePoint[],
  op: CollectiveOp,
  engineVariant: CollectiveVariantName,
): CollectiveCrossover {
  const pick = (variant: CollectiveVariantName) =>
    new Map(points.filter((p) => p.op === op && p.variant === variant && !p.inPlace).map((p) => [p.sizeBytes, p]));
  const base = pick('default');
  const engine = pick(engineVariant);
  const sizes = [...base.keys()].filter((s) => engine.has(s)).sort((a, b) => a - b);
  const ranks = points.find((p) => p.op === op)?.ranks ?? 0;
  const repeats =
    sizes.length === 0
      ? 0
      : Math.min(...sizes.flatMap((s) => [timeInterval(base.get(s)!).n, timeInterval(engine.get(s)!).n]));
  const verdicts: CollectiveSizeVerdict[] = sizes.map((sizeBytes) => {
    const e = engine.get(sizeBytes)!;
    const d = base.get(sizeBytes)!;
    const why = pathProblem(e) ?? pathProblem(d);
    if (why) return { sizeBytes, verdict: 'path', why };
    const ei = timeInterval(e);
    const di = timeInterval(d);
    if (Math.min(ei.n, di.n) < MIN_COLLECTIVE_REPEATS)
      return {
        sizeBytes,
        verdict: 'tie',
        why: `${Math.min(ei.n, di.n)} repeat${Math.min(ei.n, di.n) === 1 ? '' : 's'} at ${formatBytes(sizeBytes)}, too few for an interval (--repeats ${MIN_COLLECTIVE_REPEATS * 2} or more)`,
      };
    if (ei.q75 < di.q25) return { sizeBytes, verdict: 'engine' };
    if (di.q75 < ei.q25) return { sizeBytes, verdict: 'default' };
    return { sizeBytes, verdict: 'tie', why: `the intervals of both variants overlap at ${formatBytes(sizeBytes)}` };
  });
  const common = { op, engineVariant, ranks, repeats, verdicts };
  const reps = `${repeats} repeat${repeats === 1 ? '' : 's'} per point`;
  const problems = verdicts.filter((x) => x.verdict === 'path').map((x) => x.why!);
  const pathNote = problems.length > 0 ? ` Not judged: ${problems.join('; ')}.` : '';
  const none = (
    kind: CollectiveCrossover['kind'],
    text: string,
    extra: Partial<CollectiveCrossover> = {},
  ): CollectiveCrossover => ({ ...common, kind, confidence: 'none', uncertainty: [], text, ...extra });
  if (sizes.length < 2)
    return none(
      'insufficient',
      `${op}: fewer than two sizes ran both ${engineVariant} and default, so no crossover can be read.`,
    );
  const lastNotEngine = verdicts.map((x) => x.verdict !== 'engine').lastIndexOf(true);
  if (lastNotEngine < 0) {
    return {
      ...common,
      kind: 'engine-always',
      fromBytes: sizes[0],
      confidence: 'clear',
      uncertainty: [],
      text: `${op}: ${engineVariant} is ahead at every size from the smallest measured, ${formatBytes(sizes[0]!)}, on its own path (${reps}, ${ranks} ranks).`,
    };
  }
  if (lastNotEngine === verdicts.length - 1) {
    const defaults = verdicts.filter((x) => x.verdict === 'default').map((x) => x.sizeBytes);
    if (defaults.length === verdicts.length) {
      return {
        ...common,
        kind: 'default-always',
        lastDefaultBytes: sizes.at(-1),
        confidence: 'clear',
        uncertainty: [],
        text: `${op}: default is ahead at every size up to ${formatBytes(sizes.at(-1)!)} (${reps}, ${ranks} ranks).`,
      };
    }
    const ties = verdicts.filter((x) => x.verdict === 'tie').map((x) => formatBytes(x.sizeBytes));
    return none(
      'no-clear-winner',
      `${op}: ${engineVariant} does not stay ahead up to the largest size${defaults.length > 0 ? `; default is ahead at ${defaults.map(formatBytes).join(', ')}` : ''}${ties.length > 0 ? `; the intervals overlap at ${ties.join(', ')}` : ''} (${reps}, ${ranks} ranks).${pathNote}`,
      defaults.length > 0 ? { lastDefaultBytes: defaults.at(-1) } : {},
    );
  }
  const i0 = lastNotEngine;
  const s0 = sizes[i0]!;
  const s1 = sizes[i0 + 1]!;
  const below = verdicts[i0]!;
  const uncertainty = below.verdict === 'default' ? [] : [below.why!];
  // Interpolate only between two points judged on their own paths.
  let estimateBytes: number | undefined;
  let rangeBytes: [number, number] = [s0, s1];
  if (below.verdict !== 'path') {
    const adv = (d: number, e: number) => Math.log(d / e);
    const [e0, d0, e1, d1] = [
      timeInterval(engine.get(s0)!),
      timeInterval(base.get(s0)!),
      timeInterval(engine.get(s1)!),
      timeInterval(base.get(s1)!),
    ];
    estimateBytes = crossing(s0, adv(d0.median, e0.median), s1, adv(d1.median, e1.median));
    const early = crossing(s0, adv(d0.q75, e0.q25), s1, adv(d1.q75, e1.q25));
    const late = crossing(s0, adv(d0.q25, e0.q75), s1, adv(d1.q25, e1.q75));
    rangeBytes = [
      Math.max(s0, Math.min(early, late, estimateBytes)),
      Math.min(s1, Math.max(early, late, estimateBytes)),
    ];
  }
  const lastDefault = verdicts.map((x) => x.verdict === 'default').lastIndexOf(true);
  const near =
    estimateBytes !== undefined
      ? `, crossing near ${formatBytes(Math.round(estimateBytes))} (between ${formatBytes(Math.round(rangeBytes[0]))} and ${formatBytes(Math.round(rangeBytes[1]))})`
      : '';
  const unsure = uncertainty.length > 0 ? ` Uncertain: ${uncertainty.join('; ')}.` : '';
  return {
    ...common,
    kind: 'crossover',
    fromBytes: s1,
    ...(lastDefault >= 0 ? { lastDefaultBytes: sizes[lastDefault] } : {}),
    ...(estimateBytes !== undefined ? { estimateBytes } : {}),
    rangeBytes,
    confidence: uncertainty.length === 0 ? 'clear' : 'uncertain',
    uncertainty,
    text: `${op}: ${engineVariant} stays ahead from ${formatBytes(s1)}${near}; ${below.verdict === 'default' ? `default was ahead at ${formatBytes(s0)}` : `at ${formatBytes(s0)} no verdict`} (${reps}, ${ranks} ranks).${unsure}${pathNote}`,
  };
}

// ---- overlap ----

export { overlapView } from './overlap';

// ---- advice ----

export interface CollectiveAdvice {
  crossovers: CollectiveCrossover[];
  recommendations: Recommendation[];
  /** Points of an engine variant that ran another path. */
  offPath: { op: CollectiveOp; variant: CollectiveVariantName; sizeBytes: number; transport: string }[];
  /**
   * The overlap run's compute kept beside each copy path against the CU arithmetic: per compute
   * kind where the arithmetic holds and what decides where it does not, and the engine path's
   * measured gain beside the arithmetic's (`overlapAdvice.ts`).
   */
  cuBudget: string[];
  /** The CUs the default path's kernels held per rank, where the figure came from, and what it leaves (absent: no default point). */
  cus?: CuFigure;
  notes: string[];
}

export interface CollectiveAdviceOptions {
  /** CUs (SMs) of one GPU of the node, for what the default path leaves to compute. */
  cusPerGpu?: number;
}

/**
 * The library's own size threshold for the engine path of each operation. librccl's GIN-SDMA
 * path is AlltoAll only (NCCL_GIN_A2A_SDMA_MIN_BYTES, per peer, at or above it); it has no
 * AllGather threshold: the NCCL_GIN_ANVIL_SDMA_THRESHOLD_{ALLGATHER,...} names are rccl-tests'.
 */
const THRESHOLD_KNOB: Partial<Record<CollectiveOp, string>> = {
  alltoall: 'NCCL_GIN_A2A_SDMA_MIN_BYTES',
};

/** Whole KiB, rounded up: a `ge` threshold at or just above the crossing. */
const kibUp = (b: number) => Math.ceil(b / 1024) * 1024;

/**
 * A per-peer `ge` threshold placed at the collective's crossing (total bytes per rank over the
 * ranks), with the measured sizes listed by the path the value gives them. Undefined when the
 * crossover places nothing.
 */
export function collectiveThreshold(
  k: Knob,
  c: CollectiveCrossover,
  sizes: readonly number[],
): { value: number; words: string } | undefined {
  if (c.ranks <= 0 || c.fromBytes === undefined || (c.kind !== 'crossover' && c.kind !== 'engine-always'))
    return undefined;
  const perPeer = (b: number) => b / c.ranks;
  const value =
    c.kind === 'crossover' && c.estimateBytes !== undefined
      ? kibUp(perPeer(c.estimateBytes))
      : Math.floor(perPeer(c.fromBytes));
  const engineAt = (b: number) => perPeer(b) >= value;
  const ordered = [...new Set(sizes)].sort((a, b) => a - b);
  const list = (xs: number[]) =>
    xs.map((b) => `${formatBytes(b)} (${formatBytes(Math.floor(perPeer(b)))} per peer)`).join(', ');
  const sdma = ordered.filter(engineAt);
  const lsa = ordered.filter((b) => !engineAt(b));
  const def = k.default !== null && /^\d+$/.test(k.default) ? Number(k.default) : undefined;
  const moved = def === undefined ? [] : ordered.filter((b) => engineAt(b) !== perPeer(b) >= def);
  const where =
    c.kind === 'crossover' && c.estimateBytes !== undefined
      ? `the crossover near ${formatBytes(Math.round(c.estimateBytes))} per rank (${formatBytes(Math.round(perPeer(c.estimateBytes)))} per peer over ${c.ranks} ranks)`
      : `${c.engineVariant}'s lead at every size measured, from ${formatBytes(c.fromBytes)}`;
  const words = `${k.name}=${value} (${k.unit}, SDMA when bytesPerPeer is at least it) follows ${where}: of the sizes measured, ${sdma.length ? `${list(sdma)} go by SDMA` : 'none goes by SDMA'}${lsa.length ? `, ${list(lsa)} by the LSA copy kernel` : ''}.${def === undefined ? '' : moved.length === 0 ? ` None of them changes path against the default (${formatBytes(def)} per peer).` : ` Against the default (${formatBytes(def)} per peer), ${moved.map(formatBytes).join(', ')} change path.`}`;
  return { value, words };
}

/** What a source of `cusUsed` is, in words. */
const CUS_SOURCE_WORDS: Record<CuFigure['source'], string> = {
  log: "the library's log (one CTA per channel, each on a CU of its own)",
  'zero-cta': 'a zero-CTA copy-engine path the log or a graph capture confirmed',
  model: "the simulated node's model",
  assumed: `nothing in the run: ${DEFAULT_LOAD_STORE_CUS} CUs are assumed (RCCL's channel count on MI300-class GPUs), not read from the library's log`,
};

/**
 * The CUs the default path's kernels held per rank where it matters: at the sizes where an
 * engine variant was ahead (the CUs switching gives back), else at the sizes both ran, else at
 * every size the default ran. The largest `cusUsed.count` there, and where it came from;
 * assumed (`DEFAULT_LOAD_STORE_CUS`) when no point said.
 */
export function defaultPathCus(
  points: readonly CollectivePoint[],
  crossovers: readonly CollectiveCrossover[],
  options: CollectiveAdviceOptions = {},
): CuFigure | undefined {
  const defaults = points.filter((p) => p.variant === 'default');
  if (defaults.length === 0) return undefined;
  const at = (verdicts: (v: CollectiveSizeVerdict) => boolean) =>
    new Set(crossovers.flatMap((c) => c.verdicts.filter(verdicts).map((v) => `${c.op}|${v.sizeBytes}`)));
  const ahead = at((v) => v.verdict === 'engine');
  const compared = at(() => true);
  const [sizes, where] =
    ahead.size > 0
      ? [ahead, 'at the sizes where an engine variant was ahead']
      : compared.size > 0
        ? [compared, 'at the sizes both the default and an engine variant ran']
        : [undefined, 'at the sizes measured'];
  const matters = (p: CollectivePoint) => sizes === undefined || sizes.has(`${p.op}|${p.sizeBytes}`);
  let largest: CollectivePoint | undefined;
  for (const p of defaults) {
    const n = p.cusUsed?.count;
    if (n === null || n === undefined || !matters(p)) continue;
    if (!largest || n > largest.cusUsed!.count!) largest = p;
  }
  const count = largest ? largest.cusUsed!.count! : DEFAULT_LOAD_STORE_CUS;
  const source: CuFigure['source'] = largest ? (largest.cusUsed!.source as CuFigure['source']) : 'assumed';
  const total = options.cusPerGpu !== undefined && options.cusPerGpu > 0 ? options.cusPerGpu : undefined;
  // What the engine variants' own kernels held at the same sizes, where they said.
  const engines = new Map<CollectiveVariantName, number>();
  for (const p of points) {
    const n = p.cusUsed?.count;
    if (p.variant === 'default' || p.variant === 'unknown' || n === null || n === undefined || !matters(p)) continue;
    engines.set(p.variant, Math.max(engines.get(p.variant) ?? 0, n));
  }
  const figure = largest
    ? `The default path's kernels held up to ${count} CUs per rank ${where} (${largest.op} ${formatBytes(largest.sizeBytes)}), from ${CUS_SOURCE_WORDS[source]}.`
    : `No point of the default path said how many CUs its kernels held ${where}; the CU budget takes ${count} from ${CUS_SOURCE_WORDS.assumed}.`;
  const engineWords =
    engines.size > 0 ? ` ${[...engines].map(([variant, n]) => `${variant} held up to ${n}`).join(', ')} there.` : '';
  const budget =
    total !== undefined
      ? ` Of ${total} CUs per GPU the default path leaves ${Math.max(0, total - count)} to compute beside it; a copy-engine path that launches no kernel leaves all ${total}.`
      : '';
  return {
    count,
    source,
    ...(largest ? { op: largest.op, sizeBytes: largest.sizeBytes } : {}),
    text: `${figure}${engineWords}${budget}`,
  };
}

/** "name wants WANT, found FOUND" of each condition a variant did not meet. */
export function failedConditions(record: CollectiveVariant): string[] {
  return (record.conditions ?? [])
    .filter((c) => !c.ok)
    .map((c) => `${c.name} wants ${c.want}, found ${c.found === '' ? 'nothing' : c.found}`);
}

export function collectiveAdvice(
  vendor: Vendor,
  variants: readonly CollectiveVariant[],
  points: readonly CollectivePoint[],
  overlaps: readonly OverlapPoint[] = [],
  options: CollectiveAdviceOptions = {},
): CollectiveAdvice {
  const engines = engineVariantsOf(vendor);
  const ops = [...new Set(points.map((p) => p.op))];
  const ran = new Set(points.map((p) => `${p.op}|${p.variant}`));
  // Each engine variant that ran an operation is compared with the default there; an operation
  // no engine variant ran still says so, against the vendor's engine variant for it.
  const crossovers = ops.flatMap((op) => {
    const against = engines.filter((e) => ran.has(`${op}|${e}`));
    return (against.length > 0 ? against : [primaryEngineVariant(vendor, op)]).map((e) =>
      findCollectiveCrossover(points, op, e),
    );
  });
  const recommendations: Recommendation[] = [];
  const notes: string[] = [];
  const inRun = (variant: CollectiveVariantName) =>
    variants.some((v) => v.variant === variant) || points.some((p) => p.variant === variant);
  /** The record of a variant, else any record (the same library loaded for every variant). */
  const recordOf = (variant: CollectiveVariantName) => variants.find((v) => v.variant === variant) ?? variants[0];
  const versionOf = (variant: CollectiveVariantName) => recordOf(variant)?.library.version;
  const versionWordsOf = (variant: CollectiveVariantName) => {
    const r = recordOf(variant);
    return r !== undefined
      ? `${r.library.name.toUpperCase()} ${r.library.version} (the library the run loaded)`
      : 'the library version was not reported';
  };
  for (const r of variants) {
    if (r.supported) continue;
    const failed = failedConditions(r);
    notes.push(
      `${r.variant} did not run: ${r.reason ?? 'unsupported'}${r.hint ? ` (${r.hint})` : ''}.${failed.length > 0 ? ` Conditions not met: ${failed.join('; ')}.` : ''}`,
    );
  }
  const offPath = points
    .filter(isOffPath)
    .map((p) => ({ op: p.op, variant: p.variant, sizeBytes: p.sizeBytes, transport: p.transport! }));
  for (const variant of [...new Set(offPath.map((p) => p.variant))]) {
    const mine = offPath.filter((p) => p.variant === variant);
    const sizes = [...new Set(mine.map((p) => formatBytes(p.sizeBytes)))].join(', ');
    notes.push(
      `The ${variant} path did not engage at ${sizes}: the library reported ${[...new Set(mine.map((p) => p.transport))].join('/')} there, so those sizes are not compared.`,
    );
  }

  const noted = new Set<CollectiveOp>();
  const noThreshold = (op: CollectiveOp) => {
    if (noted.has(op)) return;
    noted.add(op);
    notes.push(
      `${op}: librccl has no size threshold of its own for an engine ${op} (its GIN-SDMA path is AlltoAll only, gin_alltoall_sdma.cu); NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER is read only by rccl-tests' device-API kernels (gin-sdma-dev), so no value is suggested.`,
    );
  };
  if (vendor === 'amd') {
    const version = versionOf('gin-sdma-lib');
    const versionWords = versionWordsOf('gin-sdma-lib');
    for (const c of crossovers.filter((x) => x.engineVariant === 'gin-sdma-lib')) {
      const name = THRESHOLD_KNOB[c.op];
      const k = name ? knob(name) : undefined;
      if (!k) {
        noThreshold(c.op);
        continue;
      }
      const verify = ` Verify on the node: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL makes RCCL log 'AllToAll GIN: transport=sdma bytesPerPeer=N' for each call. (${k.reader}; ${k.source})`;
      const tooOld = version !== undefined && k.versions.from !== null && compareVersions(version, k.versions.from) < 0;
      const t = tooOld
        ? undefined
        : collectiveThreshold(
            k,
            c,
            points.filter((p) => p.op === c.op && !p.inPlace).map((p) => p.sizeBytes),
          );
      if (tooOld) {
        recommendations.push({
          knob: k.name,
          library: 'rccl',
          evidence: `${c.text} ${versionWords} predates ${k.name} (${describeRange(k.versions)}): no value is suggested.${verify}`,
          basis: 'measured-crossover',
          confidence: 'none',
        });
      } else if (t) {
        recommendations.push({
          knob: k.name,
          library: 'rccl',
          value: String(t.value),
          evidence: `${t.words} ${c.text} Assumes ${versionWords}, where ${k.name} exists from ${k.versions.from}.${verify}`,
          basis: 'measured-crossover',
          confidence: c.confidence === 'none' ? 'uncertain' : c.confidence,
        });
      } else {
        recommendations.push({
          knob: k.name,
          library: 'rccl',
          evidence: `${c.text} No value is suggested.${verify}`,
          basis: 'measured-crossover',
          confidence: 'none',
        });
      }
    }
    // librccl runs no GIN-SDMA AllGather: where the run asked for gin-sdma-lib beside an AllGather, say why no threshold follows.
    if (inRun('gin-sdma-lib') && ops.includes('allgather')) noThreshold('allgather');
    for (const c of crossovers.filter((x) => x.engineVariant === 'gin-sdma-dev' && x.kind !== 'insufficient'))
      notes.push(
        `${c.op}: gin-sdma-dev is rccl-tests' device-API GIN-SDMA kernels, not a path of the library's own calls: no library setting follows from its crossover.`,
      );
    const ginType = knob('NCCL_GIN_TYPE');
    const values = ginType ? sdmaValues(ginType, version) : [];
    // An overlap run alone has no library to advise on.
    const collectiveRun = variants.length > 0 || points.length > 0;
    if (collectiveRun && (inRun('gin-sdma-lib') || !inRun('ce'))) {
      if (version !== undefined && values.length === 1) {
        recommendations.push({
          knob: 'NCCL_GIN_TYPE',
          library: 'rccl',
          value: values[0]!.value,
          evidence: `${versionWords} selects Anvil SDMA with ${values[0]!.value} (${describeRange(values[0]!.versions)}). Verify on the node: NCCL_DEBUG=INFO names the GIN backend the communicator took. (${ginType!.source})`,
          basis: 'catalog',
          confidence: values[0]!.confidence === 'guess' ? 'uncertain' : 'clear',
        });
      } else {
        recommendations.push({
          knob: 'NCCL_GIN_TYPE',
          library: 'rccl',
          evidence:
            version === undefined
              ? 'The RCCL version was not reported: no value is set (give it with sdma-lens advise --rccl-version X).'
              : `RCCL ${version} has no single Anvil SDMA value in the catalog.`,
          basis: 'catalog',
          confidence: 'none',
        });
      }
    }
  }

  // Copy-engine collectives, NCCL's and RCCL's alike: one communicator-wide policy.
  const ce = crossovers.filter((c) => c.engineVariant === 'ce');
  const judged = ce.filter((c) => c.kind !== 'insufficient');
  if (judged.length > 0) {
    const k = knob('NCCL_CTA_POLICY');
    const library = vendor === 'amd' ? 'rccl' : 'nccl';
    const version = versionOf('ce');
    const versionWords = versionWordsOf('ce');
    const wins = judged.filter((c) => c.kind === 'crossover' || c.kind === 'engine-always');
    const losing = judged.flatMap((c) =>
      c.verdicts.filter((x) => x.verdict === 'default').map((x) => `${c.op} ${formatBytes(x.sizeBytes)}`),
    );
    const open = judged.flatMap((c) =>
      c.verdicts
        .filter((x) => x.verdict === 'tie' || x.verdict === 'path')
        .map((x) => `${c.op} ${formatBytes(x.sizeBytes)}`),
    );
    const scope = `NCCL_CTA_POLICY applies to every collective of the communicator, at every size (set it, or ncclConfig_t.CTAPolicy, on a communicator that carries only the sizes where it wins).`;
    const how =
      vendor === 'amd'
        ? "RCCL's copy-engine collectives (hipMemcpyBatchAsync from the host) need symmetric buffers (ncclMemAlloc + ncclCommWindowRegister) and take no CUs."
        : 'Copy-engine collectives need symmetric buffers (ncclMemAlloc + ncclCommWindowRegister) and take no SMs.';
    const cite = k ? ` (${k.source})` : '';
    if (wins.length > 0) {
      const env = variantEnv('ce', version, vendor === 'amd' ? 'rccl' : 'nccl');
      const loses =
        losing.length > 0 ? ` It loses to the default at ${losing.join(', ')}.` : ' It lost at no size measured.';
      const unsure = open.length > 0 ? ` No verdict at ${open.join(', ')}.` : '';
      recommendations.push({
        knob: 'NCCL_CTA_POLICY',
        library,
        value: env?.NCCL_CTA_POLICY,
        evidence: `${wins.map((c) => c.text).join(' ')} ${scope}${loses}${unsure} ${how} Assumes ${versionWords}.${cite}`,
        basis: 'measured-crossover',
        confidence:
          losing.length > 0 || open.length > 0 || wins.some((c) => c.confidence !== 'clear') ? 'uncertain' : 'clear',
      });
    } else {
      recommendations.push({
        knob: 'NCCL_CTA_POLICY',
        library,
        evidence: `${judged.map((c) => c.text).join(' ')} Keep the default policy.${cite}`,
        basis: 'measured-crossover',
        confidence: judged.every((c) => c.confidence === 'clear') ? 'clear' : 'uncertain',
      });
    }
  }

  const cuBudget = overlapBudget(
    overlapView(overlaps),
    overlaps.some((p) => p.simulated),
  );
  const cus = defaultPathCus(points, crossovers, options);
  return { crossovers, recommendations, offPath, cuBudget, ...(cus ? { cus } : {}), notes };
}
