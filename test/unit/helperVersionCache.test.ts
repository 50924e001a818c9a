import { spawnSync } from 'node:child_process';
import {
  chownSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryVersionCache, helperStamp, probeHelper } from '../../src/core/runtime/helper';
import { FileVersionCache, MAX_BYTES, MAX_ENTRIES, parseCache, userCacheDir } from '../../src/cli/versionCache';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-version-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const LINE = 'sdma-probe 0.1.0 (protocol 1; backends: sim, cuda)';

/** An executable that answers --version with `line` and counts its runs in `<path>.runs`. */
function countingHelper(name: string, line = LINE, extra = ''): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho x >> '${path}.runs'\necho '${line}'\n${extra}`);
  chmodSync(path, 0o755);
  return path;
}
const runs = (path: string) => (existsSync(`${path}.runs`) ? readFileSync(`${path}.runs`, 'utf8').length / 2 : 0);

describe('the helper --version cache', () => {
  it('asks a binary once, and again once it changes (size, time or a replacing file)', async () => {
    const helper = countingHelper('sdma-probe');
    const cache = new FileVersionCache(join(dir, 'cache'));
    expect(await probeHelper(helper, 'setting', undefined, cache)).toMatchObject({ version: '0.1.0', path: helper });
    // A new process reads the file the first one wrote.
    const later = new FileVersionCache(join(dir, 'cache'));
    expect(await probeHelper(helper, 'setting', undefined, later)).toMatchObject({ version: '0.1.0' });
    expect(runs(helper)).toBe(1);

    // Rebuilt: another size.
    writeFileSync(
      helper,
      `#!/bin/sh\necho x >> '${helper}.runs'\necho 'sdma-probe 0.2.0 (protocol 1; backends: sim)'\n`,
    );
    expect(await probeHelper(helper, 'setting', undefined, new FileVersionCache(join(dir, 'cache')))).toMatchObject({
      version: '0.2.0',
    });
    expect(runs(helper)).toBe(2);

    // Replaced by a rename (same size): another inode.
    const other = countingHelper('other', 'sdma-probe 0.3.0 (protocol 1; backends: sim)');
    writeFileSync(`${other}.runs`, '');
    renameSync(other, helper);
    expect(await probeHelper(helper, 'setting', undefined, new FileVersionCache(join(dir, 'cache')))).toMatchObject({
      version: '0.3.0',
    });
  });

  it('keeps one entry per path, at most MAX_ENTRIES, and never a refused answer', async () => {
    const cache = new FileVersionCache(join(dir, 'cache'));
    for (let i = 0; i < MAX_ENTRIES + 3; i++) await probeHelper(countingHelper(`h${i}`), 'bundled', undefined, cache);
    const entries = parseCache(readFileSync(cache.file, 'utf8'));
    expect(entries).toHaveLength(MAX_ENTRIES);
    const old = countingHelper('old', 'sdma-probe 0.0.1 (protocol 0; backends: sim)');
    await expect(probeHelper(old, 'setting', undefined, cache)).rejects.toThrow(/protocol 0/);
    await expect(probeHelper(old, 'setting', undefined, cache)).rejects.toThrow(/protocol 0/);
    expect(runs(old)).toBe(2);
  });

  it('ignores a bad cache file, asks the helper, and writes a good file over it', async () => {
    const helper = countingHelper('sdma-probe');
    const stamp = (await helperStamp(helper))!;
    const cacheDir = join(dir, 'cache');
    const bad = [
      'not json',
      '{"format":2,"entries":[]}',
      JSON.stringify({ format: 1, entries: [{ ...stamp, line: 'sdma-probe 0.1.0 (protocol 0; backends: sim)' }] }),
      JSON.stringify({ format: 1, entries: [{ ...stamp, size: -1, line: LINE }] }),
      JSON.stringify({ format: 1, entries: [{ ...stamp, mtimeNs: 1, line: LINE }] }),
      JSON.stringify({ format: 1, entries: [{ ...stamp, line: LINE }], pad: 'x'.repeat(MAX_BYTES) }),
    ];
    let expected = 0;
    for (const text of bad) {
      const cache = new FileVersionCache(cacheDir);
      await import('node:fs/promises').then((fs) => fs.mkdir(cacheDir, { recursive: true }));
      writeFileSync(cache.file, text);
      // A protocol-0 answer in the cache is not believed: the helper is asked and says protocol 1.
      expect(await probeHelper(helper, 'setting', undefined, cache)).toMatchObject({ protocol: 1 });
      expect(runs(helper)).toBe(++expected);
      expect(parseCache(readFileSync(cache.file, 'utf8'))).toEqual([{ ...stamp, line: LINE }]);
    }
    // A folder where the file should be: no crash, the helper is asked every time.
    rmSync(join(cacheDir, 'helper-version.json'));
    const blocked = new FileVersionCache(cacheDir);
    await import('node:fs/promises').then((fs) => fs.mkdir(blocked.file));
    await probeHelper(helper, 'setting', undefined, blocked);
    await probeHelper(helper, 'setting', undefined, new FileVersionCache(cacheDir));
    expect(runs(helper)).toBe(expected + 2);
  });

  it('a FIFO or a link at the cache name is not waited on or followed', async () => {
    const helper = countingHelper('sdma-probe');
    const stamp = await helperStamp(helper);
    if (!stamp) throw new Error('no stamp');
    const good = new FileVersionCache(join(dir, 'good'));
    await good.set(stamp, LINE);
    expect(new FileVersionCache(join(dir, 'good')).get(stamp)).toBe(LINE);
    const linked = join(dir, 'linked');
    mkdirSync(linked);
    symlinkSync(good.file, join(linked, 'helper-version.json'));
    expect(new FileVersionCache(linked).get(stamp)).toBeUndefined();
    const fifo = join(dir, 'fifo');
    mkdirSync(fifo);
    expect(spawnSync('mkfifo', [join(fifo, 'helper-version.json')]).status).toBe(0);
    // With no writer, a blocking open would never return and this test would time out.
    expect(new FileVersionCache(fifo).get(stamp)).toBeUndefined();
  });

  it.runIf(process.getuid?.() === 0)("another user's cache file names no helper", async () => {
    const helper = countingHelper('sdma-probe');
    const stamp = await helperStamp(helper);
    if (!stamp) throw new Error('no stamp');
    const theirs = new FileVersionCache(join(dir, 'theirs'));
    await theirs.set(stamp, LINE);
    expect(new FileVersionCache(join(dir, 'theirs')).get(stamp)).toBe(LINE);
    chownSync(theirs.file, 12345, 12345);
    expect(new FileVersionCache(join(dir, 'theirs')).get(stamp)).toBeUndefined();
  });

  it('remembers in memory for the extension, by the same stamp', async () => {
    const helper = countingHelper('sdma-probe');
    const cache = new MemoryVersionCache();
    await probeHelper(helper, 'bundled', undefined, cache);
    await probeHelper(helper, 'bundled', undefined, cache);
    expect(runs(helper)).toBe(1);
    writeFileSync(helper, readFileSync(helper, 'utf8') + '\n');
    await probeHelper(helper, 'bundled', undefined, cache);
    expect(runs(helper)).toBe(2);
  });

  it('lives under $XDG_CACHE_HOME when it is absolute, else ~/.cache', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/sdma-lens');
    expect(userCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/\.cache\/sdma-lens$/);
    expect(userCacheDir({})).toMatch(/\.cache\/sdma-lens$/);
  });
});
