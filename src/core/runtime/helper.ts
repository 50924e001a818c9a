/**
 * Finding the native helper, in a fixed order: the path a user configured, then a build
 * shipped with the extension, then one built here from the bundled sources with CMake. A
 * candidate counts only when `--version` answers with a protocol this code speaks.
 *
 * The helper shipped in the package has the sim and cuda backends only (ROCm versions vary
 * from node to node); on a machine with ROCm it is rebuilt once from the shipped sources with
 * the hip backend, and if that build fails the shipped one is used and the failure reported.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { access, chmod, constants, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { PROTOCOL_VERSION } from '../protocol';
import { sourceFiles } from './sourceFiles';

export const HELPER_NAME = 'sdma-probe';

/**
 * Where a package (VSIX, npm) or a source checkout keeps ready-made helpers, first first:
 * the prebuilt `bin/sdma-probe` of a package, then a developer's `npm run build:native`.
 */
export function bundledHelperPaths(packageRoot: string): string[] {
  return [join(packageRoot, 'bin', HELPER_NAME), join(packageRoot, 'native', 'build', HELPER_NAME)];
}

export interface HelperInfo {
  path: string;
  version: string;
  protocol: number;
  backends: string[];
  source: 'setting' | 'bundled' | 'built';
  /**
   * Set when a wanted build of the hip backend failed (now, or before with the same sources)
   * and this helper is the bundled one used instead: what went wrong, naming the build log.
   */
  hipBuildProblem?: string;
}

export class HelperError extends Error {
  constructor(
    message: string,
    /** What the user can do about it, in one sentence. */
    readonly remedy: string,
  ) {
    super(message);
  }

  /** What fixes it: the helper (its path, its build), or the target it runs on. */
  get fixedBy(): 'helper' | 'target' {
    return 'helper';
  }
}

/** Parses `sdma-probe 0.1.0 (protocol 1; backends: sim, cuda)`. */
export function parseVersionLine(line: string): Omit<HelperInfo, 'path' | 'source'> | undefined {
  const m = /^sdma-probe (\S+) \(protocol (\d+); backends: ([a-z, ]+)\)\s*$/.exec(line.trim());
  if (!m) return undefined;
  return {
    version: m[1]!,
    protocol: Number(m[2]),
    backends: m[3]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

/**
 * execa, loaded at its first use: it and its dependencies are a fifth of the CLI's start-up
 * and most of the extension's, and a run whose helper's version is known never needs it.
 */
export const loadExeca = (): Promise<typeof import('execa')> => import('execa');

/**
 * What identifies one helper binary for its `--version`: the path it is started by, its size,
 * its modification time (nanoseconds) and its inode. A rebuilt or replaced binary changes one of them.
 */
export interface HelperStamp {
  path: string;
  size: number;
  mtimeNs: string;
  /** The file's inode: a binary replaced by a rename is another file even at the same size and time. */
  ino: string;
}

/**
 * Where `--version` answers are remembered, by stamp: only answers this code accepted (its
 * protocol), as the line the helper printed, so that a reused answer goes through the same
 * checks as a fresh one.
 */
export interface VersionCache {
  get(stamp: HelperStamp): string | undefined | Promise<string | undefined>;
  set(stamp: HelperStamp, line: string): void | Promise<void>;
}

/** The stamp of the file at `path`, or undefined when it cannot be read (then nothing is cached). */
export async function helperStamp(path: string): Promise<HelperStamp | undefined> {
  try {
    // One stat, synchronous: a warm CLI sweep's only file-system call would otherwise start the thread pool.
    const s = statSync(path, { bigint: true });
    if (!s.isFile()) return undefined;
    return { path, size: Number(s.size), mtimeNs: s.mtimeNs.toString(), ino: s.ino.toString() };
  } catch {
    return undefined;
  }
}

const stampKey = (s: HelperStamp) => `${s.path}\0${s.size}\0${s.mtimeNs}\0${s.ino}`;

/** The cache of this process (the extension's): forgotten when it ends. */
export class MemoryVersionCache implements VersionCache {
  private readonly lines = new Map<string, string>();
  get(stamp: HelperStamp): string | undefined {
    return this.lines.get(stampKey(stamp));
  }
  set(stamp: HelperStamp, line: string): void {
    // A handful of helpers at most; a bound all the same.
    if (this.lines.size >= 64) this.lines.clear();
    this.lines.set(stampKey(stamp), line);
  }
}

/** The default cache: this process's memory. */
export const processVersionCache = new MemoryVersionCache();

/** The first line of a `--version` answer, checked: HelperError saying what is wrong otherwise. */
function versionInfo(path: string, line: string): Omit<HelperInfo, 'path' | 'source'> {
  const info = parseVersionLine(line);
  if (!info) {
    throw new HelperError(
      `${path} is not sdma-probe (its --version said "${line.slice(0, 80)}")`,
      'Point sdmaLens.helperPath at the sdma-probe binary.',
    );
  }
  if (info.protocol !== PROTOCOL_VERSION) {
    throw new HelperError(
      `${path} speaks protocol ${info.protocol}; this version of SDMA Lens speaks ${PROTOCOL_VERSION}`,
      'Rebuild the helper from the sources shipped with this extension (clear sdmaLens.helperPath).',
    );
  }
  return info;
}

/**
 * Runs `<path> --version` and checks the protocol. Throws HelperError saying what is wrong.
 * An answer for the same binary (path, size, modification time) is taken from `cache`
 * instead, and checked the same way; a binary that changed is asked again.
 */
export async function probeHelper(
  path: string,
  source: HelperInfo['source'],
  signal?: AbortSignal,
  cache: VersionCache = processVersionCache,
): Promise<HelperInfo> {
  const stamp = await helperStamp(path);
  if (stamp) {
    const known = await Promise.resolve(cache.get(stamp)).catch(() => undefined);
    const info = known !== undefined && parseVersionLine(known);
    if (info && info.protocol === PROTOCOL_VERSION) return { ...info, path, source };
  }
  const { execa } = await loadExeca();
  const result = await execa(path, ['--version'], {
    reject: false,
    timeout: 10_000,
    cancelSignal: signal,
    stdin: 'ignore',
  });
  if (result.failed) {
    throw new HelperError(
      `${path} did not answer --version: ${String(result.shortMessage).split('\n')[0]}`,
      'Point sdmaLens.helperPath at a working sdma-probe, or clear it to use the bundled one.',
    );
  }
  const line = String(result.stdout).split('\n')[0] ?? '';
  const info = versionInfo(path, line);
  // Stamped before the run: a binary replaced while it answered is not taken for the old one.
  const after = stamp && (await helperStamp(path));
  if (stamp && after && stampKey(stamp) === stampKey(after))
    await Promise.resolve(cache.set(stamp, line.trim())).catch(() => {});
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

/**
 * A bundled helper that exists but lost its executable bit (an archive tool that drops file
 * modes) is made executable again: it sits in the extension's own folder.
 */
async function ensureExecutable(path: string): Promise<boolean> {
  if (await isExecutable(path)) return true;
  try {
    const s = await stat(path);
    if (!s.isFile()) return false;
    await chmod(path, s.mode | 0o111);
    return await isExecutable(path);
  } catch {
    return false;
  }
}

/**
 * The build's percentage in one line of its log: CMake's Makefile generator prints
 * `[ 42%] Building ...`, Ninja `[12/80] Building ...`. Undefined for other lines.
 */
export function buildPercent(line: string): number | undefined {
  const m = /^\s*\[\s*(\d{1,3})%\]/.exec(line);
  if (m) {
    const p = Number(m[1]);
    return p <= 100 ? p : undefined;
  }
  const n = /^\s*\[(\d+)\/(\d+)\]/.exec(line);
  if (n) {
    const done = Number(n[1]);
    const total = Number(n[2]);
    return total > 0 && done <= total ? Math.floor((done * 100) / total) : undefined;
  }
  return undefined;
}

/**
 * Turns the percentages of a build log into the increments a progress bar adds up (VS Code's
 * `progress.report({ increment })` is cumulative): each call returns how far the bar moves for
 * this line, 0 when it does not move. Percentages never go back (CMake restarts its count per
 * target in some generators); the bar ends at most at 100.
 */
export class BuildProgress {
  private shown = 0;

  /** The percentage shown so far. */
  get percent(): number {
    return this.shown;
  }

  /** The increment for one log line. */
  advance(line: string): number {
    const p = buildPercent(line);
    if (p === undefined || p <= this.shown) return 0;
    const increment = p - this.shown;
    this.shown = p;
    return increment;
  }
}

/** Where ROCm's HIP tools were found, or undefined. Pure: the file checks are passed in. */
export function findRocm(
  env: Record<string, string | undefined>,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const dirs = [
    ...(env.PATH ?? '').split(delimiter).filter(Boolean),
    ...(env.ROCM_PATH ? [join(env.ROCM_PATH, 'bin')] : []),
    '/opt/rocm/bin',
  ];
  for (const dir of dirs) {
    for (const tool of ['hipconfig', 'hipcc']) {
      const candidate = join(dir, tool);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Whether to build the hip backend from the shipped sources instead of using the bundled
 * helper as it is: only when the bundled one lacks hip, this machine has ROCm, and the user
 * did not pick a backend that does not need it.
 */
export function wantHipBuild(o: {
  bundledBackends: readonly string[];
  backendSetting: string;
  rocm: string | undefined;
  amdGpu?: boolean;
}): boolean {
  if (o.bundledBackends.includes('hip')) return false;
  if (o.backendSetting === 'sim' || o.backendSetting === 'cuda') return false;
  if (o.rocm === undefined) return false;
  // With `auto`, a HIP compiler alone (Debian ships hipcc without a GPU) is no reason to spend
  // minutes on a build: only a machine with the AMD GPU driver (/dev/kfd) gets one. Asking for
  // `hip` explicitly builds either way.
  return o.backendSetting === 'hip' || o.amdGpu !== false;
}

/** Whether the AMD GPU kernel driver (KFD) is present: the device ROCm programs open. */
export function hasAmdGpuDriver(exists: (path: string) => boolean = existsSync): boolean {
  return exists('/dev/kfd');
}

/** A short hash of the helper's sources, so a build is reused until they change. */
export async function sourceHash(sourceDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await sourceFiles(sourceDir))
    hash
      .update(file)
      .update('\0')
      .update(await readFile(join(sourceDir, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

export interface BuildOptions {
  sourceDir: string;
  /** Builds go to `<cacheDir>/helper-<hash>/`; older ones are left for the user's cache policy. */
  cacheDir: string;
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
  /** Each line of the CMake / compiler output, as it arrives. */
  onOutput?: (line: string) => void;
  /** The progress bar's increment for a line that moved the build's percentage (`BuildProgress`). */
  onPercent?: (increment: number, percent: number) => void;
  /**
   * A named build with extra CMake options, kept apart from the plain one
   * (`<cacheDir>/helper-<variant>-<hash>/`), e.g. `hip` with `-DSDMA_PROBE_WITH_HIP=ON`.
   */
  variant?: { name: string; cmakeArgs: string[] };
}

/** The folder a build of these sources goes to, and the log file it writes next to it. */
export async function buildLocation(
  o: Pick<BuildOptions, 'sourceDir' | 'cacheDir' | 'variant'>,
): Promise<{ outDir: string; binary: string; log: string }> {
  const hash = await sourceHash(o.sourceDir);
  const outDir = join(o.cacheDir, o.variant ? `helper-${o.variant.name}-${hash}` : `helper-${hash}`);
  return { outDir, binary: join(outDir, HELPER_NAME), log: `${outDir}.log` };
}

/**
 * Builds the helper with CMake unless a build of the same sources exists. Returns its path.
 * The output streams line by line to `onOutput` and into `<build folder>.log`; the compile
 * step uses every core this process may use.
 */
export async function buildHelper(o: BuildOptions): Promise<string> {
  const { outDir, binary, log } = await buildLocation(o);
  if (await isExecutable(binary)) return binary;

  const { execa } = await loadExeca();
  // Loaded here, as execa: only a build reads a program's output line by line.
  const { createInterface } = await import('node:readline');
  const cmake = await execa('cmake', ['--version'], { reject: false, stdin: 'ignore' });
  if (cmake.failed) {
    throw new HelperError(
      'CMake was not found, so the helper cannot be built',
      'Install CMake 3.20+ and a C++17 compiler (Debian: sudo apt-get install cmake g++), or set sdmaLens.helperPath to a built sdma-probe.',
    );
  }
  await mkdir(o.cacheDir, { recursive: true });
  // Build in a scratch folder and move it into place, so a cancelled or failed build never leaves a half binary that looks reusable.
  const scratch = `${outDir}.tmp-${process.pid}`;
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  const logFile = createWriteStream(log);
  const progress = new BuildProgress();
  const step = async (message: string, args: string[]) => {
    o.onProgress?.(message);
    logFile.write(`$ cmake ${args.join(' ')}\n`);
    const child = execa('cmake', args, {
      reject: false,
      cancelSignal: o.signal,
      stdin: 'ignore',
      all: true,
      buffer: false,
    });
    const tail: string[] = [];
    const lines = createInterface({ input: child.all!, crlfDelay: Infinity });
    lines.on('line', (line) => {
      logFile.write(`${line}\n`);
      tail.push(line);
      if (tail.length > 400) tail.shift();
      if (line) o.onOutput?.(line);
      const increment = progress.advance(line);
      if (increment > 0) o.onPercent?.(increment, progress.percent);
    });
    const closed = new Promise<void>((ok) => lines.once('close', () => ok()));
    const r = await child;
    await closed;
    if (r.isCanceled) throw new HelperError('the helper build was cancelled', 'Run the command again to build it.');
    if (r.failed) {
      const text = tail.join('\n');
      const noCompiler = /No CMAKE_CXX_COMPILER could be found|CMAKE_CXX_COMPILER.*not found/i.test(text);
      throw new HelperError(
        noCompiler
          ? 'no C++ compiler was found, so the helper cannot be built'
          : `building the helper failed (${message}); the build log is ${log}`,
        noCompiler
          ? 'Install a C++17 compiler (Debian: sudo apt-get install g++), or set sdmaLens.helperPath.'
          : 'Fix the error shown in the log, or set sdmaLens.helperPath to a built sdma-probe.',
      );
    }
  };
  try {
    await step(o.variant ? `Configuring the helper with ${o.variant.name} (CMake)` : 'Configuring the helper (CMake)', [
      '-S',
      o.sourceDir,
      '-B',
      scratch,
      '-DCMAKE_BUILD_TYPE=Release',
      '-DSDMA_PROBE_BUILD_TESTS=OFF',
      ...(o.variant?.cmakeArgs ?? []),
    ]);
    await step(o.variant ? `Compiling the helper with ${o.variant.name}` : 'Compiling the helper', [
      '--build',
      scratch,
      '--parallel',
      String(availableParallelism()),
    ]);
    await rm(outDir, { recursive: true, force: true });
    await rename(scratch, outDir);
  } finally {
    await new Promise<void>((ok) => logFile.end(() => ok()));
    await rm(scratch, { recursive: true, force: true });
  }
  return binary;
}

export interface LocateOptions {
  /** sdmaLens.helperPath; empty means unset. */
  configuredPath?: string;
  /** Binaries shipped with the extension, tried in order (`bundledHelperPaths`). */
  bundledPaths: string[];
  build?: BuildOptions;
  /**
   * Build the hip backend at first use when the bundled helper lacks it (`wantHipBuild`).
   * `rocm`: where ROCm was found (`findRocm`); `backendSetting`: sdmaLens.defaultBackend.
   */
  hip?: { backendSetting: string; rocm: string | undefined; amdGpu?: boolean };
  signal?: AbortSignal;
  /** Where `--version` answers are remembered (default: this process's memory). */
  versionCache?: VersionCache;
}

/** The CMake options of the first-use hip build: hip on, so a ROCm CMake cannot use is an error in the log. */
export const HIP_VARIANT = { name: 'hip', cmakeArgs: ['-DSDMA_PROBE_WITH_HIP=ON'] };

/** Finds a working helper: setting, then bundled (rebuilt with hip where that is wanted), then a build from source. */
export async function locateHelper(o: LocateOptions): Promise<HelperInfo> {
  if (o.configuredPath && o.configuredPath.trim().length > 0) {
    // A configured path that does not work is an error, not a reason to silently run something else.
    return probeHelper(o.configuredPath, 'setting', o.signal, o.versionCache);
  }
  for (const candidate of o.bundledPaths) {
    if (await ensureExecutable(candidate)) {
      let bundled: HelperInfo;
      try {
        bundled = await probeHelper(candidate, 'bundled', o.signal, o.versionCache);
      } catch {
        // A stale bundled build (older protocol) falls through to a fresh build.
        continue;
      }
      if (
        o.build &&
        o.hip &&
        wantHipBuild({
          bundledBackends: bundled.backends,
          backendSetting: o.hip.backendSetting,
          rocm: o.hip.rocm,
          amdGpu: o.hip.amdGpu,
        })
      ) {
        return await withHipBuild(bundled, o.build, o.signal, o.versionCache);
      }
      return bundled;
    }
  }
  if (!o.build) {
    throw new HelperError(
      'no sdma-probe helper was found',
      'Build it with `npm run build:native`, or set sdmaLens.helperPath.',
    );
  }
  const built = await buildHelper({ ...o.build, signal: o.signal });
  return probeHelper(built, 'built', o.signal, o.versionCache);
}

/**
 * The hip build of the shipped sources, or the bundled helper with `hipBuildProblem` when it
 * fails. A failure is remembered (`<build folder>.failed`, next to its log) so that every new
 * window does not spend minutes on the same failing build; removing that file retries.
 * A cancelled build is not remembered and not replaced: cancel means stop.
 */
async function withHipBuild(
  bundled: HelperInfo,
  build: BuildOptions,
  signal: AbortSignal | undefined,
  versionCache: VersionCache | undefined,
): Promise<HelperInfo> {
  const options: BuildOptions = { ...build, variant: HIP_VARIANT, signal };
  const { outDir, log } = await buildLocation(options);
  const marker = `${outDir}.failed`;
  if (existsSync(marker)) {
    const before = (await readFile(marker, 'utf8').catch(() => '')).trim();
    return {
      ...bundled,
      hipBuildProblem: `the hip backend could not be built from these sources before (${before || 'see the log'}); the build log is ${log}. Remove ${marker} to try again.`,
    };
  }
  try {
    const built = await buildHelper(options);
    const info = await probeHelper(built, 'built', signal, versionCache);
    if (!info.backends.includes('hip'))
      throw new HelperError(
        `the helper built with ROCm has no hip backend (backends: ${info.backends.join(', ')})`,
        '',
      );
    return info;
  } catch (err) {
    if (signal?.aborted) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    await writeFile(marker, `${reason}\n`).catch(() => {});
    return {
      ...bundled,
      hipBuildProblem: `building the hip backend failed: ${reason}. The build log is ${log}; using the bundled helper (${bundled.backends.join(', ')}).`,
    };
  }
}
