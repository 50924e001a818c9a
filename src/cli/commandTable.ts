/**
 * The commands and the errors they end with, in one module that main.ts loads only when a
 * command runs: `--help`, `--version` and a mistyped command never load it. The package builds
 * it as a bundle of its own (dist/cli-commands.js, scripts/build.mjs).
 */
import { collective } from './commands/collective';
import { compare } from './commands/compare';
import { fleet } from './commands/fleet';
import { importFiles } from './commands/import';
import { matrix } from './commands/matrix';
import { advise, runs } from './commands/saved';
import { sweep } from './commands/sweep';
import type { CommandName } from './usage';

export { RunFileError } from '../core/runs/runStore';
export { HelperError } from '../core/runtime/helper';
export { HelpRequested } from './flags';
export { UsageError } from './options';

/** The commands that start the helper: a signal cancels their run. */
export const RUNS: Partial<Record<CommandName, (argv: string[], signal: AbortSignal) => Promise<number>>> = {
  sweep,
  matrix,
  collective: (argv, signal) => collective('collective', argv, signal),
  overlap: (argv, signal) => collective('overlap', argv, signal),
  import: importFiles,
  fleet,
};

/** The commands that only read saved runs: a signal ends them as it ends any program. */
export const READS: Partial<Record<CommandName, (argv: string[]) => Promise<number>>> = { advise, runs, compare };
