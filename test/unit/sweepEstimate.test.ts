import { describe, expect, it } from 'vitest';
import {
  CONFIRM_ABOVE,
  ESTIMATE_MODEL,
  durationWords,
  estimateSweep,
  pointMs,
  pointsPerSize,
} from '../../src/core/sweep/sweepEstimate';
import { DEFAULT_SWEEP } from '../../src/core/sweep/sweepOptions';
import type { SweepOptions } from '../../src/core/sweep/sweepOptions';

const base: SweepOptions = { ...DEFAULT_SWEEP, sizes: [4096, 1 << 20], cus: [8, 64] };

describe('the sweep estimate', () => {
  it('counts the default sweep as the helper does: CU counts on each cu/* path, one point on each engine path', () => {
    expect(pointsPerSize(base)).toBe(2 + 2 + 1 + 1);
    expect(estimateSweep(base).points).toBe(6 * 2);
    expect(pointsPerSize({ ...base, runtimeDefault: true })).toBe(7);
  });

  it('multiplies the cu/* paths and engine/device by the waves, engine/host by engines plus batches, engine/device by engines and modes', () => {
    const o: SweepOptions = {
      ...base,
      wavesPerCu: [1, 4, 16],
      engines: [1, 4],
      batch: [0, 8, 32],
      shmemSdma: ['forced', 'off'],
    };
    // cu/host, cu/device: 2 CUs x 3 waves each; engine/host: 2 engines + 2 batches; engine/device: 2 x 2 x 3.
    expect(pointsPerSize(o)).toBe(6 + 6 + 4 + 12);
    expect(pointsPerSize({ ...o, paths: ['engine/host'] })).toBe(4);
    expect(pointsPerSize({ ...o, paths: ['cu/device'], wavesPerCu: [] })).toBe(2);
  });

  it('counts every pair, the node default where none is named', () => {
    expect(estimateSweep(base, 3).pairs).toBe(3);
    expect(estimateSweep(base, 3).points).toBe(6 * 2 * 3);
    expect(estimateSweep({ ...base, pairs: [{ src: 0, dst: 1 }] }, 3).pairs).toBe(1);
    expect(estimateSweep(base, 0).pairs).toBe(1);
  });

  it('estimates time with the documented model', () => {
    const iters = 20;
    // 1 GiB at 50 GB/s: about 21.5 ms a copy, 23 copies, plus 2 ms.
    const ms = pointMs(1 << 30, iters);
    const copyUs = ESTIMATE_MODEL.fixedUs + (1 << 30) / (ESTIMATE_MODEL.gbps * 1e3);
    expect(ms).toBeCloseTo(((ESTIMATE_MODEL.warmup + iters) * copyUs) / 1000 + ESTIMATE_MODEL.overheadMs, 6);
    const e = estimateSweep({ ...base, sizes: [1 << 30], iters });
    expect(e.ms).toBeCloseTo(6 * ms, 6);
  });

  it('asks before a large sweep: many points, or a long time; never before the default sweep', () => {
    expect(estimateSweep(base).large).toBe(false);
    expect(estimateSweep(DEFAULT_SWEEP, 3).large).toBe(false);
    const many: SweepOptions = {
      ...base,
      sizes: DEFAULT_SWEEP.sizes,
      cus: DEFAULT_SWEEP.cus,
      wavesPerCu: [1, 2, 4, 8, 16],
    };
    const e = estimateSweep(many);
    expect(e.points).toBeGreaterThan(CONFIRM_ABOVE.points);
    expect(e.large).toBe(true);
    const long = estimateSweep({ ...base, sizes: [1 << 30], iters: 10_000 });
    expect(long.points).toBeLessThan(CONFIRM_ABOVE.points);
    expect(long.ms).toBeGreaterThan(CONFIRM_ABOVE.ms);
    expect(long.large).toBe(true);
  });

  it('words durations', () => {
    expect(durationWords(10)).toBe('1 s');
    expect(durationWords(42_000)).toBe('42 s');
    expect(durationWords(3 * 60_000)).toBe('3 min');
    expect(durationWords(60 * 60_000)).toBe('1 h');
    expect(durationWords(80 * 60_000)).toBe('1 h 20 min');
  });
});
