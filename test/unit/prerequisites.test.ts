// The one list of system packages `npm start`, the VS Code server's install and .ci/run use
// (scripts/check/prerequisites.mjs), checked against a fake file tree and an empty PATH.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import * as prereq from '../../scripts/check/prerequisites.mjs';

interface Requirement {
  command?: string;
  file?: string;
  apt: string;
  why: string;
}
interface Missing extends Requirement {
  problem: string;
}
const p = prereq as {
  SERVER_INSTALL: Requirement[];
  BUILD: Requirement[];
  requirementsFor: (use: string, options?: { serverInstall?: boolean }) => Requirement[];
  missingOf: (r: Requirement[]) => Missing[];
  describeMissing: (m: Missing[], node?: string[]) => string | undefined;
};

let tree: string;
const saved = { root: process.env.SDMA_LENS_PREREQ_ROOT, path: process.env.PATH };
beforeEach(() => {
  tree = mkdtempSync(join(tmpdir(), 'sdma-lens-prereq-'));
  process.env.SDMA_LENS_PREREQ_ROOT = tree;
});
afterEach(() => {
  rmSync(tree, { recursive: true, force: true });
  if (saved.root === undefined) delete process.env.SDMA_LENS_PREREQ_ROOT;
  else process.env.SDMA_LENS_PREREQ_ROOT = saved.root;
  process.env.PATH = saved.path;
});

const headers = () => p.SERVER_INSTALL.filter((r) => r.file);

describe('system prerequisites', () => {
  it('names every missing header with its Debian package and the apt line', () => {
    const missing = p.missingOf(headers());
    expect(missing.map((m) => m.apt)).toEqual(['libkrb5-dev', 'libx11-dev', 'libxkbfile-dev', 'libsecret-1-dev']);
    const text = p.describeMissing(missing) ?? '';
    expect(text).toContain(join(tree, '/usr/include/gssapi/gssapi.h'));
    expect(text).toContain('sudo apt-get install -y libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev');
  });

  it('finds nothing missing when the headers are there', () => {
    for (const r of headers()) {
      const file = join(tree, r.file ?? '');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '');
    }
    expect(p.missingOf(headers())).toEqual([]);
    expect(p.describeMissing([])).toBeUndefined();
  });

  it('reports commands missing from PATH, each package once', () => {
    process.env.PATH = tree;
    const missing = p.missingOf(p.requirementsFor('start', { serverInstall: true }).filter((r) => r.command));
    expect(missing.map((m) => m.apt).sort()).toEqual(['cmake', 'g++', 'make', 'pkg-config', 'python3']);
    expect(missing.find((m) => m.apt === 'cmake')?.problem).toBe('cmake is not on PATH');
  });

  it('asks for the VS Code server build packages only when it must be installed', () => {
    const without = p.requirementsFor('start', { serverInstall: false }).map((r) => r.apt);
    expect(without).toEqual(p.BUILD.map((r) => r.apt));
    const check = p.requirementsFor('check', { serverInstall: false }).map((r) => r.apt);
    expect(check).toContain('chromium');
    expect(p.requirementsFor('ci').map((r) => r.apt)).toEqual(
      expect.arrayContaining(['openssh-server', 'libkrb5-dev', 'chromium', 'hipcc', 'clang-19']),
    );
  });
});
