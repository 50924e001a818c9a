/**
 * The engine owns the timeline's columns: what the page used to compute from its own copy it
 * now asks by message. Each answer is checked against that former page-side computation on a
 * fixture: an event's details and related events, the filter's mask and count, the event under
 * a point, stepping through a lane (from the engine's selection, in message order), the first
 * event in view, the measure, the records of the events a level-of-detail answer draws; and
 * the load hands nothing of the columns back.
 */
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { labelOf } from '../../src/core/timeline/timelineFile';
import { filterMask, parseFilter } from '../../src/core/timeline/timelineFilter';
import { measureRange, visibleStartNs } from '../../src/core/timeline/timelineLod';
import type { TimelineIndex } from '../../src/core/timeline/timelineModel';
import {
  buildIndex,
  buildIndexAndLod,
  columnsFromEvents,
  eventAt,
  eventsInRange,
  relatedEvents,
} from '../../src/core/timeline/timelineModel';
import { describeEvent } from '../../src/core/timeline/timelineDescribe';
import { createEngine } from '../../src/core/timeline/timelineEngine';
import type { FromWorker, ToWorker } from '../../src/core/timeline/timelineEngineProtocol';
import { AMD_ENGINE_DEVICE, EVENTS, repeated } from './timelineFixture';

const fresh = () => columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]);

/** An engine loaded with `t` (which it then owns), answering synchronously. */
function loaded(t: TimelineColumns) {
  const engine = createEngine();
  const replies: FromWorker[] = [];
  const ask = (m: ToWorker): FromWorker[] => {
    const from = replies.length;
    engine.handle(m, (r) => replies.push(r));
    return replies.slice(from);
  };
  const [first] = ask({ type: 'load', columns: t, meta: { gpuCus: [256], vendor: 'amd', simulated: false } });
  return { ask, first: first! };
}

function one<T extends FromWorker['type']>(replies: FromWorker[], type: T): Extract<FromWorker, { type: T }> {
  expect(replies.map((r) => r.type)).toEqual([type]);
  return replies[0] as Extract<FromWorker, { type: T }>;
}

describe('the engine answers what the page computed itself', () => {
  const t = fresh();
  const index = buildIndex(t, { gpuCus: [256], vendor: 'amd' });
  const { ask, first } = loaded(fresh());

  it('loads, and hands back the lanes and span but no per-event column', () => {
    const answer = one([first], 'index');
    expect(answer.index.count).toBe(t.count);
    expect(answer.index.lanes).toEqual(index.lanes);
    expect(Array.from(answer.index.laneStart)).toEqual(Array.from(index.laneStart));
    expect([answer.index.startNs, answer.index.endNs]).toEqual([index.startNs, index.endNs]);
    expect(answer.inferred).toBe(true);
    for (const value of Object.values(answer.index))
      if (ArrayBuffer.isView(value)) expect((value as Int32Array).length).toBeLessThan(t.count);
    expect('columns' in answer).toBe(false);
  });

  it("answers every event's details: the facts, the related events, the chain and the extents", () => {
    for (let e = 0; e < t.count; e++) {
      const { details } = one(ask({ type: 'details', id: e, event: e }), 'details');
      const facts = describeEvent(t, index, e, 'amd', false);
      const r = relatedEvents(t, index, e);
      expect(details!.title).toBe(facts.title);
      expect(details!.rows).toEqual(facts.rows);
      expect(details!.related).toEqual([
        ...new Set([r.doorbell, ...r.packets, r.kernel, ...r.cus].filter((x) => x >= 0)),
      ]);
      expect(details!.doorbell).toBe(r.doorbell);
      expect(details!.packetsTotal).toBe(r.packets.length);
      expect(details!.extent).toEqual({ fromNs: visibleStartNs(t, e), toNs: Math.max(t.endNs[e]!, t.startNs[e]!) });
      const rec = details!.records;
      expect(rec.ids[0]).toBe(e);
      expect(rec.laneOf[0]).toBe(index.laneOf[e]);
      expect([rec.kind[0], rec.startNs[0], rec.endNs[0], rec.bytes[0], rec.label[0]]).toEqual([
        t.kind[e],
        t.startNs[e],
        t.endNs[e],
        t.bytes[e],
        labelOf(t, e),
      ]);
    }
    // Out of range: no details, nothing thrown.
    expect(one(ask({ type: 'details', id: 1, event: t.count }), 'details').details).toBeUndefined();
  });

  it('builds the filter mask from the query: the count, the extent, and the events hits skip', () => {
    for (const query of ['kind:packet', 'path:engine/device', 'inferred', 'size>=1M kind:kernel', '']) {
      const answer = one(ask({ type: 'filter', id: 7, text: query }), 'filter');
      const filter = parseFilter(query);
      const mask = query ? filterMask(t, filter) : undefined;
      const kept = mask ? mask.reduce((a, b) => a + b, 0) : t.count;
      expect(answer.kept, query).toBe(kept);
      if (mask && kept > 0) {
        let a = Infinity;
        let b = -Infinity;
        for (let e = 0; e < t.count; e++)
          if (mask[e]) {
            a = Math.min(a, visibleStartNs(t, e));
            b = Math.max(b, t.endNs[e]!, t.startNs[e]!);
          }
        expect([answer.fromNs, answer.toNs], query).toEqual([a, b]);
      }
      // The event under every event's start, with the mask applied, as eventAt answers it.
      for (let e = 0; e < t.count; e += 3) {
        const lane = index.laneOf[e]!;
        const hit = one(ask({ type: 'hit', id: 1, purpose: 'hover', lane, timeNs: t.startNs[e]!, slopNs: 50 }), 'hit');
        expect(hit.hit.event, `${query} ${e}`).toBe(eventAt(t, index, lane, t.startNs[e]!, 50, mask));
      }
      // The measure, with the engine's mask.
      const m = one(ask({ type: 'measure', id: 2, fromNs: index.startNs, toNs: index.endNs }), 'measure');
      const built = buildIndexAndLod(fresh(), { gpuCus: [256], vendor: 'amd' });
      expect(m.result).toEqual(measureRange(built.lod!, built.index, index.startNs, index.endNs, mask));
    }
  });

  it('steps through a lane from its own selection, in message order, skipping what the filter hides', () => {
    ask({ type: 'filter', id: 8, text: '' });
    const lane = index.laneOf[EVENTS.findIndex((e) => e.kind === 'packet')]!;
    ask({ type: 'details', id: 3, event: -1 });
    const expected = Array.from(index.order.subarray(index.laneStart[lane]!, index.laneStart[lane + 1]!));
    // Two steps asked before either answer is read still go one after the other.
    const got = [
      one(ask({ type: 'step', id: 4, lane, direction: 1 }), 'pick').event,
      one(ask({ type: 'step', id: 5, lane, direction: 1 }), 'pick').event,
    ];
    expect(got).toEqual(expected.slice(0, 2));
    expect(one(ask({ type: 'step', id: 6, lane, direction: -1 }), 'pick').event).toBe(expected[0]);
    ask({ type: 'filter', id: 9, text: 'kind:packet' });
    ask({ type: 'details', id: 10, event: -1 });
    const packets = expected.filter((e) => t.kind[e] === 2);
    expect(one(ask({ type: 'step', id: 11, lane, direction: 1 }), 'pick').event).toBe(packets[0]);
    ask({ type: 'filter', id: 12, text: '' });
  });

  it('selects the first event in view of a lane as eventsInRange finds it', () => {
    for (const l of index.lanes) {
      const answer = one(ask({ type: 'first', id: 1, lane: l.id, fromNs: index.startNs, toNs: index.endNs }), 'pick');
      expect(answer.event).toBe(eventsInRange(t, index as TimelineIndex, l.id, index.startNs, index.endNs, 1)[0] ?? -1);
    }
  });

  it('sends the records of the events a level-of-detail answer draws one by one', () => {
    const lanes = index.lanes.map((l) => l.id);
    const answer = one(
      ask({
        type: 'lod',
        id: 1,
        request: { startNs: index.startNs, endNs: index.endNs, buckets: 4000, lanes, rawMinPx: 0 },
      }),
      'lod',
    );
    expect(answer.result.raw.length).toBeGreaterThan(0);
    expect(answer.records.ids).toEqual(Array.from(answer.result.raw));
    answer.records.ids.forEach((e, i) => {
      expect(answer.records.laneOf[i]).toBe(index.laneOf[e]);
      expect(answer.records.startNs[i]).toBe(t.startNs[e]);
      expect(answer.records.kind[i]).toBe(t.kind[e]);
    });
  });
});

describe('a larger timeline', () => {
  it('answers details with the related events bounded, whatever the size', () => {
    const t = repeated(40);
    const { ask } = loaded(repeated(40));
    const index = buildIndex(t, { gpuCus: [256], vendor: 'amd' });
    for (let e = 0; e < t.count; e += 97) {
      const { details } = one(ask({ type: 'details', id: e, event: e }), 'details');
      expect(details!.packets.length).toBeLessThanOrEqual(12);
      expect(details!.cus.length).toBeLessThanOrEqual(16);
      expect(details!.rows).toEqual(describeEvent(t, index, e, 'amd', false).rows);
    }
  });
});
