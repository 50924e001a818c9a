/**
 * The engine of a host-held timeline, in a Node worker thread of the extension host (its own
 * bundle, dist/timelineEngine.js): it opens the sdmatl file itself with the panel's safe open
 * (the same checks, the same refusal of a file too large) and serves the page in two stages.
 *
 * - Overview: a survey of the file (timelineOverview.ts: the lanes, their counts and the time
 *   span, read a range of events at a time with nothing held per event) gives the page its index
 *   (`stage: 'overview'`), and the page's first level-of-detail request is binned straight from
 *   the file, so the first full frame does not wait for the index. What the overview cannot
 *   answer exactly waits for the index.
 * - Index: the file is read into its columns, the engine's 'load' builds the index, and every
 *   query from then on (those that waited first, in order) is the engine's. Its index is sent
 *   as `stage: 'ready'` when it is the overview's (the page keeps its view), or as a fresh index
 *   when the file changed in between.
 *
 * The host's own thread never reads, indexes or aggregates the events.
 */
import { parentPort } from 'node:worker_threads';
import { timelineFits } from '../timeline/timelineCompact';
import { createEngine } from '../timeline/timelineEngine';
import type { FromWorker, PageIndex, ToWorker } from '../timeline/timelineEngineProtocol';
import type { ReadAt } from '../timeline/timelineFile';
import { TimelineFormatError, readTimelineFrom } from '../timeline/timelineFile';
import { isEmptyFilter, parseFilter } from '../timeline/timelineFilter';
import type { OverviewSource, TimelineSurvey } from '../timeline/timelineOverview';
import { overviewLod, surveyTimeline } from '../timeline/timelineOverview';
import { openSafeFile } from './safeFile';
import type { ThreadMessage, ToThread } from './timelineEngineHost';

/** The part of a MessagePort the engine talks through (parentPort, or a test's stand-in). */
export interface EnginePort {
  on(event: 'message', listener: (message: ToThread) => void): void;
  postMessage(message: ThreadMessage, transfer?: ArrayBuffer[]): void;
}

export interface ServeOptions {
  /** How long the overview waits for the page's first level-of-detail request before the index is built anyway. */
  overviewWaitMs?: number;
}

/** A page sends its first request within milliseconds of the index; a hidden one may send none. */
const OVERVIEW_WAIT_MS = 1500;

/** Serves one timeline on `port`: 'open' first, then the page's queries in order. */
export function serveEngine(port: EnginePort, options: ServeOptions = {}): void {
  const engine = createEngine();
  const reply = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);
  const waiting: ToWorker[] = [];
  let wake: (() => void) | undefined;
  let indexed = false;
  let opened = false;
  port.on('message', (message) => {
    if (message.type === 'open') {
      if (opened) return;
      opened = true;
      open(message.file, message.meta).catch((err: unknown) =>
        port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
    if (indexed) {
      engine.handle(message, reply);
      return;
    }
    // Queries sent while the file is surveyed, binned or indexed wait, in order.
    waiting.push(message);
    wake?.();
  });

  async function open(file: string, meta: Extract<ToThread, { type: 'open' }>['meta']): Promise<void> {
    const t0 = performance.now();
    const { handle, size } = await openSafeFile(file, 'timeline');
    try {
      const read: ReadAt = (b, o, l, p) => handle.read(b, o, l, p).then((r) => r.bytesRead);
      const source: OverviewSource = { fileBytes: size, read };
      const survey = await surveyTimeline(source, meta);
      const fit = timelineFits(survey.layout.count);
      if (!fit.ok) throw new Error(fit.message);
      reply({
        type: 'index',
        index: { ...survey.index, laneStart: survey.index.laneStart.slice() },
        inferred: survey.inferred,
        buildMs: survey.ms,
        stage: 'overview',
      });
      await answerFromFile(source, survey);
      const columns = await readTimelineFrom(size, read);
      port.postMessage({ type: 'read', count: columns.count, readMs: performance.now() - t0 });
      engine.handle({ type: 'load', columns, meta }, (message, transfer) =>
        reply(
          message.type === 'index' && sameIndex(message.index, survey.index) ? { ...message, stage: 'ready' } : message,
          transfer,
        ),
      );
    } catch (err) {
      if (err instanceof TimelineFormatError) throw err;
      throw new Error(`${file} could not be read: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    } finally {
      await handle.close();
    }
    indexed = true;
    for (const query of waiting.splice(0)) engine.handle(query, reply);
  }

  /**
   * The overview stage: the queries that need no index (the page clearing its selection and
   * filter) and the first level-of-detail request are answered from the file; the first query
   * that needs more, or a wait past `overviewWaitMs` for the page, ends it.
   */
  async function answerFromFile(source: OverviewSource, survey: TimelineSurvey): Promise<void> {
    const deadline = performance.now() + (options.overviewWaitMs ?? OVERVIEW_WAIT_MS);
    for (;;) {
      while (waiting.length > 0) {
        const query = waiting[0]!;
        if (query.type === 'details' && query.event < 0) {
          // The engine's selection starts empty once it is built: nothing to answer.
          waiting.shift();
          continue;
        }
        if (query.type === 'filter' && isEmptyFilter(parseFilter(query.text))) {
          waiting.shift();
          const count = survey.index.count;
          reply({ type: 'filter', id: query.id, kept: count, fromNs: Infinity, toNs: -Infinity, selectedKept: true });
          continue;
        }
        if (query.type !== 'lod') return;
        const answer = await overviewLod(source, survey, query.request);
        if (!answer) return;
        waiting.shift();
        const r = answer.result.runs;
        const transfer = [
          answer.result.raw.buffer,
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
        reply(
          {
            type: 'lod',
            id: query.id,
            result: answer.result,
            records: answer.records,
            rawKernels: answer.rawKernels,
            ms: answer.ms,
          },
          transfer,
        );
        return;
      }
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }
}

/** Whether the built index lays out exactly as the overview's did (the file did not change in between). */
export function sameIndex(a: PageIndex, b: PageIndex): boolean {
  if (a.count !== b.count || a.startNs !== b.startNs || a.endNs !== b.endNs) return false;
  if (a.laneStart.length !== b.laneStart.length || a.laneStart.some((v, i) => v !== b.laneStart[i])) return false;
  return JSON.stringify([a.lanes, a.heat]) === JSON.stringify([b.lanes, b.heat]);
}

if (parentPort) serveEngine(parentPort as unknown as EnginePort);
