/**
 * `.sdma-lens/.gitignore`: runs are measurements of one machine (megabytes of NDJSON and
 * timelines), not sources, so the workspace's default runs folder keeps itself out of git.
 * Written once, when a run first makes a runs folder inside a `.sdma-lens` folder; a
 * .gitignore already there (the user's, or one they edited) is never replaced, and a link or
 * anything else at that name is left alone, never written through.
 */
import { closeSync, constants, lstatSync, openSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const SDMA_LENS_FOLDER = '.sdma-lens';

export const GITIGNORE_TEXT =
  '# Written by SDMA Lens: saved runs are measurements of this machine, not sources. Delete this file to commit them.\n*\n';

export type GitignoreOutcome = 'created' | 'exists' | 'refused' | 'not-sdma-lens';

/**
 * Writes `<runs>/../.gitignore` when the runs folder's parent is a `.sdma-lens` folder and
 * nothing is at that name. `refused`: a link (even a dangling one) or a special file is there,
 * or `.sdma-lens` itself is a link; `exists`: a regular file is there. Errors other than those
 * (a read-only disk) are thrown for the caller to ignore: a run never fails for a .gitignore.
 */
export function writeRunsGitignore(runsRoot: string): GitignoreOutcome {
  const parent = dirname(runsRoot);
  if (basename(parent) !== SDMA_LENS_FOLDER) return 'not-sdma-lens';
  if (!lstatSync(parent).isDirectory()) return 'refused';
  const file = join(parent, '.gitignore');
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st) return st.isFile() ? 'exists' : 'refused';
  let fd: number;
  try {
    // O_EXCL fails on anything at the name, a link placed since the lstat included; O_NOFOLLOW as well.
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return lstatSync(file, { throwIfNoEntry: false })?.isFile() ? 'exists' : 'refused';
    if (code === 'ELOOP') return 'refused';
    throw err;
  }
  try {
    writeSync(fd, GITIGNORE_TEXT);
  } finally {
    closeSync(fd);
  }
  return 'created';
}
