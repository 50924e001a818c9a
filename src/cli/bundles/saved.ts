/** `sdma-lens advise` and `runs`, one module of the other commands' bundle (dist/cli-commands.js, commands.ts), evaluated when one of them runs. */
import { advise, runs } from '../commands/saved';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = {};
export const READS: ReadCommands = { advise, runs };
