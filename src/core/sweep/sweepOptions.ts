/**
 * What a user asks a transfer sweep to do, checked and turned into helper arguments. The
 * values come from settings, quick picks and CLI flags, so every field is checked here,
 * once, with a message that names the setting-level problem.
 */
import type { BackendChoice } from '../backendChoice';
import { BACKEND_CHOICES } from '../backendChoice';
import type { EndpointPair } from '../endpoints';
import {
  PAIR_PATTERN,
  checkPair,
  endpointArg,
  isEndpoint,
  pairArg,
  pairName,
  parsePair,
  uniquePairs,
} from '../endpoints';
import type { PathName, ShmemSdma } from '../protocol';
import { PATHS, SHMEM_SDMA } from '../protocol';
import { LIMITS as HELPER_LIMITS, isFaultSpec, isSimWeakSpec, sizeRangeText } from '../limits';
import { MAX_SIZE_BYTES, formatSizeArg } from '../units';

export interface SweepOptions {
  backend: BackendChoice;
  sizes: number[];
  paths: PathName[];
  cus: number[];
  iters: number;
  seed: number;
  /**
   * The endpoint pairs to sweep (`-1` = host); empty: the node's default (GPU 0 → GPU 1 with
   * two or more GPUs; host → GPU 0, GPU 0 → host, GPU 0 local with one), which the helper picks.
   */
  pairs: EndpointPair[];
  /** Simulator only: the simulated node's GPU count (1..8; the helper's default is 8). */
  simGpus?: number;
  /** Record a timeline at this size (one iteration per path); none when undefined. */
  timelineSizeBytes?: number;
  timelineOut?: string;
  /** Simulator only: sleep per work unit, for demos and cancellation tests. */
  simDelayMs?: number;
  /** Testing only: the helper's fault injection (see docs/PROTOCOL.md). */
  fault?: string;
  /** Simulator only: a node made weak on purpose, `WHAT=FACTOR[@HOST]` (docs/SIMULATOR.md). */
  simWeak?: string;
  /**
   * Also measure the runtime default series (`--runtime-default`, docs/MEASUREMENT.md): what a
   * plain hipMemcpyAsync gets with the user's environment (AMD and the simulator; a warning on NVIDIA).
   */
  runtimeDefault?: boolean;
  /**
   * Wavefronts (AMD wave64; NVIDIA warps of 32) per CU of the cu/* copies, and of the kernel
   * issuing engine/device puts (`--waves-per-cu`); absent or empty: the helper's default threads.
   */
  wavesPerCu?: number[];
  /** One engine copy split over each of these many engines / streams / rocSHMEM channels (`--engines`); absent: [1]. */
  engines?: number[];
  /** engine/host as one batched call of each of these many pieces (`--batch`; 0 = the single-copy API); absent: [0]. */
  batch?: number[];
  /** engine/device with rocSHMEM's SDMA forced, at its own threshold, or off (`--shmem-sdma`); absent: ["forced"]. */
  shmemSdma?: ShmemSdma[];
}

/** 13 sizes from 4 KiB to 1 GiB, denser around the hundreds-of-KiB crossover. */
export const DEFAULT_SIZES = [4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 16384, 65536, 262144, 1048576].map(
  (k) => k * 1024,
);
export const DEFAULT_CUS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

export const DEFAULT_SWEEP: SweepOptions = {
  backend: 'auto',
  sizes: DEFAULT_SIZES,
  paths: [...PATHS],
  cus: DEFAULT_CUS,
  iters: 20,
  seed: 1,
  pairs: [],
};

const LIMITS = {
  cus: HELPER_LIMITS.cusMax,
  iters: HELPER_LIMITS.itersMax,
  simDelayMs: HELPER_LIMITS.simDelayMsMax,
  listLength: HELPER_LIMITS.listLengthMax,
  pairs: HELPER_LIMITS.pairsMax,
  simGpus: HELPER_LIMITS.simGpusMax,
  wavesPerCu: HELPER_LIMITS.wavesPerCuMax,
  split: HELPER_LIMITS.splitMax,
  batch: HELPER_LIMITS.batchMax,
};

/** A list option of whole numbers in min..max, each once, 1..listLengthMax long; absent is fine. */
function checkIntList(what: string, list: unknown, min: number, max: number, allowEmpty: boolean): void {
  if (list === undefined) return;
  if (!Array.isArray(list) || (!allowEmpty && list.length === 0) || list.length > LIMITS.listLength)
    throw new Error(`${what} must list ${allowEmpty ? '0' : '1'}..${LIMITS.listLength} values`);
  for (const x of list)
    if (!isInt(x, min, max)) throw new Error(`${what}: ${String(x)} must be a whole number in ${min}..${max}`);
  if (new Set(list).size !== list.length) throw new Error(`${what} name a value twice (${list.join(', ')})`);
}

function isInt(x: unknown, min: number, max: number): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max;
}

/** Throws an Error naming the first invalid field. */
export function checkSweepOptions(o: SweepOptions): SweepOptions {
  if (!(BACKEND_CHOICES as readonly string[]).includes(o.backend))
    throw new Error(`backend must be one of ${BACKEND_CHOICES.join(', ')} (got "${String(o.backend)}")`);
  if (!Array.isArray(o.sizes) || o.sizes.length === 0 || o.sizes.length > LIMITS.listLength)
    throw new Error(`sizes must list 1..${LIMITS.listLength} sizes`);
  for (const s of o.sizes)
    if (!isInt(s, 1, MAX_SIZE_BYTES))
      throw new Error(`size ${String(s)} is not a whole number of bytes in ${sizeRangeText()}`);
  if (!Array.isArray(o.paths) || o.paths.length === 0)
    throw new Error('paths must name at least one of ' + PATHS.join(', '));
  for (const p of o.paths)
    if (!(PATHS as readonly string[]).includes(p))
      throw new Error(`unknown path "${String(p)}" (use ${PATHS.join(', ')})`);
  if (!Array.isArray(o.cus) || o.cus.length === 0 || o.cus.length > LIMITS.listLength)
    throw new Error('CU counts must list at least one count');
  for (const c of o.cus)
    if (!isInt(c, 1, LIMITS.cus)) throw new Error(`CU count ${String(c)} must be a whole number in 1..${LIMITS.cus}`);
  if (!isInt(o.iters, 1, LIMITS.iters)) throw new Error(`iterations must be a whole number in 1..${LIMITS.iters}`);
  if (!isInt(o.seed, 0, 2 ** 32 - 1)) throw new Error('seed must be a whole number in 0..4294967295');
  if (!Array.isArray(o.pairs) || o.pairs.length > LIMITS.pairs)
    throw new Error(`endpoint pairs must list at most ${LIMITS.pairs} pairs (none: the node's default)`);
  for (const p of o.pairs) {
    if (typeof p !== 'object' || p === null || !isEndpoint(p.src) || !isEndpoint(p.dst))
      throw new Error(`endpoint pair ${JSON.stringify(p)} must have src and dst, each a GPU index 0..1023 or host`);
    checkPair(p);
  }
  if (uniquePairs(o.pairs).length !== o.pairs.length)
    throw new Error(`endpoint pairs name a pair twice (${o.pairs.map(pairName).join(', ')})`);
  if (o.simGpus !== undefined) {
    if (!isInt(o.simGpus, 1, LIMITS.simGpus))
      throw new Error(`simulated GPU count must be a whole number in 1..${LIMITS.simGpus} (got ${String(o.simGpus)})`);
    if (o.backend === 'hip' || o.backend === 'cuda')
      throw new Error(
        `a simulated GPU count only applies to the sim backend (or auto without GPUs), not to ${o.backend}`,
      );
  }
  if (o.timelineSizeBytes !== undefined && !isInt(o.timelineSizeBytes, 1, MAX_SIZE_BYTES))
    throw new Error(`timeline size must be in ${sizeRangeText()}`);
  if (o.timelineOut !== undefined && (o.timelineOut.length === 0 || o.timelineOut.startsWith('-')))
    throw new Error('timeline file must be a path that does not start with "-"');
  if (o.simDelayMs !== undefined && !isInt(o.simDelayMs, 0, LIMITS.simDelayMs))
    throw new Error(`simulator delay must be in 0..${LIMITS.simDelayMs} ms`);
  if (o.fault !== undefined && !isFaultSpec(o.fault)) throw new Error(`fault "${o.fault}" is not a fault spec`);
  checkIntList('waves per CU', o.wavesPerCu, 1, LIMITS.wavesPerCu, true);
  checkIntList('engines', o.engines, 1, LIMITS.split, false);
  checkIntList('batch sizes', o.batch, 0, LIMITS.batch, false);
  if (o.shmemSdma !== undefined) {
    if (!Array.isArray(o.shmemSdma) || o.shmemSdma.length === 0)
      throw new Error(`rocSHMEM SDMA modes must list one or more of ${SHMEM_SDMA.join(', ')}`);
    for (const m of o.shmemSdma)
      if (!(SHMEM_SDMA as readonly unknown[]).includes(m))
        throw new Error(`unknown rocSHMEM SDMA mode "${String(m)}" (use ${SHMEM_SDMA.join(', ')})`);
    if (new Set(o.shmemSdma).size !== o.shmemSdma.length)
      throw new Error(`rocSHMEM SDMA modes name a mode twice (${o.shmemSdma.join(', ')})`);
  }
  if (o.simWeak !== undefined && !isSimWeakSpec(o.simWeak))
    throw new Error(
      `--sim-weak "${o.simWeak}" is not WHAT=FACTOR[@HOST] (WHAT: engine, cu, link, pcie; FACTOR in (0, 4]), comma-separated`,
    );
  return o;
}

/** The helper's argument array. Values are separate elements: nothing here is ever parsed by a shell. */
export function sweepArgs(o: SweepOptions): string[] {
  checkSweepOptions(o);
  const args = [
    'sweep',
    '--backend',
    o.backend,
    '--sizes',
    o.sizes.map(formatSizeArg).join(','),
    '--paths',
    o.paths.join(','),
    '--cus',
    o.cus.join(','),
    '--iters',
    String(o.iters),
    '--seed',
    String(o.seed),
    ...pairFlags(o.pairs),
  ];
  if (o.simGpus !== undefined) args.push('--sim-gpus', String(o.simGpus));
  if (o.timelineSizeBytes !== undefined) args.push('--timeline-size', formatSizeArg(o.timelineSizeBytes));
  if (o.timelineOut !== undefined) args.push('--timeline-out', o.timelineOut);
  if (o.simDelayMs !== undefined) args.push('--sim-delay-ms', String(o.simDelayMs));
  if (o.fault !== undefined) args.push('--fault', o.fault);
  if (o.simWeak !== undefined) args.push('--sim-weak', o.simWeak);
  if (o.runtimeDefault === true) args.push('--runtime-default');
  // The seed's dimensions, each only where it is not the helper's default (an older helper then runs as before).
  if (o.wavesPerCu !== undefined && o.wavesPerCu.length > 0) args.push('--waves-per-cu', o.wavesPerCu.join(','));
  if (o.engines !== undefined && !isOnly(o.engines, 1)) args.push('--engines', o.engines.join(','));
  if (o.batch !== undefined && !isOnly(o.batch, 0)) args.push('--batch', o.batch.join(','));
  if (o.shmemSdma !== undefined && !isOnly(o.shmemSdma, 'forced')) args.push('--shmem-sdma', o.shmemSdma.join(','));
  return args;
}

const isOnly = <T>(list: readonly T[], value: T) => list.length === 1 && list[0] === value;

/** One pair: `--src E --dst E`; several: `--pairs LIST`; none: no flag (the helper's default for the node). */
export function pairFlags(pairs: EndpointPair[]): string[] {
  if (pairs.length === 0) return [];
  if (pairs.length === 1) return ['--src', endpointArg(pairs[0]!.src), '--dst', endpointArg(pairs[0]!.dst)];
  return ['--pairs', pairs.map(pairArg).join(',')];
}

/** `sdmaLens.sweep.endpoints` as settings.json holds it, checked; throws a message the user can act on. */
export function readEndpoints(x: unknown): EndpointPair[] {
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x)) throw new Error('must be a list of "SRC:DST" strings such as ["host:0", "0:host", "0:0"]');
  const pairs = x.map((item, i) => {
    if (typeof item !== 'string' || !PAIR_PATTERN.test(item.trim()))
      throw new Error(
        `item ${i + 1} (${JSON.stringify(item)}) must be "SRC:DST" with a GPU index or host on each side, e.g. "host:0", "0:1"`,
      );
    try {
      return parsePair(item);
    } catch (err) {
      throw new Error(`item ${i + 1}: ${(err as Error).message}`);
    }
  });
  return pairs;
}
