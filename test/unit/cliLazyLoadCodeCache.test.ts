/**
 * The code cache of the CLI's command bundles (requireBundle.ts): it lives in the user's cache
 * folder, is written after a command ran and used by the next start, is keyed by the bundle's
 * file and Node, and a cache that is foreign, too large or cannot be written costs nothing but
 * the compile.
 */
import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_CACHE_BYTES,
  cacheKey,
  compileCacheDir,
  readCache,
  requireBundle,
  saveCodeCache,
} from '../../src/cli/requireBundle';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-code-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Node >= 22.1 keeps the cache itself: these checks are of this file's own cache. */
const ownCache = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache !== 'function';

function bundle(name: string, body: string): string {
  const file = join(dir, 'dist', name);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(file, body);
  return file;
}

describe('the code cache of the command bundles', () => {
  it('is under the user cache folder, never a relative one', () => {
    expect(compileCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/sdma-lens/compile-cache');
    expect(compileCacheDir({ XDG_CACHE_HOME: 'relative' })).toMatch(/^\/.*\/\.cache\/sdma-lens\/compile-cache$/);
  });

  it.runIf(ownCache)('is written after the command and used by the next start', () => {
    const env = { XDG_CACHE_HOME: join(dir, 'cache') };
    bundle('cli-x.js', 'exports.answer = (x) => x * 2; exports.dirname = __dirname; exports.req = typeof require;');
    const first = requireBundle('cli-x.js', { dir: join(dir, 'dist'), env }) as Record<string, unknown>;
    expect((first.answer as (x: number) => number)(21)).toBe(42);
    expect(first.dirname).toBe(join(dir, 'dist'));
    expect(first.req).toBe('function');
    saveCodeCache();
    const cacheDir = compileCacheDir(env);
    expect(readdirSync(cacheDir)).toEqual(['cli-x.js.v8cache']);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const cacheFile = join(cacheDir, 'cli-x.js.v8cache');
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(cacheFile, 'utf8').split('\n')[0]!;
    expect(key).toContain(process.version);
    const written = statSync(cacheFile).mtimeMs;
    // The second start reads it and writes nothing.
    const second = requireBundle('cli-x.js', { dir: join(dir, 'dist'), env }) as Record<string, unknown>;
    expect((second.answer as (x: number) => number)(2)).toBe(4);
    saveCodeCache();
    expect(statSync(cacheFile).mtimeMs).toBe(written);
    expect(readCache(cacheFile, key)?.length).toBeGreaterThan(0);
  });

  it.runIf(ownCache)(
    'is used whether it is larger or smaller than the bundle, and text beyond ASCII stays UTF-8',
    () => {
      const env = { XDG_CACHE_HOME: join(dir, 'cache') };
      // A long comment: the bundle's text is larger than its cache (read into the same buffer).
      bundle('cli-big.js', `/*${'x'.repeat(200_000)}*/ exports.arrow = "→ (U+2192)"; exports.n = () => 7;`);
      const loads = () => requireBundle('cli-big.js', { dir: join(dir, 'dist'), env }) as Record<string, unknown>;
      const first = loads();
      expect(first.arrow).toBe('→ (U+2192)');
      saveCodeCache();
      const cacheFile = join(compileCacheDir(env), 'cli-big.js.v8cache');
      const written = statSync(cacheFile).mtimeMs;
      expect(statSync(cacheFile).size).toBeLessThan(200_000);
      const second = loads();
      expect(second.arrow).toBe('→ (U+2192)');
      expect((second.n as () => number)()).toBe(7);
      // Accepted: nothing to write again.
      saveCodeCache();
      expect(statSync(cacheFile).mtimeMs).toBe(written);
    },
  );

  it.runIf(ownCache)('is not used for a bundle that changed: a new file makes a new key', () => {
    const env = { XDG_CACHE_HOME: join(dir, 'cache') };
    const file = bundle('cli-y.js', 'exports.v = 1;');
    expect(requireBundle('cli-y.js', { dir: join(dir, 'dist'), env })).toMatchObject({ v: 1 });
    saveCodeCache();
    // Same length, same time: another text, another inode.
    rmSync(file);
    bundle('cli-y.js', 'exports.v = 2;');
    utimesSync(file, new Date(0), new Date(0));
    expect(requireBundle('cli-y.js', { dir: join(dir, 'dist'), env })).toMatchObject({ v: 2 });
    saveCodeCache();
  });

  it('reads only a cache file of its own key, within its bound', () => {
    const file = join(dir, 'c.v8cache');
    const key = cacheKey({ size: 1n, mtimeNs: 2n, ino: 3n, dev: 4n });
    writeFileSync(file, Buffer.concat([Buffer.from(`${key}\n`), Buffer.from([1, 2, 3])]));
    expect([...(readCache(file, key) ?? [])]).toEqual([1, 2, 3]);
    expect(readCache(file, cacheKey({ size: 1n, mtimeNs: 2n, ino: 3n, dev: 5n }))).toBeUndefined();
    writeFileSync(file, 'not a cache');
    expect(readCache(file, key)).toBeUndefined();
    expect(readCache(join(dir, 'missing'), key)).toBeUndefined();
    expect(readCache(dir, key)).toBeUndefined();
    expect(MAX_CACHE_BYTES).toBeLessThanOrEqual(64 * 1024 * 1024);
  });

  it('a FIFO or a link at the cache name is not waited on or followed', () => {
    const key = cacheKey({ size: 1n, mtimeNs: 2n, ino: 3n, dev: 4n });
    const real = join(dir, 'real.v8cache');
    writeFileSync(real, Buffer.concat([Buffer.from(`${key}\n`), Buffer.from([1, 2, 3])]));
    const link = join(dir, 'link.v8cache');
    symlinkSync(real, link);
    expect(readCache(link, key)).toBeUndefined();
    const fifo = join(dir, 'fifo.v8cache');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // With no writer, a blocking open would never return and this test would time out.
    expect(readCache(fifo, key)).toBeUndefined();
  });

  it.runIf(process.getuid?.() === 0)("another user's cache file is not read", () => {
    const key = cacheKey({ size: 1n, mtimeNs: 2n, ino: 3n, dev: 4n });
    const file = join(dir, 'theirs.v8cache');
    writeFileSync(file, Buffer.concat([Buffer.from(`${key}\n`), Buffer.from([1, 2, 3])]));
    expect(readCache(file, key)?.length).toBe(3);
    chownSync(file, 12345, 12345);
    expect(readCache(file, key)).toBeUndefined();
  });

  it('loads the bundle when the cache folder cannot be written or holds junk', () => {
    // The cache home is a file: no folder can be made under it.
    writeFileSync(join(dir, 'home'), 'x');
    const env = { XDG_CACHE_HOME: join(dir, 'home') };
    bundle('cli-z.js', 'exports.z = 3;');
    expect(requireBundle('cli-z.js', { dir: join(dir, 'dist'), env })).toMatchObject({ z: 3 });
    expect(() => saveCodeCache()).not.toThrow();
    // A cache file that is not one.
    const env2 = { XDG_CACHE_HOME: join(dir, 'cache2') };
    mkdirSync(compileCacheDir(env2), { recursive: true });
    writeFileSync(join(compileCacheDir(env2), 'cli-z.js.v8cache'), 'junk\njunk');
    expect(requireBundle('cli-z.js', { dir: join(dir, 'dist'), env: env2 })).toMatchObject({ z: 3 });
    saveCodeCache();
  });

  it('an import() in a bundle loads as in a required file', async () => {
    const env = { XDG_CACHE_HOME: join(dir, 'cache') };
    bundle('cli-i.js', 'exports.sep = () => import("node:path").then((m) => m.sep);');
    const b = requireBundle('cli-i.js', { dir: join(dir, 'dist'), env }) as { sep: () => Promise<string> };
    expect(await b.sep()).toBe('/');
    saveCodeCache();
  });

  it('a bundle that throws at load throws to the caller, once', () => {
    const env = { XDG_CACHE_HOME: join(dir, 'cache') };
    bundle('cli-t.js', 'globalThis.__sdmaLoads = (globalThis.__sdmaLoads ?? 0) + 1; throw new Error("broken bundle");');
    expect(() => requireBundle('cli-t.js', { dir: join(dir, 'dist'), env })).toThrow('broken bundle');
    expect((globalThis as { __sdmaLoads?: number }).__sdmaLoads).toBe(1);
    saveCodeCache();
  });
});
