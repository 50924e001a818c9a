/**
 * Vitest global setup: builds the real sdma-probe with CMake once and hands its path to the tests.
 * SDMA_PROBE_BUILD_DIR names another build folder (default native/build).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    helperPath: string;
    repoRoot: string;
  }
}

export default function setup(project: TestProject) {
  const root = resolve(__dirname, '..', '..');
  const build = process.env.SDMA_PROBE_BUILD_DIR ? resolve(process.env.SDMA_PROBE_BUILD_DIR) : join(root, 'native', 'build');
  execFileSync('cmake', ['-S', join(root, 'native'), '-B', build, '-DCMAKE_BUILD_TYPE=Release'], { stdio: 'inherit' });
  execFileSync('cmake', ['--build', build, '--parallel', String(availableParallelism())], { stdio: 'inherit' });
  project.provide('helperPath', join(build, 'sdma-probe'));
  project.provide('repoRoot', root);
}
