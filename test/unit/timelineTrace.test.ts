import { describe, expect, it } from 'vitest';
import { columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { chromeTraceJson } from '../../src/core/timeline/timelineTrace';
import { EVENTS } from './timelineFixture';

interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  id?: number | string;
  args?: Record<string, unknown>;
}

const meta = {
  title: 'Timeline · 256 MiB',
  simulated: true,
  nodeLabel: 'AMD Instinct MI350X',
  vendor: 'amd' as const,
  gpuCus: [256],
};

describe('Chrome/Perfetto trace export', () => {
  const trace = JSON.parse(chromeTraceJson(columnsFromEvents(EVENTS), meta)) as {
    traceEvents: TraceEvent[];
    displayTimeUnit: string;
  };
  const events = trace.traceEvents;

  it('is trace-event JSON: complete events in microseconds, one per span', () => {
    const spans = events.filter((e) => e.ph === 'X' && e.name !== 'doorbell');
    expect(spans).toHaveLength(EVENTS.filter((e) => e.kind !== 'doorbell').length);
    const packet = spans.find((e) => e.args?.id === 11)!;
    expect(packet.ts).toBe(34298.258);
    expect(packet.dur).toBeCloseTo((36498549 - 34298258) / 1000, 3);
    expect(packet.args).toMatchObject({ bytes: 134217728, queuedNs: 34295158, queueWaitNs: 3100, path: 'engine/host' });
  });

  it('names processes after GPUs and threads after lanes', () => {
    const names = events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args?.name);
    expect(names).toEqual(['Kernels', 'SDMA engine 2', 'CU 0', 'CU 32', 'CU 64', 'CU 96']);
    expect(events.find((e) => e.ph === 'M' && e.name === 'process_name')?.args?.name).toBe('GPU 0 (simulated)');
  });

  it('draws an arrow from each doorbell to each packet it announced, and the queue wait as an async slice', () => {
    const starts = events.filter((e) => e.ph === 's');
    const ends = events.filter((e) => e.ph === 'f');
    expect(starts).toHaveLength(4);
    expect(ends.map((e) => e.id).sort()).toEqual(starts.map((e) => e.id).sort());
    expect(starts[0]!.ts).toBe(34294.158);
    const begins = events.filter((e) => e.ph === 'b');
    expect(begins).toHaveLength(4);
    expect(events.filter((e) => e.ph === 'e')).toHaveLength(4);
  });

  it('uses the same thread for a doorbell and its packets, so the flow binds to the packet slice', () => {
    const doorbell = events.find((e) => e.ph === 'X' && e.name === 'doorbell')!;
    const packet = events.find((e) => e.ph === 'X' && e.args?.id === 11)!;
    expect(doorbell.tid).toBe(packet.tid);
    expect(doorbell.dur).toBe(0);
  });
});
