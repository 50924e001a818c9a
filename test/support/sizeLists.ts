/**
 * Size lists written in the helper's own grammar (`sdma-probe sweep --sizes`, native/src/cli/options.cpp),
 * well formed or broken in one way, for property tests of src/core/sizeList.ts against a model
 * (unit) and against the helper itself (contract).
 */
import fc from 'fast-check';
import { LIMITS } from '../../src/core/limits';

const MAX = LIMITS.sizeBytesMax;
const UNITS = [
  ['', 1],
  ['K', 1024],
  ['k', 1024],
  ['M', 1024 ** 2],
  ['m', 1024 ** 2],
  ['G', 1024 ** 3],
  ['g', 1024 ** 3],
] as const;

/** A size and how it is written: `4096`, `64K`, `1m`, `2G`, each within 1 B .. sizeBytesMax. */
export const sizeWord = fc
  .constantFrom(...UNITS)
  .chain(([suffix, mult]) =>
    fc.integer({ min: 1, max: Math.min(MAX / mult, 2 ** 31) }).map((n) => ({ bytes: n * mult, text: `${n}${suffix}` })),
  );

export interface Item {
  text: string;
  /** The sizes it stands for, in order. */
  sizes: number[];
}

/** What the helper's loop yields for FROM:TO:xF. */
export function rangeModel(from: number, to: number, factor: number): number[] {
  const sizes: number[] = [];
  for (let s = from; s <= to; s *= factor) sizes.push(s);
  return sizes;
}

/** One item: a size, or a range FROM:TO with or without a step xF (x or X). */
export const item: fc.Arbitrary<Item> = fc.oneof(
  sizeWord.map((s) => ({ text: s.text, sizes: [s.bytes] })),
  fc
    .tuple(
      sizeWord,
      sizeWord,
      fc.option(
        fc.tuple(
          fc.constantFrom('x', 'X'),
          fc.oneof(fc.integer({ min: 2, max: 16 }), fc.integer({ min: 2, max: 1024 })),
        ),
        { nil: undefined },
      ),
    )
    .map(([a, b, step]) => {
      const [from, to] = a.bytes <= b.bytes ? [a, b] : [b, a];
      const factor = step ? step[1] : 2;
      return {
        text: `${from.text}:${to.text}${step ? `:${step[0]}${step[1]}` : ''}`,
        sizes: rangeModel(from.bytes, to.bytes, factor),
      };
    }),
);

/** A well-formed list of 1..6 items (at most 6 x 37 sizes: within the helper's list limit). */
export const sizeList = fc
  .array(item, { minLength: 1, maxLength: 6 })
  .map((items) => ({ text: items.map((i) => i.text).join(','), sizes: items.flatMap((i) => i.sizes) }));

/** A list both parsers must refuse: a well-formed one broken in one way. */
export const brokenSizeList: fc.Arbitrary<string> = fc.oneof(
  // An empty item: leading, trailing, or two commas in a row.
  sizeList.map((l) => `,${l.text}`),
  sizeList.map((l) => `${l.text},`),
  fc.tuple(sizeList, sizeList).map(([a, b]) => `${a.text},,${b.text}`),
  fc.constant(''),
  // A range that runs backwards.
  fc
    .tuple(sizeWord, sizeWord)
    .filter(([a, b]) => a.bytes !== b.bytes)
    .map(([a, b]) => (a.bytes > b.bytes ? `${a.text}:${b.text}` : `${b.text}:${a.text}`)),
  // A step that is not x2..x1024, or more than three parts.
  fc
    .tuple(sizeWord, fc.constantFrom('x1', 'x0', 'x1025', 'x', '2', 'y2', 'x2.5', ''))
    .map(([s, step]) => `${s.text}:${s.text}:${step}`),
  sizeWord.map((s) => `${s.text}:${s.text}:x2:x2`),
  // A size that is not one, or out of range; a range end that is empty.
  fc.constantFrom('0', '0K', '65G', String(MAX + 1), '4T', '1.5M', '-1K', '0x10', 'K', ':1M', '1M:', '4K;1M'),
  // More sizes than a list may hold.
  fc
    .integer({ min: LIMITS.listLengthMax + 1, max: LIMITS.listLengthMax + 40 })
    .map((n) => Array.from({ length: n }, (_, i) => String(i + 1)).join(',')),
);
