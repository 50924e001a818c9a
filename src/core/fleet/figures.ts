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
import type { GroupField } from '../sampleTable';
import { SERIES_FIELDS, dimensionsKey, dimensionWords, isDefaultDimensions, seriesDimensions } from '../seriesKey';

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

/**
 * The fields a peak's key and label are made of, and that say whether a sample counts: samples
 * alike in all of them are one key and label, one verdict (`groupsOf`).
 */
const PEAK_FIELDS = [
  'src',
  'dst',
  ...SERIES_FIELDS,
  'validated',
  'moverEvidence',
] as const satisfies readonly GroupField[];

/**
 * Peak GB/s of every sweep series, and the crossover of every pair the advice places. The
 * samples are grouped by the fields of their key and label (PEAK_FIELDS, from the columns): each
 * group's key and label are made once, from its first sample; a sample adds only its GB/s.
 */
export function sweepFigures(run: Run, advised: readonly FigureAdvice[] = sweepAdvice(run)): Figure[] {
  const samples = run.samples;
  const peaks = new Map<string, Figure>();
  if (samples.length > 0) {
    const { group, first } = samples.groupsOf(PEAK_FIELDS);
    const median = samples.numbersOf('gbpsMedian');
    const gbps = samples.numbersOf('gbps');
    /** Per group: undefined when its samples do not count, else their key, label, path and pair. */
    const peakOf = first.map((i) => {
      const s = samples.pick(i, PEAK_FIELDS);
      if (!s.validated || !standsForItsPath(s)) return undefined;
      const d = seriesDimensions(s);
      const pair = pairName(s);
      // The series' whole key: the default series keep the key (and label) they always had, so a
      // fleet index saved before the seed's dimensions compares with today's; others add their words.
      const key = `peak ${d.path} ${pair} ${s.cus}${isDefaultDimensions(d) ? '' : ` ${dimensionsKey(d)}`}`;
      const label = `${d.path} ${pair} (${[`${s.cus} ${s.cus === 1 ? 'CU' : 'CUs'}`, ...dimensionWords(d)].join(', ')})`;
      return { key, label, path: d.path, pair };
    });
    for (let i = 0; i < samples.length; i++) {
      const p = peakOf[group[i]!];
      if (!p) continue;
      // gbpsMedian where the sample has it (a column's absent value is NaN), else gbps.
      const value = Number.isNaN(median[i]!) ? gbps[i]! : median[i]!;
      const had = peaks.get(p.key);
      if (had && !(value > had.value)) continue;
      peaks.set(p.key, {
        key: p.key,
        kind: 'peak',
        label: p.label,
        path: p.path,
        pair: p.pair,
        value,
        unit: 'GB/s',
        lowIsWeak: true,
      });
    }
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
