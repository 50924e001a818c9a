/** `sdma-lens advise` and `runs`, a bundle of their own (dist/cli-saved.js, scripts/build.mjs). */
import { advise, runs } from '../commands/saved';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = {};
export const READS: ReadCommands = { advise, runs };
