/** `sdma-lens compare`, one module of the other commands' bundle (dist/cli-commands.js, commands.ts), evaluated when it runs. */
import { compare } from '../commands/compare';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = {};
export const READS: ReadCommands = { compare };
