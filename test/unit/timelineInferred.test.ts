/**
 * What the panel says about events the hardware did not report (inferred) and about engines
 * nobody named: the details pane's "Inferred" row and why, the "Unknown engine" lane, the
 * legend entry, the level-of-detail runs that must be hatched, the filter words, the message
 * schema's flags check and the Perfetto export's args.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { FLAG_INFERRED, anyInferred, emptyColumns } from '../../src/core/timeline/timelineFile';
import { filterMask, parseFilter } from '../../src/core/timeline/timelineFilter';
import { aggregate, lodColumns } from '../../src/core/timeline/timelineLod';
import { TimelineColumnsSchema } from '../../src/core/timeline/timelineMessages';
import {
  ENGINE_UNKNOWN,
  buildIndex,
  columnsFromEvents,
  filterColumns,
  laneLabel,
} from '../../src/core/timeline/timelineModel';
import { chromeTraceJson } from '../../src/core/timeline/timelineTrace';
import {
  INFERRED_WORDS,
  describeAggregate,
  describeEvent,
  inferredWhy,
} from '../../src/core/timeline/timelineDescribe';
import { INFERRED_ENTRY, legendEntries } from '../../webview/timeline/legend';
import { AMD_ENGINE_DEVICE, EVENTS } from './timelineFixture';

const all = [...EVENTS, ...AMD_ENGINE_DEVICE];
const t = columnsFromEvents(all);
const index = buildIndex(t, { gpuCus: [256], vendor: 'amd' });
const byId = (id: number) => all.findIndex((e) => e.id === id);
const doorbell = byId(20);
const packet = byId(21);
const rowsOf = (e: number, vendor: 'amd' | 'nvidia' = 'amd', simulated = false) =>
  new Map(describeEvent(t, index, e, vendor, simulated).rows);

describe('the inline form', () => {
  it('keeps inferred: true, and reads an event without it as observed', () => {
    expect(t.flags).toBeDefined();
    expect(Array.from(t.flags!).filter((f) => f === FLAG_INFERRED)).toHaveLength(2);
    expect(columnsFromEvents(EVENTS).flags).toBeUndefined();
  });

  it('validates inferred as a boolean in a timeline record', () => {
    const record = (extra: string) =>
      parseLine(
        `{"type":"timeline","events":[{"kind":"packet","gpu":0,"lane":65535,"id":0,"ref":-1,"op":"copy","startNs":0,"endNs":5,"queuedNs":0,"bytes":8,"path":"engine/device"${extra}}],"sizeBytes":8}`,
      );
    const ok = record(',"inferred":true');
    expect(ok.kind).toBe('record');
    if (ok.kind === 'record' && ok.record.type === 'timeline' && 'events' in ok.record)
      expect((ok.record.events[0] as TimelineEvent).inferred).toBe(true);
    expect(record('').kind).toBe('record');
    expect(record(',"inferred":"yes"').kind).toBe('malformed');
  });

  it('accepts a file reference of version 1 or 2, nothing else', () => {
    const ref = (version: number) =>
      parseLine(
        `{"type":"timeline","path":"t.sdmatl","format":"sdmatl","version":${version},"eventCount":1,"fileBytes":128,"sizeBytes":8}`,
      ).kind;
    expect(ref(1)).toBe('record');
    expect(ref(2)).toBe('record');
    expect(ref(3)).toBe('malformed');
  });
});

describe('lanes', () => {
  it('puts packets and doorbells of an unknown engine on one "Unknown engine" lane', () => {
    const lane = index.lanes[index.laneOf[packet]!]!;
    expect(lane.label).toBe('Unknown engine');
    expect(index.laneOf[doorbell]).toBe(index.laneOf[packet]);
    expect(laneLabel('engine', ENGINE_UNKNOWN, 'nvidia')).toBe('Unknown engine');
    expect(laneLabel('engine', 2, 'amd')).toBe('SDMA engine 2');
    // After the GPU's numbered engines.
    const engines = index.lanes.filter((l) => l.category === 'engine').map((l) => l.label);
    expect(engines.at(-1)).toBe('Unknown engine');
  });

  it('the doorbell still announces its packet there', () => {
    expect(index.announcedBy[packet]).toBe(doorbell);
  });
});

describe('details of an inferred event', () => {
  it('an AMD engine/device packet: titled inferred, "Inferred" saying why, engine unknown, no queue wait made up', () => {
    const facts = describeEvent(t, index, packet, 'amd');
    expect(facts.title).toBe('SDMA packet · copy+signal · inferred');
    const rows = new Map(facts.rows);
    expect(rows.get('Inferred')).toBe(`${INFERRED_WORDS}; ${inferredWhy(2, 'engine/device', 'amd')}`);
    expect(rows.get('Inferred')).toMatch(/^not reported by the hardware; rocSHMEM writes the SDMA packets/);
    expect(rows.get('Engine')).toMatch(/^unknown/);
    expect(rows.get('Where')).toBe('GPU 0 · Unknown engine');
    expect(rows.has('Queued (doorbell seen by the engine)')).toBe(false);
    expect(rows.has('Waited in queue')).toBe(false);
    expect(rows.has('Doorbell rung')).toBe(true);
    // In the first rows, so the tooltip (eight rows) shows it.
    expect(facts.rows.findIndex(([k]) => k === 'Inferred')).toBeLessThan(8);
  });

  it('an AMD engine/device doorbell: placed where the put call returned', () => {
    const facts = describeEvent(t, index, doorbell, 'amd');
    expect(facts.title).toBe('Doorbell · unknown engine · inferred');
    expect(new Map(facts.rows).get('Inferred')).toMatch(/put call: placed where the call returned/);
  });

  it("NVIDIA's proxied packet: the bounds of the copy, not its start and end; the proxy's queue time kept", () => {
    const rows = rowsOf(packet, 'nvidia');
    expect(rows.get('Inferred')).toMatch(/copy engine reports no times of its own/);
    expect(inferredWhy(2, 'engine/device', 'nvidia')).toMatch(/host proxy submitting the copy/);
  });

  it('a simulated one says the simulator draws it as a real run shows it', () => {
    expect(rowsOf(packet, 'amd', true).get('Inferred')).toMatch(/\(simulated: drawn as a real AMD GPU run shows it\)$/);
  });

  it('other inferred events get the general reason', () => {
    expect(inferredWhy(0, 'cu/host', 'amd')).toBe('its times were derived from what was observed around it');
  });

  it('an observed event has no "Inferred" row and no "inferred" in its title', () => {
    const observed = EVENTS.findIndex((e) => e.kind === 'packet');
    const facts = describeEvent(t, index, observed, 'amd');
    expect(facts.title).not.toMatch(/inferred/);
    expect(new Map(facts.rows).has('Inferred')).toBe(false);
    expect(new Map(facts.rows).has('Engine')).toBe(false);
  });
});

describe('the legend', () => {
  it('has the inferred entry only when a timeline has inferred events', () => {
    expect(legendEntries(t)).toEqual([INFERRED_ENTRY]);
    expect(INFERRED_ENTRY.text).toBe('inferred: not reported by the hardware');
    expect(legendEntries(columnsFromEvents(EVENTS))).toEqual([]);
    expect(legendEntries(undefined)).toEqual([]);
    // A flags column of zeros (a version 2 file whose events were all observed): no entry.
    expect(legendEntries({ flags: new Uint8Array(5) })).toEqual([]);
    expect(anyInferred({ flags: Uint8Array.of(0, 0, FLAG_INFERRED) })).toBe(true);
  });
});

describe('level of detail', () => {
  const lc = lodColumns(t, index);
  const unknownLane = index.laneOf[packet]!;

  it('marks a run inferred when it sums an inferred event, and draws a wide inferred event raw', () => {
    const narrow = aggregate(lc, index, {
      startNs: index.startNs,
      endNs: index.endNs * 1000,
      buckets: 10,
      lanes: [unknownLane],
    });
    expect(narrow.raw).toHaveLength(0);
    expect(narrow.runs.lane.length).toBeGreaterThan(0);
    expect(Array.from(narrow.runs.inferred).every((x) => x === 1)).toBe(true);
    const lines = describeAggregate(narrow, 0);
    expect(lines.at(-1)).toBe(`includes inferred events: ${INFERRED_WORDS}`);

    const wide = aggregate(lc, index, {
      startNs: index.startNs,
      endNs: index.endNs,
      buckets: 1000,
      lanes: [unknownLane],
    });
    expect(Array.from(wide.raw)).toContain(packet);
  });

  it('runs of observed events are not', () => {
    const engine2 = index.laneOf[EVENTS.findIndex((e) => e.kind === 'packet')]!;
    const r = aggregate(lc, index, {
      startNs: index.startNs,
      endNs: index.endNs * 1000,
      buckets: 10,
      lanes: [engine2],
    });
    expect(r.runs.lane.length).toBeGreaterThan(0);
    expect(Array.from(r.runs.inferred).every((x) => x === 0)).toBe(true);
    expect(describeAggregate(r, 0).some((l) => l.includes('inferred'))).toBe(false);
  });
});

describe('the filter', () => {
  const kept = (q: string) => [...filterMask(t, parseFilter(q))].flatMap((m, i) => (m ? [t.id[i]] : []));

  it('inferred keeps what the hardware did not report, observed the rest', () => {
    expect(kept('inferred')).toEqual([20, 21]);
    expect(kept('observed kind:packet path:engine/device')).toEqual([16, 17]);
    expect(() => parseFilter('inferred observed')).toThrow(/exclude each other/);
  });

  it('engine:unknown keeps the unknown-engine lane', () => {
    expect(kept('engine:unknown')).toEqual([20, 21]);
    expect(kept('engine:2,unknown kind:doorbell')).toEqual([10, 15, 20]);
  });

  it('filterColumns keeps the flags of the events it keeps', () => {
    const only = filterColumns(t, (i) => t.path[i] === 3);
    expect(Array.from(only.flags!)).toEqual(
      all.filter((e) => e.path === 'engine/device').map((e) => (e.inferred ? FLAG_INFERRED : 0)),
    );
  });
});

describe('the panel message schema', () => {
  it('accepts a flags column of count values with known bits, and nothing else', () => {
    expect(v.safeParse(TimelineColumnsSchema, t).success).toBe(true);
    const bad = (flags: Uint8Array) => v.safeParse(TimelineColumnsSchema, { ...t, flags }).success;
    expect(bad(new Uint8Array(t.count - 1))).toBe(false);
    const withBit = new Uint8Array(t.count);
    withBit[3] = 2;
    expect(bad(withBit)).toBe(false);
    expect(v.safeParse(TimelineColumnsSchema, { ...emptyColumns(2), flags: [0, 1] }).success).toBe(false);
  });
});

describe('the Perfetto export', () => {
  it('marks inferred events in their args, and names the unknown-engine thread', () => {
    const trace = JSON.parse(
      chromeTraceJson(t, { title: 't', simulated: false, nodeLabel: 'n', vendor: 'amd', gpuCus: [256] }),
    ) as { traceEvents: { ph: string; name: string; args?: Record<string, unknown> }[] };
    const inferred = trace.traceEvents.filter((e) => e.args?.inferred === true);
    expect(inferred.map((e) => e.args!.id)).toEqual([20, 21]);
    expect(trace.traceEvents.filter((e) => e.ph !== 'M' && e.args && !e.args.inferred).length).toBeGreaterThan(0);
    expect(
      trace.traceEvents.some((e) => e.name === 'thread_name' && (e.args as { name: string }).name === 'Unknown engine'),
    ).toBe(true);
  });
});
