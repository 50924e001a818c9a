import { describe, expect, it } from 'vitest';
import { buildIndex, columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { describeEvent } from '../../src/core/timeline/timelineDescribe';
import { EVENTS } from './timelineFixture';

describe('timeline details of a packet', () => {
  const t = columnsFromEvents(EVENTS);
  const index = buildIndex(t, { gpuCus: [256], vendor: 'amd' });
  const packet = EVENTS.findIndex((e) => e.kind === 'packet' && e.path === 'engine/host');

  it('lists its times as they happen: doorbell rung, seen by the engine (queued), start, end', () => {
    const rows = describeEvent(t, index, packet, 'amd').rows;
    const labels = rows.map(([k]) => k);
    const order = [
      'Doorbell rung',
      'Queued (doorbell seen by the engine)',
      'Waited in queue',
      'Start',
      'End',
      'Duration',
    ];
    expect(labels.filter((k) => order.includes(k))).toEqual(order);
    expect(labels).not.toContain('Queued');
    expect(labels).not.toContain('Doorbell');
    const value = (k: string) => rows.find(([label]) => label === k)?.[1];
    expect(value('Doorbell rung')).toBe('34,294.158 µs');
    expect(value('Queued (doorbell seen by the engine)')).toBe('34,295.158 µs');
    expect(value('Start')).toBe('34,298.258 µs');
  });

  it('names the host proxy as what saw the doorbell on NVIDIA engine/device', () => {
    const nvidia = EVENTS.findIndex((e) => e.kind === 'packet' && e.path === 'engine/device');
    const labels = describeEvent(t, buildIndex(t, { gpuCus: [132], vendor: 'nvidia' }), nvidia, 'nvidia').rows.map(
      ([k]) => k,
    );
    expect(labels).toContain('Queued (doorbell seen by the host proxy)');
    expect(labels.indexOf('Doorbell rung')).toBeLessThan(labels.indexOf('Queued (doorbell seen by the host proxy)'));
  });
});
