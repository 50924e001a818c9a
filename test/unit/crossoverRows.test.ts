/**
 * The crossover index read from a table's columns (`indexRows`, what the advice uses) against
 * the index of the samples as objects (`indexSamples`, what refine uses): the same series
 * chosen, the same samples kept, and every comparison the same, words and all, for the real
 * sweeps (the simulator's, two of H200s) and for random samples of any dimensions, any order,
 * some sizes measured twice, times absent, empty or present, the samples a subset of the
 * table's in any order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DimensionChoice, SampleIndex } from '../../src/core/advice/crossover';
import { crossoverAt, crossoversAt, indexRows, indexSamples } from '../../src/core/advice/crossover';
import type { Sample } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { SampleTable } from '../../src/core/sampleTable';
import { benchRun, runFromText } from '../support/benchRuns';
import { sample } from '../support/records';

const sim = runFromText(readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8'));
const real: Run[] = [sim, benchRun('sweep'), benchRun('h200x1Full')];

/** What an index holds, in plain values: the series' dimensions, the sizes kept (in order) and their samples' spreads' sources. */
function shape(index: SampleIndex) {
  return (['host', 'device'] as const).map((i) => {
    const p = index[i];
    return {
      engineDims: p.engineDims,
      cuDims: p.cuDims,
      engine: [...p.engineBySize.entries()].map(([size, x]) => [size, x.sizeBytes, x.times]),
      cu: [...p.cuByCus.entries()].map(([cus, m]) => [cus, [...m.entries()].map(([size, x]) => [size, x.times])]),
    };
  });
}

/** Both indexes of `rows` of `table`, and every comparison each allows (at every CU count, and at one not measured). */
function expectSame(table: SampleTable, rows: readonly number[], choice: DimensionChoice): void {
  const samples = rows.map((i) => table.at(i)!);
  const byRows = indexRows(table, rows, choice);
  const byObjects = indexSamples(samples, choice);
  expect(shape(byRows)).toStrictEqual(shape(byObjects));
  expect(crossoversAt(byRows)).toStrictEqual(crossoversAt(byObjects));
  for (const initiator of ['host', 'device'] as const)
    for (const cus of [...byObjects[initiator].cuByCus.keys(), 12345]) {
      expect(crossoverAt(byRows, initiator, cus)).toStrictEqual(crossoverAt(byObjects, initiator, cus));
      expect(crossoverAt(byRows, initiator, cus, false)).toStrictEqual(crossoverAt(byObjects, initiator, cus, false));
    }
}

const all = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('the crossover index read from the columns', () => {
  it('is the index of the samples as objects, for the real sweeps, whole and by pair, at any waves', () => {
    for (const run of real) {
      const t = run.samples;
      expect(t.length).toBeGreaterThan(0);
      for (const choice of [{}, { wavesPerCu: 1 }, { wavesPerCu: 4 }, { wavesPerCu: 16 }]) {
        expectSame(t, all(t.length), choice);
        const pairs = new Map<string, number[]>();
        t.forEach((s, i) => {
          const key = `${s.src}:${s.dst}`;
          pairs.set(key, [...(pairs.get(key) ?? []), i]);
        });
        for (const rows of pairs.values()) expectSame(t, rows, choice);
      }
      // A subset in reverse order: the last sample of a size wins in both.
      expectSame(
        t,
        all(t.length)
          .reverse()
          .filter((i) => i % 3 !== 1),
        {},
      );
    }
  });

  it('is the index of the samples as objects, for random samples of any dimensions (fast-check)', () => {
    // Mostly absent: most samples of a few series, so that comparisons find sizes in common.
    const maybe = <T>(arb: fc.Arbitrary<T>, weight = 4) =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight }, { arbitrary: arb, weight: 1 });
    const size = fc.constantFrom(1024, 4096, 65536, 1 << 20, 1 << 24, 3000);
    const times = maybe(
      fc.array(fc.oneof(fc.integer({ min: 1, max: 2 ** 33 }), fc.double({ min: 1, max: 1e9, noNaN: true })), {
        maxLength: 12,
      }),
      1,
    );
    const one = fc
      .record({
        mover: fc.constantFrom('cu' as const, 'engine' as const),
        initiator: fc.constantFrom('host' as const, 'device' as const),
        src: fc.constantFrom(-1, 0, 1),
        dst: fc.constantFrom(0, 1),
        sizeBytes: size,
        cus: fc.constantFrom(0, 1, 8, 64),
        timesNs: times,
        meanNs: fc.double({ min: 1, max: 1e9, noNaN: true }),
        medianNs: maybe(fc.double({ min: 1, max: 1e9, noNaN: true })),
        wavesPerCu: maybe(fc.constantFrom(1, 2, 4, 16, 32)),
        waveSize: maybe(fc.constantFrom(32 as const, 64 as const)),
        split: maybe(fc.constantFrom(1, 2, 4)),
        splitOver: maybe(fc.constantFrom('engines' as const, 'streams' as const)),
        batch: maybe(fc.constantFrom(0, 1, 8)),
        shmemSdma: maybe(fc.constantFrom('forced' as const, 'library' as const, 'off' as const)),
        series: maybe(fc.constant('runtime-default' as const), 8),
      })
      .map((r) => {
        const s: Record<string, unknown> = { ...sample({ sizeBytes: r.sizeBytes, meanNs: r.meanNs }) };
        for (const [k, x] of Object.entries(r)) {
          if (x === undefined) delete s[k];
          else s[k] = x;
        }
        return s as unknown as Sample;
      });
    fc.assert(
      fc.property(
        fc.array(one, { maxLength: 50 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        maybe(fc.constantFrom(1, 2, 4, 16, 32)),
        (samples, picks, waves) => {
          const t = SampleTable.from(samples);
          const choice = waves !== undefined ? { wavesPerCu: waves } : {};
          expectSame(t, all(t.length), choice);
          if (t.length > 0)
            expectSame(
              t,
              picks.map((x) => x % t.length),
              choice,
            );
        },
      ),
      { numRuns: 300 },
    );
  });
});
