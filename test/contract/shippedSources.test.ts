/**
 * The extension builds its helper from the native sources it ships (when no built helper is
 * found). This copies exactly what `.vscodeignore` lets into the package under native/, builds
 * it the way the extension does (`buildHelper`) and runs the result.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildHelper } from '../../src/core/runtime/helper';

/** The files under native/ that the allowlist in .vscodeignore ships. */
function shippedNativeFiles(root: string): string[] {
  const rules = readFileSync(join(root, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('!native/'))
    .map((l) => l.slice(1));
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        if (name !== 'build') walk(full);
      } else {
        all.push(relative(root, full));
      }
    }
  };
  walk(join(root, 'native'));
  return all.filter((f) => rules.some((r) => (r.endsWith('/**') ? f.startsWith(r.slice(0, -2)) : f === r)));
}

describe('the helper sources the extension ships', () => {
  const work = mkdtempSync(join(tmpdir(), 'sdma-shipped-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('build with CMake as the extension builds them, and the helper runs a sweep', async () => {
    const root = inject('repoRoot');
    const files = shippedNativeFiles(root);
    expect(files).toContain('native/CMakeLists.txt');
    for (const f of files) {
      mkdirSync(dirname(join(work, f)), { recursive: true });
      cpSync(join(root, f), join(work, f));
    }
    expect(existsSync(join(work, 'native', 'tests'))).toBe(false);
    const helper = await buildHelper({ sourceDir: join(work, 'native'), cacheDir: join(work, 'cache') });
    expect(execFileSync(helper, ['--version'], { encoding: 'utf8' })).toMatch(/^sdma-probe \S+ \(protocol 1;/);
    const out = execFileSync(
      helper,
      ['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'engine/host', '--iters', '2'],
      { encoding: 'utf8' },
    );
    expect(out.trim().split('\n').at(-1)).toMatch(/"type":"done","status":"ok"/);
  }, 600_000);
});
