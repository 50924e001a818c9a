/** `sdma-lens compare`, a bundle of its own (dist/cli-compare.js, scripts/build.mjs). */
import { compare } from '../commands/compare';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = {};
export const READS: ReadCommands = { compare };
