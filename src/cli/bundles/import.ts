/** `sdma-lens import`, one module of the other commands' bundle (dist/cli-commands.js, commands.ts), evaluated when it runs. */
import { importFiles } from '../commands/import';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { import: importFiles };
export const READS: ReadCommands = {};
