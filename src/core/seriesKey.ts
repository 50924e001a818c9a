/**
 * A series' whole identity: its path, CU count, wavefronts per CU, split, batch and rocSHMEM SDMA
 * mode, and the runtime-default series apart from the helper's own. Compare, refine, tables,
 * exports, fleet figures and advice match samples on it, so a 1-wave point is never set beside a
 * 16-wave one. A run saved before these dimensions existed reads as today's defaults: its samples
 * carry none of the fields.
 */
import type { Sample, ShmemSdma, SplitOver } from './protocol';
import { PATHS, SHMEM_SDMA, pathName, type PathName } from './protocol';

/** The threads per CU a cu/* copy ran when the sample names no waves: 1024, as the helper always has. */
export const DEFAULT_THREADS_PER_CU = 1024;
/** The wavefront size assumed where a sample names its waves but not their size (AMD wave64). */
export const DEFAULT_WAVE_SIZE = 64;

/** The fields of a sample that make up its series beyond the pair and size. */
export const SERIES_FIELDS = [
  'mover',
  'initiator',
  'cus',
  'wavesPerCu',
  'waveSize',
  'split',
  'splitOver',
  'batch',
  'shmemSdma',
  'series',
] as const;
export type SeriesDims = Pick<Sample, (typeof SERIES_FIELDS)[number]>;

/** The dimensions of a series, normalised: every default written out. */
export interface SeriesDimensions {
  /**
   * The path the series is of: the sample's own, or for the runtime-default series the engine path
   * of its initiator (the copy API it was asked through), whatever mover the runtime used at a size.
   */
  path: PathName;
  /** CUs of a cu/* series; 0 for engine series (the engine carries the bytes) and the runtime-default series. */
  cus: number;
  /**
   * cu/*: threads per CU (wavesPerCu x waveSize; 1024 by default). engine/device: the waves of the
   * kernel that issued the puts, 0 for the default (one thread's put). engine/host: 0.
   */
  threads: number;
  wavesPerCu?: number;
  waveSize?: number;
  split: number;
  splitOver?: SplitOver;
  batch: number;
  shmemSdma: ShmemSdma;
  series?: Sample['series'];
}

export function seriesDimensions(s: SeriesDims): SeriesDimensions {
  // The runtime-default series is one curve per pair and initiator whatever the runtime used at each size.
  if (s.series) {
    return {
      path: pathName('engine', s.initiator),
      cus: 0,
      threads: 0,
      split: 1,
      batch: 0,
      shmemSdma: 'forced',
      series: s.series,
    };
  }
  // rocSHMEM's puts with its SDMA at its own threshold or off are one engine/device curve (the put
  // API asked) whatever mover rocSHMEM used at each size; each sample's label says which.
  if (s.initiator === 'device' && s.shmemSdma !== undefined && s.shmemSdma !== 'forced') {
    const named = s.wavesPerCu !== undefined;
    const waveSize = s.waveSize ?? DEFAULT_WAVE_SIZE;
    const split = s.split ?? 1;
    return {
      path: 'engine/device',
      cus: 0,
      threads: named ? s.wavesPerCu! * waveSize : 0,
      ...(named ? { wavesPerCu: s.wavesPerCu, waveSize } : {}),
      split,
      ...(split > 1 && s.splitOver ? { splitOver: s.splitOver } : {}),
      batch: 0,
      shmemSdma: s.shmemSdma,
    };
  }
  const path = pathName(s.mover, s.initiator);
  const cuPath = s.mover === 'cu';
  const named = s.wavesPerCu !== undefined && (cuPath || path === 'engine/device');
  const waveSize = s.waveSize ?? DEFAULT_WAVE_SIZE;
  let threads = 0;
  if (cuPath) threads = named ? s.wavesPerCu! * waveSize : DEFAULT_THREADS_PER_CU;
  else if (named) threads = s.wavesPerCu! * waveSize;
  const split = s.mover === 'engine' ? (s.split ?? 1) : 1;
  return {
    path,
    // Engine series are one series whatever CU count the helper reported (0 or the issuing CU).
    cus: cuPath ? s.cus : 0,
    threads,
    ...(named ? { wavesPerCu: s.wavesPerCu, waveSize } : {}),
    split,
    ...(split > 1 && s.splitOver ? { splitOver: s.splitOver } : {}),
    batch: path === 'engine/host' ? (s.batch ?? 0) : 0,
    shmemSdma: path === 'engine/device' ? (s.shmemSdma ?? 'forced') : 'forced',
  };
}

/** The key of normalised dimensions (what `seriesKey` gives for a sample of them). */
export function dimensionsKey(d: SeriesDimensions): string {
  return [d.path, d.cus, d.threads, d.split, d.batch, d.shmemSdma, d.series ?? ''].join('|');
}

/** The key two samples share exactly when they belong to one series (pair and size not included). */
export function seriesKey(s: SeriesDims): string {
  return dimensionsKey(seriesDimensions(s));
}

/** The key of a series beside its endpoints: two series of one run are one curve exactly when they share it. */
export function pairSeriesKey(s: SeriesDims & { src: number; dst: number }): string {
  return `${s.src}:${s.dst}|${seriesKey(s)}`;
}

/** Whether normalised dimensions are the default of their path at their CU count (what runs saved before hold). */
export function isDefaultDimensions(d: SeriesDimensions): boolean {
  const defaultThreads = d.path.startsWith('cu/') && !d.series ? DEFAULT_THREADS_PER_CU : 0;
  return d.threads === defaultThreads && d.split === 1 && d.batch === 0 && d.shmemSdma === 'forced';
}

/** Whether a sample is of the default series of its path at its CU count (what runs saved before hold). */
export function isDefaultDims(s: SeriesDims): boolean {
  return isDefaultDimensions(seriesDimensions(s));
}

/**
 * The display order of two series of one pair: path, the helper's own before the runtime
 * default, CU count, threads, split, batch, rocSHMEM SDMA mode.
 */
export function compareDimensions(a: SeriesDimensions, b: SeriesDimensions): number {
  return (
    PATHS.indexOf(a.path) - PATHS.indexOf(b.path) ||
    (a.series ? 1 : 0) - (b.series ? 1 : 0) ||
    a.cus - b.cus ||
    a.threads - b.threads ||
    a.split - b.split ||
    a.batch - b.batch ||
    SHMEM_SDMA.indexOf(a.shmemSdma) - SHMEM_SDMA.indexOf(b.shmemSdma)
  );
}

/** "wave" for wave64, "warp" for 32-thread warps. */
export function waveWord(waveSize: number | undefined, n: number): string {
  const word = waveSize === 32 ? 'warp' : 'wave';
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Normalised dimensions or a sample's fields, for the words and columns below. */
const dimensionsOf = (s: SeriesDims | SeriesDimensions): SeriesDimensions => ('threads' in s ? s : seriesDimensions(s));

/**
 * The words a series adds to its path and CU count, empty for the defaults: "1 wave/CU",
 * "4 streams", "batch of 8", "rocSHMEM SDMA off". Joined with " · " by the views.
 */
export function dimensionWords(s: SeriesDims | SeriesDimensions): string[] {
  const d = dimensionsOf(s);
  const words: string[] = [];
  if (d.wavesPerCu !== undefined) {
    const w = waveWord(d.waveSize, d.wavesPerCu);
    words.push(d.path === 'engine/device' ? `${w} issuing` : `${w}/CU`);
  }
  if (d.split > 1) words.push(`${d.split} ${d.splitOver ?? 'engines'}`);
  if (d.batch > 0) words.push(`batch of ${d.batch}`);
  if (d.shmemSdma === 'library') words.push("rocSHMEM's threshold");
  if (d.shmemSdma === 'off') words.push('rocSHMEM SDMA off');
  return words;
}

/** The export columns of a series' dimensions, in the order of `dimensionCells`. */
export const DIMENSION_COLUMNS = [
  'waves per CU',
  'wave size',
  'split',
  'split over',
  'batch',
  'rocSHMEM SDMA',
] as const;

/**
 * A series' dimensions as export cells: the waves and their size where the series names them
 * (empty: the default threads), the split (1: one copy), what it split over, the batch (0: the
 * single-copy API) and rocSHMEM's SDMA mode on engine/device (empty elsewhere).
 */
export function dimensionCells(s: SeriesDims | SeriesDimensions): (string | number | null)[] {
  const d = dimensionsOf(s);
  return [
    d.wavesPerCu ?? null,
    d.waveSize ?? null,
    d.split,
    d.splitOver ?? null,
    d.batch,
    d.path === 'engine/device' && !d.series ? d.shmemSdma : null,
  ];
}

/**
 * The sample fields of normalised dimensions, each only where it is not the default (as the helper
 * prints them): what a JSON export writes beside a series.
 */
export function dimensionFields(
  s: SeriesDims | SeriesDimensions,
): Pick<Sample, 'wavesPerCu' | 'waveSize' | 'split' | 'splitOver' | 'batch' | 'shmemSdma'> {
  const d = dimensionsOf(s);
  return {
    ...(d.wavesPerCu !== undefined ? { wavesPerCu: d.wavesPerCu, waveSize: d.waveSize as 32 | 64 } : {}),
    ...(d.split > 1 ? { split: d.split, ...(d.splitOver ? { splitOver: d.splitOver } : {}) } : {}),
    ...(d.batch > 0 ? { batch: d.batch } : {}),
    ...(d.shmemSdma !== 'forced' ? { shmemSdma: d.shmemSdma } : {}),
  };
}
