/**
 * The figures a fleet compares, read from one node's runs: per copy path, endpoint pair and
 * CU count the peak bandwidth of its sweep (the best median over the sizes); per initiator and
 * pair the crossover size the advice places; per path and ordered GPU pair the matrix cell's
 * GB/s; and the settings the advice would write. Browser-safe.
 */
import type { FigureAdvice } from '../advice/advice';
import { adviseForFigures } from '../advice/advice';
import { pairName } from '../endpoints';
import { standsForItsPath } from '../moverEvidence';
import type { PathName } from '../protocol';
import { pathName } from '../protocol';
import type { Run } from '../run';
import { dimensionsKey, dimensionWords, isDefaultDimensions, seriesDimensions } from '../seriesKey';

export type FigureKind = 'peak' | 'crossover' | 'cell';

export interface Figure {
  /** Stable across nodes: the same key is the same figure on every node. */
  key: string;
  kind: FigureKind;
  /** "engine/host host → GPU 0 (1 CU)", "host-initiated crossover, host → GPU 0", "matrix engine/device GPU 0 → GPU 1". */
  label: string;
  path?: PathName;
  /** `pairName` of the endpoints. */
  pair: string;
  value: number;
  unit: 'GB/s' | 'bytes';
  /** Bandwidth: a low value is the weak side; a crossover has no better side. */
  lowIsWeak: boolean;
}

/**
 * What the figures read of the advice of every pair a sweep measured (none for a run without
 * samples): computed once, read by both functions below (`adviseAllPairs` gives the same).
 */
export function sweepAdvice(run: Run): FigureAdvice[] {
  return run.samples.length > 0 ? adviseForFigures(run) : [];
}

/** Peak GB/s of every sweep series, and the crossover of every pair the advice places. */
export function sweepFigures(run: Run, advised: readonly FigureAdvice[] = sweepAdvice(run)): Figure[] {
  const peaks = new Map<string, Figure>();
  for (const s of run.samples) {
    if (!s.validated || !standsForItsPath(s)) continue;
    const d = seriesDimensions(s);
    const path = d.path;
    const pair = pairName(s);
    // The series' whole key: the default series keep the key (and label) they always had, so a
    // fleet index saved before the seed's dimensions compares with today's; others add their words.
    const key = `peak ${path} ${pair} ${s.cus}${isDefaultDimensions(d) ? '' : ` ${dimensionsKey(d)}`}`;
    const gbps = s.gbpsMedian ?? s.gbps;
    const had = peaks.get(key);
    if (had && !(gbps > had.value)) continue;
    // The label made only for the best of its key so far (a series' sizes share one key).
    const label = `${path} ${pair} (${[`${s.cus} ${s.cus === 1 ? 'CU' : 'CUs'}`, ...dimensionWords(d)].join(', ')})`;
    peaks.set(key, { key, kind: 'peak', label, path, pair, value: gbps, unit: 'GB/s', lowIsWeak: true });
  }
  const crossovers: Figure[] = [];
  for (const advice of advised) {
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
  }
  return [...peaks.values(), ...crossovers];
}

/** GB/s of every validated matrix cell. */
export function matrixFigures(run: Run): Figure[] {
  const out: Figure[] = [];
  for (const c of run.matrixCells ?? []) {
    if (!c.validated) continue;
    const path = pathName(c.mover, c.initiator);
    const pair = pairName(c);
    out.push({
      key: `cell ${path} ${pair}`,
      kind: 'cell',
      label: `matrix ${path} ${pair}`,
      path,
      pair,
      value: c.gbps,
      unit: 'GB/s',
      lowIsWeak: true,
    });
  }
  return out;
}

/** The settings the advice of a sweep would write, as `KNOB=value` sorted (those with a value only). */
export function adviceSettings(advised: readonly FigureAdvice[]): string[] {
  const set = new Set<string>();
  for (const advice of advised)
    for (const r of advice.recommendations) if (r.value !== undefined) set.add(`${r.knob}=${r.value}`);
  return [...set].sort();
}
