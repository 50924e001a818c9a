/**
 * The CLI's --version cache file is outside data: whatever its text (mutated good files,
 * random JSON), parseCache never throws and gives back only entries that pass every check,
 * at most MAX_ENTRIES of them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseVersionLine } from '../../src/core/runtime/helper';
import { MAX_ENTRIES, parseCache } from '../../src/cli/versionCache';

const good = JSON.stringify({
  format: 1,
  entries: [
    {
      path: '/opt/sdma-probe',
      size: 3468216,
      mtimeNs: '1764870000123456789',
      ino: '42',
      line: 'sdma-probe 0.1.0 (protocol 1; backends: sim, cuda)',
    },
  ],
});

function check(text: string): void {
  const entries = parseCache(text);
  expect(entries.length).toBeLessThanOrEqual(MAX_ENTRIES);
  for (const e of entries) {
    expect(typeof e.path).toBe('string');
    expect(Number.isSafeInteger(e.size) && e.size >= 0).toBe(true);
    expect(e.mtimeNs).toMatch(/^\d+$/);
    expect(e.ino).toMatch(/^\d+$/);
    expect(parseVersionLine(e.line)).toBeDefined();
  }
}

describe('helper version cache file, hostile text', () => {
  it('a good file is read', () => {
    expect(parseCache(good)).toHaveLength(1);
  });

  it('mutated good files never throw and yield only checked entries', () => {
    fc.assert(
      fc.property(fc.nat(good.length), fc.nat(good.length), fc.string({ maxLength: 20 }), (at, cut, insert) => {
        check(good.slice(0, at) + insert + good.slice(Math.min(good.length, at + (cut % 8))));
      }),
      { numRuns: 5000 },
    );
  });

  it('random JSON values never throw', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        check(JSON.stringify(value) ?? '');
        check(JSON.stringify({ format: 1, entries: Array.isArray(value) ? value : [value] }));
      }),
      { numRuns: 3000 },
    );
  });
});
