import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { filterMask, parseFilter } from '../../src/core/timeline/timelineFilter';
import type { LodResult } from '../../src/core/timeline/timelineLod';
import {
  LOD_LEVELS,
  aggregate as aggregateLc,
  lodColumns,
  measureRange as measureLc,
} from '../../src/core/timeline/timelineLod';
import type { LodRequest } from '../../src/core/timeline/timelineLod';
import type { TimelineIndex } from '../../src/core/timeline/timelineModel';
import { buildIndex } from '../../src/core/timeline/timelineModel';
import { ITERATION_NS, repeated } from './timelineFixture';

/** Brute force over the raw columns: what a lane holds inside [from, to]. */
function rawTotals(
  t: TimelineColumns,
  index: TimelineIndex,
  lanes: number[],
  from: number,
  to: number,
  mask?: Uint8Array,
) {
  return lanes.map((lane) => {
    const sources = lane < index.lanes.length ? [lane] : index.heat.find((h) => h.id === lane)!.cuLanes;
    let count = 0;
    let bytes = 0;
    let busyNs = 0;
    for (let e = 0; e < t.count; e++) {
      if (!sources.includes(index.laneOf[e]!) || (mask && !mask[e])) continue;
      const s = t.startNs[e]!;
      const f = Math.max(t.endNs[e]!, s);
      if (f < from || s > to) continue;
      count++;
      bytes += t.bytes[e]!;
      busyNs += Math.min(f, to) - Math.max(s, from);
    }
    return { count, bytes, busyNs };
  });
}

/** What the drawn result says each lane holds: its raw events plus its runs. */
function drawnTotals(t: TimelineColumns, index: TimelineIndex, r: LodResult, lanes: number[]) {
  return lanes.map((lane) => {
    let count = 0;
    let bytes = 0;
    for (const e of r.raw) {
      if (index.laneOf[e] !== lane) continue;
      count++;
      bytes += t.bytes[e]!;
    }
    for (let i = 0; i < r.runs.lane.length; i++) {
      if (r.runs.lane[i] !== lane) continue;
      count += r.runs.count[i]!;
      bytes += r.runs.bytes[i]!;
    }
    return { count, bytes };
  });
}

describe('level-of-detail aggregation', () => {
  const t = repeated(400);
  const index = buildIndex(t, { gpuCus: [256], vendor: 'amd' });
  const lc = lodColumns(t, index);
  const aggregate = (_t: TimelineColumns, i: TimelineIndex, request: LodRequest, mask?: Uint8Array) =>
    aggregateLc(lc, i, request, mask);
  const measureRange = (_t: TimelineColumns, i: TimelineIndex, from: number, to: number) => measureLc(lc, i, from, to);
  const lanes = [...index.lanes.map((l) => l.id), ...index.heat.map((h) => h.id)];
  const full = { from: index.startNs, to: index.endNs };

  it('never loses or double-counts an event at any zoom: per-lane counts and bytes match the raw data', () => {
    const windows = [
      full,
      { from: full.from - 1e6, to: full.to + 1e6 },
      { from: ITERATION_NS * 10.3, to: ITERATION_NS * 10.9 },
      { from: ITERATION_NS * 3 + 34_290_000, to: ITERATION_NS * 3 + 34_310_000 },
      { from: ITERATION_NS * 200, to: ITERATION_NS * 200 + 50 },
    ];
    for (const { from, to } of windows) {
      const expected = rawTotals(t, index, lanes, from, to);
      for (const buckets of [1, 7, 300, 1000, 4096]) {
        for (const maxRaw of [0, 50, 20_000]) {
          const r = aggregate(t, index, { startNs: from, endNs: to, buckets, lanes, maxRaw });
          const drawn = drawnTotals(t, index, r, lanes);
          lanes.forEach((lane, i) => {
            const where = `lane ${lane}, window ${from}..${to}, ${buckets} buckets, maxRaw ${maxRaw}`;
            expect(r.totals.count[i], where).toBe(expected[i]!.count);
            expect(r.totals.bytes[i], where).toBe(expected[i]!.bytes);
            expect(r.totals.busyNs[i], where).toBeCloseTo(expected[i]!.busyNs, 0);
            if (lane < index.lanes.length) {
              expect(drawn[i]!.count, where).toBe(expected[i]!.count);
              expect(drawn[i]!.bytes, where).toBe(expected[i]!.bytes);
            }
          });
        }
      }
    }
  });

  it('keeps the whole timeline in every lane whatever the zoom: totals over the full window equal the file', () => {
    const perLane = index.lanes.map((l) => l.eventCount);
    for (const buckets of [10, 2000]) {
      const r = aggregate(t, index, {
        startNs: full.from,
        endNs: full.to,
        buckets,
        lanes: index.lanes.map((l) => l.id),
      });
      expect([...r.totals.count]).toEqual(perLane);
    }
    const bytes = t.bytes.reduce((a, b) => a + b, 0);
    const r = aggregate(t, index, {
      startNs: full.from,
      endNs: full.to,
      buckets: 512,
      lanes: index.lanes.map((l) => l.id),
    });
    expect(r.totals.bytes.reduce((a, b) => a + b, 0)).toBe(bytes);
  });

  it('splits busy time exactly across the buckets it covers, so runs add up to the lane busy time', () => {
    const r = aggregate(t, index, { startNs: full.from, endNs: full.to, buckets: 333, lanes, maxRaw: 0 });
    lanes.forEach((lane, i) => {
      let busy = 0;
      for (let k = 0; k < r.runs.lane.length; k++) if (r.runs.lane[k] === lane) busy += r.runs.busyNs[k]!;
      expect(busy).toBeCloseTo(r.totals.busyNs[i]!, 0);
    });
  });

  it('draws wide events one by one and folds sub-pixel ones into runs', () => {
    const zoomed = aggregate(t, index, { startNs: 0, endNs: ITERATION_NS, buckets: 1000, lanes });
    expect(zoomed.raw.length).toBeGreaterThan(10);
    const whole = aggregate(t, index, { startNs: full.from, endNs: full.to, buckets: 200, lanes });
    expect(whole.raw.length).toBe(0);
    expect(whole.runs.lane.length).toBeGreaterThan(0);
    expect(whole.runs.lane.length).toBeLessThanOrEqual(lanes.length * 200);
    for (const level of whole.runs.level) expect(level).toBeLessThanOrEqual(LOD_LEVELS);
  });

  it('runs are sorted and never overlap within a lane', () => {
    const r = aggregate(t, index, { startNs: full.from, endNs: full.to, buckets: 777, lanes, maxRaw: 0 });
    for (let i = 1; i < r.runs.lane.length; i++) {
      if (r.runs.lane[i] !== r.runs.lane[i - 1]) continue;
      expect(r.runs.b0[i]).toBeGreaterThanOrEqual(r.runs.b1[i - 1]!);
    }
  });

  it('the occupancy strip is the share of the GPU`s CUs busy: 4 of 256 CUs copying reads as the lowest step', () => {
    const heat = index.heat[0]!;
    expect(heat.cuCount).toBe(256);
    const r = aggregate(t, index, { startNs: 5000, endNs: 16_000_000, buckets: 10, lanes: [heat.id] });
    expect([...r.runs.level]).toEqual(new Array(r.runs.level.length).fill(1));
  });

  it('respects the filter: counts equal the raw data under the same mask', () => {
    const mask = filterMask(t, parseFilter('kind:packet,doorbell path:engine/device'));
    const expected = rawTotals(t, index, lanes, full.from, full.to, mask);
    const r = aggregate(t, index, { startNs: full.from, endNs: full.to, buckets: 640, lanes }, mask);
    lanes.forEach((_, i) => expect(r.totals.count[i]).toBe(expected[i]!.count));
    expect(r.totals.count.reduce((a, b) => a + b, 0)).toBe(400 * 3);
  });

  it('measures bytes moved in a range by the time share of each CU span and packet', () => {
    const m = measureRange(t, index, 0, ITERATION_NS - 2000);
    // One iteration moves 256 MiB per path, four paths; kernels repeat their CUs' bytes and are not counted again.
    expect(m.bytes).toBeCloseTo(4 * 256 * 1024 ** 2, -1);
    expect(m.packets).toBe(4);
    expect(m.doorbells).toBe(2);
    const half = measureRange(t, index, 38_705_240 + 3100 + 2_200_290, 43_108_921);
    expect(half.bytesByPath[3]).toBeCloseTo(128 * 1024 ** 2, -3);
  });
});
