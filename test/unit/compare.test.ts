/**
 * compareRuns on real measurements (bench/results): the 2x H200 sweep and its rerun on the
 * same node kind, by default (the run-to-run tolerance measured in bench/results) and with each
 * run's own spread alone (tolerance 0), the sweep against itself, a copy with one point made
 * 10 % slower, summary-only samples, the matrix alone and under load, the collective sweep and
 * its repeat, and runs that cannot be compared. The noise model itself: test/unit/compareNoise.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Comparison, PointComparison } from '../../src/core/compare/compare';
import { CompareError, belowBeyondNoise, compareRuns, formatRatio, summaryLines } from '../../src/core/compare/compare';
import { DEFAULT_TOLERANCE } from '../../src/core/compare/noise';
import { compareTable } from '../../src/core/compare/compareTable';
import type { Run } from '../../src/core/run';
import type { Sample } from '../../src/core/protocol';
import { benchRun } from '../support/benchRuns';
import { SampleTable } from '../../src/core/sampleTable';

const first = benchRun('sweep', 'first');
const rerun = benchRun('sweepRerun', 'rerun');

const clone = (run: Run, id: string): Run => {
  const { samples, ...rest } = run;
  const copy: Run = { ...structuredClone(rest), samples: SampleTable.from(samples) };
  copy.header.id = id;
  return copy;
};
const pointAt = (c: Comparison, label: string): PointComparison => {
  const p = c.points.find((x) => x.label === label);
  if (!p) throw new Error(`no point ${label} in ${c.points.map((x) => x.label).join(', ')}`);
  return p;
};
const verdicts = (c: Comparison) =>
  c.points.reduce<Record<string, number>>((n, p) => ({ ...n, [p.verdict]: (n[p.verdict] ?? 0) + 1 }), {});

/** Quartiles as numpy's default (linear) method computes them, written out here rather than taken from crossover.ts. */
function quartiles(times: readonly number[]): [number, number, number] {
  const s = [...times].sort((a, b) => a - b);
  const at = (q: number) => {
    const pos = (s.length - 1) * q;
    const lo = Math.floor(pos);
    return s[lo]! + ((s[Math.min(lo + 1, s.length - 1)] ?? s[lo]!) - s[lo]!) * (pos - lo);
  };
  return [at(0.25), at(0.5), at(0.75)];
}

const isSample = (s: Sample, mover: string, initiator: string, size: number, cus: number, mode: string) =>
  s.mover === mover && s.initiator === initiator && s.sizeBytes === size && s.cus === cus && s.mode === mode;

describe('the 2x H200 sweep measured twice (bench/results/h200x2-2026-11-30 and its rerun)', () => {
  // Each run's own spread alone: what compare said before it had a run-to-run term.
  const c = compareRuns(first, rerun, { tolerance: 0 });
  const byDefault = compareRuns(first, rerun);

  it("matches all 84 points; with each run's spread alone 25 of them differ beyond it", () => {
    expect(c.kind).toBe('sweep');
    expect(c.summary.common).toBe(84);
    expect(c.onlyInA).toEqual([]);
    expect(c.onlyInB).toEqual([]);
    expect(c.summary.same).toBeGreaterThan(c.summary.common / 2);
    expect(verdicts(c)).toEqual({ same: 59, regression: 21, improvement: 4 });
    expect(c.summary.unknownNoise).toBe(0);
    expect(c.points.every((p) => p.spread === 'quartiles')).toBe(true);
    expect(c.noise).toEqual({ source: 'given', tolerance: 0, description: '0 % (given)' });
    // The verdict is the interval against 1, nothing else.
    for (const p of c.points) {
      const [lo, hi] = p.interval!;
      expect(lo).toBeLessThanOrEqual(p.ratio);
      expect(hi).toBeGreaterThanOrEqual(p.ratio);
      expect(p.widened).toEqual([lo, hi]);
      expect(p.verdict).toBe(hi < 1 ? 'regression' : lo > 1 ? 'improvement' : 'same');
    }
  });

  it('by default every point is within noise: the intervals widened by the default run-to-run tolerance all reach 1', () => {
    expect(byDefault.noise).toMatchObject({ source: 'default', tolerance: DEFAULT_TOLERANCE });
    expect(byDefault.tolerance).toBe(DEFAULT_TOLERANCE);
    expect(verdicts(byDefault)).toEqual({ same: 84 });
    for (const p of byDefault.points) {
      expect(p.tolerance).toBe(DEFAULT_TOLERANCE);
      expect(p.widened![0]).toBeCloseTo(p.interval![0] / (1 + DEFAULT_TOLERANCE), 12);
      expect(p.widened![1]).toBeCloseTo(p.interval![1] * (1 + DEFAULT_TOLERANCE), 12);
    }
    expect(summaryLines(byDefault)).toContain(
      "run-to-run tolerance 6.3 % (default: 95th percentile of |ratio − 1| of the same point in two runs of one node (1x H200, bench/results h200x1-2026-12-01 and h200x1-rerun-2026-12-01, 1,371 points)); a regression or improvement must clear it as well as both runs' spread",
    );
    expect(summaryLines(byDefault)).toContain('no regression beyond noise');
  });

  it('computes the ratio from the medians and the interval from both interquartile ranges', () => {
    const label = 'cu/host · GPU 0 → GPU 1 · 1 CU · pipelined · 4 KiB';
    const p = pointAt(c, label);
    const [a25, a50, a75] = quartiles(
      first.samples.find((s) => isSample(s, 'cu', 'host', 4096, 1, 'pipelined'))!.timesNs!,
    );
    const [b25, b50, b75] = quartiles(
      rerun.samples.find((s) => isSample(s, 'cu', 'host', 4096, 1, 'pipelined'))!.timesNs!,
    );
    expect(p.ratio).toBeCloseTo(a50 / b50, 12);
    expect(p.interval![0]).toBeCloseTo(a25 / b75, 12);
    expect(p.interval![1]).toBeCloseTo(a75 / b25, 12);
    // The rerun's host-launched kernel copies of 4 KiB are about 5 % slower, beyond both runs' spread,
    expect(p.verdict).toBe('regression');
    expect(p.ratio).toBeGreaterThan(0.94);
    expect(p.ratio).toBeLessThan(0.96);
    // but not beyond what two runs of one node differ by.
    expect(pointAt(byDefault, label).verdict).toBe('same');
  });

  it('with a 1 % tolerance only the small pipelined cu/host points stay regressions; the copy engine at 1 GiB is the same', () => {
    const t = compareRuns(first, rerun, { tolerance: 0.01 });
    expect(verdicts(t)).toEqual({ same: 79, regression: 5 });
    for (const p of t.points.filter((x) => x.verdict === 'regression')) {
      expect(p.label).toMatch(/^cu\/host · GPU 0 → GPU 1 · (1 CU|132 CUs) · pipelined · (4 KiB|64 KiB|1 MiB)$/);
      expect(p.interval![1]).toBeLessThan(0.99);
    }
    const engine = pointAt(t, 'engine/host · GPU 0 → GPU 1 · pipelined · 1 GiB');
    expect(engine.verdict).toBe('same');
    expect(Math.abs(engine.ratio - 1)).toBeLessThan(0.001);
    expect(t.summary.geomeanRatio!).toBeGreaterThan(0.98);
    expect(t.summary.geomeanRatio!).toBeLessThan(1.0);
    expect(t.summary.worstRegression!.label).toBe('cu/host · GPU 0 → GPU 1 · 132 CUs · pipelined · 4 KiB');
    expect(summaryLines(t)).toContain(
      "run-to-run tolerance 1 % (given); a regression or improvement must clear it as well as both runs' spread",
    );
  });

  it('a gate at 0.95 finds nothing below it beyond noise; one at 0.97 finds the regressions whose whole interval is below, and none by default', () => {
    expect(belowBeyondNoise(c, 0.95)).toEqual([]);
    const below = belowBeyondNoise(c, 0.97);
    expect(below.length).toBeGreaterThan(0);
    expect(below.every((p) => p.verdict === 'regression' && p.interval![1] < 0.97)).toBe(true);
    expect(c.points.filter((p) => !below.includes(p)).every((p) => p.interval![1] >= 0.97)).toBe(true);
    expect(belowBeyondNoise(byDefault, 0.97)).toEqual([]);
  });

  it('prints one row per point with both bandwidths, the ratio and its interval, and the verdict; the tolerance and its source first', () => {
    const table = compareTable(c).split('\n');
    expect(table[4]).toBe('# run-to-run tolerance 0 % (given)');
    expect(compareTable(byDefault).split('\n').slice(4, 6)).toEqual([
      '# run-to-run tolerance 6.3 % (default: 95th percentile of |ratio − 1| of the same point in two runs of one node (1x H200, bench/results h200x1-2026-12-01 and h200x1-rerun-2026-12-01, 1,371 points))',
      "# the default is one H200 node's run-to-run variation; --baseline-runs ID,... (repeats of A on this node) measures this node's",
    ]);
    const rows = table.filter((l) => !l.startsWith('#'));
    expect(rows).toHaveLength(84);
    const p = pointAt(c, 'engine/host · GPU 0 → GPU 1 · pipelined · 1 GiB');
    const row = rows.find((l) => l.includes(p.label))!;
    expect(row).toMatch(/396\.4\s+396\.4\s+1\.000 \[\d\.\d{3}, \d\.\d{3}\]\s+same$/);
    expect(table.find((l) => l.startsWith('# point'))).toMatch(
      /point\s+A GB\/s\s+B GB\/s\s+ratio \[low, high\]\s+verdict/,
    );
    expect(table).toContain(
      '# 84 points in common: 59 same, 21 regressions, 4 improvements, 0 unknown noise; 0 only in A, 0 only in B',
    );
  });
});

describe('a run against itself', () => {
  it('is the same everywhere, ratio 1', () => {
    const c = compareRuns(first, clone(first, 'again'));
    expect(c.summary).toMatchObject({
      common: 84,
      same: 84,
      regressions: 0,
      improvements: 0,
      unknownNoise: 0,
      geomeanRatio: 1,
    });
    expect(c.summary.worstRegression).toBeUndefined();
    for (const p of c.points) {
      expect(p.ratio).toBe(1);
      expect(p.interval![0]).toBeLessThanOrEqual(1);
      expect(p.interval![1]).toBeGreaterThanOrEqual(1);
    }
  });
});

/** The run with one sample's every time multiplied by `factor` (its bandwidth divided by it), summaries to match. */
function slowed(run: Run, id: string, pick: (s: Sample) => boolean, factor: number): Run {
  const copy = clone(run, id);
  const at = copy.samples.findIndex(pick);
  copy.samples = copy.samples.mapped((s, i) => {
    if (i !== at) return s;
    s.timesNs = s.timesNs!.map((t) => t * factor);
    for (const k of ['meanNs', 'minNs', 'maxNs', 'medianNs', 'stdevNs'] as const)
      if (s[k] !== undefined) s[k] = s[k]! * factor;
    for (const k of ['gbps', 'gbpsMax', 'gbpsMedian'] as const) if (s[k] !== undefined) s[k] = s[k]! / factor;
    return s;
  });
  return copy;
}

describe('a copy with one point 10 % slower', () => {
  const engine1G = (s: Sample) => isSample(s, 'engine', 'host', 1 << 30, 0, 'pipelined');
  const doctored = slowed(first, 'doctored', engine1G, 1 / 0.9);
  const label = 'engine/host · GPU 0 → GPU 1 · pipelined · 1 GiB';

  it('flags that point alone as a regression of 0.9 and names it the worst, beyond the default run-to-run tolerance too', () => {
    const c = compareRuns(first, doctored);
    const p = pointAt(c, label);
    expect(p.verdict).toBe('regression');
    expect(p.ratio).toBeCloseTo(0.9, 12);
    expect(p.interval![1]).toBeLessThan(0.91);
    expect(p.widened![1]).toBeLessThan(0.91 * (1 + DEFAULT_TOLERANCE));
    expect(c.summary).toMatchObject({ common: 84, same: 83, regressions: 1 });
    expect(c.summary.worstRegression).toMatchObject({ label, ratio: p.ratio });
    expect(belowBeyondNoise(c, 0.95).map((x) => x.label)).toEqual([label]);
  });

  it('the other way round it is an improvement', () => {
    const p = pointAt(compareRuns(doctored, first), label);
    expect(p.verdict).toBe('improvement');
    expect(p.ratio).toBeCloseTo(1 / 0.9, 12);
  });

  it('a 2 % shift inside a wide spread (one-shot 4 KiB, quartiles 3 % apart) stays the same', () => {
    const small = (s: Sample) => isSample(s, 'cu', 'host', 4096, 1, 'one-shot');
    const [q25, , q75] = quartiles(first.samples.find(small)!.timesNs!);
    expect((q75 - q25) / q25).toBeGreaterThan(0.03);
    const p = pointAt(
      compareRuns(first, slowed(first, 'shifted', small, 1.02)),
      'cu/host · GPU 0 → GPU 1 · 1 CU · one-shot · 4 KiB',
    );
    expect(p.ratio).toBeCloseTo(1 / 1.02, 12);
    expect(p.verdict).toBe('same');
  });
});

/** What an import of another tool's summary holds: mean time and bandwidth, no repetitions. */
function summaryOnly(run: Run, id: string, keep: Partial<Record<'minNs' | 'maxNs', true>> = {}): Run {
  const copy = clone(run, id);
  copy.header.source = { tool: 'nvbandwidth', format: 'text', file: 'nvbandwidth.txt' };
  copy.samples = SampleTable.from(
    copy.samples.map((s) => {
      const { timesNs: _t, minNs, maxNs, stdevNs: _d, medianNs: _m, gbpsMedian: _g, gbpsMax: _x, ...rest } = s;
      return { ...rest, ...(keep.minNs ? { minNs } : {}), ...(keep.maxNs ? { maxNs } : {}) };
    }),
  );
  return copy;
}

describe('summary-only samples', () => {
  it('give the point ratio of the means and the verdict "unknown noise"', () => {
    const a = summaryOnly(first, 'a-summary');
    const b = summaryOnly(rerun, 'b-summary');
    const c = compareRuns(a, b);
    expect(c.summary).toMatchObject({ common: 84, unknownNoise: 84, same: 0, regressions: 0, improvements: 0 });
    for (const p of c.points) {
      expect(p.interval).toBeUndefined();
      expect(p.spread).toBe('none');
      expect(p.a.basis).toBe('mean');
      expect(p.why).toMatch(/^A: no per-iteration times \(a summary\); B: no per-iteration times \(a summary\)$/);
    }
    const s = (run: Run) => run.samples.find((x) => isSample(x, 'engine', 'host', 1 << 30, 0, 'pipelined'))!;
    expect(pointAt(c, 'engine/host · GPU 0 → GPU 1 · pipelined · 1 GiB').ratio).toBeCloseTo(
      s(rerun).gbps / s(first).gbps,
      12,
    );
    expect(compareTable(c)).toContain(
      '# unknown noise (84 points): A: no per-iteration times (a summary); B: no per-iteration times (a summary)',
    );
    expect(c.a.source).toBe('nvbandwidth: nvbandwidth.txt');
  });

  it('against a measured run: unknown noise, and a note that medians meet means', () => {
    const c = compareRuns(first, summaryOnly(rerun, 'b-summary'));
    expect(c.summary.unknownNoise).toBe(84);
    expect(c.points[0]!.why).toBe('B: no per-iteration times (a summary)');
    expect(c.notes).toContain('84 points compare a median with a mean (one run kept a summary only)');
  });

  it('with min and max kept, the range is the spread', () => {
    const c = compareRuns(
      summaryOnly(first, 'a', { minNs: true, maxNs: true }),
      summaryOnly(rerun, 'b', { minNs: true, maxNs: true }),
    );
    expect(c.summary.unknownNoise).toBe(0);
    expect(c.points.every((p) => p.spread === 'range')).toBe(true);
    // The range is wider than the quartiles: fewer points can be told apart.
    const alone = { tolerance: 0 };
    expect(
      compareRuns(
        summaryOnly(first, 'a', { minNs: true, maxNs: true }),
        summaryOnly(rerun, 'b', { minNs: true, maxNs: true }),
        alone,
      ).summary.same,
    ).toBeGreaterThan(compareRuns(first, rerun, alone).summary.same);
  });

  it('three repetitions are too few to judge a spread', () => {
    const few = clone(first, 'few');
    few.samples = few.samples.mapped((s) => ({ ...s, timesNs: s.timesNs!.slice(0, 3) }));
    const p = compareRuns(first, few).points[0]!;
    expect(p.verdict).toBe('unknown noise');
    expect(p.why).toBe('B: 3 repetitions, too few to judge the spread (5 or more)');
  });
});

describe('matrices and collectives', () => {
  it('the 2x H200 matrix alone against all pairs at once: cells by path, pair and size, min..max as the spread', () => {
    const c = compareRuns(benchRun('matrix'), benchRun('matrixConcurrent'), { tolerance: 0 });
    expect(c.kind).toBe('matrix');
    expect(c.summary.common).toBe(4);
    expect(c.onlyInA.map((p) => p.label)).toEqual([
      'cu/device · GPU 0 → GPU 1 · 256 MiB',
      'cu/device · GPU 1 → GPU 0 · 256 MiB',
      'engine/device · GPU 0 → GPU 1 · 256 MiB',
      'engine/device · GPU 1 → GPU 0 · 256 MiB',
    ]);
    expect(c.points.every((p) => p.spread === 'range')).toBe(true);
    expect(c.notes).toContain(
      'B ran every pair of a path at once (--concurrent), the other each pair alone: the ratios include that load',
    );
    // Under the all-to-all load the copy engine loses about 1 % in both directions, beyond every iteration's noise,
    for (const label of ['engine/host · GPU 0 → GPU 1 · 256 MiB', 'engine/host · GPU 1 → GPU 0 · 256 MiB']) {
      const p = pointAt(c, label);
      expect(p.verdict).toBe('regression');
      expect(p.ratio).toBeGreaterThan(0.98);
      expect(p.ratio).toBeLessThan(0.995);
    }
    expect(pointAt(c, 'cu/host · GPU 0 → GPU 1 · 256 MiB').verdict).toBe('same');
    // and within what two runs of one node differ by (the default tolerance).
    expect(verdicts(compareRuns(benchRun('matrix'), benchRun('matrixConcurrent')))).toEqual({ same: 4 });
  });

  it('the collective sweep against its 256 MiB repeat: three common points, busbw ratio, noise unknown', () => {
    const c = compareRuns(benchRun('collective'), benchRun('collectiveRepeat'));
    expect(c.kind).toBe('collective');
    expect(c.bandwidth).toBe('busbw GB/s');
    expect(c.points.map((p) => p.label)).toEqual([
      'allgather · default · 2 ranks · out-of-place · float · 256 MiB',
      'allgather · default · 2 ranks · in-place · float · 256 MiB',
      'alltoall · default · 2 ranks · out-of-place · float · 256 MiB',
    ]);
    expect(c.summary.unknownNoise).toBe(3);
    expect(c.onlyInA.length).toBe(benchRun('collective').collectives!.length - 3);
    const ag = pointAt(c, 'allgather · default · 2 ranks · out-of-place · float · 256 MiB');
    expect(ag.ratio).toBeCloseTo(245.611 / ag.a.gbps, 12);
    expect(ag.why).toBe(
      'A: a collective point carries its mean time only; B: a collective point carries its mean time only',
    );
    expect(formatRatio(ag)).toMatch(/^1\.0\d\d$/);
  });
});

describe('runs that cannot be compared', () => {
  it('runs of different kinds: a clear error naming both', () => {
    expect(() => compareRuns(first, benchRun('matrix', 'm'))).toThrow(CompareError);
    expect(() => compareRuns(first, benchRun('matrix', 'm'))).toThrow(
      'run A (first) is a sweep (84 samples) and run B (m) a matrix (8 cells): runs of different kinds have no point in common',
    );
  });

  it('a run with no points', () => {
    const empty = clone(first, 'empty');
    empty.samples = new SampleTable();
    expect(() => compareRuns(empty, first)).toThrow(
      'run A (empty, a sweep run) has nothing to compare: no sweep samples, matrix cells or collective points',
    );
  });

  it('a tolerance out of range', () => {
    expect(() => compareRuns(first, rerun, { tolerance: 1 })).toThrow(CompareError);
    expect(() => compareRuns(first, rerun, { tolerance: -0.1 })).toThrow(CompareError);
  });

  it('sweeps of different pairs share no point: listed, with a note', () => {
    const other = clone(first, 'other');
    other.samples = other.samples.mapped((s) => ({ ...s, dst: 0 }));
    const c = compareRuns(first, other);
    expect(c.summary).toMatchObject({ common: 0, onlyInA: 84, onlyInB: 84, geomeanRatio: null });
    expect(c.notes).toContain('the runs have no point in common: 84 samples only in A, 84 samples only in B');
  });
});
