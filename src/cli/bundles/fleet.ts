/** `sdma-lens fleet`, a bundle of its own (dist/cli-fleet.js, scripts/build.mjs). */
import { fleet } from '../commands/fleet';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { fleet };
export const READS: ReadCommands = {};
