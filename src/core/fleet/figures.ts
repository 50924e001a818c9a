/**
 * The figures a fleet compares, read from one node's runs: per copy path, endpoint pair and
 * CU count the peak bandwidth of its sweep (the best median over the sizes); per initiator and
 * pair the crossover size the advice places; per path and ordered GPU pair the matrix cell's
 * GB/s; and the settings the advice would write. Browser-safe.
 */
import type { FigureAdvice } from '../advice/advice';
import { adviseForFigures } from '../advice/advice';
import { pairName } from '../endpoints';
import type { PathName, Sample, ShmemSdma, SplitOver } from '../protocol';
import { pathName } from '../protocol';
import type { Run } from '../run';
import type { SampleTable } from '../sampleTable';
import { ABSENT_CODE } from '../sampleTable';
import type { SeriesDims } from '../seriesKey';
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

/**
 * A run of samples' series, as its columns: which samples share one series' dimensions and
 * endpoints (the same values of every field the key and label read), found by comparing
 * columns, not by building a sample or a key per sample. A sweep cycles through its series at
 * each size, so the series after the last one found is tried first.
 */
class SeriesOfColumns {
  private readonly numbers: Float64Array[];
  private readonly codes: Int32Array[];
  private readonly values: string[][];
  /** Per series found: a sample of it (the first), and its key and label parts. */
  private readonly found: { first: number; key: string; path: PathName; pair: string; label: string }[] = [];
  /** The series by their fields as text, for a sample that is not of the expected one. */
  private readonly bySignature = new Map<string, number>();
  private last = -1;

  constructor(samples: SampleTable) {
    this.numbers = (['src', 'dst', 'cus', 'wavesPerCu', 'waveSize', 'split', 'batch'] as const).map((f) =>
      samples.numbersOf(f),
    );
    const strings = (['mover', 'initiator', 'splitOver', 'shmemSdma', 'series'] as const).map((f) =>
      samples.codesOf(f),
    );
    this.codes = strings.map((c) => c.codes);
    this.values = strings.map((c) => c.values);
  }

  /** Whether samples `i` and `j` have the same value (both absent, or equal) in every field read. */
  private same(i: number, j: number): boolean {
    for (const c of this.numbers) {
      const a = c[i]!;
      const b = c[j]!;
      if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false;
    }
    for (const c of this.codes) if (c[i] !== c[j]) return false;
    return true;
  }

  /** Sample `i`'s series: its key, path, pair and label. */
  of(i: number): { key: string; path: PathName; pair: string; label: string } {
    const n = this.found.length;
    if (n > 0) {
      const next = (this.last + 1) % n;
      if (this.same(i, this.found[next]!.first)) return this.found[(this.last = next)]!;
      if (this.last >= 0 && this.same(i, this.found[this.last]!.first)) return this.found[this.last]!;
    }
    const signature = [...this.numbers.map((c) => c[i]), ...this.codes.map((c) => c[i])].join(',');
    const had = this.bySignature.get(signature);
    if (had !== undefined) return this.found[(this.last = had)]!;
    this.bySignature.set(signature, n);
    this.found.push({ first: i, ...this.describe(i) });
    return this.found[(this.last = n)]!;
  }

  /** Key, path, pair and label of sample `i`'s series, from its fields. */
  private describe(i: number): { key: string; path: PathName; pair: string; label: string } {
    const num = (k: number) => {
      const x = this.numbers[k]![i]!;
      return Number.isNaN(x) ? undefined : x;
    };
    const str = <T extends string>(k: number) => {
      const code = this.codes[k]![i]!;
      return (code === ABSENT_CODE ? undefined : this.values[k]![code]) as T | undefined;
    };
    const cus = num(2)!;
    const fields: SeriesDims = {
      mover: str<Sample['mover']>(0)!,
      initiator: str<Sample['initiator']>(1)!,
      cus,
      wavesPerCu: num(3),
      waveSize: num(4) as Sample['waveSize'],
      split: num(5),
      splitOver: str<SplitOver>(2),
      batch: num(6),
      shmemSdma: str<ShmemSdma>(3),
      series: str<NonNullable<Sample['series']>>(4),
    };
    const d = seriesDimensions(fields);
    const pair = pairName({ src: num(0)!, dst: num(1)! });
    // The default series keep the key (and label) they always had, so a fleet index saved before
    // the seed's dimensions compares with today's; others add their words.
    const key = `peak ${d.path} ${pair} ${cus}${isDefaultDimensions(d) ? '' : ` ${dimensionsKey(d)}`}`;
    const label = `${d.path} ${pair} (${[`${cus} ${cus === 1 ? 'CU' : 'CUs'}`, ...dimensionWords(d)].join(', ')})`;
    return { key, path: d.path, pair, label };
  }
}

/**
 * Peak GB/s of every sweep series, and the crossover of every pair the advice places. The peaks
 * are read from the samples' columns (no sample built), their series found by `SeriesOfColumns`.
 */
export function sweepFigures(run: Run, advised: readonly FigureAdvice[] = sweepAdvice(run)): Figure[] {
  const samples = run.samples;
  const peaks = new Map<string, Figure>();
  if (samples.length > 0) {
    const validated = samples.booleansOf('validated');
    const series = samples.codesOf('series').codes;
    const evidence = samples.nestedOf('moverEvidence');
    const median = samples.numbersOf('gbpsMedian');
    const gbps = samples.numbersOf('gbps');
    const seriesOf = new SeriesOfColumns(samples);
    for (let i = 0; i < samples.length; i++) {
      // Validated samples that stand for their path (standsForItsPath: no series, evidence not contradicting).
      if (validated[i] !== 1 || series[i] !== ABSENT_CODE || evidence[i]?.verdict === 'contradicts') continue;
      const value = Number.isNaN(median[i]!) ? gbps[i]! : median[i]!;
      const s = seriesOf.of(i);
      const had = peaks.get(s.key);
      if (had && !(value > had.value)) continue;
      peaks.set(s.key, {
        key: s.key,
        kind: 'peak',
        label: s.label,
        path: s.path,
        pair: s.pair,
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
