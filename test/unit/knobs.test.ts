import { describe, expect, it } from 'vitest';
import { allKnobs, knob, loadCatalog, meaningsOf, rangesOverlap, sdmaValues } from '../../src/core/advice/knobs';
import raw from '../../src/core/advice/knobCatalog.json';
import { compareVersions, inRange } from '../../src/core/advice/version';

describe('knob catalog', () => {
  it('covers the knobs the advice needs', () => {
    for (const name of [
      'NCCL_GIN_ENABLE',
      'NCCL_GIN_TYPE',
      'NCCL_GIN_ANVIL_SDMA_THRESHOLD',
      'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER',
      'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLTOALL',
      'NCCL_GIN_A2A_SDMA_MIN_BYTES',
      'NCCL_GIN_ANVIL_SDMA_NUM_CHANNELS',
      'ROCSHMEM_SDMA_ENABLED',
      'ROCSHMEM_SDMA_THRESHOLD',
      'HSA_ENABLE_SDMA',
      'NCCL_CTA_POLICY',
      'NCCL_SYM_CE_THRESHOLD',
    ]) {
      expect(knob(name), name).toBeDefined();
    }
  });

  it('every entry has a source and a version range, and names are unique', () => {
    expect(new Set(allKnobs().map((k) => k.name)).size).toBe(allKnobs().length);
    for (const k of allKnobs()) {
      expect(k.source.length, k.name).toBeGreaterThan(10);
      expect(k.versions, k.name).toHaveProperty('from');
      expect(k.versions, k.name).toHaveProperty('before');
      if (k.versions.from && k.versions.before)
        expect(compareVersions(k.versions.from, k.versions.before), k.name).toBeLessThan(0);
      if (k.kind === 'bytes')
        expect(k.comparison, `${k.name} must say whether it switches above or at its value`).toBeDefined();
      if (k.kind === 'enum') expect(k.values?.length, k.name).toBeGreaterThan(0);
    }
  });

  it('an enum value means one thing at any version (no overlapping ranges for the same value)', () => {
    for (const k of allKnobs().filter((x) => x.values)) {
      const values = k.values!;
      for (let i = 0; i < values.length; i++) {
        for (let j = i + 1; j < values.length; j++) {
          if (values[i]!.value === values[j]!.value)
            expect(rangesOverlap(values[i]!.versions, values[j]!.versions), `${k.name}=${values[i]!.value}`).toBe(
              false,
            );
        }
      }
    }
  });

  it('knows that the Anvil SDMA number moved 5 -> 6 -> 7', () => {
    const gin = knob('NCCL_GIN_TYPE')!;
    // No Anvil SDMA before rocm-systems PR #7826 (RCCL 2.30.4); 4 was the early rocSHMEM GDA (#7355).
    expect(sdmaValues(gin, '2.29.3')).toEqual([]);
    expect(sdmaValues(gin, '2.30.5').map((x) => x.value)).toEqual(['5']);
    expect(meaningsOf(gin, '4', '2.30.5').map((x) => x.meaning)).toEqual([
      'rocSHMEM GDA (the early GDA builds of rocm-systems PR #7355)',
    ]);
    expect(sdmaValues(gin, '2.30.7').map((x) => x.value)).toEqual(['6']);
    expect(sdmaValues(gin, '2.31.0').map((x) => x.value)).toEqual(['7']);
    expect(meaningsOf(gin, '5', '2.31.2').map((x) => x.meaning)).toEqual(['EFA GDA (taken by upstream NCCL 2.31)']);
    expect(sdmaValues(gin, undefined).length).toBe(3);
  });

  it('the shipped catalog is the checked one: it passes the schema with nothing dropped or changed', () => {
    // allKnobs() serves the shipped data unchecked at run time: this is where it is checked.
    expect(loadCatalog(raw)).toStrictEqual(raw.knobs);
    expect(allKnobs()).toBe(raw.knobs);
  });

  it('an unknown field in an entry is a difference the check above sees', () => {
    const extra = { ...raw, knobs: [{ ...raw.knobs[0], unknownField: 1 }, ...raw.knobs.slice(1)] };
    expect(loadCatalog(extra)).not.toStrictEqual(extra.knobs);
  });

  it('rejects a catalog entry without a source', () => {
    const bad = { format: 'sdma-lens-knobs', version: 2, notes: '', knobs: [{ ...allKnobs()[0], source: '' }] };
    expect(() => loadCatalog(bad)).toThrow(/source/);
  });

  it('compares versions numerically', () => {
    expect(compareVersions('2.31.0', '2.9.9')).toBe(1);
    expect(compareVersions('2.28.9+hip6.4', '2.28.9')).toBe(0);
    expect(inRange('2.30.5', { from: '2.30.0', before: '2.31.0' })).toBe(true);
    expect(inRange('2.31.0', { from: '2.30.0', before: '2.31.0' })).toBe(false);
    expect(inRange('1.0', { from: null, before: null })).toBe(true);
  });
});
