import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCrossover, findCrossovers, quantile } from '../../src/core/advice/crossover';
import type { Sample } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { applyRecord, newRun } from '../../src/core/run';
import { readRunFile } from '../../src/core/runs/runStore';
import { header, sample } from '../support/records';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Deterministic noise (a small LCG), so a failing case can be replayed. */
function noise(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** A path whose time per copy is fixedNs + bytes/gbps, with relative jitter. */
function series(
  mover: 'cu' | 'engine',
  initiator: 'host' | 'device',
  sizes: number[],
  fixedNs: number,
  gbps: number,
  jitter: number,
  seed: number,
  cus = mover === 'cu' ? 8 : 0,
): Sample[] {
  const rnd = noise(seed);
  return sizes.map((sizeBytes) => {
    const base = fixedNs + sizeBytes / gbps;
    const timesNs = Array.from({ length: 20 }, () => base * (1 + jitter * (rnd() * 2 - 1)));
    const meanNs = timesNs.reduce((a, b) => a + b, 0) / timesNs.length;
    return sample({
      mover,
      initiator,
      sizeBytes,
      cus,
      timesNs,
      meanNs,
      minNs: Math.min(...timesNs),
      maxNs: Math.max(...timesNs),
      gbps: sizeBytes / meanNs,
    });
  });
}

const sizes = [4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 16384].map((k) => k * KiB);

describe('findCrossover', () => {
  it('finds the size from which the engine stays ahead, and brackets the crossing', () => {
    // cu: 5 us + 32 GB/s; engine: 13 us + 61 GB/s. Exact crossing at 8e3 / (1/32 - 1/61) ns ≈ 538 KB.
    const samples = [
      ...series('cu', 'host', sizes, 5000, 32, 0.02, 1),
      ...series('engine', 'host', sizes, 13000, 61, 0.02, 2),
    ];
    const c = findCrossover(samples, 'host', 8);
    expect(c.kind).toBe('crossover');
    expect(c.fromBytes).toBe(1 * MiB);
    const exact = 8000 / (1 / 32 - 1 / 61);
    expect(Math.abs(c.estimateBytes! - exact)).toBeLessThanOrEqual(c.plusMinusBytes! + exact * 0.1);
    expect(c.explanation).toMatch(/engine\/host stays ahead of cu\/host on 8 CUs from 1 MiB/);
  });

  it('on a fine grid, places the crossing where the medians cross, inside the ties, not at the last tie', () => {
    // The same two paths with 10% jitter, on a grid 1.1x apart: around the crossing the spreads
    // overlap for several sizes. The crossing is where the medians cross; the last tie only
    // says from where the engine is surely ahead, and moves with the noise.
    const fine: number[] = [];
    for (let s = 128 * KiB; s <= 4 * MiB; s = Math.round(s * 1.1)) fine.push(s);
    const exact = 8000 / (1 / 32 - 1 / 61);
    for (const seed of [1, 2, 3, 4, 5]) {
      const c = findCrossover(
        [
          ...series('cu', 'host', fine, 5000, 32, 0.1, seed),
          ...series('engine', 'host', fine, 13000, 61, 0.1, seed + 50),
        ],
        'host',
        8,
      );
      expect(c.kind).toBe('crossover');
      const lastTie = c.verdicts[c.verdicts.findIndex((v) => v.sizeBytes === c.fromBytes) - 1]!.sizeBytes;
      // Well below the last tie: the ties span several sizes here.
      expect(c.estimateBytes!).toBeLessThan(lastTie);
      expect(Math.abs(c.estimateBytes! - exact) / exact).toBeLessThan(0.15);
      // The range holds the estimate and reaches up to where the engine surely leads.
      expect(c.rangeBytes![0]).toBeLessThanOrEqual(c.estimateBytes!);
      expect(c.rangeBytes![1]).toBeGreaterThanOrEqual(c.estimateBytes!);
      expect(c.rangeBytes![1]).toBeGreaterThan(lastTie * 0.99);
      expect(c.estimateBracket![0]).toBeLessThan(c.estimateBytes!);
      expect(c.estimateBracket![1]).toBeGreaterThanOrEqual(c.estimateBytes!);
    }
  });

  it('calls overlapping spreads a tie and says there is no clear winner', () => {
    // Same cost model, heavy noise: the spreads overlap everywhere.
    const samples = [
      ...series('cu', 'device', sizes, 2000, 50, 0.6, 3),
      ...series('engine', 'device', sizes, 2000, 50, 0.6, 4),
    ];
    const c = findCrossover(samples, 'device', 8);
    expect(['no-clear-winner', 'crossover']).toContain(c.kind);
    if (c.kind === 'crossover') expect(c.confidence).toBe('uncertain');
    expect(c.verdicts.some((v) => v.verdict === 'tie')).toBe(true);
  });

  it('reports a non-monotonic early win without taking it as the crossover', () => {
    const samples = [
      ...series('cu', 'host', sizes, 5000, 32, 0.01, 5),
      ...series('engine', 'host', sizes, 13000, 61, 0.01, 6),
    ];
    // Make the engine win clearly at 16 KiB only.
    const at16 = samples.find((s) => s.mover === 'engine' && s.sizeBytes === 16 * KiB)!;
    at16.timesNs = at16.timesNs!.map((t) => t / 10);
    const c = findCrossover(samples, 'host', 8);
    expect(c.fromBytes).toBe(1 * MiB);
    expect(c.explanation).toMatch(/also ahead at 16 KiB, but not from there on/);
  });

  it('skips sizes measured for one path only, and says which', () => {
    const cu = series('cu', 'host', sizes, 5000, 32, 0.01, 7).filter((s) => s.sizeBytes !== 512 * KiB);
    const c = findCrossover([...cu, ...series('engine', 'host', sizes, 13000, 61, 0.01, 8)], 'host', 8);
    expect(c.missingBytes).toEqual([512 * KiB]);
    expect(c.explanation).toMatch(/512 KiB measured for one path only/);
    expect(c.kind).toBe('crossover');
  });

  it('handles degenerate input: one size, one path, all equal', () => {
    const one = [
      ...series('cu', 'host', [64 * KiB], 5000, 32, 0.01, 9),
      ...series('engine', 'host', [64 * KiB], 13000, 61, 0.01, 10),
    ];
    expect(findCrossover(one, 'host', 8).kind).toBe('insufficient');
    expect(findCrossover(series('cu', 'host', sizes, 5000, 32, 0.01, 11), 'host', 8).kind).toBe('insufficient');
    const flat = sizes.flatMap((sizeBytes) => [
      sample({ mover: 'cu', sizeBytes }),
      sample({ mover: 'engine', sizeBytes, cus: 0 }),
    ]);
    const equal = findCrossover(flat, 'host', 8);
    expect(equal.kind).toBe('no-clear-winner');
    expect(equal.fromBytes).toBeUndefined();
  });

  it('engine ahead everywhere / cu ahead everywhere', () => {
    const engineWins = [
      ...series('cu', 'host', sizes, 9000, 10, 0.01, 12),
      ...series('engine', 'host', sizes, 1000, 61, 0.01, 13),
    ];
    expect(findCrossover(engineWins, 'host', 8)).toMatchObject({ kind: 'engine-always', fromBytes: 4 * KiB });
    const cuWins = [
      ...series('cu', 'host', sizes, 1000, 80, 0.01, 14),
      ...series('engine', 'host', sizes, 9000, 40, 0.01, 15),
    ];
    expect(findCrossover(cuWins, 'host', 8)).toMatchObject({ kind: 'cu-always', confidence: 'clear' });
  });

  it('where to measure next when the two paths meet in one size: both over the two ranges, never "from 1 MiB to 1 MiB"', () => {
    const below = [4, 64, 1024].map((k) => k * KiB);
    const above = [1024, 4096, 16384].map((k) => k * KiB);
    const c = findCrossover(
      [...series('cu', 'device', below, 2000, 50, 0.01, 16), ...series('engine', 'device', above, 9000, 60, 0.01, 17)],
      'device',
      8,
    );
    expect(c.kind).toBe('insufficient');
    expect(c.measureNext).toBe(
      'cu/device was measured from 4 KiB to 1 MiB, engine/device from 1 MiB to 16 MiB, so they meet only at 1 MiB: measure both from 4 KiB to 16 MiB.',
    );
    expect(c.explanation).not.toMatch(/from 1 MiB to 1 MiB/);
  });

  it('where to measure next when both paths were measured at one size only', () => {
    const one = [
      ...series('cu', 'host', [1 * MiB], 5000, 32, 0.01, 18),
      ...series('engine', 'host', [1 * MiB], 13000, 61, 0.01, 19),
    ];
    const c = findCrossover(one, 'host', 8);
    expect(c.measureNext).toBe(
      'cu/host and engine/host were both measured at 1 MiB only, and a crossover needs two sizes or more measured for both: measure both at sizes below and above 1 MiB.',
    );
    // One path at one size, the other over a range that does not reach it: the gap, as before.
    const apart = [
      ...series('cu', 'host', [64 * KiB], 5000, 32, 0.01, 20),
      ...series('engine', 'host', [1 * MiB, 4 * MiB], 13000, 61, 0.01, 21),
    ];
    expect(findCrossover(apart, 'host', 8).measureNext).toBe(
      'cu/host was measured at 64 KiB only, engine/host from 1 MiB to 4 MiB: measure both from 64 KiB to 1 MiB.',
    );
  });

  it('where to measure next when the ranges overlap without two common sizes: the range both cover, as before', () => {
    const c = findCrossover(
      [
        ...series('cu', 'host', [4 * KiB, 64 * KiB, 4 * MiB], 5000, 32, 0.01, 22),
        ...series('engine', 'host', [16 * KiB, 1 * MiB], 13000, 61, 0.01, 23),
      ],
      'host',
      8,
    );
    expect(c.measureNext).toBe(
      'cu/host was measured from 4 KiB to 4 MiB, engine/host from 16 KiB to 1 MiB: measure both from 16 KiB to 1 MiB.',
    );
  });

  it('where to measure next when one path has no sizes at the CU count (an empty range), and nothing when neither has', () => {
    const engineOnly = findCrossover(
      [...series('engine', 'host', sizes, 13000, 61, 0.01, 24), ...series('cu', 'host', sizes, 5000, 32, 0.01, 25, 64)],
      'host',
      8,
    );
    expect(engineOnly.kind).toBe('insufficient');
    expect(engineOnly.measureNext).toBe(
      'cu/host on 8 CUs was not measured (engine/host from 4 KiB to 16 MiB): measure cu/host on 8 CUs from 4 KiB to 16 MiB.',
    );
    const cuOnly = findCrossover(series('cu', 'host', [1 * MiB], 5000, 32, 0.01, 26), 'host', 8);
    expect(cuOnly.measureNext).toBe(
      'engine/host was not measured (cu/host on 8 CUs at 1 MiB only): measure engine/host at 1 MiB and the sizes around it.',
    );
    expect(findCrossover([], 'host', 8).measureNext).toBeUndefined();
    expect(findCrossover([], 'host', 8).explanation).not.toMatch(/undefined|NaN/);
  });

  it('a load/store path whose CU count was not recorded (0, as nvbandwidth imports it) is never "on 0 CUs"', () => {
    const c = findCrossover(
      [...series('cu', 'host', sizes, 1000, 80, 0.01, 27, 0), ...series('engine', 'host', sizes, 9000, 40, 0.01, 28)],
      'host',
      0,
    );
    expect(c.kind).toBe('cu-always');
    expect(c.explanation).toMatch(/^cu\/host \(CU count not recorded\) is ahead of engine\/host/);
    expect(c.explanation).not.toMatch(/0 CUs/);
  });

  it('quantiles interpolate', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([5], 0.25)).toBe(5);
  });
});

describe('crossovers of a real simulator run', () => {
  it('puts the host-initiated crossover at 8 CUs in the hundreds of KiB, and moves it up with more CUs', async () => {
    const run = await readRunFile(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'));
    const all = findCrossovers(run.samples.toArray());
    expect(all.map((c) => `${c.initiator}@${c.cus}`)).toEqual(['host@8', 'host@64', 'device@8', 'device@64']);
    const host8 = all[0]!;
    expect(host8.kind).toBe('crossover');
    expect(host8.estimateBytes!).toBeGreaterThan(128 * KiB);
    expect(host8.estimateBytes!).toBeLessThan(1 * MiB);
    expect(all[1]!.fromBytes!).toBeGreaterThan(host8.fromBytes!);
  });
});

describe('crossovers of the 2x H200 measurements (bench/results/h200x2-2026-11-30)', () => {
  it('finds what was measured there: the copy engine never slower host-initiated; the device-initiated crossover at tens of MiB on all SMs', () => {
    const run = newRun(header('h200'));
    const text = readFileSync(join(__dirname, '../../bench/results/h200x2-2026-11-30/raw/sweep.ndjson'), 'utf8');
    for (const line of text.split('\n')) {
      const r = line ? parseLine(line) : undefined;
      if (r?.kind === 'record') applyRecord(run, r.record);
    }
    const all = findCrossovers(run.samples.toArray());
    const at = (initiator: string, cus: number) => all.find((c) => c.initiator === initiator && c.cus === cus)!;
    expect(at('host', 132).kind).toBe('engine-always');
    const device = at('device', 132);
    expect(device.kind).toBe('crossover');
    expect(device.estimateBytes!).toBeGreaterThan(16 * MiB);
    expect(device.estimateBytes!).toBeLessThan(64 * MiB);
  });
});
