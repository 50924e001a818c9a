/**
 * Level of detail: what to draw for a time window at a given pixel width, per lane. Events at
 * least `rawMinPx` wide are drawn one by one (with labels); narrower ones are summed into one
 * bucket per pixel column and adjacent buckets of the same look are merged into runs, so a
 * frame draws a few thousand rectangles whether the window holds ten events or a million.
 *
 * Every event overlapping the window is accounted exactly once per lane: either in `raw` or in
 * the one bucket holding its (clamped) start, which is what keeps counts and bytes equal to
 * the raw data at every zoom level. Busy time is split across the buckets an event covers.
 * Pure and allocation-light: it runs in the webview's worker and in unit tests alike.
 */
import type { TimelineColumns } from './timelineFile';
import { FLAG_INFERRED } from './timelineFile';
import type { LodColumns } from './timelineCompact';
import {
  allocLodColumns,
  blockBaseAt,
  firstReachingLod,
  floatTimes,
  laneBlocks,
  laneShiftFor,
  scanRange,
  tagOf,
  TAG_INFERRED_SHIFT,
  TAG_KIND_SHIFT,
  TAG_PATH,
} from './timelineCompact';
import type { TimelineIndex } from './timelineModel';
import { KIND_DOORBELL, KIND_PACKET, movesBytes } from './timelineModel';

/** Occupancy is drawn in this many steps of opacity: runs of equal steps merge. */
export const LOD_LEVELS = 8;

export interface LodRequest {
  startNs: number;
  endNs: number;
  /** Pixel columns the window is drawn in. */
  buckets: number;
  /** Lane ids (real, or the heat lanes of `index.heat`) to compute. */
  lanes: readonly number[];
  rawMinPx?: number;
  maxRaw?: number;
}

export interface LodRuns {
  lane: Int32Array;
  /** First bucket and one past the last. */
  b0: Int32Array;
  b1: Int32Array;
  /** 0: instants only (doorbells); 1..LOD_LEVELS: busy fraction, rounded up. */
  level: Uint8Array;
  /** The path that was busy longest in the run (colour). */
  path: Uint8Array;
  /** 1 when an event of the run was inferred (not reported by the hardware): drawn hatched. */
  inferred: Uint8Array;
  count: Float64Array;
  bytes: Float64Array;
  busyNs: Float64Array;
}

export interface LodResult {
  startNs: number;
  endNs: number;
  buckets: number;
  /** Events drawn one by one. */
  raw: Int32Array;
  runs: LodRuns;
  /** Per requested lane: events, bytes and busy time inside the window (raw and runs together). */
  totals: { lane: Int32Array; count: Float64Array; bytes: Float64Array; busyNs: Float64Array };
}

const PATH_COUNT = 4;

/** The runs of one answer, in typed arrays grown by doubling (no per-run objects or boxed numbers). */
export class Growable {
  length = 0;
  lane = new Int32Array(256);
  b0 = new Int32Array(256);
  b1 = new Int32Array(256);
  level = new Uint8Array(256);
  path = new Uint8Array(256);
  inferred = new Uint8Array(256);
  count = new Float64Array(256);
  bytes = new Float64Array(256);
  busyNs = new Float64Array(256);

  push(
    lane: number,
    b: number,
    level: number,
    path: number,
    inferred: number,
    count: number,
    bytes: number,
    busyNs: number,
  ): void {
    const last = this.length - 1;
    if (
      last >= 0 &&
      this.lane[last] === lane &&
      this.b1[last] === b &&
      this.level[last] === level &&
      this.path[last] === path &&
      this.inferred[last] === inferred
    ) {
      this.b1[last] = b + 1;
      this.count[last]! += count;
      this.bytes[last]! += bytes;
      this.busyNs[last]! += busyNs;
      return;
    }
    if (this.length === this.lane.length) this.grow();
    const at = this.length++;
    this.lane[at] = lane;
    this.b0[at] = b;
    this.b1[at] = b + 1;
    this.level[at] = level;
    this.path[at] = path;
    this.inferred[at] = inferred;
    this.count[at] = count;
    this.bytes[at] = bytes;
    this.busyNs[at] = busyNs;
  }

  private grow(): void {
    const twice = <A extends Int32Array | Uint8Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const out = make(a.length * 2);
      out.set(a);
      return out;
    };
    this.lane = twice(this.lane, (n) => new Int32Array(n));
    this.b0 = twice(this.b0, (n) => new Int32Array(n));
    this.b1 = twice(this.b1, (n) => new Int32Array(n));
    this.level = twice(this.level, (n) => new Uint8Array(n));
    this.path = twice(this.path, (n) => new Uint8Array(n));
    this.inferred = twice(this.inferred, (n) => new Uint8Array(n));
    this.count = twice(this.count, (n) => new Float64Array(n));
    this.bytes = twice(this.bytes, (n) => new Float64Array(n));
    this.busyNs = twice(this.busyNs, (n) => new Float64Array(n));
  }

  done(): LodRuns {
    const n = this.length;
    return {
      lane: this.lane.slice(0, n),
      b0: this.b0.slice(0, n),
      b1: this.b1.slice(0, n),
      level: this.level.slice(0, n),
      path: this.path.slice(0, n),
      inferred: this.inferred.slice(0, n),
      count: this.count.slice(0, n),
      bytes: this.bytes.slice(0, n),
      busyNs: this.busyNs.slice(0, n),
    };
  }
}

/** Scratch arrays reused across lanes and calls (one worker, one request at a time). */
class Scratch {
  busy = new Float64Array(0);
  count = new Float64Array(0);
  bytes = new Float64Array(0);
  pathBusy = new Float64Array(0);
  lastPath = new Uint8Array(0);
  inferred = new Uint8Array(0);

  ensure(buckets: number): void {
    if (this.busy.length >= buckets) return;
    this.busy = new Float64Array(buckets);
    this.count = new Float64Array(buckets);
    this.bytes = new Float64Array(buckets);
    this.pathBusy = new Float64Array(buckets * PATH_COUNT);
    this.lastPath = new Uint8Array(buckets);
    this.inferred = new Uint8Array(buckets);
  }

  clear(from: number, to: number): void {
    if (to < from) return;
    this.busy.fill(0, from, to + 1);
    this.count.fill(0, from, to + 1);
    this.bytes.fill(0, from, to + 1);
    this.pathBusy.fill(0, from * PATH_COUNT, (to + 1) * PATH_COUNT);
    this.inferred.fill(0, from, to + 1);
  }
}

const scratch = new Scratch();

/** The start of what is drawn for an event: a packet is drawn from the moment it was queued. */
export function visibleStartNs(t: TimelineColumns, e: number): number {
  const s = t.startNs[e]!;
  if (t.kind[e] === KIND_PACKET) {
    const q = t.queuedNs[e]!;
    if (q >= 0 && q < s) return q;
  }
  return s;
}

export type { LodColumns } from './timelineCompact';

/** The part of the index the aggregation reads (the running maxima are in the lane-ordered columns). */
export type LodIndex = Pick<TimelineIndex, 'lanes' | 'order' | 'laneStart' | 'heat'>;

/**
 * The lane-ordered columns gathered through an existing index, the obvious way (a random read
 * per event and column). The worker gets the same columns from buildIndexAndLod's one pass;
 * this is the reference that pass is checked against.
 */
export function lodColumns(t: TimelineColumns, index: Pick<TimelineIndex, 'order' | 'laneStart'>): LodColumns {
  const laneStart = index.laneStart;
  let c = allocLodColumns(laneStart, scanRange(t.startNs, t.endNs, t.bytes, t.count));
  const flags = t.flags;
  // Times as offsets from their block's first start, each lane cut into the longest blocks
  // whose offsets fit 32 bits, when every lane's do.
  let blocks = c.blocks;
  if (blocks) {
    const laneShift = new Uint8Array(laneStart.length - 1);
    for (let l = 0; l + 1 < laneStart.length; l++) {
      const shift = laneShiftFor(index.order, laneStart[l]!, laneStart[l + 1]! - laneStart[l]!, t.startNs, t.endNs);
      if (shift < 0) {
        blocks = undefined;
        break;
      }
      laneShift[l] = shift;
    }
    if (blocks) {
      const laneBlock = laneBlocks(laneStart, laneShift);
      blocks = { laneBlock, laneShift, base: new Float64Array(laneBlock[laneBlock.length - 1]!) };
      for (let l = 0; l + 1 < laneStart.length; l++)
        for (let k = laneStart[l]!; k < laneStart[l + 1]!; k += 2 ** laneShift[l]!)
          blocks.base[laneBlock[l]! + (k - laneStart[l]!) / 2 ** laneShift[l]!] = t.startNs[index.order[k]!]!;
      c = { ...c, blocks };
    } else c = floatTimes(c);
  }
  for (let l = 0; l + 1 < laneStart.length; l++) {
    let run = -Infinity;
    for (let k = laneStart[l]!; k < laneStart[l + 1]!; k++) {
      const e = index.order[k]!;
      const st = t.startNs[e]!;
      const en = Math.max(t.endNs[e]!, st);
      run = Math.max(run, en);
      const base = blockBaseAt(blocks, laneStart, l, k);
      c.startNs[k] = st - base;
      c.endNs[k] = en - base;
      c.maxEnd[k] = run - base;
      c.extentNs[k] = en - visibleStartNs(t, e);
      c.bytes[k] = t.bytes[e]!;
      c.tags[k] = tagOf(t.path[e]!, t.kind[e]!, flags !== undefined && (flags[e]! & FLAG_INFERRED) !== 0);
    }
  }
  return c;
}

/** The window one lane's events are binned into, and what binning them found (the lane's totals, the buckets touched). */
interface BinWindow {
  startNs: number;
  endNs: number;
  nsPerBucket: number;
  perNs: number;
  last: number;
  maxRaw: number;
  s: Scratch;
  lo: number;
  hi: number;
  count: number;
  bytes: number;
  busyNs: number;
}

/** Block bases of float64 columns: never read (their one block ends past every lane). */
const NO_BASES = new Float64Array(1);

/**
 * Events `from..end-1` of lane `lane` (starting at `laneFirst`) of the lane-ordered columns into
 * the window's buckets (or `raw`, when `rawAllowed` and at least `rawMinNs` wide), adding to
 * its totals. Times are the block's base plus the offset (exact: whole numbers under 2^53), the
 * base read again where a block ends. The hot loop, its own small function so that it is
 * optimised early: typed-array reads and arithmetic only, no calls, no allocation.
 */
function binLane(
  lc: LodColumns,
  order: Int32Array,
  lane: number,
  laneFirst: number,
  from: number,
  end: number,
  w: BinWindow,
  rawAllowed: boolean,
  rawMinNs: number,
  raw: number[],
  mask: Uint8Array | undefined,
): void {
  const blocks = lc.blocks;
  const bases = blocks === undefined ? NO_BASES : blocks.base;
  let block = 0;
  let base = 0;
  // Where the next block of the lane starts; past `end` for float64 times.
  let blockEnd = end;
  let blockSize = 0;
  if (blocks !== undefined && from < end) {
    const shift = blocks.laneShift[lane]!;
    blockSize = 2 ** shift;
    const at = (from - laneFirst) >>> shift;
    block = blocks.laneBlock[lane]! + at;
    base = bases[block]!;
    blockEnd = laneFirst + (at + 1) * blockSize;
  }
  const startCol = lc.startNs;
  const endCol = lc.endNs;
  const extentCol = lc.extentNs;
  const bytesCol = lc.bytes;
  const tagCol = lc.tags;
  const { startNs, endNs, nsPerBucket, perNs, last, maxRaw } = w;
  const { busy, count, bytes, pathBusy, lastPath, inferred } = w.s;
  let lo = w.lo;
  let hi = w.hi;
  let laneCount = w.count;
  let laneBytes = w.bytes;
  let laneBusy = w.busyNs;
  for (let k = from; k < end; k++) {
    if (k === blockEnd) {
      base = bases[++block]!;
      blockEnd += blockSize;
    }
    const st = base + startCol[k]!;
    if (st > endNs) break;
    const en = base + endCol[k]!;
    if (en < startNs) continue;
    if (mask !== undefined && mask[order[k]!] === 0) continue;
    const eventBytes = bytesCol[k]!;
    const a = st > startNs ? st : startNs;
    const z = en < endNs ? en : endNs;
    laneCount += 1;
    laneBytes += eventBytes;
    laneBusy += z - a;
    if (rawAllowed && extentCol[k]! >= rawMinNs && raw.length < maxRaw) {
      raw.push(order[k]!);
      continue;
    }
    let b = Math.floor((st - startNs) * perNs);
    if (b < 0) b = 0;
    else if (b > last) b = last;
    const tag = tagCol[k]!;
    const path = tag & TAG_PATH;
    count[b]! += 1;
    bytes[b]! += eventBytes;
    lastPath[b] = path;
    inferred[b]! |= (tag >>> TAG_INFERRED_SHIFT) & 1;
    if (b < lo) lo = b;
    if (z > a) {
      let b0 = Math.floor((a - startNs) * perNs);
      let b1 = Math.floor((z - startNs) * perNs);
      if (b0 > last) b0 = last;
      if (b1 > last) b1 = last;
      if (b0 < lo) lo = b0;
      if (b1 > hi) hi = b1;
      if (b0 === b1) {
        busy[b0]! += z - a;
        pathBusy[b0 * PATH_COUNT + path]! += z - a;
      } else {
        spreadBusy(busy, pathBusy, 0, a, z, b0, b1, startNs, nsPerBucket, path);
      }
    }
    if (b > hi) hi = b;
  }
  w.lo = lo;
  w.hi = hi;
  w.count = laneCount;
  w.bytes = laneBytes;
  w.busyNs = laneBusy;
}

/**
 * Busy time [a, z] of one event across buckets b0..b1 of a row starting at `row` (each bucket
 * `nsPerBucket` wide from `startNs`): its share of each bucket, to the bucket and to its path.
 * The level of detail and the overview (timelineOverview.ts) spread alike through this.
 */
export function spreadBusy(
  busy: Float64Array,
  pathBusy: Float64Array,
  row: number,
  a: number,
  z: number,
  b0: number,
  b1: number,
  startNs: number,
  nsPerBucket: number,
  path: number,
): void {
  for (let bb = b0; bb <= b1; bb++) {
    const from = startNs + bb * nsPerBucket;
    const to = from + nsPerBucket;
    const ov = (z < to ? z : to) - (a > from ? a : from);
    if (ov <= 0) continue;
    busy[row + bb]! += ov;
    pathBusy[(row + bb) * PATH_COUNT + path]! += ov;
  }
}

export function aggregate(lc: LodColumns, index: LodIndex, request: LodRequest, mask?: Uint8Array): LodResult {
  const startNs = request.startNs;
  const endNs = request.endNs;
  const buckets = Math.max(1, Math.floor(request.buckets));
  const spanNs = Math.max(endNs - startNs, 1e-9);
  const nsPerBucket = spanNs / buckets;
  const rawMinNs = (request.rawMinPx ?? 2) * nsPerBucket;
  const maxRaw = request.maxRaw ?? 20_000;
  scratch.ensure(buckets);
  const s = scratch;
  const runs = new Growable();
  const raw: number[] = [];
  const realLanes = index.lanes.length;
  const totals = {
    lane: Int32Array.from(request.lanes),
    count: new Float64Array(request.lanes.length),
    bytes: new Float64Array(request.lanes.length),
    busyNs: new Float64Array(request.lanes.length),
  };
  const order = index.order;
  const laneStart = index.laneStart;
  const last = buckets - 1;
  const perNs = 1 / nsPerBucket;
  const { busy, count, bytes, pathBusy, lastPath, inferred } = s;
  const window: BinWindow = {
    startNs,
    endNs,
    nsPerBucket,
    perNs,
    last,
    maxRaw,
    s,
    lo: 0,
    hi: 0,
    count: 0,
    bytes: 0,
    busyNs: 0,
  };

  for (let slot = 0; slot < request.lanes.length; slot++) {
    const laneId = request.lanes[slot]!;
    const heat = laneId >= realLanes ? index.heat.find((h) => h.id === laneId) : undefined;
    if (laneId >= realLanes && !heat) continue;
    const sources = heat ? heat.cuLanes : [laneId];
    window.lo = buckets;
    window.hi = -1;
    window.count = 0;
    window.bytes = 0;
    window.busyNs = 0;
    for (const lane of sources) {
      const from = firstReachingLod(lc, laneStart, lane, startNs);
      const end = laneStart[lane + 1]!;
      binLane(lc, order, lane, laneStart[lane]!, from, end, window, heat === undefined, rawMinNs, raw, mask);
    }
    const lo = window.lo;
    const hi = window.hi;
    const laneCount = window.count;
    const laneBytes = window.bytes;
    const laneBusy = window.busyNs;
    totals.count[slot] = laneCount;
    totals.bytes[slot] = laneBytes;
    totals.busyNs[slot] = laneBusy;
    const capacityNs = nsPerBucket * (heat ? Math.max(1, heat.cuCount) : 1);
    for (let b = lo; b <= hi; b++) {
      const used = busy[b]!;
      const n = count[b]!;
      if (used <= 0 && n <= 0) continue;
      let level = 0;
      let path = lastPath[b]!;
      if (used > 0) {
        level = Math.min(LOD_LEVELS, Math.max(1, Math.ceil((used / capacityNs) * LOD_LEVELS - 1e-9)));
        let best = -1;
        for (let p = 0; p < PATH_COUNT; p++) {
          const v = pathBusy[b * PATH_COUNT + p]!;
          if (v > best) {
            best = v;
            path = p;
          }
        }
      }
      runs.push(laneId, b, level, path, inferred[b]!, n, bytes[b]!, used);
    }
    s.clear(lo, hi);
  }

  return {
    startNs: request.startNs,
    endNs: request.endNs,
    buckets,
    raw: Int32Array.from(raw),
    runs: runs.done(),
    totals,
  };
}

export interface RangeMeasure {
  fromNs: number;
  toNs: number;
  /** Bytes moved inside the range: each CU span or packet counts its bytes in proportion to its time inside. */
  bytes: number;
  /** Events overlapping the range, all kinds. */
  events: number;
  packets: number;
  doorbells: number;
  bytesByPath: number[];
}

/** The measure tool: what moved between two times (respecting the filter). */
export function measureRange(
  lc: LodColumns,
  index: LodIndex,
  fromNs: number,
  toNs: number,
  mask?: Uint8Array,
): RangeMeasure {
  const result: RangeMeasure = {
    fromNs: Math.min(fromNs, toNs),
    toNs: Math.max(fromNs, toNs),
    bytes: 0,
    events: 0,
    packets: 0,
    doorbells: 0,
    bytesByPath: [0, 0, 0, 0],
  };
  const lo = result.fromNs;
  const hi = result.toNs;
  const blocks = lc.blocks;
  const bases = blocks === undefined ? NO_BASES : blocks.base;
  const startCol = lc.startNs;
  const endCol = lc.endNs;
  const tagCol = lc.tags;
  const bytesCol = lc.bytes;
  const order = index.order;
  const byPath = result.bytesByPath;
  for (let lane = 0; lane < index.lanes.length; lane++) {
    const first = index.laneStart[lane]!;
    const end = index.laneStart[lane + 1]!;
    const from = firstReachingLod(lc, index.laneStart, lane, lo);
    // As in binLane: the block's base, read again where a block ends.
    let block = 0;
    let base = 0;
    let blockEnd = end;
    let blockSize = 0;
    if (blocks !== undefined && from < end) {
      const shift = blocks.laneShift[lane]!;
      blockSize = 2 ** shift;
      const at = (from - first) >>> shift;
      block = blocks.laneBlock[lane]! + at;
      base = bases[block]!;
      blockEnd = first + (at + 1) * blockSize;
    }
    for (let k = from; k < end; k++) {
      if (k === blockEnd) {
        base = bases[++block]!;
        blockEnd += blockSize;
      }
      const st = base + startCol[k]!;
      if (st > hi) break;
      const en = base + endCol[k]!;
      if (en < lo || (mask && mask[order[k]!] === 0)) continue;
      result.events++;
      const tag = tagCol[k]!;
      const kind = tag >>> TAG_KIND_SHIFT;
      if (kind === KIND_PACKET) result.packets++;
      if (kind === KIND_DOORBELL) result.doorbells++;
      if (!movesBytes(kind)) continue;
      const duration = en - st;
      const share = duration > 0 ? (Math.min(en, hi) - Math.max(st, lo)) / duration : 1;
      const bytes = bytesCol[k]! * share;
      result.bytes += bytes;
      byPath[tag & TAG_PATH]! += bytes;
    }
  }
  return result;
}
