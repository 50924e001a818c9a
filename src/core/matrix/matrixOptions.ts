/**
 * What a user asks a bandwidth matrix to do, checked and turned into helper arguments
 * (`sdma-probe matrix`, docs/MATRIX.md). Checked here once, whatever the source (command
 * arguments, CLI flags), with a message that names the field at fault.
 */
import { HOST, endpointArg } from '../endpoints';
import type { PathName } from '../protocol';
import { PATHS } from '../protocol';
import type { BackendChoice } from '../backendChoice';
import { BACKEND_CHOICES } from '../backendChoice';
import { LIMITS, isFaultSpec, isSimWeakSpec, sizeRangeText } from '../limits';
import { MAX_SIZE_BYTES, formatSizeArg } from '../units';

export interface MatrixOptions {
  backend: BackendChoice;
  paths: PathName[];
  sizeBytes: number;
  /** CUs of the cu/* paths; undefined: the helper's default (64, cut to the GPUs' CU count). */
  cus?: number;
  /** Endpoints to pair: GPU indices and -1 (host: a host row and column); undefined: every GPU of the node (host and GPU 0 on a one-GPU node). */
  gpus?: number[];
  /** Simulator only: the simulated node's GPU count (1..8). */
  simGpus?: number;
  iters: number;
  warmup?: number;
  seed: number;
  /** Every pair of a path at the same time (all-to-all) instead of each pair alone. */
  concurrent?: boolean;
  /** Simulator only: sleep per cell (per path with `concurrent`), for demos and cancellation tests. */
  simDelayMs?: number;
  /** Testing only: the helper's fault injection (see docs/PROTOCOL.md). */
  fault?: string;
  /** Simulator only: a node made weak on purpose, `WHAT=FACTOR[@HOST]` (docs/SIMULATOR.md). */
  simWeak?: string;
}

export const DEFAULT_MATRIX: MatrixOptions = {
  backend: 'auto',
  paths: [...PATHS],
  sizeBytes: 256 * 1024 ** 2,
  iters: 20,
  seed: 1,
};

const isInt = (x: unknown, min: number, max: number): x is number =>
  typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max;

/** Throws an Error naming the first invalid field. */
export function checkMatrixOptions(o: MatrixOptions): MatrixOptions {
  if (!(BACKEND_CHOICES as readonly string[]).includes(o.backend))
    throw new Error(`backend must be one of ${BACKEND_CHOICES.join(', ')} (got "${String(o.backend)}")`);
  if (!Array.isArray(o.paths) || o.paths.length === 0)
    throw new Error(`paths must name at least one of ${PATHS.join(', ')}`);
  for (const p of o.paths)
    if (!(PATHS as readonly string[]).includes(p))
      throw new Error(`unknown path "${String(p)}" (use ${PATHS.join(', ')})`);
  if (!isInt(o.sizeBytes, 1, MAX_SIZE_BYTES))
    throw new Error(`size must be a whole number of bytes in ${sizeRangeText()}`);
  if (o.cus !== undefined && !isInt(o.cus, 1, LIMITS.cusMax))
    throw new Error(`CU count ${String(o.cus)} must be a whole number in 1..${LIMITS.cusMax}`);
  if (o.gpus !== undefined) {
    if (!Array.isArray(o.gpus) || o.gpus.length < 2)
      throw new Error('GPUs must list two or more endpoints, GPU indices or host (a matrix needs pairs)');
    for (const g of o.gpus)
      if (!isInt(g, HOST, LIMITS.gpuIndexMax))
        throw new Error(`GPU index ${String(g)} must be a whole number in 0..${LIMITS.gpuIndexMax} (or host)`);
    if (new Set(o.gpus).size !== o.gpus.length)
      throw new Error(`GPUs ${o.gpus.map(endpointArg).join(',')} name an endpoint twice`);
    if (!o.gpus.some((g) => g !== HOST)) throw new Error('GPUs must name at least one GPU besides host');
  }
  if (!isInt(o.iters, 1, LIMITS.itersMax))
    throw new Error(`iterations must be a whole number in 1..${LIMITS.itersMax}`);
  if (o.warmup !== undefined && !isInt(o.warmup, 0, LIMITS.warmupMax))
    throw new Error(`warm-up iterations must be a whole number in 0..${LIMITS.warmupMax}`);
  if (!isInt(o.seed, 0, 2 ** 32 - 1)) throw new Error('seed must be a whole number in 0..4294967295');
  if (o.simGpus !== undefined && !isInt(o.simGpus, 1, LIMITS.simGpusMax))
    throw new Error(`simulated GPU count must be a whole number in 1..${LIMITS.simGpusMax} (got ${String(o.simGpus)})`);
  if (o.simGpus !== undefined && (o.backend === 'hip' || o.backend === 'cuda'))
    throw new Error(
      `a simulated GPU count only applies to the sim backend (or auto without GPUs), not to ${o.backend}`,
    );
  if (o.simDelayMs !== undefined && !isInt(o.simDelayMs, 0, LIMITS.simDelayMsMax))
    throw new Error(`simulator delay must be in 0..${LIMITS.simDelayMsMax} ms`);
  if (o.concurrent !== undefined && typeof o.concurrent !== 'boolean')
    throw new Error(`concurrent must be true or false (got ${JSON.stringify(o.concurrent)})`);
  if (o.fault !== undefined && !isFaultSpec(o.fault)) throw new Error(`fault "${o.fault}" is not a fault spec`);
  if (o.simWeak !== undefined && !isSimWeakSpec(o.simWeak))
    throw new Error(
      `--sim-weak "${o.simWeak}" is not WHAT=FACTOR[@HOST] (WHAT: engine, cu, link, pcie; FACTOR in (0, 4]), comma-separated`,
    );
  return o;
}

/** The helper's argument array. Values are separate elements: nothing here is ever parsed by a shell. */
export function matrixArgs(o: MatrixOptions): string[] {
  checkMatrixOptions(o);
  const args = [
    'matrix',
    '--backend',
    o.backend,
    '--paths',
    o.paths.join(','),
    '--size',
    formatSizeArg(o.sizeBytes),
    '--iters',
    String(o.iters),
    '--seed',
    String(o.seed),
  ];
  if (o.cus !== undefined) args.push('--cus', String(o.cus));
  if (o.gpus !== undefined) args.push('--gpus', o.gpus.map(endpointArg).join(','));
  if (o.simGpus !== undefined) args.push('--sim-gpus', String(o.simGpus));
  if (o.warmup !== undefined) args.push('--warmup', String(o.warmup));
  if (o.concurrent) args.push('--concurrent');
  if (o.simDelayMs !== undefined) args.push('--sim-delay-ms', String(o.simDelayMs));
  if (o.fault !== undefined) args.push('--fault', o.fault);
  if (o.simWeak !== undefined) args.push('--sim-weak', o.simWeak);
  return args;
}
