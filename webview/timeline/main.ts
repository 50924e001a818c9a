/**
 * The timeline panel: receives a timeline as typed-array columns and hands it to the
 * level-of-detail worker, or (a big one) word that the extension host holds it and answers the
 * same queries, and draws the engine's answer for the visible window on a canvas.
 * Every pan or zoom redraws at once from the last answer (scaled to the new window) and asks
 * the worker for the next one; the page thread never walks the million events itself.
 *
 * This file wires the page: the host channel, the engine (a worker, or the extension host for a
 * host-held timeline), the level-of-detail requests and the
 * frame loop. What it wires: state.ts (what the page holds), viewport.ts (window and layout),
 * selection.ts (selection, details, tooltip), input.ts (pointer and keys), filter.ts (the query).
 */
import type { TimelineHostMessage, TimelineWebviewMessage } from '../../src/core/timeline/timelineMessages';
import { parseTimelineHostMessage } from '../../src/core/timeline/timelineMessages';
import type { LodRequest, LodResult } from '../../src/core/timeline/timelineLod';
import { PUSHED_ID, RAW_MIN_PX, lodBuckets, lodWindow } from '../../src/core/timeline/timelineView';
import type { TimelineMeta } from '../../src/core/timeline/timelineModel';
import { onNextFrame } from '../shared/dom';
import { connectPage } from '../shared/hostChannel';
import { observeTheme, readTheme } from '../shared/theme';
import { applyFilter, onFilterApplied } from './filter';
import { listenForInput, toggleAllCus } from './input';
import { INFERRED_ENTRY } from './legend';
import { emptyKnown, remember } from './known';
import type { Row } from './layout';
import type { LodClient } from './lodClient';
import { hostLodClient, startLodClient } from './lodClient';
import { draw, makePalette, plotWidth } from './renderer';
import { onDetails, onHit, onPick, renderDetails, zoomToSelectionSoon } from './selection';
import type { PanelState } from './state';
import { els, restoreState, s, stats, wire } from './state';
import { Toolbar } from './toolbar';
import { clampScroll, fitAll, relayout, scene, sizeCanvas } from './viewport';
import type { FromWorker, PageIndex, ToWorker } from '../../src/core/timeline/timelineEngineProtocol';
import { columnBuffers } from '../../src/core/timeline/timelineEngineProtocol';

const host = connectPage<TimelineHostMessage, TimelineWebviewMessage, PanelState>({
  name: 'timeline',
  parse: parseTimelineHostMessage,
  onMessage: handle,
});
restoreState(host.state());

const toolbar = new Toolbar({
  onFilter: (text) => applyFilter(text),
  onFit: () => fitAll(),
  onZoomSelection: () => zoomToSelectionSoon(),
  onMeasureMode: (on) => {
    s.measureMode = on;
    els.canvas.classList.toggle('measuring', on);
  },
  onExport: () => host.post({ type: 'export-trace' }),
  onToggleCus: () => toggleAllCus(),
});
/** Every change asks for a frame; several inside one frame draw once. */
const schedule = onNextFrame(() => render());
/** The page's own engine (a worker, else in-thread), started for the first timeline that is not host-held. */
let local: LodClient | undefined;
const localClient = () => (local ??= startLodClient(onWorker, (message) => host.reportError(message)));
/** A host-held timeline's engine: the extension host, asked by message. */
const remote = hostLodClient((query) => host.post({ type: 'engine-query', query }));
/** The engine's client, counting the queries that have an answer coming (stats.queries). */
const client: LodClient = {
  get inWorker() {
    return stats.hostHeld || localClient().inWorker;
  },
  post(message, transfer) {
    if (ANSWERED.has(message.type) && !(message.type === 'details' && message.event < 0)) stats.queries++;
    (stats.hostHeld ? remote : localClient()).post(message, transfer);
  },
};
Object.assign(wire, { host, client, toolbar, schedule });

const root = document.getElementById('root') ?? document.body;
root.replaceChildren(toolbar.header, toolbar.element, els.frame, els.details);
renderDetails();
const ctx = els.canvas.getContext('2d', { alpha: false })!;

/** Queries with one answer each, and the answers' types. */
const ANSWERED = new Set<ToWorker['type']>(['filter', 'details', 'hit', 'step', 'first']);
const ANSWERS = new Set<FromWorker['type']>(['filter', 'details', 'hit', 'pick']);

function onWorker(message: FromWorker): void {
  if (ANSWERS.has(message.type)) stats.queries = Math.max(0, stats.queries - 1);
  switch (message.type) {
    case 'index': {
      // The host's engine built the index its overview gave: the page keeps its view and state.
      if (message.stage === 'ready' && s.index && stats.stage === 'overview') {
        stats.stage = 'ready';
        stats.readyAt = performance.now();
        stats.builtMs = message.buildMs;
        toolbar.setSummary(summaryText(s.index));
        break;
      }
      stats.stage = message.stage === 'overview' ? 'overview' : 'ready';
      s.index = message.index;
      s.known = emptyKnown();
      stats.indexMs = message.buildMs;
      stats.indexAt = performance.now();
      // What the page showed before a reload, read before relayout() saves the fresh state.
      const restore = savedView();
      if (restore?.startNs !== undefined && restore.endNs !== undefined && restore.endNs > restore.startNs) {
        s.startNs = restore.startNs;
        s.endNs = restore.endNs;
      } else {
        fitAll(false);
      }
      // The canvas's size now, so that the first request is made for it (not for the default).
      const size = sizeCanvas();
      s.cssWidth = size.width;
      s.cssHeight = size.height;
      relayout();
      // A kernel from the code lens opens zoomed to its launches, too.
      const initial = initialFilter(restore);
      toolbar.setFilter(initial);
      s.fitOnFilter = !!initial && restore?.filter === undefined && s.meta?.filter !== undefined;
      if (initial) applyFilter(initial);
      els.loading.hidden = true;
      toolbar.setLegend(message.inferred ? [INFERRED_ENTRY] : []);
      toolbar.setSummary(summaryText(s.index));
      requestLod();
      break;
    }
    case 'lod':
      if (message.id === PUSHED_ID && stats.hostHeld) {
        // The engine's first view, pushed with the index: drawn at once when it is what this
        // page asks for now; the page's own request, already sent, replaces it when it comes.
        if (!s.result && pushedFits(message.result)) {
          s.resultLanes = new Set(message.result.totals.lane);
          s.resultFilter = s.filterVersion;
          takeLod(message, 'pushed');
        }
        break;
      }
      s.inFlight = false;
      if (message.id !== s.lodId) break;
      takeLod(message, message.source ?? 'index');
      break;
    case 'measure':
      if (s.measure && message.id === s.measureId) {
        s.measure.result = message.result;
        schedule();
      }
      break;
    case 'filter':
      onFilterApplied(message.id, message.kept, message.fromNs, message.toNs, message.selectedKept);
      break;
    case 'details':
      onDetails(message.id, message.details);
      break;
    case 'hit':
      onHit(message.id, message.purpose, message.hit);
      break;
    case 'pick':
      onPick(message.id, message.event);
      break;
    case 'error':
      host.reportError(`timeline worker: ${message.message}`);
      break;
  }
}

// ---- level of detail ------------------------------------------------------------------------

/** A level-of-detail answer drawn from: `source` says where the first one came from. */
function takeLod(message: Extract<FromWorker, { type: 'lod' }>, source: typeof stats.firstLodSource): void {
  // The events drawn one by one, then the selection's again in case the store started afresh.
  s.known = remember(s.known, message.records);
  if (s.details) s.known = remember(s.known, s.details.records);
  s.result = message.result;
  if (stats.lodMs.length === 0) {
    stats.firstLodStage = stats.stage;
    stats.firstLodSource = source;
    stats.firstLodAt = performance.now();
  }
  stats.lodMs.push(message.ms);
  stats.rawKernels = message.rawKernels;
  schedule();
}

/**
 * Whether a pushed first view is what the page would ask for now: no filter, the same window
 * and buckets, and every lane the request would name among its lanes.
 */
function pushedFits(result: LodResult): boolean {
  if (!s.index || !s.layout || s.saved.filter) return false;
  const want = lodWindow(s.startNs, s.endNs);
  if (result.startNs !== want.startNs || result.endNs !== want.endNs) return false;
  if (result.buckets !== lodBuckets(plotWidth(s.cssWidth))) return false;
  const has = new Set(result.totals.lane);
  return visibleLanes().every((lane) => has.has(lane));
}

function visibleLanes(): number[] {
  if (!s.layout) return [];
  // A screen of rows above and below, so a vertical scroll does not wait for the worker.
  const margin = s.cssHeight;
  return s.layout.rows
    .filter(
      (r): r is Extract<Row, { kind: 'lane' }> =>
        r.kind === 'lane' && r.y + r.h > s.scrollY - margin && r.y < s.scrollY + s.cssHeight + margin,
    )
    .map((r) => r.lane);
}

function needsLod(): boolean {
  if (!s.index || !s.layout) return false;
  if (!s.result || s.resultFilter !== s.filterVersion) return true;
  const span = s.endNs - s.startNs;
  const covered = (s.result.endNs - s.result.startNs) / 3;
  const ratio = covered / span;
  if (ratio < 0.8 || ratio > 1.25) return true;
  if (s.startNs < s.result.startNs + span * 0.35 || s.endNs > s.result.endNs - span * 0.35) return true;
  const rowsNow = s.layout.rows.filter(
    (r) => r.kind === 'lane' && r.y + r.h > s.scrollY && r.y < s.scrollY + s.cssHeight,
  );
  return rowsNow.some((r) => r.kind === 'lane' && !s.resultLanes.has(r.lane));
}

function requestLod(): void {
  if (!s.index || s.inFlight || !needsLod()) return;
  const lanes = visibleLanes();
  const request: LodRequest = {
    ...lodWindow(s.startNs, s.endNs),
    buckets: lodBuckets(plotWidth(s.cssWidth)),
    lanes,
    rawMinPx: RAW_MIN_PX,
  };
  s.inFlight = true;
  s.lodId++;
  s.resultLanes = new Set(lanes);
  s.resultFilter = s.filterVersion;
  client.post({ type: 'lod', id: s.lodId, request });
}

// ---- drawing --------------------------------------------------------------------------------

function render(): void {
  if (!s.index || !s.layout) return;
  const t0 = performance.now();
  const size = sizeCanvas();
  s.cssWidth = size.width;
  s.cssHeight = size.height;
  clampScroll();
  s.palette ??= makePalette(s.theme, ctx);
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  draw(ctx, scene(), s.palette);
  const ms = performance.now() - t0;
  stats.draws++;
  stats.view = {
    startNs: s.startNs,
    endNs: s.endNs,
    scrollY: s.scrollY,
    selected: s.selected,
    lanesDrawn: s.layout.rows.length,
  };
  if (stats.frameMs.length < 5000) stats.frameMs.push(ms);
  if (s.result && !stats.firstFrameAt && s.resultFilter === s.filterVersion) {
    stats.firstFrameAt = performance.now();
    stats.firstFrameDrawMs = ms;
    // The host's progress notification ends with the first full frame.
    host.post({ type: 'timeline-shown', events: s.index.count });
  }
  requestLod();
}

new ResizeObserver(() => schedule()).observe(els.frame);
els.canvas.addEventListener('focus', () => schedule());
els.canvas.addEventListener('blur', () => schedule());

observeTheme(() => {
  s.theme = readTheme();
  s.palette = undefined;
  schedule();
});

listenForInput();

// ---- host messages --------------------------------------------------------------------------

function handle(message: TimelineHostMessage, arrivedAt: number): void {
  switch (message.type) {
    case 'timeline': {
      // "Data arriving in the webview" for the benchmark: before validation, which is part of the cost.
      startTimeline(message.meta, message.columns.count, arrivedAt, false);
      // Given to the worker (transferred, not copied): it owns them from here; the page asks it by message.
      client.post(
        {
          type: 'load',
          columns: message.columns,
          meta: { gpuCus: message.meta.gpuCus, vendor: message.meta.vendor, simulated: message.meta.simulated },
        },
        columnBuffers(message.columns),
      );
      break;
    }
    case 'timeline-host-held':
      // The host reads and indexes it; its index arrives as the engine's first answer.
      startTimeline(message.meta, message.count, arrivedAt, true);
      // A page that reloaded finds the host's engine as it left it: no selection, no filter (cheap).
      client.post({ type: 'details', id: 0, event: -1 });
      client.post({ type: 'filter', id: ++s.filterId, text: '' });
      // The first view's size: the engine may bin its level of detail while it surveys the file.
      client.post({
        type: 'view',
        whole: opensWhole(),
        buckets: lodBuckets(plotWidth(sizeCanvas().width)),
        rawMinPx: RAW_MIN_PX,
      });
      break;
    case 'engine-answer':
      if (stats.hostHeld) onWorker(message.answer as FromWorker);
      break;
    case 'timeline-status':
      els.loading.hidden = false;
      els.loading.textContent = message.message;
      els.loading.classList.toggle('error', message.state === 'error');
      break;
    default: {
      const unhandled: never = message;
      host.reportError(`timeline panel: unhandled message ${JSON.stringify(unhandled)}`);
    }
  }
}

/** What the page showed of this timeline before a reload (its window, its filter), if anything. */
function savedView(): PanelState | undefined {
  return s.saved.key === s.meta?.key ? { ...s.saved } : undefined;
}

/**
 * The filter a timeline opens with: a restored panel's own; a kernel from the code lens opens
 * filtered to its launches, a sweep point to the path clicked; none otherwise.
 */
function initialFilter(restore: PanelState | undefined): string {
  if (restore?.filter !== undefined) return restore.filter;
  if (s.meta?.filter !== undefined) return s.meta.filter;
  return s.meta?.focusPath ? `path:${s.meta.focusPath}` : '';
}

/** Whether the first view fits the whole timeline, unfiltered: what a host-held engine may bin ahead. */
function opensWhole(): boolean {
  const restore = savedView();
  if (restore?.startNs !== undefined && restore.endNs !== undefined && restore.endNs > restore.startNs) return false;
  return initialFilter(restore) === '';
}

/** The toolbar's summary: the events, the lanes, who holds them and, during an overview, that the index is still being built. */
function summaryText(index: PageIndex): string {
  const where = stats.hostHeld ? ' · held by the extension host' : client.inWorker ? '' : ' · computed on the page';
  const building = stats.stage === 'overview' ? ' · indexing for zoom and search…' : '';
  return `${index.count.toLocaleString('en-US')} events · ${index.lanes.length} lanes${where}${building}`;
}

/** A timeline arrives (its columns, or word that the host holds them): the page starts afresh. */
function startTimeline(meta: TimelineMeta, count: number, arrivedAt: number, hostHeld: boolean): void {
  stats.receivedAt = arrivedAt;
  stats.firstFrameAt = 0;
  stats.queries = 0;
  stats.events = count;
  stats.hostHeld = hostHeld;
  stats.stage = 'ready';
  stats.readyAt = 0;
  stats.builtMs = 0;
  stats.firstLodStage = '';
  stats.firstLodSource = '';
  stats.firstLodAt = 0;
  stats.lodMs = [];
  stats.inWorker = client.inWorker;
  s.meta = meta;
  s.index = undefined;
  s.result = undefined;
  s.selected = -1;
  s.related = [];
  s.measure = undefined;
  toolbar.setMeta(s.meta);
  toolbar.setLegend([]);
  els.loading.textContent = `${hostHeld ? 'Reading and indexing' : 'Indexing'} ${count.toLocaleString('en-US')} events…`;
  els.loading.hidden = false;
  if (s.saved.key !== s.meta.key) s.saved = { key: s.meta.key };
  s.known = emptyKnown();
  s.details = undefined;
  renderDetails();
}

host.ready();
