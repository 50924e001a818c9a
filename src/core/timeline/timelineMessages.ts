/**
 * Messages between the extension host and the timeline panel's webview, validated on both
 * sides like the sweep panel's.
 */
import * as v from 'valibot';
import { PATHS } from '../protocol';
import { ReadyMessageSchema, WebviewErrorMessageSchema, parserOf } from '../pageMessages';
import { FLAGS_KNOWN } from './timelineFile';

// Events travel as typed arrays (one per column of the sdmatl file), never as one object per
// event: a million events are eleven or twelve arrays. valibot checks each array's type; the
// lengths must all equal `count`, and the small enumerations and flag bits must stay in
// range, or nothing is drawn.

const KIND_MAX = 5;
/** Names of a Profile timeline (kernels, copy labels): printed by the profiler, so bounded, never trusted. */
const MAX_LABELS = 100_000;
const MAX_LABEL_CHARS = 4000;
const OP_MAX = 5;
const PATH_MAX = 3;

function inRange(a: Uint8Array, max: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i]! > max) return false;
  return true;
}

function flagsKnown(a: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i]! & ~FLAGS_KNOWN) !== 0) return false;
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
    flags: v.optional(v.instance(Uint8Array)),
  }),
  v.check(
    (c) =>
      [c.kind, c.op, c.path, c.gpu, c.lane, c.id, c.ref, c.startNs, c.endNs, c.queuedNs, c.bytes].every(
        (a) => a.length === c.count,
      ),
    'every column must hold count values',
  ),
  v.check(
    (c) => inRange(c.kind, KIND_MAX) && inRange(c.op, OP_MAX) && inRange(c.path, PATH_MAX),
    'kind, op or path out of range',
  ),
  v.check((c) => (c.label === undefined) === (c.labels === undefined), 'label and labels come together'),
  v.check((c) => c.cus === undefined || c.cus.length === c.count, 'the cus column must hold count values'),
  v.check(
    (c) => c.flags === undefined || (c.flags.length === c.count && flagsKnown(c.flags)),
    'the flags column must hold count values, each with only known bits',
  ),
  v.check(
    (c) => c.label === undefined || (c.label.length === c.count && labelsInRange(c.label, c.labels?.length ?? 0)),
    'every label must be -1 or an index into labels',
  ),
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
  v.object({
    type: v.literal('timeline-status'),
    state: v.picklist(['loading', 'error']),
    message: v.pipe(v.string(), v.maxLength(4000)),
  }),
]);
export type TimelineHostMessage = v.InferOutput<typeof TimelineHostMessageSchema>;

/** Timeline webview -> host. */
export const TimelineWebviewMessageSchema = v.variant('type', [
  ReadyMessageSchema,
  v.object({ type: v.literal('export-trace') }),
  WebviewErrorMessageSchema,
  /** The filter the page now applies (after a valid query) and how many events it keeps. */
  v.object({
    type: v.literal('filter-applied'),
    filter: v.pipe(v.string(), v.maxLength(TIMELINE_FILTER_MAX)),
    kept: v.pipe(v.number(), v.integer(), v.minValue(0)),
  }),
  /** The page built its index and drew the whole timeline: the host's progress ends here. */
  v.object({ type: v.literal('timeline-shown'), events: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
]);
export type TimelineWebviewMessage = v.InferOutput<typeof TimelineWebviewMessageSchema>;

export const parseTimelineHostMessage: (value: unknown) => TimelineHostMessage | undefined =
  parserOf(TimelineHostMessageSchema);
export const parseTimelineWebviewMessage: (value: unknown) => TimelineWebviewMessage | undefined =
  parserOf(TimelineWebviewMessageSchema);
