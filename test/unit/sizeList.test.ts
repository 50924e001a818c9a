/**
 * The size-list grammar the helper accepts (src/core/sizeList.ts): sizes, FROM:TO and FROM:TO:xF
 * ranges, no empty items, the helper's list limit; and the vectors of test/fixtures/size-grammar.json,
 * which the helper's native test reads too. test/contract/sizeList.test.ts checks the same
 * lists against the helper itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits';
import { expandSizeList, parseSizeList } from '../../src/core/sizeList';
import { formatSizeArg } from '../../src/core/units';
import { brokenSizeList, rangeModel, sizeList, sizeWord } from '../support/sizeLists';

const K = 1024;
const M = K * K;
const G = M * K;
const SEED = 31;

describe('size lists', () => {
  it('reads sizes and ranges, and returns them sorted, each once', () => {
    expect(parseSizeList('1M,4K,1024K')).toEqual([4 * K, M]);
    expect(parseSizeList('1M:64M')).toEqual([1, 2, 4, 8, 16, 32, 64].map((n) => n * M));
    expect(parseSizeList('4K:1G:x4')).toEqual([4 * K, 16 * K, 64 * K, 256 * K, M, 4 * M, 16 * M, 64 * M, 256 * M, G]);
    expect(parseSizeList('3:100:X3')).toEqual([3, 9, 27, 81]);
    expect(parseSizeList('64K:64K')).toEqual([64 * K]);
    expect(parseSizeList('1M:3M')).toEqual([M, 2 * M]);
    expect(parseSizeList('1:64G')).toHaveLength(37);
    expect(parseSizeList('1M:4M,2M,16M')).toEqual([M, 2 * M, 4 * M, 16 * M]);
    // What the CLI took before stays: blanks around items, binary suffixes spelled out.
    expect(parseSizeList(' 4K , 1MiB ')).toEqual([4 * K, M]);
  });

  it('keeps the sizes as written, ranges expanded, for what the helper measures', () => {
    expect(expandSizeList('1M,4K:16K,1M')).toEqual([M, 4 * K, 8 * K, 16 * K, M]);
  });

  it('refuses empty items, naming where the extra comma is', () => {
    expect(() => parseSizeList('4K,,1M')).toThrow(
      '"4K,,1M" has an empty item (two commas in a row); list sizes separated by single commas (e.g. 4K,64K,1M or 1M:64M)',
    );
    expect(() => parseSizeList('4K,1M,')).toThrow('"4K,1M," ends with a comma');
    expect(() => parseSizeList(',4K')).toThrow('",4K" starts with a comma');
    expect(() => parseSizeList('')).toThrow('the size list is empty (e.g. 4K,64K,1M or 1M:64M)');
    expect(() => parseSizeList(' , ')).toThrow('starts with a comma');
  });

  it('refuses a malformed range with the reason', () => {
    expect(() => parseSizeList('64M:1M')).toThrow(
      'range "64M:1M" runs backwards: FROM must not be above TO (e.g. 1M:64M)',
    );
    expect(() => parseSizeList('1M:64M:x1')).toThrow(
      '"x1" in "1M:64M:x1" is not a step like x2 or x4 (factor 2..1024)',
    );
    expect(() => parseSizeList('1M:64M:x1025')).toThrow('factor 2..1024');
    expect(() => parseSizeList('1M:64M:2')).toThrow('"2" in "1M:64M:2" is not a step');
    expect(() => parseSizeList('1K:2K:x2:x2')).toThrow('"1K:2K:x2:x2" is not a size range (FROM:TO or FROM:TO:xF');
    expect(() => parseSizeList('1M:lots')).toThrow('in range "1M:lots": "lots" is not a size');
    expect(() => parseSizeList('1M:65G')).toThrow('in range "1M:65G": size "65G" is out of range');
  });

  it(`takes at most ${LIMITS.listLengthMax} sizes, counted as written, as the helper counts them`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join(',');
    expect(parseSizeList(list(LIMITS.listLengthMax))).toHaveLength(LIMITS.listLengthMax);
    expect(() => parseSizeList(list(LIMITS.listLengthMax + 1))).toThrow(
      `names more than ${LIMITS.listLengthMax} sizes`,
    );
    // Seven ranges of 37 sizes: 259, though only 37 differ.
    expect(() => parseSizeList(Array(7).fill('1:64G').join(','))).toThrow(
      `names more than ${LIMITS.listLengthMax} sizes`,
    );
  });

  it('a list of sizes written as the helper is given them reads back as those sizes (property)', () => {
    fc.assert(
      fc.property(fc.array(sizeWord, { minLength: 1, maxLength: LIMITS.listLengthMax }), (words) => {
        const bytes = words.map((w) => w.bytes);
        const sorted = [...new Set(bytes)].sort((a, b) => a - b);
        expect(parseSizeList(words.map((w) => w.text).join(','))).toEqual(sorted);
        expect(parseSizeList(bytes.map(formatSizeArg).join(','))).toEqual(sorted);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('a list is its items one after another, each range FROM, FROM*F, ... up to TO (property)', () => {
    fc.assert(
      fc.property(sizeList, (l) => {
        expect(expandSizeList(l.text)).toEqual(l.sizes);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('a range stays within its ends and stops where one more step would pass TO (property)', () => {
    fc.assert(
      fc.property(sizeWord, sizeWord, fc.integer({ min: 2, max: 1024 }), (a, b, f) => {
        const [from, to] = a.bytes <= b.bytes ? [a, b] : [b, a];
        const sizes = expandSizeList(`${from.text}:${to.text}:x${f}`);
        expect(sizes).toEqual(rangeModel(from.bytes, to.bytes, f));
        expect(sizes[0]).toBe(from.bytes);
        expect(sizes.at(-1)!).toBeLessThanOrEqual(to.bytes);
        expect(sizes.at(-1)! * f).toBeGreaterThan(to.bytes);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('a list broken in one way is refused with a message, never taken in part (property)', () => {
    fc.assert(
      fc.property(brokenSizeList, (text) => {
        expect(() => parseSizeList(text)).toThrow(/./);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

/** The vectors the helper's native test reads too (test/fixtures/size-grammar.json). */
interface GrammarVector {
  input: string;
  bytes?: number[];
  helper?: string;
  cli?: string;
}
const grammar = JSON.parse(readFileSync(join(__dirname, '../fixtures/size-grammar.json'), 'utf8')) as {
  vectors: GrammarVector[];
};

describe('size lists: the vectors shared with the helper (test/fixtures/size-grammar.json)', () => {
  it('has vectors of both kinds', () => {
    expect(grammar.vectors.filter((v) => v.bytes).length).toBeGreaterThan(10);
    expect(grammar.vectors.filter((v) => v.helper !== undefined).length).toBeGreaterThan(10);
  });
  for (const v of grammar.vectors) {
    const name =
      v.input.length > 40 ? `${v.input.slice(0, 40)}... (${v.input.length} characters)` : JSON.stringify(v.input);
    if (v.bytes) {
      it(`${name}: the sizes as written`, () => {
        expect(expandSizeList(v.input)).toEqual(v.bytes);
      });
    } else {
      it(`${name}: refused`, () => {
        expect(() => expandSizeList(v.input)).toThrow(v.cli);
      });
    }
  }
});
