/**
 * Messages between the timeline page and its engine: the page's level-of-detail worker (both
 * ends are one bundle's own code, so these are plain types; what the extension host sends is
 * validated before it ever reaches the worker), or, for a host-held timeline, the extension
 * host's engine process, where the queries cross the webview boundary and are validated both
 * ways (EngineQuerySchema, EngineAnswerSchema in timelineMessages.ts).
 *
 * The columns travel to the worker by transfer (no copy) and stay there: the engine is their one
 * owner. The page holds no copy; it asks by message for what it shows (an event's details, the
 * event under the pointer, the filter's mask and counts, the next event in a lane) and each
 * level-of-detail answer carries the records of the events it draws one by one. Every query
 * has an id; the page drops an answer that is not its latest.
 */
import type { TimelineColumns } from './timelineFile';
import type { LodRequest, LodResult, RangeMeasure } from './timelineLod';
import type { TimelineIndex, TimelineMeta } from './timelineModel';
import type { EventDetails, EventRecords, HitAnswer } from './timelineQueries';

/**
 * Set in the environment of a host-held timeline's engine process (runs/timelineEngineHost.ts
 * starts dist/timelineEngine.js with it): the reader threads it was asked for (0 to 3), or
 * `auto` for its own choice by processor count.
 */
export const ENGINE_PROCESS_ENV = 'SDMA_LENS_TIMELINE_ENGINE';

/** What the page keeps of the index: the lanes, their layout and the time span, nothing per event. */
export type PageIndex = Pick<TimelineIndex, 'count' | 'lanes' | 'laneStart' | 'startNs' | 'endNs' | 'heat'>;

/** Why the page asked for the event under a point: a tooltip, a click, a double click. */
export type HitPurpose = 'hover' | 'select' | 'zoom';

export type ToWorker =
  | { type: 'load'; columns: TimelineColumns; meta: Pick<TimelineMeta, 'gpuCus' | 'vendor' | 'simulated'> }
  | { type: 'filter'; id: number; text: string }
  | { type: 'lod'; id: number; request: LodRequest }
  | { type: 'measure'; id: number; fromNs: number; toNs: number }
  /** The details of `event`, which becomes the engine's selection (-1: nothing selected, no answer). */
  | { type: 'details'; id: number; event: number }
  | { type: 'hit'; id: number; purpose: HitPurpose; lane: number; timeNs: number; slopNs: number }
  /**
   * The next (1) or previous (-1) event of the selection's lane, or of `lane` when nothing is
   * selected. The selection is the engine's: the last event it was asked the details of, picked
   * or stepped to, in message order, so a second step sent before the first one's answer
   * arrived steps on from it.
   */
  | { type: 'step'; id: number; lane: number; direction: 1 | -1 }
  /** The first event of `lane` in [fromNs, toNs]. */
  | { type: 'first'; id: number; lane: number; fromNs: number; toNs: number }
  /**
   * The page's first view, before it has an index: whether it will fit the whole timeline
   * unfiltered (`whole`), asking for `buckets` (timelineView.ts). A host-held timeline's engine
   * may bin that request while it surveys the file; every other engine has no use for it. No answer.
   */
  | { type: 'view'; whole: boolean; buckets: number; rawMinPx: number };

export type FromWorker =
  | {
      type: 'index';
      index: PageIndex;
      inferred: boolean;
      buildMs: number;
      /**
       * A host-held timeline's stages (timelineEngineProcess.ts): 'overview', the survey's index
       * while the engine still builds its own (queries that need it wait); 'ready', the built
       * index, the same as the overview's (the page keeps its view). Absent: an index to start from.
       */
      stage?: 'overview' | 'ready';
    }
  | {
      type: 'lod';
      id: number;
      result: LodResult;
      records: EventRecords;
      rawKernels: string[];
      ms: number;
      /**
       * A host-held timeline's answer before its index (timelineEngineProcess.ts): binned while
       * the file was surveyed ('ahead'), or in a pass of its own ('file'). Absent: the index's.
       */
      source?: 'ahead' | 'file';
    }
  | { type: 'measure'; id: number; result: RangeMeasure }
  | { type: 'filter'; id: number; kept: number; fromNs: number; toNs: number; selectedKept: boolean }
  | { type: 'details'; id: number; details: EventDetails | undefined }
  | { type: 'hit'; id: number; purpose: HitPurpose; hit: HitAnswer }
  /** An event to select and reveal (a step or the first in view); -1 for none. */
  | { type: 'pick'; id: number; event: number }
  | { type: 'error'; message: string };

/** The worker's state machine, also run on the page itself when a worker cannot start. */
export interface LodEngine {
  handle(message: ToWorker, reply: (message: FromWorker, transfer?: ArrayBuffer[]) => void): void;
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

/** The buffers of a level-of-detail answer, handed over to the page instead of copied (only it reads them). */
export function lodBuffers(result: LodResult): ArrayBuffer[] {
  const r = result.runs;
  return [
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
}
