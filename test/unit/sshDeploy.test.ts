/** The source archive sent to a node and the parsing of what the node reports. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseProbe, toolchainSuffix } from '../../src/core/ssh/deploy';
import { packSources, sourceFiles } from '../../src/core/ssh/tarPack';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-ssh-deploy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('source archive', () => {
  it('holds the files the source hash covers, byte for byte, and system tar unpacks it', async () => {
    const src = join(dir, 'src');
    mkdirSync(join(src, 'a', 'build'), { recursive: true });
    mkdirSync(join(src, '.git'));
    mkdirSync(join(src, 'build'));
    const deep = join(src, 'd'.repeat(60), 'e'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(src, 'CMakeLists.txt'), 'project(x)\n');
    writeFileSync(join(src, 'a', 'x.cpp'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(src, 'a', 'build', 'junk.o'), 'junk');
    writeFileSync(join(src, 'build', 'junk'), 'junk');
    writeFileSync(join(src, '.git', 'HEAD'), 'ref');
    writeFileSync(join(src, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(src, 'run.sh'), 0o755);
    writeFileSync(join(deep, 'long-name.hpp'), 'x'.repeat(1000));
    expect(await sourceFiles(src)).toEqual([
      'CMakeLists.txt',
      'a/x.cpp',
      `${'d'.repeat(60)}/${'e'.repeat(60)}/long-name.hpp`,
      'run.sh',
    ]);
    const out = join(dir, 'out');
    mkdirSync(out);
    execFileSync('tar', ['-x', '-f', '-', '-C', out], { input: await packSources(src) });
    for (const f of await sourceFiles(src)) expect(readFileSync(join(out, f))).toEqual(readFileSync(join(src, f)));
    expect(statSync(join(out, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(execFileSync('find', [out, '-name', 'junk*'], { encoding: 'utf8' })).toBe('');
  });

  it('packs the real helper sources', async () => {
    const files = await sourceFiles(resolve(__dirname, '..', '..', 'native'));
    expect(files).toContain('CMakeLists.txt');
    expect(files.some((f) => f.startsWith('build/'))).toBe(false);
  });
});

describe('node probe', () => {
  it('reads the cache folder, helpers and tools', () => {
    const facts = parseProbe(
      [
        'cache=/home/a/.cache/sdma-lens',
        'home=/home/a',
        'cached=/home/a/.cache/sdma-lens/helper-abc-hip/sdma-probe sdma-probe 0.1.0 (protocol 1; backends: sim, hip)',
        'onpath=/usr/bin/sdma-probe',
        'onpath-version=sdma-probe 0.1.0 (protocol 1; backends: sim)',
        'have=cmake',
        'have=hipcc',
        'junk line',
        '',
      ].join('\n'),
    );
    expect(facts.cacheDir).toBe('/home/a/.cache/sdma-lens');
    expect(facts.cached).toEqual([
      {
        path: '/home/a/.cache/sdma-lens/helper-abc-hip/sdma-probe',
        versionLine: 'sdma-probe 0.1.0 (protocol 1; backends: sim, hip)',
      },
    ]);
    expect(facts.onPath?.path).toBe('/usr/bin/sdma-probe');
    expect(toolchainSuffix(facts.have)).toBe('-hip');
    expect(toolchainSuffix(new Set(['hipcc', 'nvcc']))).toBe('-hip-cuda');
  });
});
