/**
 * The helper's layers by include, as native/src/CMakeLists.txt links them: a source of a layer
 * includes only the headers of its own layer and of the layers below it. The link map makes
 * the direction a build fact for symbols; this check covers what a link cannot see (a
 * header-only use of an upper layer, which would compile and link). Text only: no build.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', '..', 'native', 'src');

/** Each layer folder of native/src and the folders its sources may include from (the CMake links, plus itself). */
const MAY_INCLUDE: Record<string, readonly string[]> = {
  util: ['util'],
  backend: ['backend', 'util'],
  protocol: ['protocol', 'backend', 'util'],
  backends: ['backends', 'backend', 'util'],
  profile: ['profile', 'backend', 'util'],
  cli: ['cli', 'commands', 'backends', 'backend', 'protocol', 'profile', 'util'],
  commands: ['commands', 'cli', 'backends', 'backend', 'protocol', 'profile', 'util'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(cpp|hpp|h|inc|cu|hip)$/.test(name) ? [path] : [];
  });
}

/** `#include "folder/..."` lines of a source, with the folder named first. */
function includes(path: string): { line: number; target: string; folder: string }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((text, i) => {
      const m = /^\s*#\s*include\s+"([^"]+)"/.exec(text);
      const target = m?.[1];
      if (!target || !target.includes('/')) return [];
      return [{ line: i + 1, target, folder: target.split('/')[0]! }];
    });
}

describe("the helper's layers", () => {
  it('has a rule for every folder of native/src', () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(folders.sort()).toEqual(Object.keys(MAY_INCLUDE).sort());
  });

  it('has each source include only its own layer and the layers below it', () => {
    const broken: string[] = [];
    let seen = 0;
    for (const path of sources(SRC)) {
      const rel = relative(SRC, path).split(sep);
      if (rel.length < 2) continue; // main.cpp: the top
      const allowed = MAY_INCLUDE[rel[0]!]!;
      for (const inc of includes(path)) {
        if (!(inc.folder in MAY_INCLUDE)) continue; // a system or generated header
        seen += 1;
        if (!allowed.includes(inc.folder)) broken.push(`${rel.join('/')}:${inc.line} includes ${inc.target}`);
      }
    }
    expect(seen).toBeGreaterThan(100); // the walk found the includes at all
    expect(broken).toEqual([]);
  });
});
