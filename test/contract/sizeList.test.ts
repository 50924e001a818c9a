/**
 * The size lists src/core/sizeList.ts reads are the helper's: for generated lists in the
 * helper's grammar (sizes, FROM:TO and FROM:TO:xF ranges), the sizes the real helper measures
 * (`sdma-probe sweep --sizes LIST` on the simulated node, one path, one CU count) are the ones
 * the TypeScript parser gives, repeats included; a list broken in one way (an empty item, a
 * backwards range, a bad step, a size out of range, too many sizes) is refused by both.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandSizeList } from '../../src/core/sizeList';
import { brokenSizeList, sizeList } from '../support/sizeLists';
import { helper, records } from './run';

const SEED = 31;

/** The sizes the helper measured for `--sizes text`, or its usage error. */
function measured(text: string): { sizes: number[] } | { usage: string } {
  const r = helper(['sweep', '--backend', 'sim', '--sizes', text, '--paths', 'cu/host', '--cus', '8', '--iters', '1']);
  const rs = records(r);
  const error = rs.find((x) => x.type === 'error');
  if (r.status === 2 && error?.type === 'error' && error.code === 'usage') return { usage: error.message };
  expect(r.status, `${text}: ${r.stderr}`).toBe(0);
  return { sizes: rs.flatMap((x) => (x.type === 'sample' ? [x.sizeBytes] : [])) };
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe('size lists: the helper and the TypeScript parser agree', () => {
  it('a well-formed list: the same sizes, as many times (property, seeded)', () => {
    fc.assert(
      fc.property(sizeList, (l) => {
        const helperSaw = measured(l.text);
        expect(helperSaw, l.text).toHaveProperty('sizes');
        expect(sorted((helperSaw as { sizes: number[] }).sizes), l.text).toEqual(sorted(expandSizeList(l.text)));
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('a list broken in one way: both refuse it (property, seeded)', () => {
    fc.assert(
      fc.property(brokenSizeList, (text) => {
        expect(measured(text), text).toHaveProperty('usage');
        expect(() => expandSizeList(text), text).toThrow(/./);
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('the cases a user meets: ranges, steps, the list limit', () => {
    for (const text of ['1M:64M', '4K:1G:x4', '3:100:X3', '4K,64K,1M', '1:64G', '4k,4K,1m:2m']) {
      const helperSaw = measured(text);
      expect(helperSaw, text).toHaveProperty('sizes');
      expect(sorted((helperSaw as { sizes: number[] }).sizes), text).toEqual(sorted(expandSizeList(text)));
    }
    for (const text of ['4K,,1M', '4K,1M,', '64M:1M', '1M:64M:x1', Array(7).fill('1:64G').join(',')]) {
      expect(measured(text), text).toHaveProperty('usage');
      expect(() => expandSizeList(text), text).toThrow(/./);
    }
  });
});
