/**
 * The one-pass index (a counting sort by lane, sorting only lanes found out of time order) and
 * the compact lane-ordered columns it writes in the same pass, against references built the
 * obvious way: lanes from a key per event, a full sort by (lane, start, event), and the
 * columns gathered through that order. Random timelines from fast-check, in and out of time
 * order, with times and bytes that fit 32 bits and ones that do not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { emptyColumns } from '../../src/core/timeline/timelineFile';
import {
  BLOCK,
  BLOCK_SHIFT,
  blockBaseAt,
  laneShiftFor,
  scanRange,
  timesFit32,
} from '../../src/core/timeline/timelineCompact';
import { lodColumns } from '../../src/core/timeline/timelineLod';
import { LANE_CATEGORIES, buildIndex, buildIndexAndLod } from '../../src/core/timeline/timelineModel';

const CATEGORY_OF_KIND = [0, 5, 3, 3, 2, 1];

interface Ev {
  kind: number;
  gpu: number;
  lane: number;
  start: number;
  length: number;
  queuedBefore: number;
  bytes: number;
  flag: number;
}

function columns(events: Ev[], timeScale: number, byteScale: number, withFlags: boolean): TimelineColumns {
  const c = emptyColumns(events.length, true);
  if (withFlags) c.flags = new Uint8Array(events.length);
  events.forEach((e, i) => {
    c.kind[i] = e.kind;
    c.gpu[i] = e.gpu;
    c.lane[i] = e.lane;
    c.id[i] = i;
    c.startNs[i] = 1_000_000 + e.start * timeScale;
    // Some instants end before they start (end < start is drawn as an instant).
    c.endNs[i] = c.startNs[i]! + (e.length - 3) * timeScale;
    c.queuedNs[i] = e.queuedBefore > 0 ? c.startNs[i]! - e.queuedBefore : -1;
    c.bytes[i] = e.bytes * byteScale;
    if (c.flags) c.flags[i] = e.flag;
  });
  return c;
}

/** Lanes, order and running maxima the obvious way. */
function reference(t: TimelineColumns) {
  const key = (i: number) => {
    const cat = CATEGORY_OF_KIND[t.kind[i]!]!;
    const numbered = cat === 5 || cat === 3;
    return [t.gpu[i]!, cat, numbered ? t.lane[i]! : 0] as const;
  };
  const keys = new Map<string, readonly [number, number, number]>();
  for (let i = 0; i < t.count; i++) keys.set(key(i).join(','), key(i));
  const lanes = [...keys.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const laneId = new Map(lanes.map((k, id) => [k.join(','), id]));
  const laneOf = Array.from({ length: t.count }, (_, i) => laneId.get(key(i).join(','))!);
  const order = Array.from({ length: t.count }, (_, i) => i).sort(
    (a, b) => laneOf[a]! - laneOf[b]! || t.startNs[a]! - t.startNs[b]! || a - b,
  );
  const maxEnd: number[] = [];
  order.forEach((e, k) => {
    const end = Math.max(t.endNs[e]!, t.startNs[e]!);
    const previous = k > 0 && laneOf[order[k - 1]!] === laneOf[e] ? maxEnd[k - 1]! : -Infinity;
    maxEnd.push(Math.max(previous, end));
  });
  return { lanes, laneOf, order, maxEnd };
}

/**
 * Each lane's block length (log2) the obvious way, lanes in the reference's order: the longest,
 * BLOCK at most, at which each block's running maxima are within 2^32 - 1 ns of its first
 * start; undefined when a time is fractional or a lane's do not fit even one event a block.
 */
function laneShifts(t: TimelineColumns): number[] | undefined {
  const ref = reference(t);
  const laneOf = (k: number) => ref.laneOf[ref.order[k]!];
  const lanes: [number, number][] = [];
  for (let k = 0; k < ref.order.length; k++) {
    const e = ref.order[k]!;
    if (!Number.isInteger(t.startNs[e]!) || !Number.isInteger(Math.max(t.startNs[e]!, t.endNs[e]!))) return undefined;
    if (k === 0 || laneOf(k) !== laneOf(k - 1)) lanes.push([k, k]);
    lanes[lanes.length - 1]![1] = k + 1;
  }
  const fitsAt = ([a, b]: [number, number], shift: number) => {
    for (let k = a; k < b; k++) {
      const first = a + Math.floor((k - a) / 2 ** shift) * 2 ** shift;
      if (ref.maxEnd[k]! - t.startNs[ref.order[first]!]! > 0xffff_ffff) return false;
    }
    return true;
  };
  const shifts: number[] = [];
  for (const lane of lanes) {
    let shift = BLOCK_SHIFT;
    while (shift >= 0 && !fitsAt(lane, shift)) shift--;
    if (shift < 0) return undefined;
    shifts.push(shift);
  }
  return shifts;
}

const event = fc.record({
  kind: fc.integer({ min: 0, max: 5 }),
  gpu: fc.integer({ min: 0, max: 2 }),
  lane: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(4095, 4096, 70_000, 0xffff)),
  start: fc.integer({ min: 0, max: 1000 }),
  length: fc.integer({ min: 0, max: 50 }),
  queuedBefore: fc.integer({ min: 0, max: 20 }),
  bytes: fc.integer({ min: 0, max: 1 << 20 }),
  flag: fc.constantFrom(0, 1),
});

/** Events in time order per lane most of the time (as files arrive), shuffled otherwise. */
const timeline = fc.record({
  events: fc.array(event, { maxLength: 300 }),
  sortFirst: fc.boolean(),
  // 1: whole ns; 1e7: a span past 2^32 ns; 0.5: fractional times.
  timeScale: fc.constantFrom(1, 1e7, 0.5),
  byteScale: fc.constantFrom(1, 2 ** 13, 0.25),
  withFlags: fc.boolean(),
});

describe('one-pass timeline index', () => {
  it('equals the obvious build: lanes, per-lane order, running maxima and the lane-ordered columns', () => {
    fc.assert(
      fc.property(timeline, ({ events, sortFirst, timeScale, byteScale, withFlags }) => {
        const list = sortFirst ? [...events].sort((a, b) => a.start - b.start) : events;
        const t = columns(list, timeScale, byteScale, withFlags);
        const { index, lod } = buildIndexAndLod(t, { gpuCus: [], vendor: 'amd' });
        const ref = reference(t);
        expect(index.lanes.map((l) => [l.gpu, LANE_CATEGORIES.indexOf(l.category), l.number])).toEqual(ref.lanes);
        expect([...index.laneOf]).toEqual(ref.laneOf);
        expect([...index.order]).toEqual(ref.order);
        expect([...index.maxEnd]).toEqual(ref.maxEnd);
        expect(index.lanes.reduce((s, l) => s + l.eventCount, 0)).toBe(t.count);
        // The columns written in the pass equal the ones gathered through the finished order.
        expect(lod).toEqual(lodColumns(t, index));
        // And the plain build is the same index.
        expect(buildIndex(t, { gpuCus: [], vendor: 'amd' })).toEqual(index);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips every time and byte count through the compact columns, 32-bit only where they fit', () => {
    fc.assert(
      fc.property(timeline, ({ events, timeScale, byteScale, withFlags }) => {
        const t = columns(events, timeScale, byteScale, withFlags);
        const { index, lod } = buildIndexAndLod(t);
        const range = scanRange(t.startNs, t.endNs, t.bytes, t.count);
        const ends = [...t.startNs].map((s, i) => Math.max(s, t.endNs[i]!));
        const whole = [...t.startNs, ...ends].every((x) => Number.isInteger(x));
        const span = t.count > 0 ? Math.max(...ends) - Math.min(...t.startNs) : 0;
        expect(timesFit32(range)).toBe(whole && span <= 0xffff_ffff);
        if (timeScale === 1) expect(timesFit32(range)).toBe(true);
        if (timeScale === 0.5 && events.some((e) => e.start % 2 === 1)) expect(timesFit32(range)).toBe(false);
        // 32-bit offsets whenever every lane can be cut into blocks that fit (always when the
        // whole span does, never for fractions), each lane into the longest such blocks.
        const shifts = laneShifts(t);
        expect(lod!.startNs instanceof Uint32Array).toBe(shifts !== undefined);
        expect(lod!.blocks !== undefined).toBe(shifts !== undefined);
        if (shifts) expect([...lod!.blocks!.laneShift]).toEqual(shifts);
        if (timesFit32(range)) expect(lod!.blocks).toBeDefined();
        if (!whole) expect(lod!.blocks).toBeUndefined();
        expect(lod!.bytes instanceof Uint32Array).toBe(
          [...t.bytes].every((b) => Number.isInteger(b) && b <= 0xffff_ffff),
        );
        for (let k = 0; k < t.count; k++) {
          const e = index.order[k]!;
          const base = blockBaseAt(lod!.blocks, index.laneStart, index.laneOf[e]!, k);
          expect(lod!.startNs[k]! + base).toBe(t.startNs[e]);
          expect(lod!.endNs[k]! + base).toBe(Math.max(t.endNs[e]!, t.startNs[e]!));
          expect(lod!.bytes[k]).toBe(t.bytes[e]);
          // Path, inferred flag and kind in one byte.
          expect(lod!.tags[k]! & 3).toBe(t.path[e]! & 3);
          expect((lod!.tags[k]! >> 2) & 1).toBe(t.flags?.[e] ?? 0);
          expect(lod!.tags[k]! >> 3).toBe(t.kind[e]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("finds a lane's longest fitting blocks in one pass, as trying every length does", () => {
    const lane = fc.record({
      gaps: fc.array(
        fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(2 ** 30, 2 ** 31, 2 ** 32 - 1, 2 ** 32)),
        {
          minLength: 1,
          maxLength: 200,
        },
      ),
      lengths: fc.array(fc.constantFrom(0, 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32), { minLength: 1, maxLength: 200 }),
      maxShift: fc.integer({ min: 0, max: 8 }),
      offset: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(lane, ({ gaps, lengths, maxShift, offset }) => {
        const n = gaps.length;
        // The lane sits at `offset` in an order over a larger file, its events in reverse file order.
        const size = n + offset;
        const startNs = new Float64Array(size);
        const endNs = new Float64Array(size);
        const order = new Int32Array(size);
        let at = 1e12;
        for (let j = 0; j < n; j++) {
          at += gaps[j]!;
          const e = size - 1 - j;
          order[offset + j] = e;
          startNs[e] = at;
          endNs[e] = at + lengths[j % lengths.length]!;
        }
        const run: number[] = [];
        for (let j = 0; j < n; j++) {
          const e = order[offset + j]!;
          run.push(Math.max(j > 0 ? run[j - 1]! : -Infinity, startNs[e]!, endNs[e]!));
        }
        const fitsAt = (shift: number) =>
          run.every((r, j) => r - startNs[order[offset + j - (j % 2 ** shift)]!]! <= 0xffff_ffff);
        let expected = maxShift;
        while (expected >= 0 && !fitsAt(expected)) expected--;
        expect(laneShiftFor(order, offset, n, startNs, endNs, maxShift)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('cuts a lane into shorter blocks when a block spans past 2^32 ns, and keeps float64 times only for an event that long', () => {
    const at = (starts: number[], lanes = starts.map(() => 0)) => {
      const t = emptyColumns(starts.length, true);
      starts.forEach((s, i) => {
        t.kind[i] = 1;
        t.lane[i] = lanes[i]!;
        t.startNs[i] = s;
        t.endNs[i] = s + 1;
      });
      return buildIndexAndLod(t).lod!;
    };
    const under = at([5e9, 5e9 + 2 ** 32 - 2]);
    expect(under.startNs).toBeInstanceOf(Uint32Array);
    expect([...under.blocks!.base]).toEqual([5e9]);
    expect(under.endNs[1]).toBe(2 ** 32 - 1);
    expect([...under.blocks!.laneShift]).toEqual([BLOCK_SHIFT]);
    // Two events 2^32 ns apart: a block each.
    const over = at([5e9, 5e9 + 2 ** 32]);
    expect(over.startNs).toBeInstanceOf(Uint32Array);
    expect([...over.blocks!.laneShift]).toEqual([0]);
    expect([...over.blocks!.base]).toEqual([5e9, 5e9 + 2 ** 32]);
    expect([...over.startNs]).toEqual([0, 0]);
    // One event lasting 2^32 ns: no block fits it.
    const t = emptyColumns(1, true);
    t.kind[0] = 1;
    t.startNs[0] = 5e9;
    t.endNs[0] = 5e9 + 2 ** 32;
    const long = buildIndexAndLod(t).lod!;
    expect(long.startNs).toBeInstanceOf(Float64Array);
    expect(long.blocks).toBeUndefined();
    expect([...long.endNs]).toEqual([5e9 + 2 ** 32]);
    // The same times on two lanes: a block each, whatever the span between them.
    const apart = at([5e9, 5e9 + 2 ** 40], [0, 1]);
    expect(apart.startNs).toBeInstanceOf(Uint32Array);
    expect([...apart.blocks!.base]).toEqual([5e9, 5e9 + 2 ** 40]);
    expect([...apart.maxEnd]).toEqual([1, 1]);
    // Times past 2^53 ns stay exact: in their blocks' float64 bases.
    const far = at([2 ** 60, 2 ** 60 + 2 ** 40]);
    expect(far.blocks!.base[1]! + far.startNs[1]!).toBe(2 ** 60 + 2 ** 40);
    // A lane of 3 blocks over 12 s: each block's offsets fit, so the lane keeps 32-bit ones.
    const n = 2 * BLOCK + 5;
    const lane = at(Array.from({ length: n }, (_, i) => 7e12 + i * 1e6));
    expect(lane.startNs).toBeInstanceOf(Uint32Array);
    expect([...lane.blocks!.base]).toEqual([7e12, 7e12 + BLOCK * 1e6, 7e12 + 2 * BLOCK * 1e6]);
    expect(lane.startNs[BLOCK + 1]).toBe(1e6);
    expect(lane.maxEnd[n - 1]).toBe(4 * 1e6 + 1);
    // A sparse lane (an event every 21.5 ms, as a kernel launched twice an iteration) beside a
    // dense one: the sparse lane's blocks are cut to 128 events (2.75 s), the dense lane keeps BLOCK.
    const sparse = Array.from({ length: 3 * BLOCK }, (_, i) => 1e9 + i * 21_500_000);
    const dense = Array.from({ length: 3 * BLOCK }, (_, i) => 1e9 + i * 1000);
    const mixed = at([...sparse, ...dense], [...sparse.map(() => 0), ...dense.map(() => 1)]);
    expect(mixed.startNs).toBeInstanceOf(Uint32Array);
    expect([...mixed.blocks!.laneShift].sort((a, b) => a - b)).toEqual([7, BLOCK_SHIFT]);
  });

  it('keeps the lane of each event in 16 bits up to 65,535 lanes, 32 past that', () => {
    const lanesOf = (lanes: number) => {
      const t = emptyColumns(lanes + 1, true);
      for (let i = 0; i <= lanes; i++) {
        t.kind[i] = 1;
        t.lane[i] = i % lanes;
        t.id[i] = i;
        t.startNs[i] = lanes - i;
        t.endNs[i] = lanes - i + 1;
      }
      const { index } = buildIndexAndLod(t, { gpuCus: [], vendor: 'amd' }, true, true);
      expect(index.lanes).toHaveLength(lanes);
      // CU lanes sort by number: event i is on lane i (the last one on lane 0 with event 0).
      expect(index.laneOf[lanes - 1]).toBe(lanes - 1);
      expect(index.laneOf[lanes]).toBe(0);
      expect(index.order.subarray(0, 2)).toEqual(Int32Array.from([lanes, 0]));
      return index.laneOf;
    };
    expect(lanesOf(0xffff)).toBeInstanceOf(Uint16Array);
    expect(lanesOf(0x1_0000)).toBeInstanceOf(Int32Array);
  });

  it('sorts only what is out of order: a lane in time order is taken as it comes', () => {
    // Complexity, not time: a comparison counter on the lane sort.
    const n = 20_000;
    const t = emptyColumns(n, true);
    for (let i = 0; i < n; i++) {
      t.kind[i] = 1;
      t.lane[i] = i % 64;
      t.startNs[i] = i * 10;
      t.endNs[i] = i * 10 + 5;
    }
    const typed = Object.getPrototypeOf(Int32Array.prototype) as { sort: (...args: unknown[]) => unknown };
    const original = typed.sort;
    let sorts = 0;
    typed.sort = function (this: unknown, ...args: unknown[]) {
      sorts++;
      return original.apply(this, args);
    };
    try {
      buildIndexAndLod(t);
      expect(sorts).toBe(0);
      t.startNs[128] = 5; // lane 0 (events 0, 64, 128, ...) now out of order
      buildIndexAndLod(t);
      expect(sorts).toBe(1);
    } finally {
      typed.sort = original;
    }
  });
});
