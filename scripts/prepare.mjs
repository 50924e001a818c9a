// Shared steps of `npm start` and `npm test` on a fresh machine: install the locked
// dependencies if they are missing, then build the bundles and the native helper.
// Uses only Node built-ins, so it runs before `npm ci`.
//
//   SDMA_LENS_BUILD_JOBS=N   parallel jobs of the native build (default: the machine's cores)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function run(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (r.error) {
    console.error(`\n${command} could not be started: ${r.error.message}`);
    if (r.error.code === 'ENOENT') console.error(`Install ${command} first (Debian: sudo apt-get install ${command === 'cmake' ? 'cmake g++' : command}).`);
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

/** The native helper into native/build (CMake, Release), as many jobs as cores. */
export function buildNative() {
  const jobs = buildJobs();
  console.log(`> building the native helper (CMake, ${jobs} job${jobs === 1 ? '' : 's'})`);
  must('cmake', ['-S', 'native', '-B', 'native/build', '-DCMAKE_BUILD_TYPE=Release']);
  must('cmake', ['--build', 'native/build', '--parallel', String(jobs)]);
}

export function prepare() {
  installDependencies();
  buildBundles();
  buildNative();
}
