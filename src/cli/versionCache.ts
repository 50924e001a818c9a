/**
 * The CLI's memory of the helper's `--version` answers between runs: a small file in the
 * user's cache folder ($XDG_CACHE_HOME/sdma-lens or ~/.cache/sdma-lens), never in a runs
 * folder nor anywhere a workspace chooses. It is outside data: read only up to MAX_BYTES,
 * every entry checked, and a file that is not what this code writes is ignored (and replaced
 * at the next write). It is written whole to a temporary file and renamed over the old one,
 * so a reader never sees half of it. A failure to read or write it costs only the check.
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HelperStamp, VersionCache } from '../core/runtime/helper';
import { parseVersionLine } from '../core/runtime/helper';
import { userCacheDir } from './userCacheDir';

export { userCacheDir };

/** The largest cache file read: a few entries take a few hundred bytes. */
export const MAX_BYTES = 16 * 1024;
/** The most entries kept; the oldest go first. */
export const MAX_ENTRIES = 8;
const FORMAT = 1;

interface Entry extends HelperStamp {
  line: string;
}

function isEntry(e: unknown): e is Entry {
  if (typeof e !== 'object' || e === null) return false;
  const o = e as Record<string, unknown>;
  return (
    typeof o.path === 'string' &&
    o.path.length > 0 &&
    o.path.length <= 4096 &&
    typeof o.size === 'number' &&
    Number.isSafeInteger(o.size) &&
    o.size >= 0 &&
    typeof o.mtimeNs === 'string' &&
    /^\d{1,30}$/.test(o.mtimeNs) &&
    typeof o.ino === 'string' &&
    /^\d{1,30}$/.test(o.ino) &&
    typeof o.line === 'string' &&
    o.line.length <= 200 &&
    parseVersionLine(o.line) !== undefined
  );
}

/** The entries of a cache file's text; none when it is not a cache file of this format. */
export function parseCache(text: string): Entry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof data !== 'object' || data === null) return [];
  const o = data as Record<string, unknown>;
  if (o.format !== FORMAT || !Array.isArray(o.entries)) return [];
  return o.entries.slice(0, MAX_ENTRIES).filter(isEntry);
}

/** The file's text, or undefined when it is missing, a link, not a plain file, another user's, or larger than MAX_BYTES. */
function readBounded(file: string): string | undefined {
  let fd: number | undefined;
  try {
    // Not blocking: a FIFO put at the cache's name is refused below, not waited on.
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW);
    const s = fstatSync(fd);
    // Another user's file could name any binary as a checked helper.
    if (!s.isFile() || s.size > MAX_BYTES || (typeof process.getuid === 'function' && s.uid !== process.getuid()))
      return undefined;
    const buf = Buffer.alloc(MAX_BYTES + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n <= MAX_BYTES; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_BYTES) return undefined;
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const same = (a: HelperStamp, b: HelperStamp) =>
  a.path === b.path && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ino === b.ino;

/** The file-backed cache at `dir`/helper-version.json. */
export class FileVersionCache implements VersionCache {
  readonly file: string;
  private entries: Entry[] | undefined;

  constructor(readonly dir: string = userCacheDir()) {
    this.file = join(dir, 'helper-version.json');
  }

  private load(): Entry[] {
    this.entries ??= parseCache(readBounded(this.file) ?? '');
    return this.entries;
  }

  get(stamp: HelperStamp): string | undefined {
    return this.load().find((e) => same(e, stamp))?.line;
  }

  async set(stamp: HelperStamp, line: string): Promise<void> {
    const entry = { path: stamp.path, size: stamp.size, mtimeNs: stamp.mtimeNs, ino: stamp.ino, line };
    if (!isEntry(entry)) return;
    // One entry per path: a rebuilt helper replaces its old answer.
    const entries = [entry, ...this.load().filter((e) => e.path !== stamp.path)].slice(0, MAX_ENTRIES);
    this.entries = entries;
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(tmp, `${JSON.stringify({ format: FORMAT, entries })}\n`, { mode: 0o600 });
      await rename(tmp, this.file);
    } catch {
      await rm(tmp, { force: true }).catch(() => {});
    }
  }
}
