/**
 * Vitest global setup: builds the real sdma-probe with CMake once and hands its path to the tests.
 * SDMA_PROBE_BUILD_DIR names another build folder (default native/build). The helper is built
 * with every backend this machine can compile: a GPU backend `npm start` left out (no such GPU
 * here) is built back (scripts/prepare.mjs, nativeConfigureArgs).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import { nativeConfigureArgs as configureArgs, recordLeftOut as record } from '../../scripts/prepare.mjs';

const nativeConfigureArgs = configureArgs as (
  use: 'helper' | 'all',
  buildDir: string,
  o?: { tests?: boolean },
) => { args: string[] };
const recordLeftOut = record as (buildDir: string, leftOut: unknown[]) => void;

declare module 'vitest' {
  export interface ProvidedContext {
    helperPath: string;
    repoRoot: string;
  }
}

export default function setup(project: TestProject) {
  const root = resolve(__dirname, '..', '..');
  const build = process.env.SDMA_PROBE_BUILD_DIR
    ? resolve(process.env.SDMA_PROBE_BUILD_DIR)
    : join(root, 'native', 'build');
  execFileSync('cmake', nativeConfigureArgs('all', build, { tests: false }).args, { stdio: 'inherit' });
  recordLeftOut(build, []);
  execFileSync('cmake', ['--build', build, '--parallel', String(availableParallelism()), '--target', 'sdma_helper'], {
    stdio: 'inherit',
  });
  project.provide('helperPath', join(build, 'sdma-probe'));
  project.provide('repoRoot', root);
}
