/** `sdma-lens sweep`, a bundle of its own (dist/cli-sweep.js, scripts/build.mjs). */
import { sweep } from '../commands/sweep';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { sweep };
export const READS: ReadCommands = {};
