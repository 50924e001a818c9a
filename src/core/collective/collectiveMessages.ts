/**
 * Messages between the extension host and the collective panel's page, validated on both
 * sides: the page checks each view before drawing it, the host each message before acting on
 * it. Browser-safe (valibot and protocol schemas only), so the page bundles it.
 */
import * as v from 'valibot';
import {
  COLLECTIVE_LAUNCHERS,
  COLLECTIVE_MODES,
  COLLECTIVE_OPS,
  COLLECTIVE_VARIANTS,
  CUS_USED_SOURCES,
  CollectiveVariantSchema,
  OVERLAP_BOUNDS,
  OVERLAP_COMPUTES,
  OVERLAP_TELEMETRY,
} from '../protocol';
import { ReadyMessageSchema, WebviewErrorMessageSchema, finite, parserOf, str } from '../pageMessages';
import { CopyTableMessageSchema, ExportTableMessageSchema } from '../tables/tableMessages';

const op = v.picklist(COLLECTIVE_OPS);
const variant = v.picklist(COLLECTIVE_VARIANTS);
const maybe = v.nullable(finite);
const many = <S extends v.GenericSchema>(item: S) => v.pipe(v.array(item), v.maxLength(100_000));

const CurvePointSchema = v.object({
  sizeBytes: finite,
  busbwGbps: finite,
  algbwGbps: finite,
  timeUs: finite,
  /** busbw at the slower and faster quartile of the repeats (absent with fewer than three). */
  busbwLowGbps: v.optional(finite),
  busbwHighGbps: v.optional(finite),
  transport: v.nullable(str),
  /** The point ran on another path than its variant is for (e.g. gin-sdma-lib fell back to lsa). */
  offPath: v.boolean(),
  wrong: maybe,
  /** The CUs one rank's library kernels used for the call, and where that came from (absent: runs saved before it). */
  cusUsed: v.optional(v.object({ count: maybe, source: v.picklist(CUS_USED_SOURCES), evidence: v.optional(str) })),
});
export type CurvePoint = v.InferOutput<typeof CurvePointSchema>;

const CurveSchema = v.object({ op, variant, inPlace: v.boolean(), points: many(CurvePointSchema) });
export type Curve = v.InferOutput<typeof CurveSchema>;

const CollectiveCrossoverSchema = v.object({
  op,
  engineVariant: variant,
  kind: v.picklist(['crossover', 'engine-always', 'default-always', 'no-clear-winner', 'insufficient']),
  /** Smallest size from which the engine variant stays ahead. */
  fromBytes: v.optional(finite),
  /** Largest size the default path was still ahead at. */
  lastDefaultBytes: v.optional(finite),
  /** The crossing interpolated between the two sizes around it, and where it can lie (from the repeats' quartiles). */
  estimateBytes: v.optional(finite),
  rangeBytes: v.optional(v.tuple([finite, finite])),
  confidence: v.picklist(['clear', 'uncertain', 'none']),
  /** Why the result is not clear, each cause in a phrase. */
  uncertainty: many(str),
  /** The fewest repeats of any point compared. */
  repeats: finite,
  /** Each size both variants ran: who was ahead, or why no one was. */
  verdicts: many(
    v.object({ sizeBytes: finite, verdict: v.picklist(['engine', 'default', 'tie', 'path']), why: v.optional(str) }),
  ),
  ranks: finite,
  text: str,
});
export type CollectiveCrossover = v.InferOutput<typeof CollectiveCrossoverSchema>;

/** The CUs the default path's kernels held per rank, as the advice counts them: measured (log, model) or assumed. */
const CuFigureSchema = v.object({
  count: finite,
  source: v.picklist([...CUS_USED_SOURCES.filter((s) => s !== 'unknown'), 'assumed'] as const),
  /** The point the figure was read from (absent when assumed). */
  op: v.optional(op),
  sizeBytes: v.optional(finite),
  text: str,
});
export type CuFigure = v.InferOutput<typeof CuFigureSchema>;

const compute = v.picklist(OVERLAP_COMPUTES);
const bound = v.picklist(OVERLAP_BOUNDS);

/**
 * What decided how much compute a row kept (`overlap.ts` says how each is told):
 * `cus`: the CU arithmetic holds; `power`: the clock fell at the power cap; `memory`: memory
 * bandwidth, not CUs; `shared`: the compute also ran on the copy's CUs and the copy paid for it;
 * `other`: off the arithmetic for no reason the data shows; `unknown`: a run saved before the
 * arithmetic was recorded.
 */
export const DECIDED_BY = ['cus', 'power', 'memory', 'shared', 'other', 'unknown'] as const;
export type DecidedBy = (typeof DECIDED_BY)[number];

const OverlapRowSchema = v.object({
  compute,
  bound,
  path: str,
  label: str,
  cus: v.optional(finite),
  copySizeBytes: finite,
  keptFraction: finite,
  /** The copy's bandwidth beside the compute, and alone (same copy, nothing else running). */
  copyGbps: maybe,
  copyAloneGbps: maybe,
  /** copyGbps / copyAloneGbps. */
  bandwidthKept: maybe,
  /** The CUs the copy held, the GPU's, and (total - used) / total: the compute the CU arithmetic expects kept. */
  cusUsed: maybe,
  totalCus: maybe,
  cuArithmetic: maybe,
  /** What moved the copy's bytes, in the helper's words (outside text); null in runs saved before it. */
  mechanism: v.nullable(str),
  telemetry: v.nullable(v.picklist(OVERLAP_TELEMETRY)),
  smClockMHz: maybe,
  powerW: maybe,
  powerLimitW: maybe,
  /** Why the compute slowed: lost SMs, or power (clock fell while the board sat at its cap). */
  cause: v.picklist(['sms', 'power', 'both', 'none', 'unknown']),
  decidedBy: v.picklist(DECIDED_BY),
  /** decidedBy with the figures that decided it, in a phrase. */
  why: str,
});
export type OverlapRow = v.InferOutput<typeof OverlapRowSchema>;

const OverlapAloneSchema = v.object({
  tflops: finite,
  /** triad: the bytes it moved per second; null for gemm and fma. */
  gbps: maybe,
  smClockMHz: maybe,
  powerW: maybe,
  powerLimitW: maybe,
});
export type OverlapAlone = v.InferOutput<typeof OverlapAloneSchema>;

/** How a claim came out: the arithmetic holds, or what decided instead. */
export const CLAIM_VERDICTS = ['holds', 'memory', 'power', 'shared', 'other', 'unknown'] as const;

/**
 * The fused-kernel claim put to a test at one compute kind, copy size and cu/host CU count: the
 * compute kept beside the best engine path over that beside the CU copy, against the same ratio
 * of the CU arithmetic.
 */
const OverlapClaimSchema = v.object({
  compute,
  bound,
  sizeBytes: finite,
  enginePath: str,
  engineKept: finite,
  engineArithmetic: maybe,
  cus: finite,
  cuKept: finite,
  cuArithmetic: maybe,
  measuredRatio: finite,
  arithmeticRatio: maybe,
  verdict: v.picklist(CLAIM_VERDICTS),
  text: str,
});
export type OverlapClaim = v.InferOutput<typeof OverlapClaimSchema>;

const OverlapViewSchema = v.object({
  /** Ordered by compute kind, copy size, path and CUs. */
  rows: many(OverlapRowSchema),
  alone: v.object({
    gemm: v.optional(OverlapAloneSchema),
    fma: v.optional(OverlapAloneSchema),
    triad: v.optional(OverlapAloneSchema),
  }),
  /** The copy sizes the rows ran, smallest first. */
  sizes: many(finite),
  claims: many(OverlapClaimSchema),
});
export type OverlapView = v.InferOutput<typeof OverlapViewSchema>;

const PageRecommendationSchema = v.object({
  knob: str,
  value: v.optional(str),
  evidence: str,
  confidence: v.picklist(['clear', 'uncertain', 'none']),
});
export type PageRecommendation = v.InferOutput<typeof PageRecommendationSchema>;

export const CollectivePageViewSchema = v.object({
  runId: str,
  title: str,
  command: v.picklist(['collective', 'overlap']),
  status: str,
  simulated: v.boolean(),
  node: str,
  /** How the ranks ran (from the variant records; single-process for runs saved before it). */
  mode: v.picklist(COLLECTIVE_MODES),
  launcher: v.optional(v.picklist(COLLECTIVE_LAUNCHERS)),
  progress: v.object({ done: finite, total: finite }),
  variants: many(CollectiveVariantSchema),
  curves: many(CurveSchema),
  crossovers: many(CollectiveCrossoverSchema),
  overlap: OverlapViewSchema,
  recommendations: many(PageRecommendationSchema),
  cuBudget: many(str),
  /** The CUs of the default path the advice counted, and where the figure came from. */
  cus: v.optional(CuFigureSchema),
  notes: many(str),
  /** `export NAME=value` lines of the recommendations that carry a value. */
  exports: str,
});
export type CollectivePageView = v.InferOutput<typeof CollectivePageViewSchema>;

/** Host -> page. */
export const CollectiveHostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('collective-view'), view: CollectivePageViewSchema }),
]);
export type CollectiveHostMessage = v.InferOutput<typeof CollectiveHostMessageSchema>;

/** Page -> host: besides ready and errors, the knob exports to copy, the table's export and "Copy table" (when the page has no clipboard). */
const CollectiveWebviewMessageSchema = v.variant('type', [
  ReadyMessageSchema,
  v.object({ type: v.literal('copy-exports') }),
  WebviewErrorMessageSchema,
  ExportTableMessageSchema,
  CopyTableMessageSchema,
]);
export type CollectiveWebviewMessage = v.InferOutput<typeof CollectiveWebviewMessageSchema>;

/** The page checks each view before drawing it. */
export const parseCollectiveHostMessage: (raw: unknown) => CollectiveHostMessage | undefined =
  parserOf(CollectiveHostMessageSchema);
/** The page's message when it is one the host understands; undefined otherwise. */
export const parseCollectiveWebviewMessage: (raw: unknown) => CollectiveWebviewMessage | undefined =
  parserOf(CollectiveWebviewMessageSchema);
