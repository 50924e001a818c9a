/**
 * The analysis at scale. A sweep of a million points (test/support/bigRun.ts) advised on and
 * compared by the CLI as its own process, under a 2 GB address-space limit and a timeout, so a
 * regression fails here instead of taking the machine down: it must end with its result, or
 * say in a sentence that the runs are too large, never with a stack or a crash. Then the time
 * of each analysis at 4x the points, against generous bounds (a quadratic search grows 16x),
 * and lists longer than a function's argument list may be.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adviseAllPairs } from '../../src/core/advice/advice';
import { findCrossovers } from '../../src/core/advice/crossover';
import { MAX_COMPARED_POINTS, compareRuns } from '../../src/core/compare/compare';
import { parseTransferBench } from '../../src/core/imports/transferBench';
import type { Run } from '../../src/core/run';
import { withRefinements } from '../../src/core/sweep/refine';
import { sweepTable } from '../../src/core/sweep/sweepTable';
import { sweepView } from '../../src/core/sweep/sweepView';
import { bigSweepRun, saveBigSweep } from '../support/bigRun';
import { CRASH, bundleCli, cliToFile } from '../support/cliProcess';

/** Points of the run the CLI reads: the size the analysis must handle in 2 GB. */
const SCALE_POINTS = 1_000_000;
const ADDRESS_SPACE = 2 * 1024 ** 3;
/** Time at 4x the points may grow this much: about 4 for linear work, 16 for a quadratic search. */
const GROWTH_BOUND = 10;

describe(`a sweep of ${SCALE_POINTS.toLocaleString('en-US')} points through the CLI, in 2 GB`, () => {
  let dir: string;
  let runsDir: string;
  let cli: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sdma-scale-'));
    runsDir = join(dir, 'runs');
    cli = bundleCli(dir);
    const big = saveBigSweep(runsDir, { id: 'million', points: SCALE_POINTS });
    expect(big.points).toBe(SCALE_POINTS);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('advise ends with the advice', () => {
    const r = cliToFile(cli, ['advise', 'million', '--runs-dir', runsDir], dir, { addressSpace: ADDRESS_SPACE });
    expect(r.err).not.toMatch(CRASH);
    expect(r.code, r.err).toBe(0);
    const out = r.out.toString('utf8');
    expect(out).toMatch(/^# Advice for GPU 0 → GPU 1$/m);
    expect(out).toMatch(/device-initiated, against 64 CUs: engine\/device stays ahead of cu\/device on 64 CUs from \d/);
    expect(out).toMatch(/host-initiated, against 64 CUs: No clear winner between engine\/host and cu\/host/);
  }, 300_000);

  it('compare ends with the comparison, or says the runs are too large', () => {
    const r = cliToFile(cli, ['compare', 'million', 'million', '--runs-dir', runsDir], dir, {
      addressSpace: ADDRESS_SPACE,
    });
    expect(r.err).not.toMatch(CRASH);
    if (SCALE_POINTS > MAX_COMPARED_POINTS) {
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(
        /^sdma-lens: run A \(million\) has more than 100000 samples, too large to compare: at most \d+ a run/m,
      );
    } else {
      expect(r.code, r.err).toBe(0);
      expect(r.out.toString('utf8')).toMatch(/points? in common/);
    }
  }, 300_000);
});

/**
 * Time of `f` on runs of `large` points over that on runs of `large / 4`: the fastest of 3 at
 * each size, the sizes taken in turn, so a change in the machine's load weighs on both.
 */
function growth(large: number, f: (run: Run, other: Run) => unknown): number {
  const sizes = [large / 4, large].map(
    (points) => [bigSweepRun({ points, id: 'a' }), bigSweepRun({ points, id: 'b', seed: 2, scale: 1.02 })] as const,
  );
  const best = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let k = 0; k < 3; k++) {
    for (const [i, [run, other]] of sizes.entries()) {
      const t0 = performance.now();
      f(run, other);
      best[i] = Math.min(best[i]!, performance.now() - t0);
    }
  }
  return best[1]! / best[0]!;
}

describe('time grows about linearly with the points', () => {
  it('advice on every pair (crossovers at every CU count)', () => {
    expect(growth(400_000, (run) => adviseAllPairs(run))).toBeLessThan(GROWTH_BOUND);
  }, 300_000);

  it('the sweep table and view', () => {
    expect(growth(400_000, (run) => [sweepTable(run), sweepView(run)])).toBeLessThan(GROWTH_BOUND);
  }, 300_000);

  it('a comparison of two runs of the most points compared', () => {
    expect(growth(MAX_COMPARED_POINTS, (a, b) => compareRuns(a, b))).toBeLessThan(GROWTH_BOUND);
  }, 300_000);

  it('refinement rounds joined to their sweep', () => {
    // Each round re-measures every point of the sweep, so every sample is replaced.
    expect(growth(200_000, (run, other) => withRefinements(run, [other, run]))).toBeLessThan(GROWTH_BOUND);
  }, 300_000);
});

describe('lists longer than an argument list may be', () => {
  it('TransferBench per-iteration lines: 200,000 iterations of one transfer', () => {
    const n = 200_000;
    const lines = [
      'TransferBench v1.52',
      `NUM_ITERATIONS       = ${String(n).padStart(12)} : Running ${n} timed iteration(s)`,
      'Test 1:',
      ' Executor: DMA 00 |  49.476 GB/s |    1.356 ms |     67108864 bytes | 49.476  GB/s (sum)',
      '     Transfer 00  |  49.476 GB/s |    1.356 ms |     67108864 bytes | G0 -> DMA00.*:001 -> G1',
    ];
    // Iteration i takes 1.000 + i/1e6 ms: the fastest is the first, the slowest the last.
    for (let i = 1; i <= n; i++)
      lines.push(
        `      Iter ${String(i).padStart(6, '0')}    |  ${(67.108864 / (1 + i / 1e6)).toFixed(3)} GB/s |    ${(1 + i / 1e6).toFixed(6)} ms | XCCs:`,
      );
    lines.push(' Aggregate (CPU)  |  47.683 GB/s |    1.407 ms |     67108864 bytes | Overhead: 0.051 ms', '');
    const imported = parseTransferBench(lines.join('\n'), 'many-iterations.txt');
    expect(imported.samples).toHaveLength(1);
    const s = imported.samples[0]!;
    expect(s.timesNs).toHaveLength(n);
    expect(s.minNs).toBeCloseTo(1.000001e6, 0);
    expect(s.maxNs).toBeCloseTo(1.2e6, 0);
    expect(s.gbpsMax).toBeCloseTo(67.109, 3);
  });

  it('crossovers do not depend on the order of the samples', () => {
    // One pair's samples (of two pairs, the last sample of a size would win).
    const samples = bigSweepRun({ points: 12_000 }).samples.filter((s) => s.src === 0 && s.dst === 1);
    // A fixed shuffle: each sample moved to (i * 7919) mod n.
    const n = samples.length;
    const shuffled = new Array<(typeof samples)[number]>(n);
    for (let i = 0; i < n; i++) shuffled[(i * 7919) % n] = samples[i]!;
    expect(new Set(shuffled).size).toBe(n);
    expect(findCrossovers(shuffled)).toEqual(findCrossovers(samples));
  });
});
