/**
 * Finding the native helper, in a fixed order: the path a user configured, then a build
 * shipped with the extension, then one built here from the bundled sources with CMake. A
 * candidate counts only when `--version` answers with a protocol this code speaks.
 */
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { PROTOCOL_VERSION } from './protocol';

export const HELPER_NAME = 'sdma-probe';

export interface HelperInfo {
  path: string;
  version: string;
  protocol: number;
  backends: string[];
  source: 'setting' | 'bundled' | 'built';
}

export class HelperError extends Error {
  constructor(
    message: string,
    /** What the user can do about it, in one sentence. */
    readonly remedy: string,
  ) {
    super(message);
  }
}

/** Parses `sdma-probe 0.1.0 (protocol 1; backends: sim, cuda)`. */
export function parseVersionLine(line: string): Omit<HelperInfo, 'path' | 'source'> | undefined {
  const m = /^sdma-probe (\S+) \(protocol (\d+); backends: ([a-z, ]+)\)\s*$/.exec(line.trim());
  if (!m) return undefined;
  return { version: m[1]!, protocol: Number(m[2]), backends: m[3]!.split(',').map((s) => s.trim()).filter(Boolean) };
}

/** Runs `<path> --version` and checks the protocol. Throws HelperError saying what is wrong. */
export async function probeHelper(path: string, source: HelperInfo['source'], signal?: AbortSignal): Promise<HelperInfo> {
  const result = await execa(path, ['--version'], { reject: false, timeout: 10_000, cancelSignal: signal, stdin: 'ignore' });
  if (result.failed) {
    throw new HelperError(`${path} did not answer --version: ${result.shortMessage}`, 'Point sdmaLens.helperPath at a working sdma-probe, or clear it to use the bundled one.');
  }
  const info = parseVersionLine(String(result.stdout).split('\n')[0] ?? '');
  if (!info) {
    throw new HelperError(`${path} is not sdma-probe (its --version said "${String(result.stdout).slice(0, 80)}")`, 'Point sdmaLens.helperPath at the sdma-probe binary.');
  }
  if (info.protocol !== PROTOCOL_VERSION) {
    throw new HelperError(`${path} speaks protocol ${info.protocol}; this version of SDMA Lens speaks ${PROTOCOL_VERSION}`, 'Rebuild the helper from the sources shipped with this extension (clear sdmaLens.helperPath).');
  }
  return { ...info, path, source };
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A short hash of the helper's sources, so a build is reused until they change. */
export async function sourceHash(sourceDir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'build' && !e.name.startsWith('.')) await walk(full);
      } else if (e.isFile()) {
        hash.update(relative(sourceDir, full)).update('\0').update(await readFile(full)).update('\0');
      }
    }
  };
  await walk(sourceDir);
  return hash.digest('hex').slice(0, 16);
}

export interface BuildOptions {
  sourceDir: string;
  /** Builds go to `<cacheDir>/helper-<hash>/`; older ones are left for the user's cache policy. */
  cacheDir: string;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  onOutput?: (line: string) => void;
}

/** Builds the helper with CMake unless a build of the same sources exists. Returns its path. */
export async function buildHelper(o: BuildOptions): Promise<string> {
  const hash = await sourceHash(o.sourceDir);
  const outDir = join(o.cacheDir, `helper-${hash}`);
  const binary = join(outDir, HELPER_NAME);
  if (await isExecutable(binary)) return binary;

  const cmake = await execa('cmake', ['--version'], { reject: false, stdin: 'ignore' });
  if (cmake.failed) {
    throw new HelperError('CMake was not found, so the helper cannot be built', 'Install CMake 3.20+ and a C++17 compiler (Debian: sudo apt-get install cmake g++), or set sdmaLens.helperPath to a built sdma-probe.');
  }
  // Build in a scratch folder and move it into place, so a cancelled or failed build never leaves a half binary that looks reusable.
  const scratch = `${outDir}.tmp-${process.pid}`;
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  const step = async (message: string, args: string[]) => {
    o.onProgress?.(message);
    const r = await execa('cmake', args, { reject: false, cancelSignal: o.signal, stdin: 'ignore', all: true });
    for (const line of String(r.all ?? '').split('\n')) if (line) o.onOutput?.(line);
    if (r.isCanceled) throw new HelperError('the helper build was cancelled', 'Run the command again to build it.');
    if (r.failed) {
      const text = String(r.all ?? '');
      const noCompiler = /No CMAKE_CXX_COMPILER could be found|CMAKE_CXX_COMPILER.*not found/i.test(text);
      throw new HelperError(
        noCompiler ? 'no C++ compiler was found, so the helper cannot be built' : `building the helper failed (${message}); the build log is in the output channel`,
        noCompiler ? 'Install a C++17 compiler (Debian: sudo apt-get install g++), or set sdmaLens.helperPath.' : 'Fix the error shown in the log, or set sdmaLens.helperPath to a built sdma-probe.',
      );
    }
  };
  try {
    await step('Configuring the helper (CMake)', ['-S', o.sourceDir, '-B', scratch, '-DCMAKE_BUILD_TYPE=Release', '-DSDMA_PROBE_BUILD_TESTS=OFF']);
    await step('Compiling the helper', ['--build', scratch, '--parallel']);
    await rm(outDir, { recursive: true, force: true });
    await rename(scratch, outDir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return binary;
}

export interface LocateOptions {
  /** sdmaLens.helperPath; empty means unset. */
  configuredPath?: string;
  /** Binaries shipped with the extension, tried in order. */
  bundledPaths: string[];
  build?: BuildOptions;
  signal?: AbortSignal;
}

/** Finds a working helper: setting, then bundled, then a build from source. */
export async function locateHelper(o: LocateOptions): Promise<HelperInfo> {
  if (o.configuredPath && o.configuredPath.trim().length > 0) {
    // A configured path that does not work is an error, not a reason to silently run something else.
    return probeHelper(o.configuredPath, 'setting', o.signal);
  }
  for (const candidate of o.bundledPaths) {
    if (await isExecutable(candidate)) {
      try {
        return await probeHelper(candidate, 'bundled', o.signal);
      } catch {
        // A stale bundled build (older protocol) falls through to a fresh build.
      }
    }
  }
  if (!o.build) {
    throw new HelperError('no sdma-probe helper was found', 'Build it with `npm run build:native`, or set sdmaLens.helperPath.');
  }
  const built = await buildHelper({ ...o.build, signal: o.signal });
  return probeHelper(built, 'built', o.signal);
}
