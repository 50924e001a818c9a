/**
 * The fast paths of the timeline's core against straightforward references, on random and
 * crafted timelines: out-of-order lanes, equal starts, instants, inferred flags, times that do
 * not fit 32 bits, huge byte counts, ids that are not the events' own indices. The value check
 * names the same first bad event as an event-by-event check; the index's links and the shared
 * running maxima equal the obvious ones; the level of detail equals the plain per-event
 * aggregation it replaced (the runs kept in growing arrays).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { TimelineFormatError, emptyColumns, readTimelineFile } from '../../src/core/timeline/timelineFile';
import type { LodColumns, LodIndex, LodRequest, LodResult, LodRuns } from '../../src/core/timeline/timelineLod';
import { LOD_LEVELS, aggregate, lodColumns } from '../../src/core/timeline/timelineLod';
import { firstReachingLod } from '../../src/core/timeline/timelineCompact';
import type { TimelineIndex } from '../../src/core/timeline/timelineModel';
import {
  KIND_DOORBELL,
  KIND_PACKET,
  buildIndex,
  buildIndexAndLod,
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

function referenceAggregate(lc: LodColumns, index: LodIndex, request: LodRequest, mask?: Uint8Array): LodResult {
  // The columns hold offsets from lc.baseNs: the window is moved there rather than every event.
  const startNs = request.startNs - lc.baseNs;
  const endNs = request.endNs - lc.baseNs;
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
  const pathCol = lc.path;
  const flagCol = lc.flags;
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
        expect([...own.index.announcedBy]).toEqual(ref.announcedBy);
        expect(buildIndex(t)).toEqual(own.index);
        // Shared: the same index but for its running maxima, which are the compact columns'.
        const shared = buildIndexAndLod(t, undefined, true, true);
        expect(shared.lod).toEqual(own.lod);
        expect(shared.index.maxEnd).toBe(shared.lod!.maxEnd);
        expect(shared.index.maxEndBase).toBe(shared.lod!.baseNs);
        const { maxEnd: _a, maxEndBase: _b, ...rest } = shared.index;
        const { maxEnd: _c, ...ownRest } = own.index;
        expect(rest).toEqual(ownRest);
        for (let k = 0; k < t.count; k++)
          expect(shared.index.maxEnd[k]! + shared.index.maxEndBase!).toBe(own.index.maxEnd[k]);
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
        sameResult(aggregate(lod!, index, r, mask), referenceAggregate(lod!, index, r, mask));
        // The whole window, as the first frame asks for it.
        const whole = { ...r, startNs: index.startNs, endNs: index.endNs };
        sameResult(aggregate(lod!, index, whole), referenceAggregate(lod!, index, whole));
        // And columns gathered the obvious way give the same answer.
        sameResult(aggregate(lodColumns(t, index), index, whole), referenceAggregate(lod!, index, whole));
      }),
      { numRuns: 200 },
    );
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
