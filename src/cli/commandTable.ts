/**
 * Which bundle serves each command. Each bundle (src/cli/bundles/) holds one command (or two
 * that share a file) with what it needs and the errors main.ts tells apart
 * (commandErrors.ts); the package builds each as a file of its own (dist/cli-<bundle>.js,
 * scripts/build.mjs), required only when its command runs, so a command compiles only its own
 * code: `--help`, `--version` and a mistyped command load none of them.
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

/**
 * The bundles. Each import is a literal path: the build replaces it with a require of the
 * bundle's file (scripts/build.mjs, cliBundles).
 */
export const BUNDLES = {
  sweep: (): Promise<CommandBundle> => import('./bundles/sweep'),
  matrix: (): Promise<CommandBundle> => import('./bundles/matrix'),
  collective: (): Promise<CommandBundle> => import('./bundles/collective'),
  import: (): Promise<CommandBundle> => import('./bundles/import'),
  fleet: (): Promise<CommandBundle> => import('./bundles/fleet'),
  saved: (): Promise<CommandBundle> => import('./bundles/saved'),
  compare: (): Promise<CommandBundle> => import('./bundles/compare'),
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
