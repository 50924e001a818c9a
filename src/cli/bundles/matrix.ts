/** `sdma-lens matrix`, a bundle of its own (dist/cli-matrix.js, scripts/build.mjs). */
import { matrix } from '../commands/matrix';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { matrix };
export const READS: ReadCommands = {};
