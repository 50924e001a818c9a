/** `sdma-lens import`, a bundle of its own (dist/cli-import.js, scripts/build.mjs). */
import { importFiles } from '../commands/import';
import type { ReadCommands, RunCommands } from '../commandTable';

export * from '../commandErrors';
export const RUNS: RunCommands = { import: importFiles };
export const READS: ReadCommands = {};
