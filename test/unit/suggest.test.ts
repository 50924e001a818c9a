/** "Did you mean": the names nearest a mistyped command or flag (src/cli/suggest.ts). */
import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearest } from '../../src/cli/suggest';

describe('did you mean', () => {
  it('counts insertions, deletions, substitutions and swapped neighbours as one edit each', () => {
    expect(editDistance('sweep', 'sweep')).toBe(0);
    expect(editDistance('swep', 'sweep')).toBe(1);
    expect(editDistance('sweeep', 'sweep')).toBe(1);
    expect(editDistance('swaep', 'sweep')).toBe(1);
    expect(editDistance('comapre', 'compare')).toBe(1);
    expect(editDistance('', 'runs')).toBe(4);
    expect(editDistance('mtrx', 'matrix')).toBe(2);
  });

  it('offers names within two edits, or that the word begins, nearest first', () => {
    const commands = [
      'sweep',
      'matrix',
      'collective',
      'overlap',
      'import',
      'advise',
      'runs',
      'compare',
      'fleet',
      'help',
    ];
    expect(nearest('swep', commands)).toEqual(['sweep']);
    expect(nearest('mtrx', commands)).toEqual(['matrix']);
    expect(nearest('col', commands)).toEqual(['collective']);
    expect(nearest('RUNS', commands)).toEqual(['runs']);
    expect(nearest('sim', ['sim-gpus', 'sim-weak', 'sizes'])).toEqual(['sim-gpus', 'sim-weak']);
    expect(nearest('sizes', ['size', 'sim-gpus'])).toEqual(['size']);
  });

  it('does not match a short word to anything (two edits would change all of it)', () => {
    expect(nearest('x', ['cus', 'src', 'dst'])).toEqual([]);
    expect(nearest('ab', ['cus', 'src', 'dst'])).toEqual([]);
    expect(nearest('abs', ['cus'])).toEqual([]);
    expect(nearest('explode', ['sweep', 'matrix', 'compare'])).toEqual([]);
  });

  it('says one, two or three names as a reader would', () => {
    expect(didYouMean('swep', ['sweep'])).toBe(' (did you mean sweep?)');
    expect(didYouMean('sim', ['sim-gpus', 'sim-weak'], (n) => `--${n}`)).toBe(
      ' (did you mean --sim-gpus or --sim-weak?)',
    );
    expect(didYouMean('ab', ['abc', 'abd', 'abe', 'abf'])).toBe(' (did you mean abc, abd or abe?)');
    expect(didYouMean('zzz', ['sweep'])).toBe('');
  });
});
