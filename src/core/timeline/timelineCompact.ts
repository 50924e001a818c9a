/**
 * The compact, lane-ordered columns the level of detail reads, and the memory cap of a
 * timeline. Times are stored as offsets from the timeline's first start in 32 bits when every
 * time is a whole nanosecond and the span is under 2^32 ns (4.29 s); otherwise as float64
 * (exact for any time the file can hold). Bytes are 32-bit when every event moved a whole
 * number of bytes under 4 GiB. A 10^7-event timeline then costs 23 bytes an event here
 * instead of 43.
 */

/** A time column: 32-bit offsets from `baseNs` when they fit, float64 times (`baseNs` 0) otherwise. */
export type TimeColumn = Uint32Array | Float64Array;
/** A byte column: 32-bit when every value fits, float64 otherwise. */
export type ByteColumn = Uint32Array | Float64Array;

const U32_MAX = 0xffff_ffff;

/**
 * What the aggregation reads, in lane order (`index.order`): each lane is a straight run of
 * memory. Times are offsets from `baseNs`.
 */
export interface LodColumns {
  baseNs: number;
  startNs: TimeColumn;
  /** max(endNs, startNs): instants end where they start. */
  endNs: TimeColumn;
  /** Running maximum of `endNs` within each lane: the first event that can reach a time is a binary search. */
  maxEnd: TimeColumn;
  /** Drawn length including a packet's queue wait; float32 is plenty to compare with a pixel. */
  extentNs: Float32Array;
  bytes: ByteColumn;
  path: Uint8Array;
  kind: Uint8Array;
  /** FLAG_INFERRED per event (0 for timelines without flags). */
  flags: Uint8Array;
}

/** What a scan of the times and bytes found: decides the column widths. */
export interface ColumnRange {
  minStartNs: number;
  maxEndNs: number;
  /** Every start and end is a whole number of nanoseconds. */
  wholeTimes: boolean;
  /** Every byte count is a whole number in 0..2^32-1. */
  bytesFit32: boolean;
}

/** Whether times of this range fit 32-bit offsets from its first start. */
export function timesFit32(range: ColumnRange): boolean {
  return range.wholeTimes && range.maxEndNs - range.minStartNs <= U32_MAX;
}

export function scanRange(startNs: Float64Array, endNs: Float64Array, bytes: Float64Array, n: number): ColumnRange {
  let minStart = Infinity;
  let maxEnd = -Infinity;
  let whole = true;
  let fit = true;
  for (let i = 0; i < n; i++) {
    const s = startNs[i]!;
    const e0 = endNs[i]!;
    const e = e0 > s ? e0 : s;
    if (s < minStart) minStart = s;
    if (e > maxEnd) maxEnd = e;
    if (whole && (s !== Math.floor(s) || e !== Math.floor(e))) whole = false;
    const b = bytes[i]!;
    if (fit && !(b >= 0 && b <= U32_MAX && b === Math.floor(b))) fit = false;
  }
  return { minStartNs: n > 0 ? minStart : 0, maxEndNs: n > 0 ? maxEnd : 0, wholeTimes: whole, bytesFit32: fit };
}

/** Empty lane-ordered columns for n events, with the widths `range` allows. */
export function allocLodColumns(n: number, range: ColumnRange): LodColumns {
  const narrow = timesFit32(range);
  const time = (): TimeColumn => (narrow ? new Uint32Array(n) : new Float64Array(n));
  // Float64 columns keep absolute times: exact, and no offset can overflow.
  return {
    baseNs: narrow ? range.minStartNs : 0,
    startNs: time(),
    endNs: time(),
    maxEnd: time(),
    extentNs: new Float32Array(n),
    bytes: range.bytesFit32 ? new Uint32Array(n) : new Float64Array(n),
    path: new Uint8Array(n),
    kind: new Uint8Array(n),
    flags: new Uint8Array(n),
  };
}

/** Bytes per event of the lane-ordered columns, for these widths. */
export function lodBytesPerEvent(range: ColumnRange): number {
  return (timesFit32(range) ? 12 : 24) + 4 + (range.bytesFit32 ? 4 : 8) + 3;
}

/** First position of `lane` (`laneStart[lane]..laneStart[lane+1]`) whose event may end at or after `timeNs` (an offset from `baseNs`). */
export function firstReachingLod(lc: LodColumns, laneStart: Int32Array, lane: number, timeNs: number): number {
  let lo = laneStart[lane]!;
  let hi = laneStart[lane + 1]!;
  const maxEnd = lc.maxEnd;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (maxEnd[mid]! < timeNs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * What a timeline costs in the panel's renderer while it loads and after: the file's columns
 * (50 bytes an event with flags), the index (24), the worker's lane-ordered columns and order
 * (27 to 43) and the filter's mask (1): at most 118 bytes an event, 110 in the common case of
 * times and bytes that fit 32 bits, all of it in the worker (the page holds nothing per event).
 * The extension host holds the file once while reading (50): its columns are views over it. A budget of 2.2 GB for the renderer gives the cap: 20 million events. The
 * helper writes up to 50 million (native/src/limits.json); larger ones are refused before they
 * are read, with what to do instead.
 */
export const TIMELINE_BYTES_PER_EVENT = 110;
export const TIMELINE_MEMORY_BUDGET_BYTES = 2.2e9;
export const TIMELINE_MAX_EVENTS = Math.floor(TIMELINE_MEMORY_BUDGET_BYTES / TIMELINE_BYTES_PER_EVENT);

export interface TimelineFit {
  ok: boolean;
  events: number;
  /** Memory the panel would need, in bytes. */
  neededBytes: number;
  limitBytes: number;
  /** Why it does not fit and what to do, when it does not. */
  message?: string;
}

/** Whether a timeline of `events` events can be opened, decided before any of it is read. */
export function timelineFits(events: number, maxEvents = TIMELINE_MAX_EVENTS): TimelineFit {
  const neededBytes = events * TIMELINE_BYTES_PER_EVENT;
  const limitBytes = maxEvents * TIMELINE_BYTES_PER_EVENT;
  if (Number.isSafeInteger(events) && events >= 0 && events <= maxEvents)
    return { ok: true, events, neededBytes, limitBytes };
  const gb = (b: number) => `${(b / 1e9).toFixed(1)} GB`;
  return {
    ok: false,
    events,
    neededBytes,
    limitBytes,
    message:
      `this timeline has ${events.toLocaleString('en-US')} events and would need about ${gb(neededBytes)} in the panel; ` +
      `the panel opens up to ${maxEvents.toLocaleString('en-US')} events (${gb(limitBytes)}). ` +
      'Record a shorter timeline (fewer timeline iterations, a smaller timeline size or fewer CUs) and open that.',
  };
}
