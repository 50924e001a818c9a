/**
 * The compact, lane-ordered columns the level of detail reads, and the memory cap of a
 * timeline. Each lane's positions are cut into blocks of BLOCK positions; when every time is a
 * whole nanosecond, a block's times are stored as 32-bit offsets from its own base (the start
 * of its first event, the earliest of the block: a lane is in time order), whatever the
 * timeline's span. A sparse lane whose BLOCK events span more than 2^32 ns (4.3 s: a kernel
 * launched every few milliseconds over minutes) is cut into shorter blocks, the longest whose
 * offsets fit (`laneShiftFor`), so that one lane does not widen every other. Only when a single
 * event's offsets cannot fit (an event, or the running end before it, more than 4.3 s past its
 * start) are the times stored as float64 (exact for any time the file can hold). Bytes are
 * 32-bit when every event moved a whole number of bytes under 4 GiB; path, kind and inferred
 * flag share one byte. A 10^7-event timeline then costs 21 bytes an event here (37 at most),
 * plus 8 bytes a block (one a lane and one each BLOCK events, or fewer of a sparse lane's: never
 * more than the 12 bytes an event float64 times would add).
 */

/** A time column: 32-bit offsets from their block's base when they fit, float64 times otherwise. */
export type TimeColumn = Uint32Array | Float64Array;
/** A byte column: 32-bit when every value fits, float64 otherwise. */
export type ByteColumn = Uint32Array | Float64Array;

const U32_MAX = 0xffff_ffff;
/** log2 of BLOCK. */
export const BLOCK_SHIFT = 12;
/** Positions of a lane per block of 32-bit time offsets. */
export const BLOCK = 1 << BLOCK_SHIFT;

/**
 * The bases of 32-bit time offsets: position `k` of lane `l` (`laneStart[l] <= k <
 * laneStart[l+1]`) is in block `laneBlock[l] + ((k - laneStart[l]) >>> laneShift[l])`, and its
 * time is `base[block] + column[k]`. A block never spans two lanes: a lane's last times and
 * the next lane's first ones can be the timeline's whole span apart.
 */
export interface TimeBlocks {
  /** First block of each lane; `laneBlock[lanes]` is the number of blocks. */
  laneBlock: Int32Array;
  /** log2 of each lane's block length: BLOCK_SHIFT, or less for a sparse lane (`laneShiftFor`). */
  laneShift: Uint8Array;
  base: Float64Array;
}

/**
 * What the aggregation reads, in lane order (`index.order`): each lane is a straight run of
 * memory. Times are offsets from their block's base (`blocks`), or float64 times when
 * `blocks` is undefined.
 */
export interface LodColumns {
  blocks: TimeBlocks | undefined;
  startNs: TimeColumn;
  /** max(endNs, startNs): instants end where they start. */
  endNs: TimeColumn;
  /** Running maximum of `endNs` within each lane: the first event that can reach a time is a binary search. */
  maxEnd: TimeColumn;
  /** Drawn length including a packet's queue wait; float32 is plenty to compare with a pixel. */
  extentNs: Float32Array;
  bytes: ByteColumn;
  /** Path, inferred flag and kind of each event in one byte (`tagOf`). */
  tags: Uint8Array;
}

/** A tag's path: bits 0-1. */
export const TAG_PATH = 3;
/** A tag's bit set for an inferred event (FLAG_INFERRED, not reported by the hardware). */
export const TAG_INFERRED_SHIFT = 2;
/** A tag's kind: bits 3-7 (kinds past 31, which no file holds, read as 31). */
export const TAG_KIND_SHIFT = 3;

/** One byte for what the level of detail and the measure read of an event besides times and bytes. */
export function tagOf(path: number, kind: number, inferred: boolean): number {
  return (path & TAG_PATH) | (inferred ? 1 << TAG_INFERRED_SHIFT : 0) | ((kind < 31 ? kind : 31) << TAG_KIND_SHIFT);
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

/** Whether times of this range fit 32-bit offsets from its first start (and so from any block's base). */
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

/**
 * Each lane's first block, for lanes `laneStart[l]..laneStart[l+1]`: ceil(events / 2^shift)
 * blocks a lane, `shift` its `laneShift` (BLOCK_SHIFT for every lane when not given).
 */
export function laneBlocks(laneStart: Int32Array, laneShift?: Uint8Array): Int32Array {
  const lanes = laneStart.length - 1;
  const laneBlock = new Int32Array(lanes + 1);
  for (let l = 0; l < lanes; l++) {
    const shift = laneShift ? laneShift[l]! : BLOCK_SHIFT;
    laneBlock[l + 1] = laneBlock[l]! + Math.ceil((laneStart[l + 1]! - laneStart[l]!) / 2 ** shift);
  }
  return laneBlock;
}

/**
 * The longest blocks (log2 of their length, at most `maxShift`) into which one lane can be cut
 * so that every block's times fit 32-bit offsets from its first start; -1 when not even one
 * event a block does. The lane is events `order[from..from+n-1]` of the file's columns, in time
 * order. A block's largest offset is its last running maximum of ends less its first start; a
 * block that does not fit is inside a longer one that does not either, so one pass checks every
 * length at once: at each position, the blocks that end there, from the shortest (about two a
 * position), the longest length still possible lowered at the first that does not fit. No memory
 * per event.
 */
export function laneShiftFor(
  order: Int32Array,
  from: number,
  n: number,
  startNs: Float64Array,
  endNs: Float64Array,
  maxShift = BLOCK_SHIFT,
): number {
  let longest = maxShift;
  let run = -Infinity;
  for (let j = 0; j < n; j++) {
    const e = order[from + j]!;
    const st = startNs[e]!;
    const en = endNs[e]! > st ? endNs[e]! : st;
    if (en > run) run = en;
    const laneEnd = j === n - 1;
    for (let shift = 0; shift <= longest; shift++) {
      const mask = (1 << shift) - 1;
      // A block of 2^shift positions ends at j when j + 1 is a multiple of it, or at the lane's end.
      if (!laneEnd && ((j + 1) & mask) !== 0) break;
      if (!fitsOffset(run - startNs[order[from + (j & ~mask)]!]!)) {
        longest = shift - 1;
        if (longest < 0) return -1;
        break;
      }
    }
  }
  return longest;
}

/**
 * `blocks` with the lanes of `shifts` (lane -> its new `laneShift`) cut again: every other
 * lane's bases are kept, the re-cut lanes' are left 0 for the caller to write with their offsets.
 */
export function recutBlocks(
  blocks: TimeBlocks,
  laneStart: Int32Array,
  shifts: ReadonlyMap<number, number>,
): TimeBlocks {
  const laneShift = blocks.laneShift.slice();
  for (const [lane, shift] of shifts) laneShift[lane] = shift;
  const laneBlock = laneBlocks(laneStart, laneShift);
  const base = new Float64Array(laneBlock[laneBlock.length - 1]!);
  for (let l = 0; l + 1 < laneBlock.length; l++)
    if (!shifts.has(l)) base.set(blocks.base.subarray(blocks.laneBlock[l]!, blocks.laneBlock[l + 1]!), laneBlock[l]!);
  return { laneBlock, laneShift, base };
}

/**
 * Empty lane-ordered columns for the lanes of `laneStart`, with the widths `range` allows:
 * 32-bit time offsets when every time is whole, in blocks of BLOCK positions (whoever fills
 * them checks that every block's offsets fit, cuts a lane whose blocks do not into shorter ones:
 * `laneShiftFor`, `recutBlocks`, and writes float64 times instead when even blocks of one event
 * do not: `floatTimes`).
 */
export function allocLodColumns(laneStart: Int32Array, range: ColumnRange): LodColumns {
  const n = laneStart[laneStart.length - 1] ?? 0;
  const narrow = range.wholeTimes;
  const time = (): TimeColumn => (narrow ? new Uint32Array(n) : new Float64Array(n));
  let blocks: TimeBlocks | undefined;
  if (narrow) {
    const laneBlock = laneBlocks(laneStart);
    const laneShift = new Uint8Array(laneStart.length - 1).fill(BLOCK_SHIFT);
    blocks = { laneBlock, laneShift, base: new Float64Array(laneBlock[laneBlock.length - 1]!) };
  }
  return {
    blocks,
    startNs: time(),
    endNs: time(),
    maxEnd: time(),
    extentNs: new Float32Array(n),
    bytes: range.bytesFit32 ? new Uint32Array(n) : new Float64Array(n),
    tags: new Uint8Array(n),
  };
}

/** The same columns with float64 times (no blocks), for times whose blocks do not all fit 32-bit offsets. */
export function floatTimes(lc: LodColumns): LodColumns {
  const n = lc.startNs.length;
  return {
    ...lc,
    blocks: undefined,
    startNs: new Float64Array(n),
    endNs: new Float64Array(n),
    maxEnd: new Float64Array(n),
  };
}

/** Whether `offset` (a time less its block's base) can be stored in a 32-bit column: a whole number in 0..2^32-1. */
export function fitsOffset(offset: number): boolean {
  return offset >= 0 && offset <= U32_MAX;
}

/** Bytes per event the lane-ordered columns hold, their blocks' bases included. */
export function lodBytesPerEvent(lc: LodColumns): number {
  const n = lc.startNs.length;
  if (n === 0) return 0;
  let total = 0;
  for (const a of [lc.startNs, lc.endNs, lc.maxEnd, lc.extentNs, lc.bytes, lc.tags]) total += a.byteLength;
  if (lc.blocks) total += lc.blocks.base.byteLength + lc.blocks.laneBlock.byteLength + lc.blocks.laneShift.byteLength;
  return total / n;
}

/** The base of the block holding position `k` of `lane` (0 for float64 columns). */
export function blockBaseAt(blocks: TimeBlocks | undefined, laneStart: Int32Array, lane: number, k: number): number {
  if (blocks === undefined) return 0;
  return blocks.base[blocks.laneBlock[lane]! + ((k - laneStart[lane]!) >>> blocks.laneShift[lane]!)]!;
}

/**
 * First position of `lane` (`laneStart[lane]..laneStart[lane+1]`) whose running maximum of
 * end times (`maxEnd`, offsets from `blocks`' bases or float64 times) is at or after `timeNs`.
 * The maxima only grow along a lane as times; each probe compares its time (base + offset,
 * exact: whole numbers under 2^53), never offsets of two blocks.
 */
export function firstReachingIn(
  maxEnd: TimeColumn,
  blocks: TimeBlocks | undefined,
  laneStart: Int32Array,
  lane: number,
  timeNs: number,
): number {
  let lo = laneStart[lane]!;
  let hi = laneStart[lane + 1]!;
  if (blocks === undefined) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (maxEnd[mid]! < timeNs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  const first = lo;
  const base = blocks.base;
  const block0 = blocks.laneBlock[lane]!;
  const shift = blocks.laneShift[lane]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (base[block0 + ((mid - first) >>> shift)]! + maxEnd[mid]! < timeNs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position of `lane` whose event may end at or after `timeNs` (a time, in ns). */
export function firstReachingLod(lc: LodColumns, laneStart: Int32Array, lane: number, timeNs: number): number {
  return firstReachingIn(lc.maxEnd, lc.blocks, laneStart, lane, timeNs);
}

/**
 * What a timeline costs where its engine runs (the panel's worker, or the engine process the
 * extension host starts) once it is loaded: the file's columns (50 bytes an event with flags); the
 * index: each event's lane (2 with up to 65,535 lanes, 4 past that), the per-lane order (4),
 * the doorbell links (4) and the `ref` links (none when ids are the events' own indices and
 * every ref names an event or is -1: they are the file's `ref` column; 4 otherwise), its
 * running maxima being the compact columns'; the compact lane-ordered columns (21 to 37, and 8
 * bytes a block); the filter's mask (1). That is 82 bytes an event in the common case (whole
 * nanosecond times, no event reaching 2^32 ns past its block's start, bytes under 4 GiB, ids that are indices) and
 * at most 104: the cap takes the most, so that any sdmatl file under it fits (Profile's
 * timelines hold names and CUs instead of flags, 7 bytes an event more). While the index is
 * built, the first pass's 4-byte lanes are held beside the 2-byte ones until they become the
 * doorbell links, and times whose blocks do not fit 32 bits are held at both widths for a
 * moment. The page holds nothing per event;
 * the extension host holds the file once while reading (50): its columns are views over it. A
 * budget of 2.2 GB gives the cap: 21.1 million events. The helper writes up to 50 million
 * (native/src/limits.json); larger ones are refused before they are read, with what to do
 * instead.
 */
export const TIMELINE_BYTES_PER_EVENT = 104;
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
