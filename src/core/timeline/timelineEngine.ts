/**
 * The timeline's engine, what it does with each message: build the index and its lane-ordered
 * columns once, keep them and the file's columns (it is their one owner: nothing goes back to
 * the page), keep the filter's mask, and answer level-of-detail, measure and event queries.
 * Free of worker globals and of Node: it runs in the page's worker, on the page itself when a
 * worker cannot start, and, for a host-held timeline, in the engine process the extension host starts
 * (src/core/runs/timelineEngineProcess.ts).
 */
import type { TimelineColumns } from './timelineFile';
import { anyInferred, labelOf } from './timelineFile';
import { parseFilter } from './timelineFilter';
import type { LodColumns } from './timelineLod';
import { aggregate, measureRange } from './timelineLod';
import type { TimelineIndex, TimelineMeta } from './timelineModel';
import { KIND_KERNEL, buildIndexAndLod } from './timelineModel';
import { applyFilterQuery, eventDetails, eventRecords, firstInView, hitEvent, stepInLane } from './timelineQueries';
import type { FromWorker, LodEngine, ToWorker } from './timelineEngineProtocol';
import { lodBuffers } from './timelineEngineProtocol';

/** Kernel names the page reports from a level-of-detail answer (the browser tests read them). */
const RAW_KERNEL_NAMES = 64;

export function createEngine(): LodEngine {
  let columns: TimelineColumns | undefined;
  let lc: LodColumns | undefined;
  let index: TimelineIndex | undefined;
  let mask: Uint8Array | undefined;
  /** The page's selection as the messages so far leave it (see 'step' in workerProtocol.ts). */
  let selected = -1;
  let meta: Pick<TimelineMeta, 'vendor' | 'simulated'> = { vendor: 'amd', simulated: false };
  return {
    handle(message: ToWorker, reply: (message: FromWorker, transfer?: ArrayBuffer[]) => void): void {
      try {
        if (message.type === 'load') {
          const t0 = performance.now();
          // One pass builds the index and the compact lane-ordered columns together; the hit
          // tests binary-search the compact columns' running maxima (the same values, as offsets
          // from their blocks' bases), so the index makes no copy of its own (8 bytes an event).
          const built = buildIndexAndLod(message.columns, message.meta, true, true);
          columns = message.columns;
          lc = built.lod!;
          index = built.index;
          mask = undefined;
          selected = -1;
          meta = { vendor: message.meta.vendor, simulated: message.meta.simulated };
          const { count, lanes, laneStart, startNs, endNs, heat } = index;
          reply({
            type: 'index',
            index: { count, lanes, laneStart: laneStart.slice(), startNs, endNs, heat },
            inferred: anyInferred(columns),
            buildMs: performance.now() - t0,
          });
          return;
        }
        if (!columns || !index || !lc) return;
        switch (message.type) {
          case 'filter': {
            const answer = applyFilterQuery(columns, parseFilter(message.text));
            mask = answer.mask;
            const selectedKept = selected < 0 || !mask || mask[selected] === 1;
            if (!selectedKept) selected = -1;
            reply({
              type: 'filter',
              id: message.id,
              kept: answer.kept,
              fromNs: answer.fromNs,
              toNs: answer.toNs,
              selectedKept,
            });
            break;
          }
          case 'lod': {
            const t0 = performance.now();
            const result = aggregate(lc, index, message.request, mask);
            const records = eventRecords(columns, index, result.raw);
            const names = new Set<string>();
            for (let i = 0; i < result.raw.length && names.size < RAW_KERNEL_NAMES; i++) {
              const e = result.raw[i]!;
              if (columns.kind[e] === KIND_KERNEL) names.add(labelOf(columns, e) ?? '');
            }
            reply(
              { type: 'lod', id: message.id, result, records, rawKernels: [...names], ms: performance.now() - t0 },
              // The result is only ever read by the page: its buffers are handed over, not copied.
              lodBuffers(result),
            );
            break;
          }
          case 'measure':
            reply({
              type: 'measure',
              id: message.id,
              result: measureRange(lc, index, message.fromNs, message.toNs, mask),
            });
            break;
          case 'details': {
            const e = message.event;
            selected = e >= 0 && e < columns.count ? e : -1;
            if (e < 0) break;
            const details = selected >= 0 ? eventDetails(columns, index, e, meta.vendor, meta.simulated) : undefined;
            reply({ type: 'details', id: message.id, details });
            break;
          }
          case 'hit': {
            const hit = hitEvent(
              columns,
              index,
              message.lane,
              message.timeNs,
              message.slopNs,
              mask,
              meta.vendor,
              meta.simulated,
            );
            if (message.purpose === 'select' || (message.purpose === 'zoom' && hit.event >= 0)) selected = hit.event;
            reply({ type: 'hit', id: message.id, purpose: message.purpose, hit });
            break;
          }
          case 'step': {
            const event = stepInLane(index, message.lane, selected, message.direction, mask);
            if (event >= 0) selected = event;
            reply({ type: 'pick', id: message.id, event });
            break;
          }
          case 'first': {
            const event = firstInView(columns, index, message.lane, message.fromNs, message.toNs, mask);
            if (event >= 0) selected = event;
            reply({ type: 'pick', id: message.id, event });
            break;
          }
          case 'view':
            // The index is built: there is nothing to bin ahead.
            break;
        }
      } catch (err) {
        reply({ type: 'error', message: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}
