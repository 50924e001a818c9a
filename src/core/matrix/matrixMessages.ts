/**
 * Messages between the extension host and the matrix panel's page, validated on both sides:
 * the page checks each view before drawing it, the host each message before acting on it.
 * Browser-safe (valibot and protocol names only), so the page bundles it.
 */
import * as v from 'valibot';
import { PATHS } from '../protocol';
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

/** A row or column: a GPU index, or -1 for host memory (labelled `host`). */
const gpu = endpoint;

export const CELL_STATES = ['measured', 'failed', 'missing', 'self'] as const;
export type CellState = (typeof CELL_STATES)[number];

export const MatrixGridCellSchema = v.object({
  src: gpu,
  dst: gpu,
  /** measured; failed (an error record names this cell); missing (not measured: the run stopped first); self (the diagonal). */
  state: v.picklist(CELL_STATES),
  gbps: v.optional(finite),
  /** What the heat map colours by: the share of the path's best cell, 1/2 or less -> 0, equal -> 1. */
  level: v.optional(finite),
  /** Failed cells: the error's code and message, and what to do. */
  error: v.optional(str),
  /** A weak pair: below the others by the fleet's outlier rule (matrixView.ts). */
  weakest: v.boolean(),
  /** Measured cells: what moved its bytes as the platform saw it; absent: not recorded (a run saved before it). */
  evidence: v.optional(EvidenceSummarySchema),
});
export type MatrixGridCell = v.InferOutput<typeof MatrixGridCellSchema>;

export const MatrixPathViewSchema = v.object({
  path: v.picklist(PATHS),
  /** e.g. "cu/host · 64 CUs", "engine/host". */
  label: str,
  cus: finite,
  /** Row and column order: rows are sources, columns destinations. */
  gpus: v.array(gpu),
  rows: v.array(v.array(MatrixGridCellSchema)),
  /** Over measured cells; absent when none was measured. */
  stats: v.optional(v.object({ minGbps: finite, medianGbps: finite, maxGbps: finite })),
  /** The weak pairs, slowest first: below the median of their kind by the fleet's outlier rule (matrixView.ts); often none. */
  weakest: v.array(v.object({ src: gpu, dst: gpu, gbps: finite })),
  /** "Weak pair: GPU 3 → GPU 5, 41.00 GB/s, 17.3% below the median 49.60 (...)", or "No pair stands out: ...". */
  weakestText: str,
  measured: finite,
  failed: finite,
  missing: finite,
  /** Measured cells whose mover evidence contradicts their label: flagged, and left out of the stats and the weak-pair rule. */
  contradicts: v.optional(finite),
  /** The path's cells' evidence in words: "224 simulated", "55 ✓ engine (KFD), 1 ✗ contradicts"; absent when none was recorded. */
  evidenceText: v.optional(str),
  /** `--concurrent`: every pair of the path ran at the same time; each cell is its GB/s under that load. */
  concurrent: v.boolean(),
  /** Concurrent paths: what each GPU sent (its row's sum) and received (its column's sum), over measured cells. */
  gpuTotals: v.optional(v.array(v.object({ gpu, sendGbps: finite, receiveGbps: finite }))),
  /** Concurrent paths whose pairs all measured: the helper's aggregate (`matrix-total`). */
  total: v.optional(v.object({ pairs: finite, bytes: finite, seconds: finite, gbps: finite, cellSumGbps: finite })),
  /** "All 56 pairs at once: 2752 GB/s in total ...", or why there is no total. */
  totalText: v.optional(str),
});
export type MatrixPathView = v.InferOutput<typeof MatrixPathViewSchema>;

export const MatrixPageViewSchema = v.object({
  runId: str,
  status: str,
  simulated: v.boolean(),
  node: str,
  sizeBytes: finite,
  iters: finite,
  progress: v.object({ done: finite, total: finite }),
  /** `--concurrent`: all pairs of a path at once, not each pair alone. */
  concurrent: v.boolean(),
  paths: v.array(MatrixPathViewSchema),
  notes: v.array(str),
});
export type MatrixPageView = v.InferOutput<typeof MatrixPageViewSchema>;

/** Host -> page. */
export const MatrixHostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('matrix-view'), view: MatrixPageViewSchema }),
]);
export type MatrixHostMessage = v.InferOutput<typeof MatrixHostMessageSchema>;

/** Page -> host: besides ready and errors, the table's export and "Copy table" (when the page has no clipboard). */
const MatrixWebviewMessageSchema = v.variant('type', [
  ReadyMessageSchema,
  WebviewErrorMessageSchema,
  ExportTableMessageSchema,
  CopyTableMessageSchema,
]);
export type MatrixWebviewMessage = v.InferOutput<typeof MatrixWebviewMessageSchema>;

export const parseMatrixHostMessage: (raw: unknown) => MatrixHostMessage | undefined =
  parserOf(MatrixHostMessageSchema);
export const parseMatrixWebviewMessage: (raw: unknown) => MatrixWebviewMessage | undefined =
  parserOf(MatrixWebviewMessageSchema);
