// Shared steps of `npm start` and `npm test` on a fresh machine: install the locked
// dependencies if they are missing, then build the bundles and the native helper.
// Uses only Node built-ins, so it runs before `npm ci`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

export function prepare() {
  if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
    console.log('> installing dependencies (npm ci)');
    must('npm', ['ci', '--no-fund', '--no-audit']);
  }
  console.log('> building the extension, CLI and webview bundles');
  must(process.execPath, ['scripts/build.mjs']);
  console.log('> building the native helper (CMake)');
  must('cmake', ['-S', 'native', '-B', 'native/build', '-DCMAKE_BUILD_TYPE=Release']);
  must('cmake', ['--build', 'native/build', '--parallel']);
}
