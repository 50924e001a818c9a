// Shared steps of `npm start` and `npm test` on a fresh machine: install the locked
// dependencies if they are missing, then build the bundles and the native helper.
// Uses only Node built-ins, so it runs before `npm ci`.
//
// The native build folder native/build serves two uses (buildNative):
//   helper  `npm start`, `npm run build:native`: sdma-probe and what it loads (the CUPTI
//           library, the rocSHMEM PE program, where built), no tests. A GPU backend is built
//           only where its GPU is present: a first configure turns off a backend whose
//           compiler is here but whose GPU is not, and says so in one line.
//   all     `npm test`, the contract tests, `npm run build:native -- --all`: everything,
//           tests on; the backends the helper build left out are back to AUTO.
//
//   SDMA_LENS_BUILD_JOBS=N   parallel jobs of the native build (default: the machine's cores)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (r.error) {
    console.error(`\n${command} could not be started: ${r.error.message}`);
    if (r.error.code === 'ENOENT')
      console.error(
        `Install ${command} first (Debian: sudo apt-get install ${command === 'cmake' ? 'cmake g++' : command}).`,
      );
    process.exit(1);
  }
  return r.status ?? 1;
}

export function must(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) {
    console.error(`\n${command} ${args.join(' ')} failed (exit ${status}).`);
    process.exit(status);
  }
}

/** Build jobs: SDMA_LENS_BUILD_JOBS when set, else one per core this process may use. */
export function buildJobs() {
  const asked = Number(process.env.SDMA_LENS_BUILD_JOBS);
  return Number.isInteger(asked) && asked > 0 ? asked : availableParallelism();
}

export function installDependencies() {
  if (existsSync(join(root, 'node_modules', '.package-lock.json'))) return false;
  console.log('> installing dependencies (npm ci)');
  must('npm', ['ci', '--no-fund', '--no-audit']);
  return true;
}

export function buildBundles() {
  console.log('> building the extension, CLI and webview bundles');
  must(process.execPath, ['scripts/build.mjs']);
}

const NATIVE_BUILD = join(root, 'native', 'build');
/** The GPU backends a helper build left out for want of their GPU (read by an `all` build). */
const LEFT_OUT = 'sdma-lens-left-out.json';

function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, command)));
}

/**
 * The GPU backends whose compiler is here (nvcc; hipcc or hipconfig) but whose GPU is not,
 * which CMake's AUTO would try to build and this machine cannot run. The GPU is its driver's
 * device: NVIDIA /dev/nvidiactl, AMD the KFD, /dev/kfd.
 */
export function gpuBackendsWithoutGpu(exists = existsSync, have = onPath) {
  const nvcc = have('nvcc') || Boolean(process.env.CUDACXX) || exists('/usr/local/cuda/bin/nvcc');
  const hip = have('hipcc') || have('hipconfig') || exists('/opt/rocm/bin/hipcc');
  const out = [];
  if (nvcc && !exists('/dev/nvidiactl')) out.push({ backend: 'cuda', option: 'SDMA_PROBE_WITH_CUDA', gpu: 'NVIDIA' });
  if (hip && !exists('/dev/kfd')) out.push({ backend: 'hip', option: 'SDMA_PROBE_WITH_HIP', gpu: 'AMD' });
  return out;
}

/**
 * The CMake configure options of a build folder for `use` ('helper' or 'all', see above);
 * `leftOut` is what a helper configure turns off (the caller records it in the folder with
 * recordLeftOut). `tests: false` leaves an `all` folder's test setting as it is (the contract
 * tests need the helper with every backend, not the test programs).
 */
export function nativeConfigureArgs(use, buildDir = NATIVE_BUILD, { tests = true } = {}) {
  const args = ['-S', join(root, 'native'), '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release'];
  const recorded = join(buildDir, LEFT_OUT);
  if (use === 'all') {
    if (tests) args.push('-DSDMA_PROBE_BUILD_TESTS=ON');
    if (existsSync(recorded)) {
      for (const b of JSON.parse(readFileSync(recorded, 'utf8'))) args.push(`-D${b.option}=AUTO`);
    }
    return { args, leftOut: [] };
  }
  args.push('-DSDMA_PROBE_BUILD_TESTS=OFF');
  // A folder configured before keeps its backends (after npm test it has them all).
  if (existsSync(join(buildDir, 'CMakeCache.txt'))) {
    const leftOut = existsSync(recorded) ? JSON.parse(readFileSync(recorded, 'utf8')) : [];
    return { args, leftOut, recorded: true };
  }
  const leftOut = gpuBackendsWithoutGpu();
  for (const b of leftOut) args.push(`-D${b.option}=OFF`);
  return { args, leftOut };
}

/** Records in the build folder what a configure left out (none: forgets an earlier record). */
export function recordLeftOut(buildDir, leftOut) {
  const file = join(buildDir, LEFT_OUT);
  if (leftOut.length > 0) writeFileSync(file, `${JSON.stringify(leftOut)}\n`);
  else rmSync(file, { force: true });
}

/**
 * The native helper into native/build (CMake, Release), as many jobs as cores: `helper`
 * builds the target sdma_helper (sdma-probe and what it loads), `all` every target and the
 * tests.
 */
export function buildNative(use = 'helper') {
  const jobs = buildJobs();
  console.log(
    `> building the native ${use === 'all' ? 'helper and its tests' : 'helper'} (CMake, ${jobs} job${jobs === 1 ? '' : 's'})`,
  );
  const { args, leftOut, recorded } = nativeConfigureArgs(use);
  must('cmake', args);
  if (!recorded) recordLeftOut(NATIVE_BUILD, leftOut);
  must('cmake', [
    '--build',
    'native/build',
    '--parallel',
    String(jobs),
    ...(use === 'all' ? [] : ['--target', 'sdma_helper']),
  ]);
  if (leftOut.length > 0) {
    const names = leftOut.map((b) => `the ${b.backend} backend (no ${b.gpu} GPU here)`).join(', ');
    console.log(
      `> left out: ${names}; \`npm run build:native -- --all\` builds every backend this machine can compile, and the tests (npm test does).`,
    );
  }
}

/** Dependencies, bundles and the native build for `use` ('helper' or 'all', buildNative). */
export function prepare(use = 'helper') {
  installDependencies();
  buildBundles();
  buildNative(use);
}
