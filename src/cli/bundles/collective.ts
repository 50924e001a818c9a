/** `sdma-lens collective` and `overlap`, a bundle of their own (dist/cli-collective.js, scripts/build.mjs). */
import { collective } from '../commands/collective';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = {
  collective: (argv, signal) => collective('collective', argv, signal),
  overlap: (argv, signal) => collective('overlap', argv, signal),
};
export const READS: ReadCommands = {};
