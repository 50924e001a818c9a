import { describe, expect, it } from 'vitest';
import { filterMask, parseFilter, FilterSyntaxError } from '../../src/core/timeline/timelineFilter';
import { buildIndex, columnsFromEvents, eventAt, relatedEvents } from '../../src/core/timeline/timelineModel';
import { EVENTS, repeated } from './timelineFixture';

const byId = (id: number) => EVENTS.findIndex((e) => e.id === id);

describe('timeline index', () => {
  const t = columnsFromEvents(EVENTS);
  const index = buildIndex(t, { gpuCus: [256, 256], vendor: 'amd' });

  it('puts each kind on its lane, grouped by GPU: kernels, engines, then one lane per CU', () => {
    expect(index.lanes.map((l) => l.label)).toEqual(['Kernels', 'SDMA engine 2', 'CU 0', 'CU 32', 'CU 64', 'CU 96']);
    expect(index.heat).toEqual([{ id: 6, gpu: 0, cuLanes: [2, 3, 4, 5], cuCount: 256 }]);
    for (let l = 0; l < index.lanes.length; l++) {
      for (let k = index.laneStart[l]! + 1; k < index.laneStart[l + 1]!; k++)
        expect(t.startNs[index.order[k]!]).toBeGreaterThanOrEqual(t.startNs[index.order[k - 1]!]!);
    }
  });

  it('links a doorbell to every packet it announced and to the completion of the last', () => {
    const doorbell = byId(10);
    const r = relatedEvents(t, index, doorbell);
    expect(r.packets).toEqual([byId(11), byId(12)]);
    expect(EVENTS[r.packets.at(-1)!]!.op).toBe('copy+signal');
    expect(relatedEvents(t, index, byId(12)).doorbell).toBe(doorbell);
    expect(index.refIndex[doorbell]).toBe(byId(11));
  });

  it('finds the CUs a kernel used, and the kernel that waited for a device-initiated packet', () => {
    expect(relatedEvents(t, index, byId(0)).cus.sort()).toEqual([1, 2, 3, 4].map(byId).sort());
    expect(relatedEvents(t, index, byId(17)).kernel).toBe(byId(13));
  });

  it('hit-tests the event under a time, preferring the doorbell instant over the packet queued behind it', () => {
    const engine = index.lanes.find((l) => l.category === 'engine')!.id;
    expect(eventAt(t, index, engine, 37_000_000, 10)).toBe(byId(12));
    expect(eventAt(t, index, engine, 34_294_160, 50)).toBe(byId(10));
    expect(eventAt(t, index, engine, 10, 5)).toBe(-1);
  });

  it('indexes a repeated layout without a sort (already in time order) and keeps ids unique', () => {
    const big = repeated(100);
    const i2 = buildIndex(big);
    expect(i2.count).toBe(1800);
    expect(i2.lanes.reduce((s, l) => s + l.eventCount, 0)).toBe(1800);
    expect([...i2.announcedBy].filter((d) => d >= 0)).toHaveLength(400);
  });
});

describe('timeline filter', () => {
  const t = columnsFromEvents(EVENTS);
  const kept = (q: string) => [...filterMask(t, parseFilter(q))].reduce((a, b) => a + b, 0);

  it('understands kinds, paths, ops, engines, CUs and sizes', () => {
    const counts = {
      '': 18,
      'kind:packet': 4,
      'packet engine/device': 2,
      'op:copy+signal': 2,
      'engine:2': 6,
      'cu:32': 2,
      'kind:kernel size>=256M': 3,
      'kind:packet size<128M': 0,
      device: 10,
      'gpu:1': 0,
    };
    for (const [query, n] of Object.entries(counts)) expect(kept(query), query).toBe(n);
  });

  it('says what is wrong with a bad query', () => {
    expect(() => parseFilter('kind:warp')).toThrow(FilterSyntaxError);
    expect(() => parseFilter('size>=lots')).toThrow(/not a size/);
    expect(() => parseFilter('colour:red')).toThrow(/unknown field/);
  });
});
