/**
 * Which module serves each command. Each module (src/cli/bundles/) holds one command (or two
 * that share a file) with what it needs and the errors main.ts tells apart
 * (commandErrors.ts). The package builds the sweep's as a file of its own (dist/cli-sweep.js)
 * and the others as one file (dist/cli-commands.js, src/cli/bundles/commands.ts), each required
 * only when a command it serves runs: `--help`, `--version` and a mistyped command load neither.
 */
import type { RunFileError } from '../core/runs/runStore';
import type { HelperError } from '../core/runtime/helper';
import type { HelpRequested } from './flags';
import type { UsageError } from './options';
import type { CommandName } from './usage';

/** A command that starts the helper: a signal cancels its run. */
export type RunCommands = Partial<Record<CommandName, (argv: string[], signal: AbortSignal) => Promise<number>>>;
/** A command that only reads saved runs: a signal ends it as it ends any program. */
export type ReadCommands = Partial<Record<CommandName, (argv: string[]) => Promise<number>>>;

/** What a bundle exports. */
export interface CommandBundle {
  RUNS: RunCommands;
  READS: ReadCommands;
  RunFileError: typeof RunFileError;
  HelperError: typeof HelperError;
  HelpRequested: typeof HelpRequested;
  UsageError: typeof UsageError;
}

/** Every other command's bundle: one file whose commands are evaluated one at a time. */
const commands = () => import('./bundles/commands');

/**
 * Each command module's loader. The sweep, the command a user runs most and the one whose start
 * is measured (bench/cliStart.bench.ts), is a bundle of its own: a smaller file to read and a
 * smaller code cache than the shared bundle's. The imports are literal paths: the build replaces
 * each with a require of its bundle's file (scripts/build.mjs, cliBundles).
 */
export const BUNDLES = {
  sweep: (): Promise<CommandBundle> => import('./bundles/sweep'),
  matrix: (): Promise<CommandBundle> => commands().then((b) => b.matrix()),
  collective: (): Promise<CommandBundle> => commands().then((b) => b.collective()),
  import: (): Promise<CommandBundle> => commands().then((b) => b.import()),
  fleet: (): Promise<CommandBundle> => commands().then((b) => b.fleet()),
  saved: (): Promise<CommandBundle> => commands().then((b) => b.saved()),
  compare: (): Promise<CommandBundle> => commands().then((b) => b.compare()),
};

/** The bundle of each command. */
export const BUNDLE_OF: Record<CommandName, keyof typeof BUNDLES> = {
  sweep: 'sweep',
  matrix: 'matrix',
  collective: 'collective',
  overlap: 'collective',
  import: 'import',
  fleet: 'fleet',
  advise: 'saved',
  runs: 'saved',
  compare: 'compare',
};

/** Loads the bundle that serves `command`. */
export function loadCommand(command: CommandName): Promise<CommandBundle> {
  return BUNDLES[BUNDLE_OF[command]]();
}
