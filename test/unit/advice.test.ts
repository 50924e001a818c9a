import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adviseFromRun, shellExports, thresholdFor } from '../../src/core/advice/advice';
import { applyRecord, newRun } from '../../src/core/run';
import type { Run } from '../../src/core/run';
import { readRunFile } from '../../src/core/runs/runStore';
import { header, sample } from '../support/records';

const KiB = 1024;
const fixture = () => readRunFile(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'));

function withLibraries(run: Run, libraries: { name: string; version: string }[]): Run {
  if (!run.topology) throw new Error('fixture has no topology');
  return { ...run, topology: { ...run.topology, libraries } };
}

describe('advice from a real simulator run', () => {
  it('recommends GIN thresholds from the device-initiated crossover, with the evidence', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 8 });
    expect(advice.simulated).toBe(true);
    expect(advice.notes.join()).toMatch(/simulated/);
    const ag = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER')!;
    // Device-initiated, 8 CUs: the engine stays ahead from 256 KiB, so SDMA above 128 KiB per rank.
    expect(ag).toMatchObject({ value: String(128 * KiB), basis: 'measured-crossover' });
    expect(ag.evidence).toMatch(/SDMA from 256 KiB per rank on this node \(measured crossover \d+(\.\d+)? KiB ± [\d.]+ KiB\) against cu\/device on 8 CUs/);
    // rocSHMEM's threshold switches at the value (>=), so it is the size itself.
    expect(advice.recommendations.find((r) => r.knob === 'ROCSHMEM_SDMA_THRESHOLD')?.value).toBe(String(256 * KiB));
  });

  it('never guesses NCCL_GIN_TYPE: unknown version -> options and no value', async () => {
    const advice = adviseFromRun(await fixture());
    const gin = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')!;
    expect(gin.value).toBeUndefined();
    expect(gin.evidence).toMatch(/not detected/);
    expect(gin.evidence).toMatch(/7 for RCCL 2\.31\.0 and later/);
  });

  it.each([
    ['2.31.2', '7', 'clear'],
    ['2.30.1', '6', 'uncertain'],
    ['2.28.9', '5', 'uncertain'],
  ])('NCCL_GIN_TYPE for RCCL %s is %s', async (version, value, confidence) => {
    const advice = adviseFromRun(withLibraries(await fixture(), [{ name: 'rccl', version }]));
    expect(advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')).toMatchObject({ value, confidence });
  });

  it('an override beats what the helper detected', async () => {
    const advice = adviseFromRun(withLibraries(await fixture(), [{ name: 'rccl', version: '2.28.9' }]), { libraries: { rccl: '2.31.0' } });
    expect(advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')?.value).toBe('7');
  });

  it('does the CU arithmetic: 64 CUs of 256 -> 192 left, SDMA -> 255, 1.33x', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 64 });
    expect(advice.cuBudget).toMatchObject({ totalCus: 256, loadStoreCus: 64, computeCusWithLoadStore: 192, computeCusWithEngine: 255, measured: false });
    expect(advice.cuBudget!.computeGain).toBeCloseTo(255 / 192, 5);
  });

  it('compares with the nearest measured CU count and says so', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 48 });
    expect(advice.loadStoreCus).toBe(64);
    expect(advice.notes.join()).toMatch(/nearest count measured/);
  });

  it('copies as shell exports only what has a value', async () => {
    const text = shellExports(adviseFromRun(await fixture()));
    expect(text).toMatch(/^export NCCL_GIN_ENABLE=1$/m);
    expect(text).not.toMatch(/NCCL_GIN_TYPE/);
  });

  it('degenerate runs give notes, not numbers', () => {
    const empty = adviseFromRun(newRun(header()));
    expect(empty.notes.join()).toMatch(/no samples/);
    expect(empty.recommendations.filter((r) => r.basis === 'measured-crossover')).toEqual([]);
    const onePath = newRun(header());
    applyRecord(onePath, sample({ mover: 'cu', initiator: 'device' }));
    expect(adviseFromRun(onePath).notes.join()).toMatch(/No device-initiated paths/);
  });
});

describe('thresholdFor', () => {
  it('maps "SDMA from X" to the knob value for > and >= knobs', () => {
    const sizes = [64, 128, 256, 512, 1024].map((k) => k * KiB);
    expect(thresholdFor(512 * KiB, 'gt', sizes, [64 * KiB, 1024 * KiB])).toEqual({ switchAt: 512 * KiB, value: 256 * KiB });
    expect(thresholdFor(384 * KiB, 'gt', sizes, [64 * KiB, 1024 * KiB])).toEqual({ switchAt: 512 * KiB, value: 256 * KiB });
    expect(thresholdFor(512 * KiB, 'ge', sizes, [64 * KiB, 1024 * KiB])).toEqual({ switchAt: 512 * KiB, value: 512 * KiB });
  });

  it('never recommends a size outside the measured range (property)', () => {
    const size = fc.integer({ min: 1, max: 2 ** 34 });
    fc.assert(
      fc.property(size, size, fc.array(size, { maxLength: 20 }), fc.constantFrom('gt' as const, 'ge' as const), size, (a, b, messageSizes, comparison, from) => {
        const lo = Math.min(a, b);
        const hi = Math.max(a, b);
        const { switchAt, value } = thresholdFor(from, comparison, messageSizes, [lo, hi]);
        return value >= lo && value <= hi && switchAt >= lo && switchAt <= hi;
      }),
      { numRuns: 2000 },
    );
  });

  it('advice on random noisy runs stays inside the measured range (property)', () => {
    const sizes = [4, 16, 64, 256, 1024, 4096].map((k) => k * KiB);
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.2, max: 5, noNaN: true }), { minLength: 12, maxLength: 12 }), fc.array(fc.integer({ min: 1, max: 2 ** 32 }), { maxLength: 8 }), (factors, messageSizes) => {
        const run = newRun(header());
        sizes.forEach((sizeBytes, i) => {
          for (const [mover, f] of [['cu', factors[i]!], ['engine', factors[i + 6]!]] as const) {
            const meanNs = (sizeBytes / 40) * f + 3000;
            applyRecord(run, sample({ mover, initiator: 'device', sizeBytes, cus: mover === 'cu' ? 8 : 1, meanNs, timesNs: [meanNs * 0.97, meanNs, meanNs * 1.03] }));
          }
        });
        const advice = adviseFromRun(run, { loadStoreCus: 8, messageSizes });
        return advice.recommendations
          .filter((r) => r.basis === 'measured-crossover' && r.value !== undefined)
          .every((r) => Number(r.value) >= sizes[0]! && Number(r.value) <= sizes.at(-1)!);
      }),
      { numRuns: 300 },
    );
  });
});
