/**
 * Messages between the extension host and the sweep panel's webview: discriminated unions,
 * validated on both sides (a webview is a web page; the host trusts nothing it posts, and
 * the page checks what it receives before drawing it).
 */
import * as v from 'valibot';
import { AdviceViewSchema } from '../advice/adviceView';
import { LIMITS } from '../limits';
import { MOVERS, PATHS, SAMPLE_SERIES, SHMEM_SDMA, SPLIT_OVER } from '../protocol';
import {
  EvidenceSummarySchema,
  ReadyMessageSchema,
  WebviewErrorMessageSchema,
  endpoint,
  finite,
  parserOf,
  str,
} from '../pageMessages';
import { CopyTableMessageSchema, ExportTableMessageSchema } from '../tables/tableMessages';

const SweepPointSchema = v.object({
  sizeBytes: finite,
  gbps: finite,
  gbpsLow: finite,
  gbpsHigh: finite,
  meanNs: finite,
  refined: v.optional(v.literal(true)),
  evidence: v.optional(EvidenceSummarySchema),
  mover: v.optional(v.picklist(MOVERS)),
});

export const SweepViewSchema = v.object({
  runId: str,
  title: str,
  createdAt: str,
  simulated: v.boolean(),
  backend: str,
  nodeLabel: str,
  src: endpoint,
  dst: endpoint,
  pairs: v.pipe(v.array(v.object({ src: endpoint, dst: endpoint, label: str })), v.maxLength(4096)),
  unsupported: v.array(
    v.object({ path: v.picklist(PATHS), src: endpoint, dst: endpoint, reason: str, points: finite, text: str }),
  ),
  status: str,
  statusMessage: str,
  progress: v.object({ done: finite, total: finite }),
  cuCounts: v.array(finite),
  sizes: v.array(finite),
  series: v.array(
    v.object({
      key: v.pipe(v.string(), v.maxLength(200)),
      path: v.picklist(PATHS),
      src: endpoint,
      dst: endpoint,
      cus: finite,
      series: v.optional(v.picklist(SAMPLE_SERIES)),
      wavesPerCu: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIMITS.wavesPerCuMax))),
      waveSize: v.optional(v.picklist([32, 64])),
      split: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIMITS.splitMax))),
      splitOver: v.optional(v.picklist(SPLIT_OVER)),
      batch: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LIMITS.batchMax))),
      shmemSdma: v.optional(v.picklist(SHMEM_SDMA)),
      points: v.array(SweepPointSchema),
    }),
  ),
  warnings: v.array(str),
  problems: v.array(str),
});

/** Host -> webview. */
export const HostMessageSchema = v.variant('type', [
  v.object({
    type: v.literal('sweep'),
    view: SweepViewSchema,
    advice: v.optional(AdviceViewSchema),
    /** What a sample flagged "✗ contradicts" means, in the user's language; sent while the run has one. */
    evidenceNote: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  }),
]);
export type HostMessage = v.InferOutput<typeof HostMessageSchema>;

/** Webview -> host. */
export const WebviewMessageSchema = v.variant('type', [
  ReadyMessageSchema,
  v.object({ type: v.literal('cus-selected'), cus: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4096)) }),
  WebviewErrorMessageSchema,
  /** The Advice section's button: the host runs "Suggest Settings" for the run shown. */
  v.object({ type: v.literal('suggest-settings') }),
  /** A click on a sweep point: show the timeline of that size, path and CU count. */
  v.object({
    type: v.literal('open-timeline'),
    sizeBytes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64 * 1024 ** 3)),
    path: v.picklist(PATHS),
    cus: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4096)),
    /** The point's endpoint pair (absent: the run's first pair). */
    src: v.optional(endpoint),
    dst: v.optional(endpoint),
  }),
  /** The pair switcher: the page now shows this endpoint pair. */
  v.object({ type: v.literal('pair-selected'), src: endpoint, dst: endpoint }),
  /** "Export CSV…" / "Export Markdown…", and "Copy table" where the page has no clipboard. */
  ExportTableMessageSchema,
  CopyTableMessageSchema,
]);
export type WebviewMessage = v.InferOutput<typeof WebviewMessageSchema>;

export const parseWebviewMessage: (value: unknown) => WebviewMessage | undefined = parserOf(WebviewMessageSchema);
export const parseHostMessage: (value: unknown) => HostMessage | undefined = parserOf(HostMessageSchema);
