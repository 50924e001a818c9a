/**
 * The fast paths of the timeline's core against straightforward references, on random and
 * crafted timelines: out-of-order lanes, equal starts, instants, inferred flags, times that do
 * not fit 32 bits, huge byte counts, ids that are not the events' own indices. The value check
 * names the same first bad event as an event-by-event check; the index's links and the shared
 * running maxima equal the obvious ones; the level of detail equals the plain per-event
 * aggregation it replaced (the runs kept in growing arrays). Times kept as 32-bit offsets from
 * per-block bases answer exactly as float64 times do: the level of detail, the measure, the
 * first event reaching a time and the hit tests, over lanes of several blocks and spans past
 * 2^32 ns, blocks that do not fit (float64 then), fractions, lanes out of order and many lanes
 * of one event.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import {
  TimelineFormatError,
  checkTimelineValues,
  emptyColumns,
  readTimelineFile,
} from '../../src/core/timeline/timelineFile';
import type { LodColumns, LodIndex, LodRequest, LodResult, LodRuns } from '../../src/core/timeline/timelineLod';
import { LOD_LEVELS, aggregate, lodColumns, measureRange } from '../../src/core/timeline/timelineLod';
import { BLOCK, BLOCK_SHIFT, blockBaseAt, firstReachingLod, floatTimes } from '../../src/core/timeline/timelineCompact';
import type { TimelineIndex } from '../../src/core/timeline/timelineModel';
import {
  KIND_CU,
  KIND_DOORBELL,
  KIND_KERNEL,
  KIND_PACKET,
  buildIndex,
  buildIndexAndLod,
  eventAt,
  eventsInRange,
  firstReaching,
} from '../../src/core/timeline/timelineModel';
import { sdmatlBytes } from './timelineFixture';

interface Ev {
  kind: number;
  gpu: number;
  lane: number;
  start: number;
  length: number;
  queuedBefore: number;
  bytes: number;
  flag: number;
  ref: number;
}

const event = fc.record({
  // Engine lanes' packets and doorbells often: they are what the links join.
  kind: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(KIND_PACKET, KIND_DOORBELL)),
  gpu: fc.integer({ min: 0, max: 1 }),
  lane: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom(4095, 4096, 70_000, 0xffff)),
  // Few distinct starts: many equal ones.
  start: fc.integer({ min: 0, max: 60 }),
  // 0..2: instants (an end at or before the start).
  length: fc.integer({ min: 0, max: 40 }),
  queuedBefore: fc.integer({ min: -5, max: 20 }),
  bytes: fc.integer({ min: 0, max: 1 << 20 }),
  flag: fc.constantFrom(0, 0, 1),
  ref: fc.integer({ min: -1, max: 400 }),
});

const timeline = fc.record({
  events: fc.array(event, { maxLength: 250, size: 'medium' }),
  sortFirst: fc.boolean(),
  // 1: whole ns; 1e7: a span past 2^32 ns; 0.5: fractional times; 2^40: past 2^32 from the start.
  timeScale: fc.constantFrom(1, 1e7, 0.5, 2 ** 40),
  // 2^13: past 4 GiB; 0.25: fractions; 2^40: far past any 32 bits.
  byteScale: fc.constantFrom(1, 2 ** 13, 0.25, 2 ** 40),
  withFlags: fc.boolean(),
  // How ids are laid out: each event's index, shuffled, repeated, sparse, or past any dense table.
  ids: fc.constantFrom('index', 'reversed', 'repeated', 'sparse', 'huge'),
});

function columns(
  events: Ev[],
  timeScale: number,
  byteScale: number,
  withFlags: boolean,
  ids: 'index' | 'reversed' | 'repeated' | 'sparse' | 'huge',
): TimelineColumns {
  const n = events.length;
  const c = emptyColumns(n, true);
  if (withFlags) c.flags = new Uint8Array(n);
  const idOf = (i: number) =>
    ids === 'index'
      ? i
      : ids === 'reversed'
        ? n - 1 - i
        : ids === 'repeated'
          ? i % 7
          : ids === 'sparse'
            ? i * 3 + 1
            : i * 1_000_003 + 5;
  events.forEach((e, i) => {
    c.kind[i] = e.kind;
    c.gpu[i] = e.gpu;
    c.lane[i] = e.lane;
    c.id[i] = idOf(i);
    c.ref[i] = e.ref < 0 ? -1 : ids === 'index' ? e.ref : idOf(e.ref % Math.max(1, n + 2));
    c.startNs[i] = 1_000_000 + e.start * timeScale;
    c.endNs[i] = c.startNs[i]! + (e.length - 2) * timeScale;
    c.queuedNs[i] =
      e.queuedBefore > 0 ? c.startNs[i]! - e.queuedBefore * timeScale : e.queuedBefore === 0 ? -1 : c.startNs[i]! + 1;
    c.bytes[i] = e.bytes * byteScale;
    if (c.flags) c.flags[i] = e.flag;
  });
  return c;
}

/** Refs and doorbell links the obvious way, from the finished lanes and order. */
function referenceLinks(t: TimelineColumns, index: TimelineIndex) {
  const n = t.count;
  const refIndex = Array.from({ length: n }, (_, i) => {
    const r = t.ref[i]!;
    if (r < 0) return -1;
    let found = -1;
    for (let j = 0; j < n; j++) if (t.id[j] === r) found = j;
    return found;
  });
  const announcedBy: number[] = new Array<number>(n).fill(-1);
  const queue = (e: number) => (t.queuedNs[e]! >= 0 ? t.queuedNs[e]! : t.startNs[e]!);
  index.lanes.forEach((lane) => {
    if (lane.category === 'cu' || lane.category === 'kernel' || lane.category === 'transfer') return;
    const inLane = [...index.order.subarray(index.laneStart[lane.id]!, index.laneStart[lane.id + 1]!)];
    const doorbells = inLane.filter((e) => t.kind[e] === KIND_DOORBELL);
    for (const p of inLane.filter((e) => t.kind[e] === KIND_PACKET)) {
      let last = -1;
      for (const d of doorbells) if (t.startNs[d]! <= queue(p)) last = d;
      announcedBy[p] = last;
    }
    for (const d of doorbells) {
      const first = refIndex[d]!;
      if (first >= 0 && index.laneOf[first] === lane.id) announcedBy[first] = d;
    }
  });
  return { refIndex, announcedBy };
}

// ---- the level of detail as it was first written: the reference for aggregate ----------------

const PATH_COUNT = 4;

class ReferenceRuns {
  lane: number[] = [];
  b0: number[] = [];
  b1: number[] = [];
  level: number[] = [];
  path: number[] = [];
  inferred: number[] = [];
  count: number[] = [];
  bytes: number[] = [];
  busyNs: number[] = [];

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
    const last = this.lane.length - 1;
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
    this.lane.push(lane);
    this.b0.push(b);
    this.b1.push(b + 1);
    this.level.push(level);
    this.path.push(path);
    this.inferred.push(inferred);
    this.count.push(count);
    this.bytes.push(bytes);
    this.busyNs.push(busyNs);
  }

  done(): LodRuns {
    return {
      lane: Int32Array.from(this.lane),
      b0: Int32Array.from(this.b0),
      b1: Int32Array.from(this.b1),
      level: Uint8Array.from(this.level),
      path: Uint8Array.from(this.path),
      inferred: Uint8Array.from(this.inferred),
      count: Float64Array.from(this.count),
      bytes: Float64Array.from(this.bytes),
      busyNs: Float64Array.from(this.busyNs),
    };
  }
}

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

/** The plain aggregation, over float64 times (`float64Columns`). */
function referenceAggregate(lc: LodColumns, index: LodIndex, request: LodRequest, mask?: Uint8Array): LodResult {
  expect(lc.blocks).toBeUndefined();
  expect(lc.startNs).toBeInstanceOf(Float64Array);
  const startNs = request.startNs;
  const endNs = request.endNs;
  const buckets = Math.max(1, Math.floor(request.buckets));
  const spanNs = Math.max(endNs - startNs, 1e-9);
  const nsPerBucket = spanNs / buckets;
  const rawMinNs = (request.rawMinPx ?? 2) * nsPerBucket;
  const maxRaw = request.maxRaw ?? 20_000;
  const s = new Scratch();
  s.ensure(buckets);
  const runs = new ReferenceRuns();
  const raw: number[] = [];
  const realLanes = index.lanes.length;
  const totals = {
    lane: Int32Array.from(request.lanes),
    count: new Float64Array(request.lanes.length),
    bytes: new Float64Array(request.lanes.length),
    busyNs: new Float64Array(request.lanes.length),
  };
  const startCol = lc.startNs;
  const endCol = lc.endNs;
  const extentCol = lc.extentNs;
  const bytesCol = lc.bytes;
  const pathCol = Uint8Array.from(lc.tags, (tag) => tag & 3);
  const flagCol = Uint8Array.from(lc.tags, (tag) => (tag >> 2) & 1);
  const order = index.order;
  const laneStart = index.laneStart;
  const last = buckets - 1;
  const perNs = 1 / nsPerBucket;
  const { busy, count, bytes, pathBusy, lastPath, inferred } = s;

  for (let slot = 0; slot < request.lanes.length; slot++) {
    const laneId = request.lanes[slot]!;
    const heat = laneId >= realLanes ? index.heat.find((h) => h.id === laneId) : undefined;
    if (laneId >= realLanes && !heat) continue;
    const sources = heat ? heat.cuLanes : [laneId];
    let lo = buckets;
    let hi = -1;
    let laneCount = 0;
    let laneBytes = 0;
    let laneBusy = 0;
    for (const lane of sources) {
      const end = laneStart[lane + 1]!;
      // The hot loop: typed-array reads and arithmetic only, no calls, no allocation.
      for (let k = firstReachingLod(lc, laneStart, lane, startNs); k < end; k++) {
        const st = startCol[k]!;
        if (st > endNs) break;
        const en = endCol[k]!;
        if (en < startNs) continue;
        if (mask !== undefined && mask[order[k]!] === 0) continue;
        const eventBytes = bytesCol[k]!;
        const a = st > startNs ? st : startNs;
        const z = en < endNs ? en : endNs;
        laneCount += 1;
        laneBytes += eventBytes;
        laneBusy += z - a;
        if (heat === undefined && extentCol[k]! >= rawMinNs && raw.length < maxRaw) {
          raw.push(order[k]!);
          continue;
        }
        let b = Math.floor((st - startNs) * perNs);
        if (b < 0) b = 0;
        else if (b > last) b = last;
        const path = pathCol[k]!;
        count[b]! += 1;
        bytes[b]! += eventBytes;
        lastPath[b] = path;
        inferred[b]! |= flagCol[k]!;
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
            for (let bb = b0; bb <= b1; bb++) {
              const from = startNs + bb * nsPerBucket;
              const to = from + nsPerBucket;
              const ov = (z < to ? z : to) - (a > from ? a : from);
              if (ov <= 0) continue;
              busy[bb]! += ov;
              pathBusy[bb * PATH_COUNT + path]! += ov;
            }
          }
        }
        if (b > hi) hi = b;
      }
    }
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

/** The lane-ordered columns with float64 times, whatever widths the timeline allows: what block offsets must read as. */
function float64Columns(t: TimelineColumns, index: Pick<TimelineIndex, 'order' | 'laneStart'>): LodColumns {
  const c = floatTimes(lodColumns(t, index));
  for (let l = 0; l + 1 < index.laneStart.length; l++) {
    let run = -Infinity;
    for (let k = index.laneStart[l]!; k < index.laneStart[l + 1]!; k++) {
      const e = index.order[k]!;
      const st = t.startNs[e]!;
      const en = Math.max(t.endNs[e]!, st);
      run = Math.max(run, en);
      c.startNs[k] = st;
      c.endNs[k] = en;
      c.maxEnd[k] = run;
    }
  }
  return c;
}

function runsOf(r: LodRuns) {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)]));
}

function sameResult(a: LodResult, b: LodResult): void {
  expect(a.buckets).toBe(b.buckets);
  expect(a.startNs).toBe(b.startNs);
  expect(a.endNs).toBe(b.endNs);
  expect([...a.raw]).toEqual([...b.raw]);
  expect(runsOf(a.runs)).toEqual(runsOf(b.runs));
  expect(a.runs.lane).toBeInstanceOf(Int32Array);
  expect(a.runs.count).toBeInstanceOf(Float64Array);
  expect([...a.totals.count]).toEqual([...b.totals.count]);
  expect([...a.totals.bytes]).toEqual([...b.totals.bytes]);
  expect([...a.totals.busyNs]).toEqual([...b.totals.busyNs]);
}

describe('the fast paths equal straightforward references', () => {
  it('index: refs, doorbell links, and running maxima shared with the compact columns', () => {
    fc.assert(
      fc.property(timeline, ({ events, sortFirst, timeScale, byteScale, withFlags, ids }) => {
        const list = sortFirst ? [...events].sort((a, b) => a.start - b.start) : events;
        const t = columns(list, timeScale, byteScale, withFlags, ids);
        const own = buildIndexAndLod(t);
        const ref = referenceLinks(t, own.index);
        expect([...own.index.refIndex]).toEqual(ref.refIndex);
        // Ids that are the events' indices and refs that are indices or -1: the file's column itself.
        const ownRefs = [...t.id].every((id, i) => id === i) && [...t.ref].every((r) => r >= -1 && r < t.count);
        expect(own.index.refIndex === t.ref).toBe(ownRefs);
        expect(own.index.laneOf).toBeInstanceOf(Uint16Array);
        expect([...own.index.announcedBy]).toEqual(ref.announcedBy);
        expect(buildIndex(t)).toEqual(own.index);
        // Shared: the same index but for its running maxima, which are the compact columns'.
        const shared = buildIndexAndLod(t, undefined, true, true);
        expect(shared.lod).toEqual(own.lod);
        expect(shared.index.maxEnd).toBe(shared.lod!.maxEnd);
        expect(shared.index.maxEndBlocks).toBe(shared.lod!.blocks);
        expect(own.index.maxEndBlocks).toBeUndefined();
        const { maxEnd: _a, maxEndBlocks: _b, ...rest } = shared.index;
        const { maxEnd: _c, ...ownRest } = own.index;
        expect(rest).toEqual(ownRest);
        for (let k = 0; k < t.count; k++) {
          const base = blockBaseAt(
            shared.index.maxEndBlocks,
            own.index.laneStart,
            own.index.laneOf[own.index.order[k]!]!,
            k,
          );
          expect(shared.index.maxEnd[k]! + base).toBe(own.index.maxEnd[k]);
        }
        // Hit tests find the same first event either way.
        for (const lane of own.index.lanes)
          for (const at of [0, 1_000_000, 1_000_000 + 30 * timeScale, 1e300])
            expect(firstReaching(shared.index, lane.id, at)).toBe(firstReaching(own.index, lane.id, at));
      }),
      { numRuns: 300 },
    );
  });

  it('level of detail: the same runs, raw events and totals as the plain aggregation, masked or not', () => {
    const request = fc.record({
      from: fc.double({ min: -0.2, max: 1, noNaN: true }),
      width: fc.double({ min: 0.001, max: 1.5, noNaN: true }),
      buckets: fc.integer({ min: 1, max: 300 }),
      rawMinPx: fc.constantFrom(0, 2, 1e9),
      maxRaw: fc.constantFrom(0, 3, 20_000),
      masked: fc.boolean(),
    });
    fc.assert(
      fc.property(timeline, request, ({ events, sortFirst, timeScale, byteScale, withFlags, ids }, q) => {
        const list = sortFirst ? [...events].sort((a, b) => a.start - b.start) : events;
        const t = columns(list, timeScale, byteScale, withFlags, ids);
        const { index, lod } = buildIndexAndLod(t, { gpuCus: [0, 300], vendor: 'amd' });
        const span = Math.max(1, index.endNs - index.startNs);
        const r: LodRequest = {
          startNs: index.startNs + q.from * span,
          endNs: index.startNs + (q.from + q.width) * span,
          buckets: q.buckets,
          lanes: [...index.lanes.map((l) => l.id), ...index.heat.map((h) => h.id), 999],
          rawMinPx: q.rawMinPx,
          maxRaw: q.maxRaw,
        };
        const mask = q.masked ? Uint8Array.from({ length: t.count }, (_, i) => (i % 3 === 0 ? 0 : 1)) : undefined;
        const f64 = float64Columns(t, index);
        sameResult(aggregate(lod!, index, r, mask), referenceAggregate(f64, index, r, mask));
        // The whole window, as the first frame asks for it.
        const whole = { ...r, startNs: index.startNs, endNs: index.endNs };
        sameResult(aggregate(lod!, index, whole), referenceAggregate(f64, index, whole));
        // And columns gathered the obvious way give the same answer.
        sameResult(aggregate(lodColumns(t, index), index, whole), referenceAggregate(f64, index, whole));
      }),
      { numRuns: 200 },
    );
  });
});

// ---- 32-bit offsets from per-block bases against float64 times ----------------------------------

/** A small deterministic generator (xorshift32): timelines of tens of thousands of events from one seed. */
function random(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const blockLane = fc.record({
  // Several blocks of BLOCK positions, or a part of one.
  count: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: BLOCK - 2, max: 2 * BLOCK + 700 })),
  // Mean gap between starts: 1.2 ms makes a block span past 2^32 ns (4.9 s); 0.9 ms a block of
  // 3.7 s and a lane of 5,000 events past 2^32 ns.
  gapNs: fc.constantFrom(0, 3, 1000, 600_000, 900_000, 900_000, 1_200_000),
  lengthNs: fc.constantFrom(0, 50, 400_000),
  /** One event of the lane lasts 2^33 ns: its block and the running maxima after it span past 2^32. */
  long: fc.constantFrom(false, false, false, false, true),
  /** 0: in time order; 1: a few events swapped; 2: shuffled. */
  disorder: fc.constantFrom(0, 0, 1, 2),
});

const blockTimeline = fc.record({
  lanes: fc.array(blockLane, { minLength: 1, maxLength: 4 }),
  /** Lanes of one event each, anywhere in 20 s. */
  singles: fc.constantFrom(0, 0, 3, 2000),
  origin: fc.constantFrom(0, 1_000_000, 7e12, 2 ** 52),
  fractional: fc.constantFrom(false, false, false, true),
  /** File order: lanes one after another, or merged by start as the helper writes them. */
  merged: fc.boolean(),
  seed: fc.integer(),
});

type BlockTimeline = typeof blockTimeline extends fc.Arbitrary<infer T> ? T : never;

function blockColumns(p: BlockTimeline): TimelineColumns {
  const next = random(p.seed);
  const int = (n: number) => Math.floor(next() * n);
  const events: { lane: number; start: number; end: number }[][] = [];
  p.lanes.forEach((lane, l) => {
    const list: { lane: number; start: number; end: number }[] = [];
    let at = p.origin + int(1e9);
    for (let i = 0; i < lane.count; i++) {
      at += int(2 * lane.gapNs + 1);
      // Some instants end before they start.
      list.push({ lane: l, start: at, end: at + int(lane.lengthNs + 3) - 2 });
    }
    if (lane.long) list[int(list.length)]!.end += 2 ** 33;
    if (lane.disorder === 1)
      for (let s = 0; s < 5; s++) {
        const a = int(list.length);
        const b = int(list.length);
        [list[a], list[b]] = [list[b]!, list[a]!];
      }
    if (lane.disorder === 2)
      for (let i = list.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [list[i], list[j]] = [list[j]!, list[i]!];
      }
    events.push(list);
  });
  for (let i = 0; i < p.singles; i++) {
    const start = p.origin + int(2e10);
    events.push([{ lane: 100 + i, start, end: start + int(100) }]);
  }
  let all = events.flat();
  if (p.merged)
    all = all
      .map((e, i) => ({ e, i }))
      .sort((x, y) => x.e.start - y.e.start || x.i - y.i)
      .map((x) => x.e);
  const n = all.length;
  const c = emptyColumns(n, true);
  all.forEach((e, i) => {
    c.kind[i] = KIND_CU;
    c.lane[i] = e.lane;
    c.id[i] = i;
    c.startNs[i] = e.start + (p.fractional && i === n >> 1 ? 0.5 : 0);
    c.endNs[i] = e.end;
    c.bytes[i] = i % 1000;
    c.path[i] = i % 4;
  });
  return c;
}

/**
 * Each lane's block length (log2) the obvious way: the longest, BLOCK at most, at which each
 * block's running maxima are within 2^32 - 1 ns of its first start; undefined when a time is
 * fractional or some lane's do not fit even one event a block.
 */
function expectedShifts(f64: LodColumns, laneStart: Int32Array): number[] | undefined {
  for (let k = 0; k < f64.startNs.length; k++)
    if (!Number.isInteger(f64.startNs[k]!) || !Number.isInteger(f64.endNs[k]!)) return undefined;
  const fitsAt = (l: number, shift: number) => {
    for (let k = laneStart[l]!; k < laneStart[l + 1]!; k++) {
      const first = laneStart[l]! + Math.floor((k - laneStart[l]!) / 2 ** shift) * 2 ** shift;
      if (f64.maxEnd[k]! - f64.startNs[first]! > 0xffff_ffff) return false;
    }
    return true;
  };
  const shifts: number[] = [];
  for (let l = 0; l + 1 < laneStart.length; l++) {
    let shift = BLOCK_SHIFT;
    while (shift >= 0 && !fitsAt(l, shift)) shift--;
    if (shift < 0) return undefined;
    shifts.push(shift);
  }
  return shifts;
}

/** The first position where block-offset column `column` does not read as float64 column `times`; -1 when none. */
function firstMisread(
  column: ArrayLike<number>,
  times: ArrayLike<number>,
  lc: LodColumns,
  index: TimelineIndex,
): number {
  for (let k = 0; k < index.count; k++) {
    const lane = index.laneOf[index.order[k]!]!;
    if (blockBaseAt(lc.blocks, index.laneStart, lane, k) + column[k]! !== times[k]) return k;
  }
  return -1;
}

/** The first position where two columns differ; -1 when none. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let k = 0; k < a.length; k++) if (!Object.is(a[k], b[k])) return k;
  return -1;
}

/** Two sets of lane-ordered columns hold the same values in the same widths. */
function sameColumns(a: LodColumns, b: LodColumns): void {
  expect(a.blocks).toEqual(b.blocks);
  for (const key of ['startNs', 'endNs', 'maxEnd', 'extentNs', 'bytes', 'tags'] as const) {
    expect(a[key].constructor).toBe(b[key].constructor);
    expect(firstDifference(a[key], b[key]), key).toBe(-1);
  }
}

describe('32-bit time offsets from per-block bases answer as float64 times do', () => {
  it('the same times, level of detail, measure, first reaching event and hit tests', () => {
    fc.assert(
      fc.property(blockTimeline, fc.integer(), (p, querySeed) => {
        const t = blockColumns(p);
        const meta = { gpuCus: [64], vendor: 'amd' as const };
        const own = buildIndexAndLod(t, meta);
        const shared = buildIndexAndLod(t, meta, true, true);
        const index = own.index;
        const lod = shared.lod!;
        const f64 = float64Columns(t, index);
        sameColumns(own.lod!, lod);
        sameColumns(lodColumns(t, index), lod);
        // 32-bit offsets exactly when every lane can be cut into blocks that fit, each lane
        // into the longest such blocks; float64 times otherwise.
        const shifts = expectedShifts(f64, index.laneStart);
        const fits = shifts !== undefined;
        expect(lod.blocks !== undefined).toBe(fits);
        expect(lod.startNs).toBeInstanceOf(fits ? Uint32Array : Float64Array);
        if (shifts) expect([...lod.blocks!.laneShift]).toEqual(shifts);
        // A lane whose mean gap makes BLOCK events span past 2^32 ns is cut shorter; the others are not.
        if (fits && p.lanes.some((l) => l.gapNs === 1_200_000 && l.count >= BLOCK + 1000))
          expect(Math.min(...lod.blocks!.laneShift)).toBeLessThan(BLOCK_SHIFT);
        if (p.fractional && p.origin < 2 ** 50) expect(lod.blocks).toBeUndefined();
        if (p.lanes.some((l) => l.long)) expect(fits).toBe(false);
        if (fits && p.lanes.some((l) => l.gapNs === 900_000 && l.count >= BLOCK + 1000))
          // A span past 2^32 ns held in 32 bits.
          expect(index.endNs - index.startNs).toBeGreaterThan(2 ** 32);
        expect(firstMisread(lod.startNs, f64.startNs, lod, index)).toBe(-1);
        expect(firstMisread(lod.endNs, f64.endNs, lod, index)).toBe(-1);
        expect(firstMisread(lod.maxEnd, f64.maxEnd, lod, index)).toBe(-1);

        const next = random(querySeed);
        const span = Math.max(1, index.endNs - index.startNs);
        const anyTime = () => {
          const k = Math.floor(next() * t.count);
          const pick = next();
          // Exact event times (and one off), block boundaries' times, or anywhere.
          if (pick < 0.3) return t.startNs[k]! + Math.floor(next() * 3) - 1;
          if (pick < 0.5) return Math.max(t.startNs[k]!, t.endNs[k]!) + Math.floor(next() * 3) - 1;
          if (pick < 0.6) return f64.maxEnd[Math.floor(Math.floor(next() * t.count) / BLOCK) * BLOCK]!;
          return index.startNs - 0.1 * span + next() * 1.2 * span;
        };
        const mask = Uint8Array.from({ length: t.count }, (_, i) => (i % 5 === 0 ? 0 : 1));
        const lanes = [...index.lanes.map((l) => l.id), ...index.heat.map((h) => h.id)];
        for (let q = 0; q < 4; q++) {
          let a = anyTime();
          let b = anyTime();
          if (b < a) [a, b] = [b, a];
          if (q === 0) [a, b] = [index.startNs, index.endNs];
          const r: LodRequest = { startNs: a, endNs: b, buckets: 1 + Math.floor(next() * 500), lanes, rawMinPx: 2 };
          const m = q % 2 === 1 ? mask : undefined;
          sameResult(aggregate(lod, index, r, m), referenceAggregate(f64, index, r, m));
          expect(measureRange(lod, index, a, b, m)).toEqual(measureRange(f64, index, a, b, m));
        }
        for (let q = 0; q < 60; q++) {
          const lane = Math.floor(next() * index.lanes.length);
          const at = q === 0 ? -Infinity : q === 1 ? Infinity : anyTime();
          const expected = firstReaching(own.index, lane, at);
          // The obvious answer: the first position whose running maximum reaches the time.
          let linear = index.laneStart[lane]!;
          while (linear < index.laneStart[lane + 1]! && f64.maxEnd[linear]! < at) linear++;
          expect(expected).toBe(linear);
          expect(firstReaching(shared.index, lane, at)).toBe(expected);
          expect(firstReachingLod(lod, index.laneStart, lane, at)).toBe(expected);
          const slop = [0, 1, 1000, span / 100][q % 4]!;
          expect(eventAt(t, shared.index, lane, at, slop, q % 3 === 0 ? mask : undefined)).toBe(
            eventAt(t, own.index, lane, at, slop, q % 3 === 0 ? mask : undefined),
          );
          expect(eventsInRange(t, shared.index, lane, at, at + slop, 50)).toEqual(
            eventsInRange(t, own.index, lane, at, at + slop, 50),
          );
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('cuts a lane whose block spans past 2^32 ns into shorter blocks, even out of order, and falls back to float64 only for an event that long', () => {
    // One lane of two blocks whose events arrive backwards: in time order each block fits.
    const n = 2 * BLOCK;
    const t = emptyColumns(n, true);
    for (let i = 0; i < n; i++) {
      t.kind[i] = KIND_KERNEL;
      t.id[i] = i;
      t.startNs[i] = 1e12 + (n - 1 - i) * 1_000_000;
      t.endNs[i] = t.startNs[i]! + 10;
    }
    const backwards = buildIndexAndLod(t, undefined, true, true);
    expect(backwards.lod!.startNs).toBeInstanceOf(Uint32Array);
    expect([...backwards.lod!.blocks!.base]).toEqual([1e12, 1e12 + BLOCK * 1_000_000]);
    expect([...backwards.lod!.blocks!.laneShift]).toEqual([BLOCK_SHIFT]);
    expect(backwards.index.order[0]).toBe(n - 1);
    // The same with the last event 2^32 ns later: only a block of its own fits it.
    const last = 1e12 + (n - 1) * 1_000_000 + 2 ** 32;
    t.startNs[0] = last;
    t.endNs[0] = last + 10;
    const cut = buildIndexAndLod(t, undefined, true, true);
    const lod = cut.lod!;
    expect(lod.startNs).toBeInstanceOf(Uint32Array);
    expect([...lod.blocks!.laneShift]).toEqual([0]);
    expect(lod.blocks!.base.length).toBe(n);
    expect(cut.index.maxEndBlocks).toBe(lod.blocks);
    expect(lod.blocks!.base[n - 1]! + lod.startNs[n - 1]!).toBe(last);
    expect(lod.blocks!.base[n - 1]! + lod.maxEnd[n - 1]!).toBe(last + 10);
    expect(firstReachingLod(lod, cut.index.laneStart, 0, last)).toBe(n - 1);
    sameColumns(lod, lodColumns(t, cut.index));
    // An event lasting past 2^32 ns fits no block: every time is float64.
    t.endNs[0] = last + 2 ** 32;
    const over = buildIndexAndLod(t, undefined, true, true);
    expect(over.lod!.startNs).toBeInstanceOf(Float64Array);
    expect(over.index.maxEndBlocks).toBeUndefined();
    expect(over.lod!.startNs[n - 1]).toBe(last);
  });
});

// ---- the value check -------------------------------------------------------------------------

/** What the value check said, event by event: the first bad event's message, or undefined. */
function referenceCheck(t: TimelineColumns): string | undefined {
  for (let i = 0; i < t.count; i++) {
    const what =
      t.kind[i]! > 4
        ? `kind ${t.kind[i]} is not one of 0..4`
        : t.op[i]! > 3
          ? 'op'
          : t.path[i]! > 3
            ? 'path'
            : t.id[i]! < 0
              ? `id ${t.id[i]} is negative`
              : t.ref[i]! < -1
                ? `ref ${t.ref[i]} is neither an id nor -1`
                : ![t.startNs[i]!, t.endNs[i]!, t.queuedNs[i]!].every(Number.isFinite)
                  ? 'a time is not a finite number'
                  : !(t.bytes[i]! >= 0 && t.bytes[i]! < Infinity)
                    ? `bytes ${t.bytes[i]} is not a finite number of 0 or more`
                    : t.flags && t.flags[i]! > 1
                      ? `flags ${t.flags[i]} sets bits`
                      : undefined;
    if (what !== undefined) return `timeline file event ${i}: ${what}`;
  }
  return undefined;
}

const BAD_VALUES: [keyof TimelineColumns, number][] = [
  ['kind', 5],
  ['kind', 255],
  ['path', 200],
  ['id', -1],
  ['ref', -2],
  ['startNs', NaN],
  ['endNs', Infinity],
  ['queuedNs', -Infinity],
  ['bytes', -1],
  ['bytes', -Number.MIN_VALUE],
  ['bytes', Infinity],
  ['bytes', NaN],
  ['flags', 2],
  ['flags', 129],
];

function goodColumns(n: number): TimelineColumns {
  const t = emptyColumns(n, true);
  t.flags = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    t.kind[i] = i % 5;
    t.id[i] = i;
    t.startNs[i] = i * 0.5;
    t.endNs[i] = i * 0.5 + 1e12;
    t.bytes[i] = i % 2 === 0 ? 2 ** 60 : -0;
    t.flags[i] = i % 2;
  }
  return t;
}

describe('the value check, a column at a time', () => {
  it('names the first bad event and its first bad value, as an event-by-event check does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.record({ at: fc.nat(), bad: fc.constantFrom(...BAD_VALUES) }), { maxLength: 4 }),
        (n, faults) => {
          const t = goodColumns(n);
          for (const { at, bad } of faults) (t[bad[0]] as Float64Array)[at % n] = bad[1];
          const expected = referenceCheck(t);
          const read = () => readTimelineFile(sdmatlBytes(t, 2));
          if (expected === undefined) expect(read().count).toBe(n);
          else {
            expect(read).toThrow(TimelineFormatError);
            expect(read).toThrow(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads four bytes, or a float64 by its high word, at a time: the verdict is value by value at any byte offset and length', () => {
    // Edge values of each column: allowed ones that share bits with refused ones, and refused ones.
    const edges: [keyof TimelineColumns, number][] = [
      ['kind', 4],
      ['kind', 5],
      ['kind', 127],
      ['kind', 128],
      ['kind', 255],
      ['path', 3],
      ['path', 4],
      ['path', 0x83],
      ['flags', 1],
      ['flags', 0x80],
      ['flags', 3],
      ['id', 0],
      ['id', -1],
      ['id', -(2 ** 31)],
      ['id', 2 ** 31 - 1],
      ['ref', -1],
      ['ref', -2],
      ['ref', -(2 ** 31)],
      ['ref', 2 ** 31 - 1],
      ['startNs', -0],
      ['startNs', Number.MAX_VALUE],
      ['startNs', -Number.MAX_VALUE],
      ['startNs', Number.MIN_VALUE],
      ['endNs', -Infinity],
      ['queuedNs', NaN],
      ['bytes', -0],
      ['bytes', Number.MAX_VALUE],
      ['bytes', Number.MIN_VALUE],
      ['bytes', -Number.MIN_VALUE],
      ['bytes', -Number.MAX_VALUE],
      ['bytes', Infinity],
      ['bytes', NaN],
    ];
    const placed = <T extends ArrayBufferView>(
      make: new (b: ArrayBuffer, o: number, n: number) => T,
      width: number,
      values: T,
      offset: number,
    ): T => {
      const out = new make(new ArrayBuffer(offset + values.byteLength + 8), offset, values.byteLength / width);
      (out as unknown as Uint8Array).set(values as unknown as Uint8Array);
      return out;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 0, max: 7 }),
        fc.array(fc.record({ at: fc.nat(), edge: fc.constantFrom(...edges) }), { maxLength: 3 }),
        (n, shift, faults) => {
          const t = goodColumns(n);
          // No -0 bytes but the faults' own: a chunk with one is looked at value by value, which would hide the word checks.
          for (let i = 0; i < n; i++) t.bytes[i] = i;
          for (const { at, edge } of faults) if (n > 0) (t[edge[0]] as Float64Array)[at % n] = edge[1];
          const expected = referenceCheck(t);
          // Each byte column at its own odd or even offset, the wider ones at their alignment.
          const range = {
            count: n,
            kind: placed(Uint8Array, 1, t.kind, shift),
            op: placed(Uint8Array, 1, t.op, (shift + 1) % 8),
            path: placed(Uint8Array, 1, t.path, (shift + 2) % 8),
            id: placed(Int32Array, 4, t.id, 4 * (shift % 2)),
            ref: placed(Int32Array, 4, t.ref, 4 * ((shift + 1) % 2)),
            startNs: placed(Float64Array, 8, t.startNs, 8 * (shift % 3)),
            endNs: placed(Float64Array, 8, t.endNs, 0),
            queuedNs: placed(Float64Array, 8, t.queuedNs, 8),
            bytes: placed(Float64Array, 8, t.bytes, 16),
            flags: placed(Uint8Array, 1, t.flags!, (shift + 3) % 8),
          };
          const check = () => checkTimelineValues(range, 0);
          if (expected === undefined) expect(check).not.toThrow();
          else expect(check).toThrow(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('finds a bad value in any chunk of events, and the first across columns', () => {
    const n = (1 << 20) + 7;
    const t = goodColumns(n);
    t.bytes[n - 1] = -5;
    expect(() => readTimelineFile(sdmatlBytes(t, 2))).toThrow(`timeline file event ${n - 1}: bytes -5`);
    // An earlier event's later column wins over a later event's earlier column.
    t.flags![(1 << 20) + 2] = 4;
    t.kind[(1 << 20) + 3] = 9;
    expect(() => readTimelineFile(sdmatlBytes(t, 2))).toThrow(`timeline file event ${(1 << 20) + 2}: flags 4`);
    t.endNs[(1 << 20) - 1] = NaN;
    expect(() => readTimelineFile(sdmatlBytes(t, 2))).toThrow(
      `timeline file event ${(1 << 20) - 1}: a time is not a finite number`,
    );
  });
});
