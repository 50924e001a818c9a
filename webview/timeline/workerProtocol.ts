/**
 * Messages between the timeline page and its level-of-detail worker. Both ends are this
 * bundle's own code, so these are plain types; what the extension host sends is validated
 * before it ever reaches the worker.
 *
 * The columns travel to the worker and back by transfer (no copy): the worker builds the
 * index and its own lane-ordered columns from them, then returns them to the page, so each
 * byte of the timeline is held once.
 */
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import type { LodRequest, LodResult, RangeMeasure } from '../../src/core/timeline/timelineLod';
import type { TimelineIndex, TimelineMeta } from '../../src/core/timeline/timelineModel';

export type ToWorker =
  | { type: 'load'; columns: TimelineColumns; meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'> }
  | { type: 'filter'; mask: Uint8Array | undefined }
  | { type: 'lod'; id: number; request: LodRequest }
  | { type: 'measure'; id: number; fromNs: number; toNs: number };

export type FromWorker =
  | { type: 'index'; index: TimelineIndex; columns: TimelineColumns; buildMs: number }
  | { type: 'lod'; id: number; result: LodResult; ms: number }
  | { type: 'measure'; id: number; result: RangeMeasure }
  | { type: 'error'; message: string };

/** The worker's state machine, also run on the page itself when a worker cannot start. */
export interface LodEngine {
  handle(message: ToWorker, reply: (message: FromWorker, transfer?: Transferable[]) => void): void;
}

/**
 * The distinct buffers under the columns, each once: the host reads a file's columns as views
 * over its one buffer, and a transfer list may not name a buffer twice.
 */
export function columnBuffers(c: TimelineColumns): ArrayBuffer[] {
  const optional = [c.label, c.cus, c.flags].filter((a): a is Int32Array | Uint32Array | Uint8Array => a !== undefined);
  const all = [c.kind, c.op, c.path, c.gpu, c.lane, c.id, c.ref, c.startNs, c.endNs, c.queuedNs, c.bytes, ...optional];
  return [...new Set(all.map((a) => a.buffer as ArrayBuffer))];
}
