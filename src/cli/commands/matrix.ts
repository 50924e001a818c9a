/** `sdma-lens matrix`: the GPU x GPU bandwidth matrix per copy path, printed as grids (or JSON). */
import { parseArgs } from 'node:util';
import type { MatrixOptions } from '../../core/matrix/matrixOptions';
import { DEFAULT_MATRIX, matrixArgs } from '../../core/matrix/matrixOptions';
import { matrixTable } from '../../core/matrix/matrixTable';
import { matrixPageView } from '../../core/matrix/matrixView';
import type { PathName } from '../../core/protocol';
import type { BackendChoice } from '../../core/sweep/sweepOptions';
import { parseSize } from '../../core/units';
import { runOnConsole, savedLines } from '../console';
import { MEASURE_OPTIONS, RUN_OPTIONS, asUsage, endpointList, int, list, storeOf } from '../options';

export async function matrix(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { size: { type: 'string' }, gpus: { type: 'string' }, concurrent: { type: 'boolean' }, ...MEASURE_OPTIONS, ...RUN_OPTIONS },
  });
  const options: MatrixOptions = asUsage(() => {
    const o: MatrixOptions = {
      backend: (values.backend ?? DEFAULT_MATRIX.backend) as BackendChoice,
      paths: values.paths === undefined || values.paths === 'all' ? DEFAULT_MATRIX.paths : list<PathName>(values.paths, DEFAULT_MATRIX.paths),
      sizeBytes: values.size ? parseSize(values.size) : DEFAULT_MATRIX.sizeBytes,
      iters: int('iters', values.iters, DEFAULT_MATRIX.iters),
      seed: int('seed', values.seed, DEFAULT_MATRIX.seed),
      ...(values.cus !== undefined ? { cus: int('cus', values.cus, 0) } : {}),
      ...(values.gpus !== undefined && values.gpus !== 'all' ? { gpus: endpointList('gpus', values.gpus) } : {}),
      ...(values['sim-gpus'] !== undefined ? { simGpus: int('sim-gpus', values['sim-gpus'], 0) } : {}),
      ...(values.concurrent ? { concurrent: true } : {}),
      ...(values['sim-delay-ms'] ? { simDelayMs: int('sim-delay-ms', values['sim-delay-ms'], 0) } : {}),
      ...(values.fault ? { fault: values.fault } : {}),
    };
    matrixArgs(o);
    return o;
  });
  const helperArgs = matrixArgs(options);
  const ran = await runOnConsole({ command: 'matrix', idTag: options.backend, backend: options.backend, args: () => helperArgs }, { values, signal });
  if (!ran.run) return ran.code;
  const runFile = storeOf(values).fileOf(ran.run.header.id);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ runFile, ...matrixPageView(ran.run), message: ran.run.end?.message ?? '' }, null, 2)}\n`);
  } else {
    process.stdout.write(`${matrixTable(ran.run)}\n${savedLines(runFile)}`);
  }
  return ran.code;
}
