/**
 * Where a copy-engine path overtakes a load/store path, from a run's repetitions.
 *
 * At each size both paths were measured, the interquartile ranges of the per-iteration
 * times decide: a path wins only when its slower quartile beats the other's faster one;
 * overlapping spreads are a tie, never a made-up winner. The crossover is the smallest
 * measured size from which the engine stays ahead; the crossing point between that size
 * and the one below is interpolated in log2(size), with bounds from the quartiles.
 */
import type { Initiator, PathName, Sample } from '../protocol';
import { pathName } from '../protocol';
import type { GroupField } from '../sampleTable';
import { SampleTable } from '../sampleTable';
import type { SeriesDimensions } from '../seriesKey';
import {
  SERIES_FIELDS,
  DEFAULT_THREADS_PER_CU,
  DEFAULT_WAVE_SIZE,
  dimensionWords,
  seriesDimensions,
  waveWord,
} from '../seriesKey';
import { formatBytes } from '../units';
import { bothFronts } from './fronts';

export type Verdict = 'engine' | 'cu' | 'tie';

export interface SizeVerdict {
  sizeBytes: number;
  verdict: Verdict;
  engineMedianNs: number;
  cuMedianNs: number;
}

export type CrossoverKind = 'crossover' | 'engine-always' | 'cu-always' | 'no-clear-winner' | 'insufficient';

export interface Crossover {
  initiator: Initiator;
  engine: PathName;
  cu: PathName;
  /** CUs of the load/store path compared. */
  cus: number;
  /** Wavefronts per CU of the load/store series compared, where it names them (absent: the default threads). */
  wavesPerCu?: number;
  waveSize?: number;
  /** The engine series' words where it is not the default one ("4 engines", "1 wave issuing"). */
  engineWords?: string[];
  kind: CrossoverKind;
  /** Smallest measured size from which the engine stays ahead. */
  fromBytes?: number;
  /** Interpolated crossing point and its half-width from the repetitions' spread. */
  estimateBytes?: number;
  /** The two measured sizes the medians cross between (the estimate's own bracket; refinement narrows it). */
  estimateBracket?: [number, number];
  plusMinusBytes?: number;
  /**
   * Where the crossing can lie, as honestly as the data allows: the quartiles' crossings,
   * widened to the two bracketing sizes when too few repetitions leave no spread to judge.
   */
  rangeBytes?: [number, number];
  /** Why the result is not clear, each cause in a phrase (too few repetitions, overlapping spreads, sizes far apart). */
  uncertainty: string[];
  /** Sizes worth measuring next to settle it (between the bracketing sizes, or beyond the measured range). */
  measureNext?: string;
  confidence: 'clear' | 'uncertain' | 'none';
  verdicts: SizeVerdict[];
  /** Sizes measured for one path only (skipped). */
  missingBytes: number[];
  repetitions: number;
  explanation: string;
}

interface Spread {
  q25: number;
  median: number;
  q75: number;
}

/** Quantile with linear interpolation between order statistics. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** `times` in ascending order, a copy (a typed array sorts numbers natively, without a compare callback). */
export function sortedTimes(times: readonly number[]): Float64Array {
  return Float64Array.from(times).sort();
}

/** Room for a sample's times while its quartiles are read: one buffer, grown as needed, rather than a copy a sample. */
let scratch = new Float64Array(256);

/** Views of the shared buffer by length, made once each (a view is an object: not one a sample). */
let views: Float64Array[] = [];

/** The shared buffer, room for `count` times made. */
function scratchFor(count: number): Float64Array {
  if (count > scratch.length) {
    scratch = new Float64Array(Math.max(count, scratch.length * 2));
    views = [];
  }
  return (views[count] ??= scratch.subarray(0, count));
}

/** The quartiles of `times` sorted in place (the same order as sortedTimes: a typed array's own sort). */
function spreadOfTimes(times: Float64Array): Spread {
  times.sort();
  return { q25: quantile(times, 0.25), median: quantile(times, 0.5), q75: quantile(times, 0.75) };
}

/** A summary's spread: its median (else its mean) alone. */
function spreadOfOne(x: number): Spread {
  const only = [x];
  return { q25: quantile(only, 0.25), median: quantile(only, 0.5), q75: quantile(only, 0.75) };
}

function spread(s: Sample): Spread {
  const t = s.timesNs;
  if (!t || t.length === 0) return spreadOfOne(s.medianNs ?? s.meanNs);
  const times = scratchFor(t.length);
  times.set(t);
  return spreadOfTimes(times);
}

/** `spread` of sample `i` of a table, read from its columns (the same numbers, the same answer). */
function spreadOfRow(table: SampleTable, i: number): Spread {
  const count = table.timesCountAt(i);
  if (count <= 0) {
    const median = table.numberAt('medianNs', i);
    return spreadOfOne(Number.isNaN(median) ? table.numberAt('meanNs', i) : median);
  }
  const times = scratchFor(count);
  table.copyTimes(i, times);
  return spreadOfTimes(times);
}

export function verdictOf(engine: Spread, cu: Spread): Verdict {
  if (engine.q75 < cu.q25) return 'engine';
  if (cu.q75 < engine.q25) return 'cu';
  return 'tie';
}

/** log2-size interpolation of where `advantage` (positive: engine faster) crosses zero between two sizes. */
export function crossing(s0: number, a0: number, s1: number, a1: number): number {
  if (a0 >= 0) return s0;
  if (a1 <= 0) return s1;
  const t = a0 / (a0 - a1);
  return 2 ** (Math.log2(s0) + t * (Math.log2(s1) - Math.log2(s0)));
}

/** A size range in words, each end rounded to what the data resolves. */
function formatRange([lo, hi]: [number, number]): string {
  return `${formatBytes(Math.round(lo))} and ${formatBytes(Math.round(hi))}`;
}

/** " on 8 CUs", " on 1 CU"; a CU count of 0 is one the data did not record (an imported output that does not print it). */
export function onCus(cus: number): string {
  return cus === 0 ? ' (CU count not recorded)' : ` on ${cus} CU${cus === 1 ? '' : 's'}`;
}

/**
 * Where to measure when the two paths have fewer than two sizes in common, from the sizes
 * each was measured at (ascending): the gap between two ranges that do not meet, the range
 * they share, both sides of the one size they share, or the range of the path that was
 * measured where the other was not. Undefined when neither was measured.
 */
export function whereToMeasureBoth(
  engine: string,
  cu: string,
  cus: number,
  e: readonly number[],
  c: readonly number[],
): string | undefined {
  const span = (x: readonly number[]) =>
    x[0] === x.at(-1) ? `at ${formatBytes(x[0]!)} only` : `from ${formatBytes(x[0]!)} to ${formatBytes(x.at(-1)!)}`;
  if (e.length === 0 && c.length === 0) return undefined;
  if (e.length === 0 || c.length === 0) {
    const [measured, missing, sizes] =
      e.length > 0 ? [engine, `${cu}${onCus(cus)}`, e] : [`${cu}${onCus(cus)}`, engine, c];
    return `${missing} was not measured (${measured} ${span(sizes)}): measure ${missing} ${sizes.length === 1 ? `at ${formatBytes(sizes[0]!)} and the sizes around it` : `from ${formatBytes(sizes[0]!)} to ${formatBytes(sizes.at(-1)!)}`}.`;
  }
  const said = `${cu} was measured ${span(c)}, ${engine} ${span(e)}`;
  // The gap between two ranges that do not meet, else the range both cover.
  const [lo, hi] =
    c.at(-1)! < e[0]!
      ? [c.at(-1)!, e[0]!]
      : e.at(-1)! < c[0]!
        ? [e.at(-1)!, c[0]!]
        : [Math.max(c[0]!, e[0]!), Math.min(c.at(-1)!, e.at(-1)!)];
  if (lo < hi) return `${said}: measure both from ${formatBytes(lo)} to ${formatBytes(hi)}.`;
  // The ranges meet in one size: a crossover needs two sizes measured for both.
  const first = Math.min(c[0]!, e[0]!);
  const last = Math.max(c.at(-1)!, e.at(-1)!);
  return first === last
    ? `${cu} and ${engine} were both measured at ${formatBytes(lo)} only, and a crossover needs two sizes or more measured for both: measure both at sizes below and above ${formatBytes(lo)}.`
    : `${said}, so they meet only at ${formatBytes(lo)}: measure both from ${formatBytes(first)} to ${formatBytes(last)}.`;
}

/** Too few repetitions to judge a spread: below this, quartiles say nothing. */
export const MIN_REPETITIONS = 5;
/** Neighbouring sizes further apart than this leave a gap worth measuring. */
const GAP_RATIO = 4;

/** " at 1 wave/CU" where the load/store series compared names its waves; empty for the default threads. */
export function atWaves(c: Pick<Crossover, 'wavesPerCu' | 'waveSize'>): string {
  return c.wavesPerCu !== undefined ? ` at ${waveWord(c.waveSize, c.wavesPerCu)}/CU` : '';
}

function describe(c: Omit<Crossover, 'explanation'>): string {
  const eng = c.engineWords && c.engineWords.length > 0 ? `${c.engine} (${c.engineWords.join(', ')})` : c.engine;
  const cu = `${c.cu}${onCus(c.cus)}${atWaves(c)}`;
  const reps = `${c.repetitions} repetitions per point`;
  const unsure = c.uncertainty.length > 0 ? ` Uncertain: ${c.uncertainty.join('; ')}.` : '';
  const next = c.measureNext ? ` ${c.measureNext}` : '';
  const missing =
    c.missingBytes.length > 0
      ? ` (${c.missingBytes.map(formatBytes).join(', ')} measured for one path only, skipped)`
      : '';
  switch (c.kind) {
    case 'insufficient':
      return `Not enough sizes measured for both ${eng} and ${cu} to find a crossover${missing}.${next}`;
    case 'engine-always':
      return `${eng} is ahead of ${cu} at every measured size from ${formatBytes(c.fromBytes!)}: the crossover is at or below the smallest size measured (${reps})${missing}.${unsure}${next}`;
    case 'cu-always':
      return `${cu} is ahead of ${eng} at every measured size up to ${formatBytes(c.verdicts.at(-1)!.sizeBytes)}: no crossover in the measured range (${reps})${missing}.${next}`;
    case 'no-clear-winner': {
      let lastClear: SizeVerdict | undefined;
      let lastEngine = -1;
      for (let i = c.verdicts.length - 1; i >= 0 && (lastClear === undefined || lastEngine === -1); i--) {
        const v = c.verdicts[i]!.verdict;
        if (v !== 'tie') lastClear ??= c.verdicts[i];
        if (v === 'engine') lastEngine = i;
      }
      // The first tie after the last size the engine won: from there on, no clear winner.
      let from: SizeVerdict | undefined;
      for (let i = lastEngine + 1; i < c.verdicts.length && from === undefined; i++)
        if (c.verdicts[i]!.verdict === 'tie') from = c.verdicts[i];
      return `No clear winner between ${eng} and ${cu}${from ? ` from ${formatBytes(from.sizeBytes)} up` : ''}: their spreads overlap${lastClear ? ` (last clear result: ${lastClear.verdict === 'cu' ? c.cu : eng} ahead at ${formatBytes(lastClear.sizeBytes)})` : ''} (${reps})${missing}.${unsure}${next}`;
    }
    case 'crossover': {
      const flips = c.verdicts
        .filter((x) => x.verdict === 'engine' && x.sizeBytes < c.fromBytes!)
        .map((x) => formatBytes(x.sizeBytes));
      const flip = flips.length > 0 ? ` The engine was also ahead at ${flips.join(', ')}, but not from there on.` : '';
      const est =
        c.estimateBytes !== undefined
          ? ` (crossing near ${formatBytes(Math.round(c.estimateBytes))}${c.rangeBytes ? `, between ${formatRange(c.rangeBytes)}` : ''})`
          : '';
      return `${eng} stays ahead of ${cu} from ${formatBytes(c.fromBytes!)}${est}; below that, ${c.cu} is faster or they tie (${reps}).${flip}${unsure}${missing}${next}`;
    }
  }
}

/**
 * A sample in an index, with its spread once a comparison has needed it: the sample itself
 * (`indexSamples`), or its row in a table (`indexRows`), whose spread is read from the columns.
 */
interface Indexed {
  sizeBytes: number;
  /** Its per-iteration times (0: none, a summary). */
  times: number;
  spread: Spread | undefined;
  /** The sample, or the table whose row `row` it is (one shape for both: the comparisons read either alike). */
  sample: Sample | SampleTable;
  row: number;
}

/** One initiator's samples by path and size (the last sample of a size wins). */
export interface InitiatorSamples {
  engineBySize: Map<number, Indexed>;
  /** The dimensions of the series indexed: the engine's, and the load/store one's (any CU count). */
  engineDims?: SeriesDimensions;
  cuDims?: SeriesDimensions;
  /** Load/store samples by CU count (in the order first measured), then by size. */
  cuByCus: Map<number, Map<number, Indexed>>;
  /** The maps' samples in ascending size, made once for all comparisons. */
  ascending: Map<Map<number, Indexed>, Indexed[]>;
}

/** A run's samples by initiator, path and size, built in one pass: every comparison reads them from here, and each sample's spread is computed once. */
export type SampleIndex = Record<Initiator, InitiatorSamples>;

/** Which series a comparison is between: the user's wavefronts per CU, else (0 or absent) the default threads. */
export interface DimensionChoice {
  wavesPerCu?: number;
}

/**
 * How far a series is from the one a comparison wants (0: the one): load/store at the user's
 * waves per CU (else the default 1024 threads), the engine as one copy through the single-copy
 * API with rocSHMEM's SDMA forced, issued by one thread (or at the user's waves, engine/device).
 * A run without the wanted series is compared on its nearest, and the crossover names it.
 */
function distance(d: SeriesDimensions, choice: DimensionChoice): number {
  const w = choice.wavesPerCu !== undefined && choice.wavesPerCu > 0 ? choice.wavesPerCu : undefined;
  // The runtime-default series is never a path's figure.
  if (d.series) return Number.POSITIVE_INFINITY;
  const off = (x: number, want: number) => Math.abs(Math.log2(Math.max(x, 1) / Math.max(want, 1)));
  if (d.path.startsWith('cu/')) {
    if (w === undefined) return off(d.threads, DEFAULT_THREADS_PER_CU);
    if (d.wavesPerCu === w) return 0;
    return 0.5 + off(d.threads, w * (d.waveSize ?? DEFAULT_WAVE_SIZE));
  }
  const engine = Math.log2(d.split) + Math.log2(d.batch + 1) + (d.shmemSdma === 'forced' ? 0 : 8);
  if (d.path !== 'engine/device') return engine;
  const issuing =
    w !== undefined && d.wavesPerCu === w ? 0 : d.threads === 0 ? (w === undefined ? 0 : 0.25) : 1 + off(d.threads, 1);
  return engine + issuing;
}

/** The series of each path that `distance` puts nearest, by its key without the CU count. */
interface Keyed {
  d: SeriesDimensions;
  key: string;
}

function chosenSeries(keyed: readonly Keyed[], choice: DimensionChoice): Set<string> {
  const best = new Map<string, { key: string; distance: number }>();
  for (const { d, key } of keyed) {
    const mine = best.get(d.path);
    if (mine?.key === key) continue;
    const far = distance(d, choice);
    if (far === Number.POSITIVE_INFINITY) continue;
    if (!mine || far < mine.distance) best.set(d.path, { key, distance: far });
  }
  return new Set([...best.values()].map((b) => b.key));
}

const dimsKeyWithoutCus = (d: SeriesDimensions) =>
  [d.path, d.threads, d.split, d.batch, d.shmemSdma, d.series ?? ''].join('|');

/**
 * `choice`: which series of each path are compared (DimensionChoice); the default compares the
 * default series, what a run saved before these dimensions holds alone.
 */
export function indexSamples(samples: readonly Sample[], choice: DimensionChoice = {}): SampleIndex {
  const keyed = samples.map((s) => {
    const d = seriesDimensions(s);
    return { d, key: dimsKeyWithoutCus(d), initiator: s.initiator, mover: s.mover, cus: s.cus };
  });
  return indexKeyed(keyed, choice, (k) => {
    const sample = samples[k]!;
    return { sizeBytes: sample.sizeBytes, times: sample.timesNs?.length ?? 0, spread: undefined, sample, row: k };
  });
}

/** The fields a sample's series (its dimensions), initiator, mover and CU count are made of, as the table groups them. */
const SERIES_GROUP = SERIES_FIELDS satisfies readonly GroupField[];

/**
 * `indexSamples` of the samples at `rows` of `table` (in that order), the same index, read from
 * the columns: the samples alike in their series' fields (SERIES_FIELDS) are one group whose
 * dimensions are made once, from its first sample's fields (`pick`); no sample is built, and a
 * spread is read from the times' column when a comparison needs it.
 */
export function indexRows(table: SampleTable, rows: readonly number[], choice: DimensionChoice = {}): SampleIndex {
  const { group, first } = table.groupsOf(SERIES_GROUP, rows);
  const ofGroup = first.map((i) => {
    const s = table.pick(i, SERIES_GROUP);
    const d = seriesDimensions(s);
    return { d, key: dimsKeyWithoutCus(d), initiator: s.initiator, mover: s.mover, cus: s.cus };
  });
  const sizes = table.numbersOf('sizeBytes', rows);
  return indexKeyed(
    Array.from(group, (g) => ofGroup[g]!),
    choice,
    (k) => {
      const row = rows[k]!;
      return {
        sizeBytes: sizes[k]!,
        times: Math.max(0, table.timesCountAt(row)),
        spread: undefined,
        sample: table,
        row,
      };
    },
  );
}

/** The index of samples known by their series (`keyed`, one a sample, in order); `entry(k)` makes sample k's entry. */
function indexKeyed(
  keyed: readonly (Keyed & Pick<Sample, 'initiator' | 'mover' | 'cus'>)[],
  choice: DimensionChoice,
  entry: (k: number) => Indexed,
): SampleIndex {
  const index: SampleIndex = {
    host: { engineBySize: new Map(), cuByCus: new Map(), ascending: new Map() },
    device: { engineBySize: new Map(), cuByCus: new Map(), ascending: new Map() },
  };
  const chosen = chosenSeries(keyed, choice);
  for (let k = 0; k < keyed.length; k++) {
    const { d, key, initiator, mover, cus } = keyed[k]!;
    if (!chosen.has(key)) continue;
    const paths = index[initiator];
    if (mover === 'engine') paths.engineDims ??= d;
    else paths.cuDims ??= d;
    const x = entry(k);
    if (mover === 'engine') paths.engineBySize.set(x.sizeBytes, x);
    else {
      let bySize = paths.cuByCus.get(cus);
      if (!bySize) paths.cuByCus.set(cus, (bySize = new Map()));
      bySize.set(x.sizeBytes, x);
    }
  }
  return index;
}

const spreadOf = (x: Indexed): Spread =>
  (x.spread ??= x.sample instanceof SampleTable ? spreadOfRow(x.sample, x.row) : spread(x.sample));

/** A path's samples in ascending size (a helper prints them so: then no sort is needed). */
function inSizeOrder(paths: InitiatorSamples, bySize: Map<number, Indexed>): Indexed[] {
  let list = paths.ascending.get(bySize);
  if (!list) {
    list = [...bySize.values()];
    let sorted = true;
    for (let i = 1; i < list.length && sorted; i++) sorted = list[i - 1]!.sizeBytes < list[i]!.sizeBytes;
    if (!sorted) list.sort((a, b) => a.sizeBytes - b.sizeBytes);
    paths.ascending.set(bySize, list);
  }
  return list;
}

const ascending = (a: number, b: number) => a - b;

/** Compares the engine path of an initiator with the load/store path at one CU count. */
export function findCrossover(samples: readonly Sample[], initiator: Initiator, cus: number): Crossover {
  return crossoverAt(indexSamples(samples), initiator, cus);
}

/**
 * findCrossover on an index of the samples. `explain` false: the explanation is left empty (a
 * caller that reads only the crossover's figures, not its words, e.g. a fleet's figures).
 */
export function crossoverAt(index: SampleIndex, initiator: Initiator, cus: number, explain = true): Crossover {
  const engine = pathName('engine', initiator);
  const cu = pathName('cu', initiator);
  const paths = index[initiator];
  const engineWords = paths.engineDims ? dimensionWords(paths.engineDims) : [];
  const dims = {
    ...(paths.cuDims?.wavesPerCu !== undefined
      ? { wavesPerCu: paths.cuDims.wavesPerCu, waveSize: paths.cuDims.waveSize ?? DEFAULT_WAVE_SIZE }
      : {}),
    ...(engineWords.length > 0 ? { engineWords } : {}),
  };
  const engineBySize = paths.engineBySize;
  const cuBySize = paths.cuByCus.get(cus) ?? new Map<number, Indexed>();
  const both: number[] = [];
  const missingBytes: number[] = [];
  const spreads: { e: Spread; c: Spread }[] = [];
  const verdicts: SizeVerdict[] = [];
  // A summary-only sample (imported without per-iteration times) counts as one repetition: its spread is unknown.
  const reps = (x: Indexed) => Math.max(1, x.times);
  let repetitions = Number.POSITIVE_INFINITY;
  let summaryOnly = false;
  // Both paths' sizes in one ascending pass: a merge of the two sorted lists.
  const es = inSizeOrder(paths, engineBySize);
  const cs = inSizeOrder(paths, cuBySize);
  for (let i = 0, j = 0; i < es.length || j < cs.length;) {
    const eSize = i < es.length ? es[i]!.sizeBytes : Number.POSITIVE_INFINITY;
    const cSize = j < cs.length ? cs[j]!.sizeBytes : Number.POSITIVE_INFINITY;
    if (eSize !== cSize) {
      missingBytes.push(Math.min(eSize, cSize));
      if (eSize < cSize) i++;
      else j++;
      continue;
    }
    const ex = es[i++]!;
    const cx = cs[j++]!;
    const size = eSize;
    both.push(size);
    const e = spreadOf(ex);
    const c = spreadOf(cx);
    spreads.push({ e, c });
    verdicts.push({ sizeBytes: size, verdict: verdictOf(e, c), engineMedianNs: e.median, cuMedianNs: c.median });
    repetitions = Math.min(repetitions, reps(ex), reps(cx));
    if (ex.times === 0 || cx.times === 0) summaryOnly = true;
  }
  const repCount = Number.isFinite(repetitions) ? repetitions : 0;
  const fewReps = repCount < MIN_REPETITIONS;
  const repsCause = () =>
    summaryOnly
      ? 'the data holds summaries, not per-iteration times, so the spread is unknown (measure with SDMA Lens to see it)'
      : `only ${repCount} repetition${repCount === 1 ? '' : 's'} per point, too few to judge the spread (measure with ${MIN_REPETITIONS * 2} repetitions or more: ${bothFronts('iterations', String(MIN_REPETITIONS * 2))})`;
  const base = {
    initiator,
    engine,
    cu,
    cus,
    ...dims,
    verdicts,
    missingBytes,
    repetitions: repCount,
    uncertainty: fewReps && both.length > 0 ? [repsCause()] : [],
  };
  // The explanation added last, as a copy with it would have it: `c` is this call's own object.
  const finish = (c: Omit<Crossover, 'explanation'>): Crossover =>
    Object.assign(c, { explanation: explain ? describe(c) : '' });
  const sizesOf = (m: Map<number, Indexed>) => [...m.keys()].sort(ascending);

  if (both.length < 2) {
    // Too few sizes in common: say where both paths need measuring.
    const measureNext = whereToMeasureBoth(engine, cu, cus, sizesOf(engineBySize), sizesOf(cuBySize));
    return finish({
      ...base,
      uncertainty: [],
      kind: 'insufficient',
      confidence: 'none',
      ...(measureNext ? { measureNext } : {}),
    });
  }
  let lastNotEngine = -1;
  verdicts.forEach((x, i) => {
    if (x.verdict !== 'engine') lastNotEngine = i;
  });
  if (lastNotEngine === -1) {
    return finish({
      ...base,
      kind: 'engine-always',
      fromBytes: both[0]!,
      confidence: fewReps ? 'uncertain' : 'clear',
      measureNext: `To place the crossover, measure below ${formatBytes(both[0]!)}.`,
    });
  }
  if (lastNotEngine === verdicts.length - 1) {
    const kind = verdicts.every((x) => x.verdict === 'cu') ? 'cu-always' : 'no-clear-winner';
    const measureNext =
      kind === 'cu-always'
        ? `To find where ${engine} takes over, measure above ${formatBytes(both.at(-1)!)}.`
        : fewReps
          ? undefined
          : `More repetitions (${bothFronts('iterations')}) narrow the spreads.`;
    return finish({
      ...base,
      kind,
      confidence: kind === 'cu-always' && !fewReps ? 'clear' : 'none',
      ...(measureNext ? { measureNext } : {}),
    });
  }

  const i0 = lastNotEngine;
  const i1 = lastNotEngine + 1;
  const s0 = both[i0]!;
  const s1 = both[i1]!;
  // Positive when the engine is faster; log ratio so fast and slow sizes weigh alike.
  const adv = (cuNs: number, engNs: number) => Math.log(cuNs / engNs);
  const median = (x: { e: Spread; c: Spread }) => adv(x.c.median, x.e.median);
  const optimistic = (x: { e: Spread; c: Spread }) => adv(x.c.q75, x.e.q25);
  const pessimistic = (x: { e: Spread; c: Spread }) => adv(x.c.q25, x.e.q75);
  /**
   * Where one measure of the engine's advantage last turns positive at or below s1: the last
   * size below s1 where it is not positive, and the size after it. The medians of the two
   * paths usually cross below s0, among sizes where the spreads still overlap (ties): the
   * crossing is looked for there, not pinned to s0 (which on a fine grid is merely the last
   * tie, and moves with the noise). At or below the smallest size when it never is.
   */
  const crossingOf = (f: (x: { e: Spread; c: Spread }) => number): { at: number; bracket: [number, number] } => {
    let k = i0;
    while (k >= 0 && f(spreads[k]!) >= 0) k--;
    if (k < 0) return { at: both[0]!, bracket: [both[0]!, both[0]!] };
    return {
      at: crossing(both[k]!, f(spreads[k]!), both[k + 1]!, f(spreads[k + 1]!)),
      bracket: [both[k]!, both[k + 1]!],
    };
  };
  const mid = crossingOf(median);
  const estimate = mid.at;
  const early = crossingOf(optimistic).at;
  const late = crossingOf(pessimistic).at;
  const plusMinus = Math.max(Math.abs(late - estimate), Math.abs(estimate - early));
  const uncertainty = [...base.uncertainty];
  if (verdicts[i0]!.verdict === 'tie') uncertainty.push(`the spreads of both paths overlap at ${formatBytes(s0)}`);
  // The sizes around where the engine surely leads, or around where the medians cross (below
  // them when the spreads overlap there): the wider of the two is what the data leaves open.
  const [g0, g1] = mid.bracket[1] / mid.bracket[0] > s1 / s0 ? mid.bracket : [s0, s1];
  const gap = g1 / g0 > GAP_RATIO;
  if (gap)
    uncertainty.push(
      `the sizes around it, ${formatBytes(g0)} and ${formatBytes(g1)}, are ${Math.round(g1 / g0)}x apart`,
    );
  // With no spread to judge, all the data says is that the crossing lies between the sizes
  // around it; else from where the engine may be ahead (its faster quartile against the
  // load/store path's slower one) to where it surely is.
  const rangeBytes: [number, number] = fewReps
    ? [Math.min(s0, mid.bracket[0]), s1]
    : [Math.min(early, late, estimate), Math.min(s1, Math.max(early, late, estimate))];
  const measureNext =
    gap || fewReps
      ? `To place it closer, measure between ${formatRange(gap ? [g0, g1] : [s0, s1])}${fewReps ? ' with more repetitions' : ''}.`
      : undefined;
  return finish({
    ...base,
    uncertainty,
    kind: 'crossover',
    fromBytes: s1,
    estimateBytes: estimate,
    estimateBracket: mid.bracket,
    plusMinusBytes: plusMinus,
    rangeBytes,
    confidence: uncertainty.length === 0 ? 'clear' : 'uncertain',
    ...(measureNext ? { measureNext } : {}),
  });
}

/** Every comparison a run allows: each initiator with an engine path, at each measured CU count. */
export function findCrossovers(samples: readonly Sample[]): Crossover[] {
  return crossoversAt(indexSamples(samples));
}

/** findCrossovers on an index of the samples. */
export function crossoversAt(index: SampleIndex): Crossover[] {
  const out: Crossover[] = [];
  for (const initiator of ['host', 'device'] as const) {
    const paths = index[initiator];
    if (paths.engineBySize.size === 0) continue;
    for (const cus of [...paths.cuByCus.keys()].sort(ascending)) out.push(crossoverAt(index, initiator, cus));
  }
  return out;
}

/** A comparison in a few words, for a list of them: what won where. */
export function verdictSummary(c: Crossover): string {
  switch (c.kind) {
    case 'crossover':
      return `engine from ${formatBytes(c.fromBytes!)}`;
    case 'engine-always':
      return `engine at every size from ${formatBytes(c.fromBytes!)}`;
    case 'cu-always':
      return `load/store at every size up to ${formatBytes(c.verdicts.at(-1)!.sizeBytes)}`;
    case 'no-clear-winner':
      return 'no clear winner';
    case 'insufficient':
      return 'too few sizes measured for both';
  }
}
