/** Where the CLI keeps what it may forget: the helper's `--version` answers, compiled code. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The user's cache folder of sdma-lens. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG rule: a relative $XDG_CACHE_HOME is invalid and ignored.
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'sdma-lens');
}
