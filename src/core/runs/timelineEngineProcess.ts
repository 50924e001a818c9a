/**
 * The engine of a host-held timeline, in a process of its own that the extension host starts
 * (timelineEngineHost.ts; its own bundle, dist/timelineEngine.js, with its reader threads): it
 * opens the sdmatl file itself with the panel's safe open (the same checks, the same refusal of
 * a file too large) and serves the page in two stages.
 *
 * - Overview: a survey of the file (timelineOverview.ts: the lanes, their counts and the time
 *   span, read a range of events at a time with nothing held per event) gives the page its index
 *   (`stage: 'overview'`), and the page's first level-of-detail request is binned straight from
 *   the file, so the first full frame does not wait for the index. When the page has said its
 *   first view fits the whole timeline, the one pass both surveys the file and bins that view
 *   (shared by the reader threads), and the view is pushed with the index. What the overview
 *   cannot answer exactly waits for the index.
 * - Index: the file is read into its columns, the engine's 'load' builds the index, and every
 *   query from then on (those that waited first, in order) is the engine's. Its index is sent
 *   as `stage: 'ready'` when it is the overview's (the page keeps its view), or as a fresh index
 *   when the file changed in between.
 *
 * The extension host never reads, indexes or aggregates the events, nor holds them.
 */
import { availableParallelism } from 'node:os';
import { Worker, parentPort, workerData } from 'node:worker_threads';
import { timelineFits } from '../timeline/timelineCompact';
import { createEngine } from '../timeline/timelineEngine';
import type { FromWorker, PageIndex, ToWorker } from '../timeline/timelineEngineProtocol';
import { ENGINE_PROCESS_ENV, lodBuffers } from '../timeline/timelineEngineProtocol';
import type { ReadAt, TimelineLayout } from '../timeline/timelineFile';
import { TimelineFormatError, readTimelineFrom } from '../timeline/timelineFile';
import { isEmptyFilter, parseFilter } from '../timeline/timelineFilter';
import type {
  BinnedAhead,
  OverviewAnswer,
  OverviewSource,
  SurveyPart,
  TimelineSurvey,
} from '../timeline/timelineOverview';
import {
  answerAhead,
  binPart,
  guessTimelineSpan,
  localClaim,
  mergeBins,
  mergeSurvey,
  overviewLod,
  planOverview,
  readLayout,
  surveyAndBin,
  surveyAndBinPart,
  surveyPart,
} from '../timeline/timelineOverview';
import { PUSHED_ID, fitAllWindow, lodWindow, openingLanes } from '../timeline/timelineView';
import type { LodRequest } from '../timeline/timelineLod';
import { openSafeFile } from './safeFile';
import type { EngineMessage, ToEngine } from './timelineEngineHost';
import type { RangeFile, RangeReader } from './timelineRanges';
import { RangeReaders } from './timelineRanges';
import type { RangesPort } from './timelineRangeThread';
import { serveRanges } from './timelineRangeThread';

/** What the engine talks through: its process's IPC channel (transfer lists are for ports that take them), or a test's stand-in. */
export interface EnginePort {
  on(event: 'message', listener: (message: ToEngine) => void): void;
  postMessage(message: EngineMessage, transfer?: ArrayBuffer[]): void;
}

export interface ServeOptions {
  /** How long the overview waits for the page's first level-of-detail request before the index is built anyway. */
  overviewWaitMs?: number;
  /** Starts a reader that shares the overview's passes (timelineRangeThread.ts); none: the engine reads alone. */
  startReader?: () => RangeReader;
  /** How many readers to start beside the engine. */
  readers?: number;
  /** How long the survey waits for the page's first view after reading the span. */
  viewWaitMs?: number;
}

/** A page sends its first request within milliseconds of the index; a hidden one may send none. */
const OVERVIEW_WAIT_MS = 1500;
/** How long the survey waits for the page's first view (a page still loading); past it, the survey alone. */
const VIEW_WAIT_MS = 500;

/** Serves one timeline on `port`: 'open' first, then the page's queries in order. */
export function serveEngine(port: EnginePort, options: ServeOptions = {}): void {
  const engine = createEngine();
  const reply = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);
  const waiting: ToWorker[] = [];
  let wake: (() => void) | undefined;
  let indexed = false;
  let opened = false;
  let view: Extract<ToEngine, { type: 'view' }> | undefined;
  port.on('message', (message) => {
    if (message.type === 'open') {
      if (opened) return;
      opened = true;
      open(message.file, message.meta).catch((err: unknown) =>
        port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
    if (message.type === 'view') {
      // The page's first view, for the survey to bin ahead; of no use once the survey has begun.
      view = message;
      wake?.();
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

  async function open(file: string, meta: Extract<ToEngine, { type: 'open' }>['meta']): Promise<void> {
    const t0 = performance.now();
    const { handle, size } = await openSafeFile(file, 'timeline');
    // Started first, so that they are up by the time the survey is shared with them.
    const readers =
      options.startReader && (options.readers ?? 0) > 0
        ? new RangeReaders(options.startReader, options.readers ?? 0)
        : undefined;
    try {
      const read: ReadAt = (b, o, l, p) => handle.read(b, o, l, p).then((r) => r.bytesRead);
      const source: OverviewSource = { fileBytes: size, read };
      const layout = await readLayout(source);
      const fit = timelineFits(layout.count);
      if (!fit.ok) throw new Error(fit.message);
      const shared: RangeFile = { fd: handle.fd, fileBytes: size, layout };
      // With the page's first view known, one pass both surveys and bins it (shared by the readers).
      const fused = await surveyAhead(source, layout, readers, shared);
      const parts = fused?.parts ?? (await readers?.survey(shared, (claim) => surveyPart(source, layout, claim)));
      const survey = mergeSurvey(
        layout,
        parts ?? [await surveyPart(source, layout, localClaim())],
        meta,
        performance.now() - t0,
      );
      const binned = fused?.binned;
      reply({
        type: 'index',
        index: { ...survey.index, laneStart: survey.index.laneStart.slice() },
        inferred: survey.inferred,
        buildMs: survey.ms,
        stage: 'overview',
      });
      // The first view binned ahead is pushed with the index: the page's first request as the page
      // will make it (the window it fits to the survey's span, so answered only when the guessed
      // span was the survey's; the lanes a timeline opens with). The page draws from it as soon as
      // it has laid the lanes out, when it holds what the page shows; the page's own request, which
      // it sends anyway, is answered as before.
      const aheadOf = binned?.[0]?.request;
      const whole = fitAllWindow(survey.index.startNs, survey.index.endNs);
      const opening = aheadOf && { ...aheadOf, ...lodWindow(whole.from, whole.to), lanes: openingLanes(survey.index) };
      const pushed = binned && opening && answerAhead(survey, binned, opening);
      if (pushed) replyLod(PUSHED_ID, { ...pushed, source: 'ahead' });
      await answerFromFile(source, survey, async (request) => {
        const ahead = binned && answerAhead(survey, binned, request);
        if (ahead) return { ...ahead, source: 'ahead' };
        const answer = await binShared(source, survey, request, readers, shared);
        return answer && { ...answer, source: 'file' };
      });
      // How many readers shared the passes to the end (none once one failed).
      const sharedBy = readers?.size ?? 0;
      readers?.dispose();
      const columns = await readTimelineFrom(size, read);
      port.postMessage({ type: 'read', count: columns.count, readMs: performance.now() - t0, readers: sharedBy });
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
      readers?.dispose();
      await handle.close();
    }
    indexed = true;
    for (const query of waiting.splice(0)) engine.handle(query, reply);
  }

  /**
   * The survey when the page's first view is known to fit the whole timeline (the page sends its
   * view as soon as it is told the host holds the events; it is waited for up to `viewWaitMs`
   * after the span is guessed): one pass that surveys the file and bins the request the page
   * will make, shared by the readers when there are any. The page fits its window to the
   * survey's span, known only after the pass; the pass bins the window fitted to the span of the
   * file's first and last ranges (guessTimelineSpan), which is the survey's for a file written in
   * time order, and its binning is used only where it is. Undefined without such a view, or when
   * a reader could not bin or failed: the survey alone, and the page's request binned when it comes.
   */
  async function surveyAhead(
    source: OverviewSource,
    layout: TimelineLayout,
    readers: RangeReaders | undefined,
    file: RangeFile,
  ): Promise<{ parts: SurveyPart[]; binned?: BinnedAhead[] } | undefined> {
    // A page that said it will not fit the whole timeline has nothing to bin ahead: no span to read.
    if (view && !view.whole) return undefined;
    // The span guessed from the file's ends (two ranges): the survey's exact span is known only
    // after its pass, and what was binned for a window the page will not ask is not used.
    const span = await guessTimelineSpan(source, layout);
    await until(() => view !== undefined, options.viewWaitMs ?? VIEW_WAIT_MS);
    if (!view?.whole) return undefined;
    // The window the page fits to that span (as it fits the index's).
    const whole = layout.count > 0 ? fitAllWindow(span.minStart, span.maxEnd) : fitAllWindow(0, 1);
    const ahead = { ...lodWindow(whole.from, whole.to), buckets: view.buckets, rawMinPx: view.rawMinPx };
    if (readers && readers.size > 0) {
      const fused = await readers.surveyAndBin(file, ahead, (claim) => surveyAndBinPart(source, layout, ahead, claim));
      // A reader that could not bin (or failed): the survey afresh, shared or alone.
      if (!fused?.every((share) => share !== undefined)) return undefined;
      return { parts: fused.map((share) => share.survey), binned: fused.map((share) => share.binned) };
    }
    const alone = await surveyAndBin(source, layout, ahead);
    return { parts: [alone.survey], binned: alone.binned && [alone.binned] };
  }

  /** An overview's level-of-detail answer to query `id`, its buffers handed over. */
  function replyLod(id: number, answer: OverviewAnswer & { source: 'ahead' | 'file' }): void {
    const { result, records, rawKernels, ms, source } = answer;
    reply({ type: 'lod', id, result, records, rawKernels, ms, source }, lodBuffers(result));
  }

  /** Resolves when `done()` holds, or after `ms`: checked again at each message. */
  async function until(done: () => boolean, ms: number): Promise<void> {
    const deadline = performance.now() + ms;
    while (!done()) {
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

  /**
   * The overview's binning of `request`, shared with the readers when there are any; done alone
   * when a reader failed. Undefined when the overview cannot answer it exactly.
   */
  async function binShared(
    source: OverviewSource,
    survey: TimelineSurvey,
    request: LodRequest,
    readers: RangeReaders | undefined,
    file: RangeFile,
  ): Promise<OverviewAnswer | undefined> {
    const t0 = performance.now();
    const plan = planOverview(survey, request);
    if (!plan) return undefined;
    const layout = survey.layout;
    const parts = await readers?.bin(file, plan, (claim) => binPart(source, layout, plan, claim));
    if (parts) return parts.every((p) => p !== undefined) ? mergeBins(plan, parts, layout.count, t0) : undefined;
    return overviewLod(source, survey, request);
  }

  /**
   * The overview stage: the queries that need no index (the page clearing its selection and
   * filter) and the first level-of-detail request are answered from the file; the first query
   * that needs more, or a wait past `overviewWaitMs` for the page, ends it.
   */
  async function answerFromFile(
    source: OverviewSource,
    survey: TimelineSurvey,
    bin: (request: LodRequest) => Promise<(OverviewAnswer & { source: 'ahead' | 'file' }) | undefined>,
  ): Promise<void> {
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
        const answer = await bin(query.request);
        if (!answer) return;
        waiting.shift();
        replyLod(query.id, answer);
        return;
      }
      const left = deadline - performance.now();
      if (left <= 0) return;
      await until(() => waiting.length > 0, left);
    }
  }
}

/** Whether the built index lays out exactly as the overview's did (the file did not change in between). */
export function sameIndex(a: PageIndex, b: PageIndex): boolean {
  if (a.count !== b.count || a.startNs !== b.startNs || a.endNs !== b.endNs) return false;
  if (a.laneStart.length !== b.laneStart.length || a.laneStart.some((v, i) => v !== b.laneStart[i])) return false;
  return JSON.stringify([a.lanes, a.heat]) === JSON.stringify([b.lanes, b.heat]);
}

/**
 * The readers beside the engine on `processors` when the starter does not say: one per processor
 * past two, at least one and at most 3; none on one processor, where the engine makes its passes
 * alone. Measured by bench/timelineEngine.bench.ts (the
 * first view of 10^7 events, bench/results/host-2026-12-05/README.md): on 2 processors one
 * reader was as fast as the engine alone on one machine and took a quarter less time on another;
 * on 4, two readers were the fastest; on 8 and 16, three. Those runs shared two passes (the
 * survey, then the page's request); with the one pass shared, on 2 processors one reader gave
 * the first view in 605-634 ms and the engine alone in 708-709 ms; on 16 processors three
 * readers gave it in 393-438 ms and none in 719 ms, on 4 two in 514 ms and three in 531 ms; on
 * a faster host of the same kind, three in 280-288 ms and none in 559 ms on 16, two in
 * 357-370 ms and three in 397 ms on 4 (bench/results/host-2026-12-06/README.md).
 */
export function readersFor(processors: number): number {
  return processors >= 2 ? Math.max(1, Math.min(3, processors - 2)) : 0;
}
const READERS = readersFor(availableParallelism());

if (parentPort) {
  // A reader beside the engine (this bundle again, started by the engine below); a thread is
  // nothing else: the engine itself runs only as its own process.
  if ((workerData as { role?: string } | undefined)?.role === 'ranges')
    serveRanges(parentPort as unknown as RangesPort);
} else if (process.env[ENGINE_PROCESS_ENV] !== undefined && process.send) {
  // The engine's own process (timelineEngineHost.ts, startEngineProcess): the host's messages
  // come over its IPC channel, and a host that has gone (the channel closed) ends it.
  const asked = Number(process.env[ENGINE_PROCESS_ENV]);
  const send = process.send.bind(process);
  process.on('disconnect', () => process.exit(0));
  serveEngine(
    {
      on: (_event, listener) => void process.on('message', (message) => listener(message as ToEngine)),
      postMessage: (message) => void send(message),
    },
    {
      readers: Number.isSafeInteger(asked) ? Math.max(0, Math.min(3, asked)) : READERS,
      // This bundle again, as a reader (a CommonJS bundle: __filename is its own path).
      startReader: () =>
        new Worker(__filename, { workerData: { role: 'ranges' }, name: 'sdma-lens-ranges' }) as unknown as RangeReader,
    },
  );
}
