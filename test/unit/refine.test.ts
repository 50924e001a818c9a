import { describe, expect, it } from 'vitest';
import { findCrossover } from '../../src/core/advice/crossover';
import { newRun } from '../../src/core/run';
import {
  fullGridEstimateMs,
  judge,
  midSize,
  placedRatio,
  uniformGrid,
  withRefinements,
} from '../../src/core/sweep/refine';
import { header, sample } from '../support/records';
import { SampleTable } from '../../src/core/sampleTable';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Engine and load/store samples whose times cross at `crossAt` bytes: fixed latency vs bandwidth. */
function samples(sizes: number[], crossAt: number, reps = 10) {
  return sizes.flatMap((sizeBytes) => {
    const cuNs = 1000 + sizeBytes / 100;
    const engineNs = 1000 + crossAt / 100 - crossAt / 200 + sizeBytes / 200;
    const times = (ns: number) => Array.from({ length: reps }, (_, i) => ns * (1 + (i - reps / 2) * 0.001));
    return [
      sample({
        mover: 'engine',
        initiator: 'device',
        sizeBytes,
        cus: 1,
        engines: 1,
        meanNs: engineNs,
        timesNs: times(engineNs),
        iters: reps,
      }),
      sample({ mover: 'cu', initiator: 'device', sizeBytes, cus: 64, meanNs: cuNs, timesNs: times(cuNs), iters: reps }),
    ];
  });
}

describe('refinement', () => {
  it('halves the bracket in log2 size, on a 256-byte grain', () => {
    expect(midSize(1 * MiB, 4 * MiB)).toBe(2 * MiB);
    expect(midSize(256, 260)).toBeUndefined();
    expect(midSize(256 * KiB, 256 * KiB + 256)).toBeUndefined();
    expect(placedRatio(0.1)).toBeCloseTo(1.2222, 4);
  });

  it('asks for the middle of a wide bracket, and calls a bracket within the tolerance placed', () => {
    const wide = findCrossover(samples([64 * KiB, 1 * MiB, 16 * MiB], 3 * MiB), 'device', 64);
    expect(wide.kind).toBe('crossover');
    expect(judge(wide, { tolerance: 0.1 })).toMatchObject({ placed: false, sizes: [4 * MiB], moreIters: false });
    const narrow = findCrossover(samples([2.8 * MiB, 3.2 * MiB], 3 * MiB), 'device', 64);
    expect(judge(narrow, { tolerance: 0.1 })).toEqual({ placed: true });
    // Too few repetitions to judge: measure the two sizes again with more.
    const thin = findCrossover(samples([2.8 * MiB, 3.2 * MiB], 3 * MiB, 2), 'device', 64);
    expect(judge(thin, { tolerance: 0.1 })).toMatchObject({
      placed: false,
      sizes: [2.8 * MiB, 3.2 * MiB],
      moreIters: true,
    });
  });

  it('narrows where the medians cross too, when the spreads overlap below the size the engine surely wins', () => {
    // Wide spreads (10 repetitions, -15%..+12%) around a crossing at 3 MiB, sizes 1, 3.8 and
    // 4.4 MiB: the engine surely leads from 4.4 MiB (3.8 MiB a tie), but the medians cross
    // between 1 and 3.8 MiB.
    const spreadOut = (sizes: number[]) =>
      samples(sizes, 3 * MiB).map((x) => ({ ...x, timesNs: x.timesNs!.map((t, i) => t * (1 + (i - 5) * 0.03)) }));
    const [a, b, c4] = [1 * MiB, Math.round(3.8 * MiB), Math.round(4.4 * MiB)];
    const c = findCrossover(spreadOut([a, b, c4]), 'device', 64);
    expect(c.kind).toBe('crossover');
    expect(c.fromBytes).toBe(c4);
    expect(c.estimateBracket).toEqual([a, b]);
    // [3.8, 4.4] MiB is within ±10%; [1, 3.8] MiB is not: its middle is measured next.
    expect(judge(c, { tolerance: 0.1 })).toMatchObject({ placed: false, sizes: [midSize(a, b)] });
  });

  it('merges rounds into the sweep: a size measured again replaces the grid point', () => {
    const grid = { ...newRun(header('grid')), samples: SampleTable.from(samples([1 * MiB, 4 * MiB], 3 * MiB)) };
    const round = { ...newRun(header('r1')), samples: SampleTable.from(samples([2 * MiB, 4 * MiB], 3 * MiB, 20)) };
    const merged = withRefinements(grid, [round]);
    expect(merged.samples.map((s) => s.sizeBytes)).toEqual([1, 1, 2, 2, 4, 4].map((m) => m * MiB));
    expect(merged.refinedSamples).toHaveLength(4);
    expect(merged.samples.filter((s) => s.sizeBytes === 4 * MiB).every((s) => s.iters === 20)).toBe(true);
  });

  it('sizes a uniform grid for the tolerance, and estimates its time from the grid per point', () => {
    const sizes = uniformGrid(4 * KiB, 1024 * MiB, 0.1);
    expect(sizes[0]).toBe(4 * KiB);
    expect(sizes.at(-1)).toBe(1024 * MiB);
    for (let i = 1; i < sizes.length; i++)
      expect(sizes[i]! / sizes[i - 1]!).toBeLessThanOrEqual(placedRatio(0.1) * 1.01);
    const grid = { ...newRun(header('grid')), samples: SampleTable.from(samples([4 * KiB, 1024 * MiB], 3 * MiB)) };
    const estimate = fullGridEstimateMs(grid, 400, 0.1)!;
    // 4 samples in 400 ms: 100 ms a point; 2 points a size over the uniform grid's sizes.
    expect(estimate.points).toBe(2 * sizes.length);
    expect(estimate.ms).toBeCloseTo(100 * 2 * sizes.length, 6);
  });
});
