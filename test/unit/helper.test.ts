import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HelperError, locateHelper, parseVersionLine, sourceHash } from '../../src/core/runtime/helper';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-helper-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A real executable that answers --version with the given line. */
function fakeHelper(name: string, versionLine: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho '${versionLine}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('helper resolution', () => {
  it('parses the version handshake', () => {
    expect(parseVersionLine('sdma-probe 0.1.0 (protocol 1; backends: sim, cuda)')).toEqual({
      version: '0.1.0',
      protocol: 1,
      backends: ['sim', 'cuda'],
    });
    expect(parseVersionLine('rocm-smi 6.0')).toBeUndefined();
  });

  it('prefers the configured path, then bundled builds', async () => {
    const configured = fakeHelper('configured', 'sdma-probe 9.9.9 (protocol 1; backends: sim)');
    const bundled = fakeHelper('bundled', 'sdma-probe 0.1.0 (protocol 1; backends: sim)');
    expect(await locateHelper({ configuredPath: configured, bundledPaths: [bundled] })).toMatchObject({
      source: 'setting',
      version: '9.9.9',
    });
    expect(await locateHelper({ configuredPath: '', bundledPaths: [join(dir, 'missing'), bundled] })).toMatchObject({
      source: 'bundled',
      path: bundled,
    });
  });

  it('does not fall back silently when the configured helper is wrong', async () => {
    const wrong = fakeHelper('old', 'sdma-probe 0.0.1 (protocol 0; backends: sim)');
    const bundled = fakeHelper('bundled', 'sdma-probe 0.1.0 (protocol 1; backends: sim)');
    await expect(locateHelper({ configuredPath: wrong, bundledPaths: [bundled] })).rejects.toThrow(/protocol 0/);
    await expect(locateHelper({ configuredPath: join(dir, 'nope'), bundledPaths: [bundled] })).rejects.toBeInstanceOf(
      HelperError,
    );
    await expect(locateHelper({ configuredPath: fakeHelper('ls', 'not it'), bundledPaths: [] })).rejects.toThrow(
      /is not sdma-probe/,
    );
  });

  it('says what to do when nothing is found and no build is allowed', async () => {
    const err = await locateHelper({ bundledPaths: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HelperError);
    expect((err as HelperError).remedy).toMatch(/build:native|helperPath/);
  });

  it('hashes sources so a change makes a new build', async () => {
    const src = join(dir, 'src');
    mkdirSync(join(src, 'build'), { recursive: true });
    writeFileSync(join(src, 'a.cpp'), 'int a;');
    const h1 = await sourceHash(src);
    writeFileSync(join(src, 'build', 'junk.o'), 'ignored');
    // A developer's other build folders (native/build-gpu, build-package) neither change the hash nor travel to a node.
    mkdirSync(join(src, 'build-gpu', 'CMakeFiles'), { recursive: true });
    writeFileSync(join(src, 'build-gpu', 'CMakeFiles', 'x.o'), 'ignored');
    expect(await sourceHash(src)).toBe(h1);
    writeFileSync(join(src, 'a.cpp'), 'int b;');
    expect(await sourceHash(src)).not.toBe(h1);
  });
});
