/** `sdma-lens collective` and `overlap`, one module of the other commands' bundle (dist/cli-commands.js, commands.ts), evaluated when one of them runs. */
import { collective } from '../commands/collective';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = {
  collective: (argv, signal) => collective('collective', argv, signal),
  overlap: (argv, signal) => collective('overlap', argv, signal),
};
export const READS: ReadCommands = {};
