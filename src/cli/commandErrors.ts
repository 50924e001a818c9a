/**
 * The errors a command ends with that main.ts tells apart. Every command bundle
 * (src/cli/bundles/) exports them: main.ts checks an error against the classes of the bundle
 * that threw it.
 */
export { RunFileError } from '../core/runs/runStore';
export { HelperError } from '../core/runtime/helper';
export { HelpRequested } from './flags';
export { UsageError } from './options';
