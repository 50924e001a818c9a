/**
 * The bundle of every command but the sweep (dist/cli-commands.js, scripts/build.mjs), their
 * shared code in it once. Each command's module is evaluated only when its command runs (each
 * `import()` here is a lazy initializer inside the bundle), so a command evaluates only its own
 * code and what it imports.
 */
import type { CommandBundle } from '../commandTable';

export const matrix = (): Promise<CommandBundle> => import('./matrix');
export const collective = (): Promise<CommandBundle> => import('./collective');
const importBundle = (): Promise<CommandBundle> => import('./import');
export { importBundle as import };
export const fleet = (): Promise<CommandBundle> => import('./fleet');
export const saved = (): Promise<CommandBundle> => import('./saved');
export const compare = (): Promise<CommandBundle> => import('./compare');
