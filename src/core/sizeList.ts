/**
 * The size-list grammar the helper accepts (`sdma-probe sweep --sizes`, native/src/cli/options.cpp),
 * parsed the same way wherever a list of sizes is typed: CLI flags, the sweep's quick pick.
 *
 *   list  = item *("," item)           no empty item: "4K,,1M" and "4K,1M," are refused
 *   item  = SIZE | SIZE ":" SIZE [":" step]
 *   step  = ("x" | "X") F              F a whole number in 2..1024 (default x2)
 *
 * A range FROM:TO is FROM, FROM*F, FROM*F^2, ... up to TO (`1M:64M` is 1M, 2M, ..., 64M). SIZE
 * is parseSize's (units.ts): the helper's `4096`, `64K`, `1m`, `1G`, and also `1MiB`, `64 KB`;
 * blanks around items are ignored. As in the helper, a list may name at most
 * `LIMITS.listLengthMax` sizes, counted as written (each range's sizes, repeats included),
 * before the result is sorted and de-duplicated.
 */
import { LIMITS } from './limits';
import { parseSize } from './units';

/** Smallest and largest multiplier of a range's `xF` step (the helper's bounds). */
export const RANGE_STEP = { min: 2, max: 1024, default: 2 } as const;

const EXAMPLE = 'e.g. 4K,64K,1M or 1M:64M';

/** The sizes of one range item, FROM:TO or FROM:TO:xF, in order; throws a message naming the item. */
function rangeSizes(item: string, parts: string[]): number[] {
  if (parts.length > 3)
    throw new Error(`"${item}" is not a size range (FROM:TO or FROM:TO:xF, ${EXAMPLE} or 4K:1G:x4)`);
  const [from, to] = [parts[0]!, parts[1]!].map((p) => {
    try {
      return parseSize(p);
    } catch (err) {
      throw new Error(`in range "${item}": ${(err as Error).message}`);
    }
  }) as [number, number];
  let factor: number = RANGE_STEP.default;
  if (parts.length === 3) {
    const step = parts[2]!.trim();
    const m = /^[xX](\d+)$/.exec(step);
    factor = m ? Number(m[1]) : NaN;
    if (!(factor >= RANGE_STEP.min && factor <= RANGE_STEP.max))
      throw new Error(
        `"${step}" in "${item}" is not a step like x2 or x4 (factor ${RANGE_STEP.min}..${RANGE_STEP.max})`,
      );
  }
  if (from > to) throw new Error(`range "${item}" runs backwards: FROM must not be above TO (e.g. 1M:64M)`);
  const sizes: number[] = [];
  for (let size = from; size <= to; size *= factor) sizes.push(size);
  return sizes;
}

/** Why an empty item is refused, by where it is. */
function emptyItem(text: string, index: number, count: number): Error {
  const where =
    index === 0
      ? 'starts with a comma'
      : index === count - 1
        ? 'ends with a comma'
        : 'has an empty item (two commas in a row)';
  return new Error(`"${text}" ${where}; list sizes separated by single commas (${EXAMPLE})`);
}

/**
 * The sizes of a list as written: each item in order, each range expanded, repeats kept (what
 * the helper measures, in its order). Throws a message that names the faulty item.
 */
export function expandSizeList(text: string): number[] {
  if (text.trim() === '') throw new Error(`the size list is empty (${EXAMPLE})`);
  const items = text.split(',');
  const sizes: number[] = [];
  items.forEach((raw, i) => {
    const item = raw.trim();
    if (item === '') throw emptyItem(text, i, items.length);
    const parts = item.split(':');
    const add = parts.length === 1 ? [parseSize(item)] : rangeSizes(item, parts);
    for (const size of add) sizes.push(size);
    if (sizes.length > LIMITS.listLengthMax)
      throw new Error(`"${text}" names more than ${LIMITS.listLengthMax} sizes (the most one list may hold)`);
  });
  return sizes;
}

/** Parses a size list (ranges included); returns its sizes sorted and de-duplicated. */
export function parseSizeList(text: string): number[] {
  return [...new Set(expandSizeList(text))].sort((a, b) => a - b);
}
