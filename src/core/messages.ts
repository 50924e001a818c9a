/**
 * Messages between the extension host and the sweep panel's webview: discriminated unions,
 * validated on both sides (a webview is a web page; the host trusts nothing it posts, and
 * the page checks what it receives before drawing it).
 */
import * as v from 'valibot';
import { AdviceViewSchema } from './adviceView';
import { PATHS } from './protocol';

const finite = v.pipe(v.number(), v.finite());
/** A copy endpoint: a GPU index, or -1 for host memory. */
const endpoint = v.pipe(v.number(), v.integer(), v.minValue(-1), v.maxValue(1023));
const str = v.pipe(v.string(), v.maxLength(100_000));

const SweepPointSchema = v.object({ sizeBytes: finite, gbps: finite, gbpsLow: finite, gbpsHigh: finite, meanNs: finite });

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
  unsupported: v.array(v.object({ path: v.picklist(PATHS), src: endpoint, dst: endpoint, reason: str, points: finite, text: str })),
  status: str,
  statusMessage: str,
  progress: v.object({ done: finite, total: finite }),
  cuCounts: v.array(finite),
  sizes: v.array(finite),
  series: v.array(v.object({ path: v.picklist(PATHS), src: endpoint, dst: endpoint, cus: finite, points: v.array(SweepPointSchema) })),
  warnings: v.array(str),
  problems: v.array(str),
});

/** Host -> webview. */
export const HostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('sweep'), view: SweepViewSchema, advice: v.optional(AdviceViewSchema) }),
]);
export type HostMessage = v.InferOutput<typeof HostMessageSchema>;

/** Webview -> host. */
export const WebviewMessageSchema = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('cus-selected'), cus: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4096)) }),
  v.object({ type: v.literal('webview-error'), message: v.pipe(v.string(), v.maxLength(2000)) }),
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
]);
export type WebviewMessage = v.InferOutput<typeof WebviewMessageSchema>;

export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  const r = v.safeParse(WebviewMessageSchema, value);
  return r.success ? r.output : undefined;
}

export function parseHostMessage(value: unknown): HostMessage | undefined {
  const r = v.safeParse(HostMessageSchema, value);
  return r.success ? r.output : undefined;
}

// ---- The timeline panel -------------------------------------------------------------------
// Events travel as typed arrays (one per column of the sdmatl file), never as one object per
// event: a million events are eleven arrays. valibot checks each array's type; the lengths
// must all equal `count`, and the small enumerations must stay in range, or nothing is drawn.

const KIND_MAX = 5;
/** Names of a run-mode timeline (kernels, copy labels): printed by the profiler, so bounded, never trusted. */
const MAX_LABELS = 100_000;
const MAX_LABEL_CHARS = 4000;
const OP_MAX = 5;
const PATH_MAX = 3;

function inRange(a: Uint8Array, max: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i]! > max) return false;
  return true;
}

function labelsInRange(a: Int32Array, count: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i]! < -1 || a[i]! >= count) return false;
  return true;
}

/** The restore key names the run, the timeline and the filter it opened with, so it can be long. */
export const TIMELINE_KEY_MAX = 8000;
/** A filter query: kernel names from the lens can be long. */
export const TIMELINE_FILTER_MAX = 6000;

export const TimelineColumnsSchema = v.pipe(
  v.object({
    count: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000_000)),
    kind: v.instance(Uint8Array),
    op: v.instance(Uint8Array),
    path: v.instance(Uint8Array),
    gpu: v.instance(Uint16Array),
    lane: v.instance(Uint32Array),
    id: v.instance(Int32Array),
    ref: v.instance(Int32Array),
    startNs: v.instance(Float64Array),
    endNs: v.instance(Float64Array),
    queuedNs: v.instance(Float64Array),
    bytes: v.instance(Float64Array),
    label: v.optional(v.instance(Int32Array)),
    labels: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(MAX_LABEL_CHARS))), v.maxLength(MAX_LABELS))),
    cus: v.optional(v.instance(Uint32Array)),
  }),
  v.check((c) => [c.kind, c.op, c.path, c.gpu, c.lane, c.id, c.ref, c.startNs, c.endNs, c.queuedNs, c.bytes].every((a) => a.length === c.count), 'every column must hold count values'),
  v.check((c) => inRange(c.kind, KIND_MAX) && inRange(c.op, OP_MAX) && inRange(c.path, PATH_MAX), 'kind, op or path out of range'),
  v.check((c) => (c.label === undefined) === (c.labels === undefined), 'label and labels come together'),
  v.check((c) => c.cus === undefined || c.cus.length === c.count, 'the cus column must hold count values'),
  v.check((c) => c.label === undefined || (c.label.length === c.count && labelsInRange(c.label, c.labels?.length ?? 0)), 'every label must be -1 or an index into labels'),
);

export const TimelineMetaSchema = v.object({
  key: v.pipe(v.string(), v.maxLength(TIMELINE_KEY_MAX)),
  runId: v.pipe(v.string(), v.maxLength(200)),
  title: v.pipe(v.string(), v.maxLength(500)),
  simulated: v.boolean(),
  nodeLabel: v.pipe(v.string(), v.maxLength(500)),
  vendor: v.picklist(['amd', 'nvidia', 'unknown']),
  sizeBytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  focusPath: v.optional(v.picklist(PATHS)),
  gpuCus: v.pipe(v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000))), v.maxLength(1024)),
  filter: v.optional(v.pipe(v.string(), v.maxLength(TIMELINE_FILTER_MAX))),
});

/** Host -> timeline webview. */
export const TimelineHostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('timeline'), meta: TimelineMetaSchema, columns: TimelineColumnsSchema }),
  v.object({ type: v.literal('timeline-status'), state: v.picklist(['loading', 'error']), message: v.pipe(v.string(), v.maxLength(4000)) }),
]);
export type TimelineHostMessage = v.InferOutput<typeof TimelineHostMessageSchema>;

/** Timeline webview -> host. */
export const TimelineWebviewMessageSchema = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('export-trace') }),
  v.object({ type: v.literal('webview-error'), message: v.pipe(v.string(), v.maxLength(2000)) }),
  /** The filter the page now applies (after a valid query) and how many events it keeps. */
  v.object({ type: v.literal('filter-applied'), filter: v.pipe(v.string(), v.maxLength(TIMELINE_FILTER_MAX)), kept: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
]);
export type TimelineWebviewMessage = v.InferOutput<typeof TimelineWebviewMessageSchema>;

export function parseTimelineHostMessage(value: unknown): TimelineHostMessage | undefined {
  const r = v.safeParse(TimelineHostMessageSchema, value);
  return r.success ? r.output : undefined;
}

export function parseTimelineWebviewMessage(value: unknown): TimelineWebviewMessage | undefined {
  const r = v.safeParse(TimelineWebviewMessageSchema, value);
  return r.success ? r.output : undefined;
}
