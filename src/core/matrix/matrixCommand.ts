/**
 * The bandwidth matrix as the run flow runs it: one builder of its helper command for every
 * front (the editor's matrix and fleet nodes, the CLI's `matrix` and `fleet --matrix`).
 */
import type { BackendChoice } from '../backendChoice';
import type { MatrixOptions } from './matrixOptions';
import { matrixArgs } from './matrixOptions';

/**
 * A matrix's helper command, in the shape of the run flow's `HelperCommand`
 * (src/core/runtime/runFlow.ts); spelled here because this folder stays browser-safe.
 */
export interface MatrixCommand {
  command: 'matrix';
  idTag: string;
  backend: BackendChoice;
  args(out: (name: string) => string): string[];
}

/** The helper command of a matrix of `options`; its arguments are made (and so checked) now. */
export function matrixCommand(options: MatrixOptions): MatrixCommand {
  const args = matrixArgs(options);
  return { command: 'matrix', idTag: options.backend, backend: options.backend, args: () => args };
}
