/**
 * Messages between the extension host and the compare panel's page, validated on both sides:
 * the page checks each view before drawing it, the host each message before acting on it.
 * Browser-safe (valibot only), so the page bundles it.
 */
import * as v from 'valibot';
import { ReadyMessageSchema, WebviewErrorMessageSchema, finite, parserOf, str } from '../pageMessages';
import { CopyTableMessageSchema, ExportTableMessageSchema } from '../tables/tableMessages';
import { SPREADS, VERDICTS } from './compare';
import { TOLERANCE_FROM, TOLERANCE_SOURCES } from './noise';
import { SHMEM_SDMA, SPLIT_OVER } from '../protocol';

const many = <S extends v.GenericSchema>(item: S) => v.pipe(v.array(item), v.maxLength(100_000));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const interval = v.tuple([finite, finite]);
/** A run-to-run tolerance: a fraction, 0 or more (an estimate may exceed 1 where runs differ that much). */
const tolerance = v.pipe(finite, v.minValue(0));

const SideSchema = v.object({
  gbps: finite,
  basis: v.picklist(['median', 'mean']),
  repetitions: count,
  spread: v.optional(v.picklist(['quartiles', 'range'])),
  gbpsLow: v.optional(finite),
  gbpsHigh: v.optional(finite),
  noSpread: v.optional(str),
});

/** What a row of the panel's table says: a verdict, or that one run alone measured the point. */
export const POINT_STATES = [...VERDICTS, 'only in A', 'only in B'] as const;
export type PointState = (typeof POINT_STATES)[number];

const GroupPointSchema = v.object({
  key: str,
  label: str,
  sizeBytes: finite,
  state: v.picklist(POINT_STATES),
  a: v.optional(SideSchema),
  b: v.optional(SideSchema),
  ratio: v.optional(finite),
  interval: v.optional(interval),
  /** The run-to-run tolerance at the point, and the interval widened by it (what the verdict holds against 1). */
  tolerance: v.optional(tolerance),
  widened: v.optional(interval),
  spread: v.optional(v.picklist(SPREADS)),
  why: v.optional(str),
  /** Each run's mover evidence word at the point, where either run has evidence. */
  evidence: v.optional(v.object({ a: v.pipe(v.string(), v.maxLength(64)), b: v.pipe(v.string(), v.maxLength(64)) })),
  /** The two runs' bytes were moved differently here: the sentence saying so (compare.ts). */
  movedDifferently: v.optional(str),
});
export type GroupPoint = v.InferOutput<typeof GroupPointSchema>;

const CountsSchema = v.object({
  regression: count,
  improvement: count,
  same: count,
  unknownNoise: count,
  onlyInA: count,
  onlyInB: count,
});

/** One curve: the points of a path, pair, CU count and mode (a collective's op, variant and form) by size. */
/** A sweep curve's dimensions (compare.ts `CurveDimensions`): the table's waves, split, batch and rocSHMEM SDMA columns. */
const CurveDimensionsSchema = v.object({
  wavesPerCu: v.optional(count),
  waveSize: v.optional(count),
  split: count,
  splitOver: v.optional(v.picklist(SPLIT_OVER)),
  batch: count,
  shmemSdma: v.optional(v.picklist(SHMEM_SDMA)),
});

const CompareGroupSchema = v.object({
  key: str,
  label: str,
  dimensions: v.optional(CurveDimensionsSchema),
  counts: CountsSchema,
  points: many(GroupPointSchema),
});
export type CompareGroup = v.InferOutput<typeof CompareGroupSchema>;

/** Where the run-to-run tolerance comes from (noise.ts). */
const NoiseModelSchema = v.object({
  source: v.picklist(TOLERANCE_SOURCES),
  tolerance,
  description: str,
  runs: v.optional(many(str)),
  groups: v.optional(
    many(v.object({ path: str, band: str, tolerance, pairs: count, from: v.picklist(TOLERANCE_FROM) })),
  ),
});

const RunInfoSchema = v.object({
  id: str,
  createdAt: str,
  node: str,
  status: str,
  simulated: v.boolean(),
  source: v.optional(str),
});

export const ComparePageViewSchema = v.object({
  kind: v.picklist(['sweep', 'matrix', 'collective']),
  a: RunInfoSchema,
  b: RunInfoSchema,
  tolerance: finite,
  noise: NoiseModelSchema,
  method: str,
  bandwidth: v.picklist(['GB/s', 'busbw GB/s']),
  groups: many(CompareGroupSchema),
  summary: v.object({
    common: count,
    regressions: count,
    improvements: count,
    same: count,
    unknownNoise: count,
    onlyInA: count,
    onlyInB: count,
    movedDifferently: v.optional(count),
    worstRegression: v.optional(v.object({ key: str, label: str, ratio: finite, interval })),
    geomeanRatio: v.nullable(finite),
  }),
  summaryLines: many(str),
  /** Each path and size band's tolerance, where estimated from baseline runs. */
  toleranceLines: many(str),
  notes: many(str),
});
export type ComparePageView = v.InferOutput<typeof ComparePageViewSchema>;

/** Host -> page. */
export const CompareHostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('compare-view'), view: ComparePageViewSchema }),
]);
export type CompareHostMessage = v.InferOutput<typeof CompareHostMessageSchema>;

/** Page -> host: besides ready and errors, "Open" next to a run opens it in its own panel; the table's export and "Copy table" (when the page has no clipboard). */
const CompareWebviewMessageSchema = v.variant('type', [
  ReadyMessageSchema,
  WebviewErrorMessageSchema,
  v.object({ type: v.literal('open-run'), side: v.picklist(['a', 'b']) }),
  ExportTableMessageSchema,
  CopyTableMessageSchema,
]);
export type CompareWebviewMessage = v.InferOutput<typeof CompareWebviewMessageSchema>;

/** The page checks each view before drawing it. */
export const parseCompareHostMessage: (raw: unknown) => CompareHostMessage | undefined =
  parserOf(CompareHostMessageSchema);
/** The page's message when it is one the host understands; undefined otherwise. */
export const parseCompareWebviewMessage: (raw: unknown) => CompareWebviewMessage | undefined =
  parserOf(CompareWebviewMessageSchema);
