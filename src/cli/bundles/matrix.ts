/** `sdma-lens matrix`, one module of the other commands' bundle (dist/cli-commands.js, commands.ts), evaluated when it runs. */
import { matrix } from '../commands/matrix';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { matrix };
export const READS: ReadCommands = {};
