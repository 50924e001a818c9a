/**
 * Requires a command's bundle (dist/cli-<name>.js, beside dist/cli.js) with V8's code cache, so
 * a command does not compile its code again at every start. The cache lives in the user's cache
 * folder ($XDG_CACHE_HOME/sdma-lens/compile-cache or ~/.cache/sdma-lens/compile-cache), never
 * beside the package nor in a workspace. Node >= 22.1 keeps it itself
 * (module.enableCompileCache); on older Node this file does: the bundle is compiled with the
 * cached data of its last run when that data was made from the same text by the same Node, and
 * otherwise the data is made after the command ran (so it holds the functions the command
 * compiled) and written for the next start (saveCodeCache). A cache that cannot be read or
 * written, or that V8 refuses, costs only the compile it would have saved.
 */
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import * as vm from 'node:vm';
import { Script } from 'node:vm';
import { userCacheDir } from './userCacheDir';

/** The largest bundle read (a command's bundle takes a few hundred KB). */
const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
/** The largest cache file read (a command's cache takes a few hundred KB). */
export const MAX_CACHE_BYTES = 32 * 1024 * 1024;
/** The largest first line (the key) of a cache file. */
const MAX_KEY = 512;
const FORMAT = 1;
/** How Node wraps a CommonJS module's text (the script's value is the module's function). */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n});'] as const;

/** Node's own loader for an `import()` in a vm script (Node >= 20.18), where there is one. */
const importAsRequired = (vm as Partial<typeof vm>).constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;

/** The cache write the command's end makes, when the cache was missing or refused. */
let pending: (() => void) | undefined;

/** The folder of the compiled code: under the user's cache folder. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userCacheDir(env), 'compile-cache');
}

/** `NODE_DISABLE_COMPILE_CACHE` (Node's own switch for its cache) turns this one off too. */
const disabled = (env: NodeJS.ProcessEnv) => env.NODE_DISABLE_COMPILE_CACHE !== undefined;

/**
 * The exports of the bundle `name`, a file in `dir` (default: beside this bundle). `env`: where
 * the user's cache folder is.
 */
export function requireBundle(
  name: string,
  { dir = __dirname, env = process.env }: { dir?: string; env?: NodeJS.ProcessEnv } = {},
): unknown {
  const file = join(dir, name);
  const load = createRequire(__filename);
  if (disabled(env)) return load(file);
  const enable = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof enable === 'function') {
    try {
      enable(compileCacheDir(env));
    } catch {
      // No cache: the bundle compiles as it would without one.
    }
    return load(file);
  }
  let script: Script;
  try {
    script = compileWithCache(file, compileCacheDir(env));
  } catch {
    return load(file);
  }
  return run(script, file);
}

/**
 * What the cached data must have been made from: this format, this Node on this machine kind,
 * and the bundle's file as it is now (its size, modification time and inode: a rebuilt or
 * reinstalled bundle is a new file). V8 refuses data made by another V8 or with other flags.
 */
export function cacheKey(s: { size: bigint; mtimeNs: bigint; ino: bigint; dev: bigint }): string {
  return `sdma-lens-code-cache ${FORMAT} ${process.version} ${process.arch} ${s.size} ${s.mtimeNs} ${s.ino} ${s.dev}`;
}

function compileWithCache(file: string, dir: string): Script {
  const [head, tail] = WRAPPER;
  const cacheFile = join(dir, `${basename(file)}.v8cache`);
  let key: string;
  let source: string;
  let cachedData: Buffer | undefined;
  const fd = openSync(file, 'r');
  const cache = openCache(cacheFile);
  try {
    const stat = fstatSync(fd, { bigint: true });
    key = cacheKey(stat);
    const size = Number(stat.size);
    if (size > MAX_BUNDLE_BYTES) throw new Error(`${file} is larger than ${MAX_BUNDLE_BYTES} bytes`);
    // One buffer for the bundle's text, wrapped as Node wraps a CommonJS module, then for the
    // cached data: V8 gets one flat string made by one copy (a wrapper joined to the text
    // would be copied again, whole, when V8 hashes it), and the cache is read into memory
    // already touched rather than into new pages.
    const length = head.length + size + tail.length;
    const buffer = Buffer.allocUnsafe(Math.max(length, cache?.size ?? 0));
    buffer.write(head, 0, 'latin1');
    if (readFully(fd, buffer.subarray(head.length, head.length + size)) !== size)
      throw new Error(`${file} could not be read whole`);
    buffer.write(tail, head.length + size, 'latin1');
    // A bundle is ASCII (esbuild escapes the rest): copied as Latin-1, not decoded as UTF-8.
    const text = buffer.subarray(0, length);
    source = isAscii(text) ? text.toString('latin1') : text.toString('utf8');
    if (cache) cachedData = readOpenCache(cache, key, buffer);
  } finally {
    closeSync(fd);
    if (cache) closeSync(cache.fd);
  }
  const script = new Script(source, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
    // An `import()` in the bundle loads as it would in a required file (the build leaves none: scripts/build.mjs).
    ...(importAsRequired ? { importModuleDynamically: importAsRequired } : {}),
  });
  if (!cachedData || script.cachedDataRejected === true) pending = () => writeCache(dir, cacheFile, key, script);
  return script;
}

/** Reads into `buf` until it is full or the file ends; the bytes read. */
function readFully(fd: number, buf: Buffer): number {
  let n = 0;
  for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
  return n;
}

/** Runs the compiled bundle as Node runs a CommonJS module; its own errors are the caller's. */
function run(script: Script, file: string): unknown {
  const wrapper = script.runInThisContext({ displayErrors: true }) as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const mod = { exports: {} as unknown, filename: file, id: file, loaded: false };
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  return mod.exports;
}

/** A file of this user (or one where there are no user ids): another user's file is not code to run. */
export function ownFile(s: { uid: number }): boolean {
  return typeof process.getuid !== 'function' || s.uid === process.getuid();
}

/** The cached data in `file` when its key is `key`; undefined when missing, another user's, foreign, too large or unreadable. */
export function readCache(file: string, key: string): Buffer | undefined {
  const cache = openCache(file);
  if (!cache) return undefined;
  try {
    return readOpenCache(cache, key, Buffer.allocUnsafe(cache.size));
  } finally {
    closeSync(cache.fd);
  }
}

/** A cache file open for reading, when it is a file of this user within MAX_CACHE_BYTES; undefined otherwise. */
function openCache(file: string): { fd: number; size: number } | undefined {
  let fd: number | undefined;
  try {
    // Not blocking: a FIFO put at the cache's name is refused below, not waited on.
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW);
    const s = fstatSync(fd);
    if (s.isFile() && ownFile(s) && s.size <= MAX_CACHE_BYTES) {
      const open = { fd, size: s.size };
      fd = undefined;
      return open;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The data of an open cache file, read into `into` (at least its size), when its first line is `key`. */
function readOpenCache(cache: { fd: number; size: number }, key: string, into: Buffer): Buffer | undefined {
  try {
    if (cache.size <= key.length + 1) return undefined;
    const buf = into.subarray(0, cache.size);
    if (readFully(cache.fd, buf) !== buf.length) return undefined;
    const eol = buf.indexOf(10);
    if (eol < 0 || eol > MAX_KEY || buf.toString('utf8', 0, eol) !== key) return undefined;
    return buf.subarray(eol + 1);
  } catch {
    return undefined;
  }
}

/** Writes the key and the data whole to a temporary file, then renames it over the old one. */
export function writeCache(dir: string, file: string, key: string, script: Script): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const data = script.createCachedData();
    writeFileSync(temp, Buffer.concat([Buffer.from(`${key}\n`), data]), { flag: 'wx', mode: 0o600 });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing more to do: the next start compiles without the cache.
    }
  }
}

/** Writes the code cache of the bundle required this run, when it had none or V8 refused it. */
export function saveCodeCache(): void {
  const write = pending;
  pending = undefined;
  write?.();
}
