/**
 * A fleet node's figures (figures.ts) through the lean advice (`adviseForFigures`: no
 * comparison at the other CU counts, no words) are the figures the whole advice
 * (`adviseAllPairs`) gives, on random sweeps made from real ones: peaks, crossovers and the
 * settings, value for value; and a sample's quartiles read in a shared buffer are those of its
 * sorted copy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Advice, FigureAdvice } from '../../src/core/advice/advice';
import { adviseAllPairs, adviseForFigures } from '../../src/core/advice/advice';
import { findCrossover, quantile, sortedTimes } from '../../src/core/advice/crossover';
import { pairName } from '../../src/core/endpoints';
import type { Figure } from '../../src/core/fleet/figures';
import { adviceSettings, sweepAdvice, sweepFigures } from '../../src/core/fleet/figures';
import { standsForItsPath } from '../../src/core/moverEvidence';
import type { Sample } from '../../src/core/protocol';
import { SAMPLE_SERIES } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { SampleTable } from '../../src/core/sampleTable';
import { dimensionWords, isDefaultDims, seriesDimensions, seriesKey } from '../../src/core/seriesKey';
import { benchRun, runFromText } from '../support/benchRuns';
import { sample } from '../support/records';

const sim = runFromText(readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8'));
const bases: Run[] = [sim, benchRun('sweep'), benchRun('h200x1Full')];

/** The figures as they were made before the lean advice: every sample's key and label, the whole advice's crossovers. */
function referenceFigures(run: Run, advised: readonly Advice[]): Figure[] {
  const peaks = new Map<string, Figure>();
  for (const s of run.samples) {
    if (!s.validated || !standsForItsPath(s)) continue;
    const path = seriesDimensions(s).path;
    const pair = pairName(s);
    const words = dimensionWords(s);
    const key = `peak ${path} ${pair} ${s.cus}${isDefaultDims(s) ? '' : ` ${seriesKey(s)}`}`;
    const gbps = s.gbpsMedian ?? s.gbps;
    const had = peaks.get(key);
    if (!had || gbps > had.value)
      peaks.set(key, {
        key,
        kind: 'peak',
        label: `${path} ${pair} (${[`${s.cus} ${s.cus === 1 ? 'CU' : 'CUs'}`, ...words].join(', ')})`,
        path,
        pair,
        value: gbps,
        unit: 'GB/s',
        lowIsWeak: true,
      });
  }
  const crossovers: Figure[] = [];
  for (const advice of advised)
    for (const c of advice.focus) {
      const at = c.estimateBytes ?? c.fromBytes;
      if (c.kind !== 'crossover' || at === undefined) continue;
      crossovers.push({
        key: `crossover ${c.initiator} ${advice.pairLabel}`,
        kind: 'crossover',
        label: `${c.initiator}-initiated crossover, ${advice.pairLabel}`,
        pair: advice.pairLabel,
        value: at,
        unit: 'bytes',
        lowIsWeak: false,
      });
    }
  return [...peaks.values(), ...crossovers];
}

/** A random sweep from a real one: samples dropped, scaled, their times cut, shuffled and jittered, some not validated, some with waves named. */
const randomSweep = fc
  .record({
    base: fc.integer({ min: 0, max: bases.length - 1 }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    drop: fc.double({ min: 0, max: 0.5, noNaN: true }),
    reps: fc.integer({ min: 0, max: 12 }),
  })
  .map(({ base, seed, drop, reps }) => {
    let x = seed;
    const rnd = () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x / 2 ** 31;
    };
    const run = bases[base]!;
    const samples: Sample[] = [];
    for (const s of run.samples) {
      if (rnd() < drop) continue;
      const k = 0.6 + rnd() * 0.8;
      const times = s.timesNs?.slice(0, reps || undefined).map((t) => Math.round((t / k) * (0.9 + rnd() * 0.2)));
      if (times) times.sort(() => rnd() - 0.5);
      samples.push({
        ...s,
        gbps: s.gbps * k,
        ...(s.gbpsMedian !== undefined ? { gbpsMedian: s.gbpsMedian * k } : {}),
        meanNs: s.meanNs / k,
        ...(times ? { timesNs: times } : {}),
        ...(s.medianNs !== undefined ? { medianNs: s.medianNs / k } : {}),
        validated: rnd() < 0.9 ? s.validated : !s.validated,
        ...(s.mover === 'cu' && rnd() < 0.1 ? { wavesPerCu: 1 + Math.floor(rnd() * 16) } : {}),
      });
    }
    return { ...run, samples: SampleTable.from(samples) };
  });

describe('a fleet node figures from the lean advice', () => {
  it('are the figures and settings of the whole advice, on random sweeps', () => {
    fc.assert(
      fc.property(randomSweep, (run) => {
        const whole = run.samples.length > 0 ? adviseAllPairs(run) : [];
        const lean = sweepAdvice(run);
        expect(sweepFigures(run, lean)).toEqual(referenceFigures(run, whole));
        expect(adviceSettings(lean)).toEqual(adviceSettings(whole));
        expect(lean.map((a) => a.pairLabel)).toEqual(whole.map((a) => a.pairLabel));
        const pick = (as: readonly FigureAdvice[]) =>
          as.map((a) => ({
            focus: a.focus.map((c) => [c.kind, c.initiator, c.estimateBytes, c.fromBytes]),
            values: a.recommendations.map((r) => [r.knob, r.value]),
          }));
        expect(pick(lean)).toEqual(pick(whole));
      }),
      { numRuns: 60 },
    );
  });

  it('peak as they did when made sample by sample, for sweeps in any order, with series, contradicted samples and waves', () => {
    // Peaks only (no advice): read from the columns, their series found by comparing columns.
    const odd = fc.tuple(randomSweep, fc.integer({ min: 1, max: 2 ** 30 })).map(([run, seed]) => {
      let x = seed;
      const rnd = () => {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        return x / 2 ** 31;
      };
      const samples = run.samples.toArray().map((s): Sample => {
        const r = rnd();
        if (r < 0.05) return { ...s, series: SAMPLE_SERIES[0] };
        if (r < 0.1 && s.moverEvidence) return { ...s, moverEvidence: { ...s.moverEvidence, verdict: 'contradicts' } };
        // Waves of 32 or of 64: 16 of each are two series; 32 of 32 and 16 of 64 one key with two labels.
        if (r < 0.2 && s.mover === 'cu') {
          const w = rnd();
          return w < 0.33
            ? { ...s, wavesPerCu: 16, waveSize: 32 }
            : w < 0.66
              ? { ...s, wavesPerCu: 16, waveSize: 64 }
              : { ...s, wavesPerCu: 32, waveSize: 32 };
        }
        if (r < 0.25) return { ...s, cus: s.cus + 1 };
        return s;
      });
      if (rnd() < 0.5) samples.sort(() => rnd() - 0.5);
      return { ...run, samples: SampleTable.from(samples) };
    });
    fc.assert(
      fc.property(odd, (run) => {
        expect(sweepFigures(run, [])).toEqual(referenceFigures(run, []));
      }),
      { numRuns: 200 },
    );
  });

  it('are the same for the real sweeps as they are', () => {
    for (const run of bases) {
      expect(sweepFigures(run)).toEqual(referenceFigures(run, adviseAllPairs(run)));
      expect(adviceSettings(adviseForFigures(run))).toEqual(adviceSettings(adviseAllPairs(run)));
    }
  });
});

describe("a sample's quartiles", () => {
  it('are those of its sorted copy, for any times (a buffer shared between samples of any length)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 2 ** 33 }), { minLength: 1, maxLength: 300 }), {
          minLength: 2,
          maxLength: 6,
        }),
        (sets) => {
          // An engine and a load/store sample at each size: each verdict's medians are its samples' medians.
          const samples = sets.flatMap((times, i) => [
            sample({ mover: 'engine', initiator: 'host', cus: 0, sizeBytes: 1024 << i, timesNs: times }),
            sample({ mover: 'cu', initiator: 'host', cus: 64, sizeBytes: 1024 << i, timesNs: [...times].reverse() }),
          ]);
          const c = findCrossover(samples, 'host', 64);
          sets.forEach((times, i) => {
            const median = quantile(sortedTimes(times), 0.5);
            expect(c.verdicts[i]!.engineMedianNs).toBe(median);
            expect(c.verdicts[i]!.cuMedianNs).toBe(median);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
