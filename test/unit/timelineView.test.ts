import { describe, expect, it } from 'vitest';
import { openingLanes } from '../../src/core/timeline/timelineView';

describe('openingLanes: what a timeline shows when it opens', () => {
  it('every lane but the CU lanes, in index order, then the occupancy strips', () => {
    const index = {
      lanes: [
        { id: 0, category: 'kernel' },
        { id: 1, category: 'cu' },
        { id: 2, category: 'engine' },
        { id: 3, category: 'cu' },
        { id: 4, category: 'transfer' },
        { id: 5, category: 'proxy' },
      ],
      heat: [{ id: 6 }, { id: 7 }],
    };
    expect(openingLanes(index)).toEqual([0, 2, 4, 5, 6, 7]);
  });

  it('a timeline of CU lanes alone opens on its strips; one with no lanes on nothing', () => {
    expect(openingLanes({ lanes: [{ id: 0, category: 'cu' }], heat: [{ id: 1 }] })).toEqual([1]);
    expect(openingLanes({ lanes: [], heat: [] })).toEqual([]);
  });
});
