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

// ---- a host-held timeline's engine: the page's queries and the engine's answers ----------------

/** Lane ids: the index's lanes, then the occupancy strips' virtual ones (far fewer than this). */
const MAX_LANE_ID = 10_000_000;
/** Pixel columns of one level-of-detail request: three windows of the widest screen, with room. */
const MAX_BUCKETS = 100_000;
const MAX_RAW = 1_000_000;
const queryId = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));
const finite = v.pipe(v.number(), v.finite());
const laneId = v.pipe(v.number(), v.integer(), v.minValue(-1), v.maxValue(MAX_LANE_ID));
const eventNo = v.pipe(v.number(), v.integer(), v.minValue(-1), v.maxValue(100_000_000));

/**
 * What the page asks the engine of a host-held timeline: the ToWorker queries of
 * timelineEngineProtocol.ts but 'load' (the host loads the timeline itself), each number
 * finite and bounded, so a hostile or broken page gets an error answer, never a stuck engine.
 */
export const EngineQuerySchema = v.variant('type', [
  v.object({ type: v.literal('filter'), id: queryId, text: v.pipe(v.string(), v.maxLength(TIMELINE_FILTER_MAX)) }),
  v.object({
    type: v.literal('lod'),
    id: queryId,
    request: v.pipe(
      v.object({
        startNs: finite,
        endNs: finite,
        buckets: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_BUCKETS)),
        lanes: v.pipe(v.array(v.pipe(laneId, v.minValue(0))), v.maxLength(100_000)),
        rawMinPx: v.optional(v.pipe(finite, v.minValue(0))),
        maxRaw: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_RAW))),
      }),
      v.check((r) => r.endNs >= r.startNs, 'the window must not end before it starts'),
    ),
  }),
  v.object({ type: v.literal('measure'), id: queryId, fromNs: finite, toNs: finite }),
  v.object({ type: v.literal('details'), id: queryId, event: eventNo }),
  v.object({
    type: v.literal('hit'),
    id: queryId,
    purpose: v.picklist(['hover', 'select', 'zoom']),
    lane: laneId,
    timeNs: finite,
    slopNs: v.pipe(finite, v.minValue(0)),
  }),
  v.object({
    type: v.literal('step'),
    id: queryId,
    lane: laneId,
    direction: v.union([v.literal(1), v.literal(-1)]),
  }),
  v.object({ type: v.literal('first'), id: queryId, lane: laneId, fromNs: finite, toNs: finite }),
  v.object({
    type: v.literal('view'),
    whole: v.boolean(),
    buckets: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_BUCKETS)),
    rawMinPx: v.pipe(finite, v.minValue(0)),
  }),
]);
export type EngineQuery = v.InferOutput<typeof EngineQuerySchema>;

const numbers = v.pipe(v.array(v.number()), v.maxLength(MAX_RAW));
const RecordsSchema = v.object({
  ids: numbers,
  laneOf: numbers,
  kind: numbers,
  op: numbers,
  path: numbers,
  gpu: numbers,
  lane: numbers,
  id: numbers,
  startNs: numbers,
  endNs: numbers,
  queuedNs: numbers,
  bytes: numbers,
  flags: numbers,
  label: v.pipe(v.array(v.optional(v.pipe(v.string(), v.maxLength(MAX_LABEL_CHARS)))), v.maxLength(MAX_RAW)),
});
const extent = v.object({ fromNs: v.number(), toNs: v.number() });
const link = v.object({ event: v.number(), text: v.pipe(v.string(), v.maxLength(MAX_LABEL_CHARS)) });
const text = v.pipe(v.string(), v.maxLength(MAX_LABEL_CHARS));

/**
 * The engine's answers to a host-held timeline's page, checked there like every host message:
 * each typed array's type, the records' shape, the strings' lengths. The engine is the
 * extension's own code; this keeps a broken answer from becoming a broken page.
 */
export const EngineAnswerSchema = v.variant('type', [
  v.object({
    type: v.literal('index'),
    index: v.object({
      count: v.pipe(v.number(), v.integer(), v.minValue(0)),
      lanes: v.array(
        v.object({
          id: v.number(),
          gpu: v.number(),
          category: v.picklist(['kernel', 'transfer', 'proxy', 'engine', 'cu']),
          number: v.number(),
          label: text,
          eventCount: v.number(),
        }),
      ),
      laneStart: v.instance(Int32Array),
      startNs: v.number(),
      endNs: v.number(),
      heat: v.array(v.object({ id: v.number(), gpu: v.number(), cuLanes: v.array(v.number()), cuCount: v.number() })),
    }),
    inferred: v.boolean(),
    buildMs: v.number(),
    stage: v.optional(v.picklist(['overview', 'ready'])),
  }),
  v.object({
    type: v.literal('lod'),
    id: queryId,
    result: v.object({
      startNs: v.number(),
      endNs: v.number(),
      buckets: v.number(),
      raw: v.instance(Int32Array),
      runs: v.object({
        lane: v.instance(Int32Array),
        b0: v.instance(Int32Array),
        b1: v.instance(Int32Array),
        level: v.instance(Uint8Array),
        path: v.instance(Uint8Array),
        inferred: v.instance(Uint8Array),
        count: v.instance(Float64Array),
        bytes: v.instance(Float64Array),
        busyNs: v.instance(Float64Array),
      }),
      totals: v.object({
        lane: v.instance(Int32Array),
        count: v.instance(Float64Array),
        bytes: v.instance(Float64Array),
        busyNs: v.instance(Float64Array),
      }),
    }),
    records: RecordsSchema,
    rawKernels: v.array(text),
    ms: v.number(),
    source: v.optional(v.picklist(['ahead', 'file'])),
  }),
  v.object({
    type: v.literal('measure'),
    id: queryId,
    result: v.object({
      fromNs: v.number(),
      toNs: v.number(),
      bytes: v.number(),
      events: v.number(),
      packets: v.number(),
      doorbells: v.number(),
      bytesByPath: v.array(v.number()),
    }),
  }),
  v.object({
    type: v.literal('filter'),
    id: queryId,
    kept: v.number(),
    fromNs: v.number(),
    toNs: v.number(),
    selectedKept: v.boolean(),
  }),
  v.object({
    type: v.literal('details'),
    id: queryId,
    details: v.optional(
      v.object({
        event: v.number(),
        title: text,
        rows: v.array(v.tuple([text, text])),
        doorbell: v.number(),
        related: v.array(v.number()),
        doorbellLink: v.optional(link),
        packets: v.array(link),
        packetsTotal: v.number(),
        completion: v.optional(link),
        kernel: v.optional(link),
        cus: v.array(link),
        cusTotal: v.number(),
        extent,
        relatedExtent: extent,
        records: RecordsSchema,
      }),
    ),
  }),
  v.object({
    type: v.literal('hit'),
    id: queryId,
    purpose: v.picklist(['hover', 'select', 'zoom']),
    hit: v.object({ event: v.number(), fromNs: v.number(), toNs: v.number(), lines: v.array(text) }),
  }),
  v.object({ type: v.literal('pick'), id: queryId, event: v.number() }),
  v.object({ type: v.literal('error'), message: v.pipe(v.string(), v.maxLength(4000)) }),
]);

/** From this many events the extension host holds the timeline and answers the page's queries (an engine process it starts). */
export const HOST_HELD_EVENTS = 2_000_000;

/** Host -> timeline webview. */
export const TimelineHostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('timeline'), meta: TimelineMetaSchema, columns: TimelineColumnsSchema }),
  /** A timeline whose events the host holds: the page sends its queries to the host ('engine-query'). */
  v.object({
    type: v.literal('timeline-host-held'),
    meta: TimelineMetaSchema,
    count: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000_000)),
  }),
  /** The host-held engine's answer to a query (or its index once built, or an error). */
  v.object({ type: v.literal('engine-answer'), answer: EngineAnswerSchema }),
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
  /** A query to a host-held timeline's engine. */
  v.object({ type: v.literal('engine-query'), query: EngineQuerySchema }),
  /** The page built its index and drew the whole timeline: the host's progress ends here. */
  v.object({ type: v.literal('timeline-shown'), events: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
]);
export type TimelineWebviewMessage = v.InferOutput<typeof TimelineWebviewMessageSchema>;

export const parseTimelineHostMessage: (value: unknown) => TimelineHostMessage | undefined =
  parserOf(TimelineHostMessageSchema);
export const parseTimelineWebviewMessage: (value: unknown) => TimelineWebviewMessage | undefined =
  parserOf(TimelineWebviewMessageSchema);
