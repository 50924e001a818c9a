/**
 * What the worker does with each message: build the index and its lane-ordered columns once,
 * hand the file's columns back to the page, keep the filter's mask, and answer level-of-detail
 * and measure requests. Free of worker globals, so the page can run the same code in-thread
 * when it cannot start a worker.
 */
import type { LodColumns, LodIndex } from '../../src/core/timeline/timelineLod';
import { aggregate, measureRange } from '../../src/core/timeline/timelineLod';
import { buildIndexAndLod } from '../../src/core/timeline/timelineModel';
import type { FromWorker, LodEngine, ToWorker } from './workerProtocol';
import { columnBuffers } from './workerProtocol';

export function createEngine(): LodEngine {
  let lc: LodColumns | undefined;
  let index: LodIndex | undefined;
  let mask: Uint8Array | undefined;
  return {
    handle(message: ToWorker, reply: (message: FromWorker, transfer?: Transferable[]) => void): void {
      try {
        switch (message.type) {
          case 'load': {
            const t0 = performance.now();
            const columns = message.columns;
            // One pass builds the index and the compact lane-ordered columns together.
            const built = buildIndexAndLod(columns, message.meta);
            const full = built.index;
            lc = built.lod!;
            mask = undefined;
            // Kept here: what aggregation reads (the running maxima are in lc). The rest of
            // the index only the page uses, and goes to it without a copy.
            index = { lanes: full.lanes, order: full.order.slice(), laneStart: full.laneStart, heat: full.heat };
            const buildMs = performance.now() - t0;
            const own = [full.laneOf, full.order, full.maxEnd, full.announcedBy, full.refIndex].map(
              (a) => a.buffer as ArrayBuffer,
            );
            reply({ type: 'index', index: full, columns, buildMs }, [...own, ...columnBuffers(columns)]);
            break;
          }
          case 'filter':
            mask = message.mask;
            break;
          case 'lod': {
            if (!lc || !index) return;
            const t0 = performance.now();
            const result = aggregate(lc, index, message.request, mask);
            const r = result.runs;
            // The result is only ever read by the page: hand its buffers over instead of copying.
            const transfer = [
              result.raw.buffer,
              r.lane.buffer,
              r.b0.buffer,
              r.b1.buffer,
              r.level.buffer,
              r.path.buffer,
              r.inferred.buffer,
              r.count.buffer,
              r.bytes.buffer,
              r.busyNs.buffer,
            ] as ArrayBuffer[];
            reply({ type: 'lod', id: message.id, result, ms: performance.now() - t0 }, transfer);
            break;
          }
          case 'measure':
            if (!lc || !index) return;
            reply({
              type: 'measure',
              id: message.id,
              result: measureRange(lc, index, message.fromNs, message.toNs, mask),
            });
            break;
        }
      } catch (err) {
        reply({ type: 'error', message: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}
