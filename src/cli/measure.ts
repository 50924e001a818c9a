/**
 * The sweep's and the matrix's options from the command line, one reading for every command
 * that runs them (`sweep`, `matrix`, and each node of `fleet`). Each is checked whole by its
 * core (`sweepArgs`, `matrixArgs`), so a bad flag is a usage error before anything starts.
 */
import type { EndpointPair } from '../core/endpoints';
import type { MatrixOptions } from '../core/matrix/matrixOptions';
import { DEFAULT_MATRIX, matrixArgs } from '../core/matrix/matrixOptions';
import type { PathName, ShmemSdma } from '../core/protocol';
import { PATHS } from '../core/protocol';
import type { BackendChoice } from '../core/backendChoice';
import type { SweepOptions } from '../core/sweep/sweepOptions';
import { DEFAULT_SWEEP, sweepArgs } from '../core/sweep/sweepOptions';
import { asUsage, endpointList, int, list, sizeListOption, sizeOption } from './options';

/** The flags of MEASURE_OPTIONS (options.ts). */
export interface MeasureValues {
  backend?: string;
  paths?: string;
  cus?: string;
  iters?: string;
  seed?: string;
  'sim-gpus'?: string;
  'sim-delay-ms'?: string;
  fault?: string;
  'sim-weak'?: string;
}

/** The simulator and fault flags both commands pass on. */
function simulatorFlags(values: MeasureValues) {
  return {
    ...(values['sim-gpus'] !== undefined ? { simGpus: int('sim-gpus', values['sim-gpus'], 0) } : {}),
    ...(values['sim-delay-ms'] ? { simDelayMs: int('sim-delay-ms', values['sim-delay-ms'], 0) } : {}),
    ...(values.fault ? { fault: values.fault } : {}),
    ...(values['sim-weak'] ? { simWeak: values['sim-weak'] } : {}),
  };
}

/** The sweep's flags of the seed's dimensions (`sdma-lens sweep`). */
export interface DimensionValues {
  'waves-per-cu'?: string;
  engines?: string;
  batch?: string;
  'shmem-sdma'?: string;
}

/** A comma list of whole numbers, as `--cus` reads one. */
const intList = (flag: string, text: string) => text.split(',').map((c) => int(flag, c.trim(), 0));

/** `--waves-per-cu`, `--engines`, `--batch`, `--shmem-sdma` as sweep options (checked whole by `sweepArgs`). */
function dimensionFlags(values: DimensionValues): Partial<SweepOptions> {
  return {
    ...(values['waves-per-cu'] !== undefined ? { wavesPerCu: intList('waves-per-cu', values['waves-per-cu']) } : {}),
    ...(values.engines !== undefined ? { engines: intList('engines', values.engines) } : {}),
    ...(values.batch !== undefined ? { batch: intList('batch', values.batch) } : {}),
    ...(values['shmem-sdma'] !== undefined
      ? { shmemSdma: list<ShmemSdma>('shmem-sdma', values['shmem-sdma'], ['forced']) }
      : {}),
  };
}

export function sweepOptionsOf(
  values: MeasureValues & DimensionValues & { sizes?: string; 'timeline-size'?: string; 'runtime-default'?: boolean },
  pairs: EndpointPair[],
): SweepOptions {
  return asUsage(() => {
    const o: SweepOptions = {
      backend: (values.backend ?? DEFAULT_SWEEP.backend) as BackendChoice,
      sizes: values.sizes !== undefined ? sizeListOption('sizes', values.sizes) : DEFAULT_SWEEP.sizes,
      paths: values.paths === 'all' ? [...PATHS] : list<PathName>('paths', values.paths, DEFAULT_SWEEP.paths),
      cus: values.cus ? values.cus.split(',').map((c) => int('cus', c.trim(), 0)) : DEFAULT_SWEEP.cus,
      iters: int('iters', values.iters, DEFAULT_SWEEP.iters),
      seed: int('seed', values.seed, DEFAULT_SWEEP.seed),
      pairs,
      ...(values['timeline-size'] !== undefined
        ? { timelineSizeBytes: sizeOption('timeline-size', values['timeline-size']) }
        : {}),
      ...simulatorFlags(values),
      ...(values['runtime-default'] === true ? { runtimeDefault: true } : {}),
      ...dimensionFlags(values),
    };
    sweepArgs(o);
    return o;
  });
}

/**
 * `size`: the copy size flag and its value (`--size` of `matrix`, `--matrix-size` of `fleet`).
 * `--cus` is one count here; `fleet` leaves it out, since its `--cus` is the sweep's list.
 */
export function matrixOptionsOf(
  values: MeasureValues & { gpus?: string; concurrent?: boolean },
  size: { flag: string; text: string | undefined },
  withCus = true,
): MatrixOptions {
  return asUsage(() => {
    const o: MatrixOptions = {
      backend: (values.backend ?? DEFAULT_MATRIX.backend) as BackendChoice,
      paths:
        values.paths === undefined || values.paths === 'all'
          ? DEFAULT_MATRIX.paths
          : list<PathName>('paths', values.paths, DEFAULT_MATRIX.paths),
      sizeBytes: size.text !== undefined ? sizeOption(size.flag, size.text) : DEFAULT_MATRIX.sizeBytes,
      iters: int('iters', values.iters, DEFAULT_MATRIX.iters),
      seed: int('seed', values.seed, DEFAULT_MATRIX.seed),
      ...(withCus && values.cus !== undefined ? { cus: int('cus', values.cus, 0) } : {}),
      ...(values.gpus !== undefined && values.gpus !== 'all' ? { gpus: endpointList('gpus', values.gpus) } : {}),
      ...(values.concurrent ? { concurrent: true } : {}),
      ...simulatorFlags(values),
    };
    matrixArgs(o);
    return o;
  });
}
