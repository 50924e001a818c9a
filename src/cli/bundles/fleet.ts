/** `sdma-lens fleet`, one module of the other commands' bundle (dist/cli-commands.js, commands.ts), evaluated when it runs. */
import { fleet } from '../commands/fleet';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { fleet };
export const READS: ReadCommands = {};
