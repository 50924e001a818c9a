/**
 * A series' whole identity: its path, CU count, wavefronts per CU, split, batch and rocSHMEM SDMA
 * mode (docs/SEED-EXPERIMENTS.md). Compare, refine, tables, exports, fleet figures and advice
 * match samples on it, so a 1-wave point is never set beside a 16-wave one. A run saved before
 * these dimensions existed reads as today's defaults: its samples carry none of the fields.
 */
import type { Sample, ShmemSdma, SplitOver } from './protocol';
import { pathName, type PathName } from './protocol';

/** The threads per CU a cu/* copy ran when the sample names no waves: 1024, as the helper always has. */
export const DEFAULT_THREADS_PER_CU = 1024;

/** The fields of a sample that make up its series beyond the pair and size. */
export type SeriesDims = Pick<
  Sample,
  'mover' | 'initiator' | 'cus' | 'wavesPerCu' | 'waveSize' | 'split' | 'splitOver' | 'batch' | 'shmemSdma' | 'series'
>;

/** The dimensions of a series, normalised: every default written out. */
export interface SeriesDimensions {
  path: PathName;
  /** CUs of a cu/* series; 0 for engine series (the engine carries the bytes). */
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
  const path = pathName(s.mover, s.initiator);
  const cuPath = s.mover === 'cu';
  const named = s.wavesPerCu !== undefined && s.waveSize !== undefined;
  let threads = 0;
  if (cuPath) threads = named ? s.wavesPerCu! * s.waveSize! : DEFAULT_THREADS_PER_CU;
  else if (path === 'engine/device' && named) threads = s.wavesPerCu! * s.waveSize!;
  return {
    path,
    // Engine series are one series whatever CU count the helper reported (0 or the issuing CU).
    cus: cuPath ? s.cus : 0,
    threads,
    ...(named && (cuPath || path === 'engine/device') ? { wavesPerCu: s.wavesPerCu, waveSize: s.waveSize } : {}),
    split: s.mover === 'engine' ? (s.split ?? 1) : 1,
    ...(s.mover === 'engine' && s.splitOver && (s.split ?? 1) > 1 ? { splitOver: s.splitOver } : {}),
    batch: path === 'engine/host' ? (s.batch ?? 0) : 0,
    shmemSdma: path === 'engine/device' ? (s.shmemSdma ?? 'forced') : 'forced',
    ...(s.series ? { series: s.series } : {}),
  };
}

/** The key two samples share exactly when they belong to one series (pair and size not included). */
export function seriesKey(s: SeriesDims): string {
  const d = seriesDimensions(s);
  return [d.path, d.cus, d.threads, d.split, d.batch, d.shmemSdma, d.series ?? ''].join('|');
}

/** Whether a sample is of the default series of its path at its CU count (what runs saved before hold). */
export function isDefaultDims(s: SeriesDims): boolean {
  const d = seriesDimensions(s);
  const defaultThreads = d.path.startsWith('cu/') ? DEFAULT_THREADS_PER_CU : 0;
  return d.threads === defaultThreads && d.split === 1 && d.batch === 0 && d.shmemSdma === 'forced';
}

/** "wave" for wave64, "warp" for 32-thread warps. */
export function waveWord(waveSize: number | undefined, n: number): string {
  const word = waveSize === 32 ? 'warp' : 'wave';
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The words a series adds to its path and CU count, empty for the defaults: "1 wave",
 * "4 streams", "batch of 8", "rocSHMEM SDMA off". Joined with " · " by the views.
 */
export function dimensionWords(s: SeriesDims): string[] {
  const d = seriesDimensions(s);
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
