/**
 * Collectives and compute interference as pure functions of the records `sdma-probe
 * collective` and `sdma-probe overlap` print: the nccl-tests formulas, the environment a
 * variant needs (built from the knob catalog, so the helper and the advice cannot drift),
 * the curves and crossovers the collective panel draws, and the advice they feed.
 */
import type { Recommendation } from '../advice/advice';
import { knob, sdmaValues } from '../advice/knobs';
import { compareVersions, describeRange } from '../advice/version';
import type { CollectiveCrossover, Curve, OverlapRow, OverlapView } from './collectiveMessages';
import type { CollectiveOp, CollectivePoint, CollectiveVariant, CollectiveVariantName, OverlapPoint } from '../protocol';

export type { CollectiveCrossover, Curve, CurvePoint, OverlapRow, OverlapView } from './collectiveMessages';
import { formatBytes } from '../units';

// ---- variant environment from the catalog ----

export type Vendor = 'amd' | 'nvidia';

/** The variant that moves bytes with engines on each vendor. */
export function engineVariantOf(vendor: Vendor): CollectiveVariantName {
  return vendor === 'amd' ? 'gin-sdma' : 'ce';
}

/**
 * What a variant sets before its communicator is created, for the library version on the
 * node. gin-sdma: RCCL's prerequisites plus the NCCL_GIN_TYPE that means Anvil SDMA at that
 * version, and librccl's AlltoAll GIN path forced to SDMA at every size (NCCL_GIN_A2A_ENABLE=1,
 * NCCL_GIN_A2A_MIN_BYTES=0, NCCL_GIN_A2A_SDMA_MIN_BYTES=0: gin_alltoall_sdma.cu), as the
 * helper sets them; ce: NCCL_CTA_POLICY=ZERO (as its number: NCCL before 2.29 reads only numbers) on
 * cuMem-backed, symmetric buffers. Undefined when the catalog has no SDMA value for the version.
 */
export function variantEnv(variant: CollectiveVariantName, libraryVersion: string | undefined): Record<string, string> | undefined {
  if (variant === 'default') return {};
  if (variant === 'ce') {
    const policy = knob('NCCL_CTA_POLICY');
    // The number 2 means ZERO wherever ZERO exists (2.28 on); the name only from 2.29.2 (catalog).
    const zero = (policy?.values ?? []).find((x) => x.sdma === true && x.value === '2');
    if (!zero || (libraryVersion !== undefined && compareVersions(libraryVersion, zero.versions.from ?? '0') < 0)) return undefined;
    return { NCCL_CTA_POLICY: zero.value, NCCL_CUMEM_ENABLE: '1' };
  }
  const ginType = knob('NCCL_GIN_TYPE');
  const sdma = ginType ? sdmaValues(ginType, libraryVersion) : [];
  if (sdma.length !== 1) return undefined;
  const env: Record<string, string> = {};
  for (const name of ['NCCL_GIN_ENABLE', 'NCCL_CUMEM_ENABLE', 'NCCL_DMABUF_ENABLE', 'HSA_NO_SCRATCH_RECLAIM']) {
    const k = knob(name);
    if (k?.recommended !== undefined) env[name] = k.recommended;
  }
  env.NCCL_GIN_TYPE = sdma[0]!.value;
  const forced: Record<string, string> = { NCCL_GIN_A2A_ENABLE: '1', NCCL_GIN_A2A_MIN_BYTES: '0', NCCL_GIN_A2A_SDMA_MIN_BYTES: '0' };
  for (const [name, value] of Object.entries(forced)) {
    if (knob(name)) env[name] = value;
  }
  return env;
}

// ---- curves ----



/** Transports that mean "the engine carried it", by variant. */
const ENGINE_TRANSPORTS: Record<CollectiveVariantName, readonly string[]> = {
  default: [],
  ce: ['ce'],
  'gin-sdma': ['sdma'],
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
    curve.points.push({
      sizeBytes: p.sizeBytes,
      busbwGbps: p.busbwGbps,
      algbwGbps: p.algbwGbps,
      timeUs: p.timeUs,
      transport: p.transport,
      offPath: isOffPath(p),
      wrong: p.wrong,
    });
  }
  const curves = [...byKey.values()];
  for (const c of curves) c.points.sort((a, b) => a.sizeBytes - b.sizeBytes);
  return curves.sort((a, b) => a.op.localeCompare(b.op) || a.variant.localeCompare(b.variant) || Number(a.inPlace) - Number(b.inPlace));
}

// ---- crossover between the default and the engine variant ----


/** Busbw within this fraction counts as a tie: run-to-run spread of a collective at one size. */
export const TIE_FRACTION = 0.02;

export function findCollectiveCrossover(points: readonly CollectivePoint[], op: CollectiveOp, engineVariant: CollectiveVariantName): CollectiveCrossover {
  const pick = (variant: CollectiveVariantName) => new Map(points.filter((p) => p.op === op && p.variant === variant && !p.inPlace).map((p) => [p.sizeBytes, p]));
  const base = pick('default');
  const engine = pick(engineVariant);
  const sizes = [...base.keys()].filter((s) => engine.has(s)).sort((a, b) => a - b);
  const ranks = points.find((p) => p.op === op)?.ranks ?? 0;
  const none = (kind: CollectiveCrossover['kind'], text: string): CollectiveCrossover => ({ op, engineVariant, kind, ranks, text });
  if (sizes.length < 2) return none('insufficient', `Fewer than two sizes ran both ${op} variants: no crossover can be read.`);
  // +1: engine ahead, -1: default ahead, 0: tie.
  const verdicts = sizes.map((s) => {
    const e = engine.get(s)!.busbwGbps;
    const d = base.get(s)!.busbwGbps;
    if (Math.abs(e - d) <= TIE_FRACTION * Math.max(e, d)) return 0;
    return e > d ? 1 : -1;
  });
  const lastDefault = verdicts.lastIndexOf(-1);
  const firstEngine = verdicts.indexOf(1);
  if (firstEngine < 0) {
    return lastDefault < 0
      ? none('no-clear-winner', `${op}: ${engineVariant} and default are within ${TIE_FRACTION * 100}% at every size.`)
      : { ...none('default-always', `${op}: the default path wins or ties at every size up to ${formatBytes(sizes.at(-1)!)}.`), lastDefaultBytes: sizes[lastDefault] };
  }
  if (lastDefault < 0) {
    return { ...none('engine-always', `${op}: ${engineVariant} wins or ties from the smallest size measured, ${formatBytes(sizes[0]!)}.`), fromBytes: sizes[0] };
  }
  // The engine must stay ahead (or level) from the crossover on; a late default win means
  // the curves cross more than once.
  const from = sizes.findIndex((_, i) => i > lastDefault && verdicts[i] === 1);
  if (from < 0) {
    return { ...none('default-always', `${op}: the default path wins at the largest sizes (${formatBytes(sizes[lastDefault]!)}).`), lastDefaultBytes: sizes[lastDefault] };
  }
  const fromBytes = sizes[from]!;
  return {
    op,
    engineVariant,
    kind: 'crossover',
    fromBytes,
    lastDefaultBytes: sizes[lastDefault],
    ranks,
    text: `${op}: ${engineVariant} wins from ${formatBytes(fromBytes)} (default still won at ${formatBytes(sizes[lastDefault]!)}), ${ranks} ranks.`,
  };
}

// ---- overlap ----



/** A board within this share of its limit is at the cap. */
const AT_CAP = 0.95;
/** Clock changes smaller than this are noise. */
const CLOCK_NOISE = 0.01;

export function overlapView(points: readonly OverlapPoint[]): OverlapView {
  const alone: OverlapView['alone'] = {};
  for (const compute of ['gemm', 'fma'] as const) {
    const runs = points.filter((p) => p.compute === compute && p.path === 'alone');
    if (runs.length === 0) continue;
    const mean = (xs: (number | null)[]) => {
      const v = xs.filter((x): x is number => x !== null);
      return v.length > 0 ? v.reduce((a, b) => a + b, 0) / v.length : null;
    };
    alone[compute] = {
      tflops: mean(runs.map((r) => r.computeTflops)) ?? 0,
      smClockMHz: mean(runs.map((r) => r.smClockMHz)),
      powerW: mean(runs.map((r) => r.powerW)),
      powerLimitW: mean(runs.map((r) => r.powerLimitW)),
    };
  }
  const rows: OverlapRow[] = points
    .filter((p) => p.path !== 'alone' && p.keptFraction !== null)
    .map((p) => {
      const base = alone[p.compute];
      let cause: OverlapRow['cause'] = 'unknown';
      if (p.keptFraction! >= 1 - CLOCK_NOISE) {
        cause = 'none';
      } else if (base?.smClockMHz != null && p.smClockMHz !== null) {
        const clockFell = p.smClockMHz < base.smClockMHz * (1 - CLOCK_NOISE);
        const atCap = p.powerW !== null && p.powerLimitW !== null && p.powerW >= AT_CAP * p.powerLimitW;
        const lostSms = p.path.startsWith('cu/');
        cause = clockFell && atCap ? (lostSms ? 'both' : 'power') : lostSms ? 'sms' : 'unknown';
      } else if (p.path.startsWith('cu/')) {
        cause = 'sms';
      }
      return {
        compute: p.compute,
        path: p.path,
        label: p.cus !== undefined ? `${p.path} ${p.cus} CUs` : p.path,
        cus: p.cus,
        keptFraction: p.keptFraction!,
        copyGbps: p.copyGbps,
        smClockMHz: p.smClockMHz,
        powerW: p.powerW,
        cause,
      };
    });
  return { rows, alone };
}

// ---- advice ----

export interface CollectiveAdvice {
  crossovers: CollectiveCrossover[];
  recommendations: Recommendation[];
  /** Points of the engine variant that ran another path. */
  offPath: { op: CollectiveOp; sizeBytes: number; transport: string }[];
  /** Measured compute kept beside each copy path (overlap run), one line each. */
  cuBudget: string[];
  notes: string[];
}

const THRESHOLD_KNOB: Record<CollectiveOp, string> = {
  allgather: 'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER',
  alltoall: 'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLTOALL',
};

/**
 * Thresholds are per rank (AllGather) or per peer (AlltoAll): the collective's size over the
 * ranks. A `gt` knob switches above its value, so the value is the largest per-rank size the
 * default path should keep.
 */
export function thresholdFromCrossover(c: CollectiveCrossover, sizes: readonly number[]): number | undefined {
  if (c.ranks <= 0 || c.fromBytes === undefined) return undefined;
  const below = [...sizes].filter((s) => s < c.fromBytes!).sort((a, b) => a - b).at(-1);
  const perRank = (below ?? c.fromBytes / 2) / c.ranks;
  return Math.max(0, Math.floor(perRank));
}

export function collectiveAdvice(vendor: Vendor, variants: readonly CollectiveVariant[], points: readonly CollectivePoint[], overlaps: readonly OverlapPoint[] = []): CollectiveAdvice {
  const engineVariant = engineVariantOf(vendor);
  const ops = [...new Set(points.map((p) => p.op))];
  const crossovers = ops.map((op) => findCollectiveCrossover(points, op, engineVariant));
  const recommendations: Recommendation[] = [];
  const notes: string[] = [];
  const engineRecord = variants.find((v) => v.variant === engineVariant);
  const version = engineRecord?.library.version;
  if (engineRecord && !engineRecord.supported) notes.push(`${engineVariant} did not run: ${engineRecord.reason ?? 'unsupported'}${engineRecord.hint ? ` (${engineRecord.hint})` : ''}.`);
  const offPath = points.filter(isOffPath).map((p) => ({ op: p.op, sizeBytes: p.sizeBytes, transport: p.transport! }));
  if (offPath.length > 0) {
    const sizes = [...new Set(offPath.map((p) => formatBytes(p.sizeBytes)))].join(', ');
    notes.push(`The ${engineVariant} path did not engage at ${sizes}: the library reported ${[...new Set(offPath.map((p) => p.transport))].join('/')} there.`);
  }

  if (vendor === 'amd') {
    for (const c of crossovers) {
      const k = knob(THRESHOLD_KNOB[c.op]);
      if (!k) continue;
      const sizes = points.filter((p) => p.op === c.op).map((p) => p.sizeBytes);
      const value = thresholdFromCrossover(c, sizes);
      if (c.kind === 'crossover' && value !== undefined) {
        recommendations.push({ knob: k.name, library: 'rccl', value: String(value), evidence: `${c.text} Measured by a collective sweep: SDMA above ${formatBytes(value)} ${k.unit}.`, basis: 'measured-crossover', confidence: 'clear' });
      } else {
        recommendations.push({ knob: k.name, library: 'rccl', evidence: `${c.text} No value is suggested.`, basis: 'measured-crossover', confidence: 'none' });
      }
    }
    const ginType = knob('NCCL_GIN_TYPE');
    const values = ginType ? sdmaValues(ginType, version) : [];
    if (version !== undefined && values.length === 1) {
      recommendations.push({ knob: 'NCCL_GIN_TYPE', library: 'rccl', value: values[0]!.value, evidence: `RCCL ${version} (the library the sweep loaded) selects Anvil SDMA with ${values[0]!.value} (${describeRange(values[0]!.versions)}).`, basis: 'catalog', confidence: values[0]!.confidence === 'guess' ? 'uncertain' : 'clear' });
    } else {
      recommendations.push({ knob: 'NCCL_GIN_TYPE', library: 'rccl', evidence: version === undefined ? 'The RCCL version was not reported: no value is set.' : `RCCL ${version} has no single Anvil SDMA value in the catalog.`, basis: 'catalog', confidence: 'none' });
    }
  } else {
    const wins = crossovers.filter((c) => c.kind === 'crossover' || c.kind === 'engine-always');
    if (wins.length > 0) {
      const env = variantEnv('ce', version);
      recommendations.push({
        knob: 'NCCL_CTA_POLICY',
        library: 'nccl',
        value: env?.NCCL_CTA_POLICY,
        evidence: `${wins.map((c) => c.text).join(' ')} Copy-engine collectives need symmetric buffers (ncclMemAlloc + ncclCommWindowRegister) and take no SMs.`,
        basis: 'measured-crossover',
        confidence: 'clear',
      });
    } else if (crossovers.length > 0) {
      recommendations.push({ knob: 'NCCL_CTA_POLICY', library: 'nccl', evidence: `${crossovers.map((c) => c.text).join(' ')} Keep the default policy.`, basis: 'measured-crossover', confidence: 'clear' });
    }
  }

  const view = overlapView(overlaps);
  const cuBudget = view.rows
    .filter((r) => r.compute === 'gemm' || !view.rows.some((x) => x.compute === 'gemm'))
    .map((r) => `${r.compute.toUpperCase()} keeps ${(r.keptFraction * 100).toFixed(1)}% beside ${r.label}${r.copyGbps !== null ? ` (copy ${r.copyGbps.toFixed(0)} GB/s)` : ''}${r.cause === 'power' ? ': lost to power (clock fell at the cap), not to CUs' : r.cause === 'sms' ? ': lost to the CUs the copy holds' : ''}.`);
  return { crossovers, recommendations, offPath, cuBudget, notes };
}
