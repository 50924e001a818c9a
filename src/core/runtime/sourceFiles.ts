/**
 * The helper's source tree as the extension uses it: the files its build hash covers and an
 * SSH node receives. Build folders (`build`, `build-*`) and dot-folders are left out at
 * every level, so a developer's own builds neither change the hash nor travel to a node.
 */
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

const skipped = (folder: string) => folder === 'build' || folder.startsWith('build-') || folder.startsWith('.');

/** The relative paths (with "/") of the files, in a stable order. */
export async function sourceFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (!skipped(e.name)) await walk(full);
      } else if (e.isFile()) {
        out.push(relative(root, full).split(sep).join('/'));
      }
    }
  };
  await walk(root);
  return out;
}
