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
  OverlapSchema,
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

const compute = OverlapSchema.entries.compute;

const OverlapRowSchema = v.object({
  compute,
  path: str,
  label: str,
  cus: v.optional(finite),
  keptFraction: finite,
  copyGbps: maybe,
  smClockMHz: maybe,
  powerW: maybe,
  /** Why the compute slowed: lost SMs, or power (clock fell while the board sat at its cap). */
  cause: v.picklist(['sms', 'power', 'both', 'none', 'unknown']),
});
export type OverlapRow = v.InferOutput<typeof OverlapRowSchema>;

const OverlapAloneSchema = v.object({ tflops: finite, smClockMHz: maybe, powerW: maybe, powerLimitW: maybe });
export type OverlapAlone = v.InferOutput<typeof OverlapAloneSchema>;

const OverlapViewSchema = v.object({
  rows: many(OverlapRowSchema),
  alone: v.object({ gemm: v.optional(OverlapAloneSchema), fma: v.optional(OverlapAloneSchema) }),
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
