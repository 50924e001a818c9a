/**
 * The timeline panel: receives a timeline as typed-array columns, hands a copy to the
 * level-of-detail worker, and draws the worker's answer for the visible window on a canvas.
 * Every pan or zoom redraws at once from the last answer (scaled to the new window) and asks
 * the worker for the next one; the page thread never walks the million events itself.
 */
import type { TimelineHostMessage, TimelineWebviewMessage } from '../../src/core/timeline/timelineMessages';
import { TIMELINE_FILTER_MAX, parseTimelineHostMessage } from '../../src/core/timeline/timelineMessages';
import { PATHS } from '../../src/core/protocol';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { labelOf } from '../../src/core/timeline/timelineFile';
import { FilterSyntaxError, filterMask, isEmptyFilter, parseFilter } from '../../src/core/timeline/timelineFilter';
import type { LodRequest, LodResult, RangeMeasure } from '../../src/core/timeline/timelineLod';
import { visibleStartNs } from '../../src/core/timeline/timelineLod';
import type { TimelineIndex, TimelineMeta } from '../../src/core/timeline/timelineModel';
import { KIND_KERNEL, eventAt, eventsInRange, laneLabel, relatedEvents } from '../../src/core/timeline/timelineModel';
import { formatBytes, formatDuration } from '../../src/core/units';
import { connectPage } from '../shared/hostChannel';
import { observeTheme, readTheme } from '../shared/theme';
import { describeEvent, describeRun } from './describe';
import { el } from '../shared/dom';
import type { Layout, Row } from './layout';
import { layoutRows, rowAt } from './layout';
import { startLodClient } from './lodClient';
import type { Palette, Scene } from './renderer';
import { GUTTER_PX, RULER_PX, draw, makePalette, plotWidth, xToTime } from './renderer';
import { Toolbar } from './toolbar';
import type { FromWorker } from './workerProtocol';
import { columnBuffers } from './workerProtocol';

interface PanelState {
  key?: string;
  startNs?: number;
  endNs?: number;
  filter?: string;
  expandedCus?: number[];
  collapsedGpus?: number[];
}

/** Figures the browser tests and the benchmark read; the panel itself never looks at them. */
interface Stats {
  receivedAt: number;
  firstFrameAt: number;
  frameMs: number[];
  lodMs: number[];
  indexMs: number;
  inWorker: boolean;
  events: number;
  draws: number;
  /** Events the filter keeps (all when there is none). */
  kept: number;
  /** Names of the kernels drawn one by one in the latest level-of-detail answer. */
  rawKernels: string[];
  view: { startNs: number; endNs: number; scrollY: number; selected: number; lanesDrawn: number };
}

const host = connectPage<TimelineHostMessage, TimelineWebviewMessage, PanelState>({ name: 'timeline', parse: parseTimelineHostMessage, onMessage: handle });

const stats: Stats = { receivedAt: 0, firstFrameAt: 0, frameMs: [], lodMs: [], indexMs: 0, inWorker: false, events: 0, draws: 0, kept: 0, rawKernels: [], view: { startNs: 0, endNs: 0, scrollY: 0, selected: -1, lanesDrawn: 0 } };
(window as unknown as { __timelineStats: Stats }).__timelineStats = stats;

let saved = host.state() ?? {};
let meta: TimelineMeta | undefined;
let columns: TimelineColumns | undefined;
let index: TimelineIndex | undefined;
let layout: Layout | undefined;
let result: LodResult | undefined;
let resultLanes = new Set<number>();
let resultFilter = 0;
let filterVersion = 0;
/** The page's copy of the filter's mask (the worker gets its own): hit tests skip hidden events. */
let pageMask: Uint8Array | undefined;
let lodId = 0;
let inFlight = false;
let startNs = 0;
let endNs = 1;
let scrollY = 0;
let selected = -1;
let related: number[] = [];
let doorbell = -1;
let measure: { fromNs: number; toNs: number; result?: RangeMeasure } | undefined;
let measureId = 0;
let measureMode = false;
let hoverX: number | undefined;
let focusRow = 0;
const collapsedGpus = new Set<number>(saved.collapsedGpus ?? []);
const expandedCus = new Set<number>(saved.expandedCus ?? []);
let theme = readTheme();
let palette: Palette | undefined;

const canvas = el('canvas', { class: 'timeline-canvas', tabindex: '0', role: 'application', 'aria-roledescription': 'timeline', 'aria-label': 'Timeline. Arrow keys or A and D pan, W and S zoom, F zooms to the selection, M measures, Escape clears. The details below describe the selected event.' });
const tooltip = el('div', { class: 'tooltip', role: 'tooltip' });
tooltip.hidden = true;
const loading = el('p', { class: 'loading' }, 'Waiting for the timeline…');
const frame = el('div', { class: 'frame' }, canvas, tooltip, loading);
const details = el('section', { class: 'details', 'aria-live': 'polite', 'aria-label': 'Selected event' });
const toolbar = new Toolbar({
  onFilter: (text) => applyFilter(text),
  onFit: () => fitAll(),
  onZoomSelection: () => zoomToSelection(),
  onMeasureMode: (on) => {
    measureMode = on;
    canvas.classList.toggle('measuring', on);
  },
  onExport: () => host.post({ type: 'export-trace' }),
  onToggleCus: () => toggleAllCus(),
});
const root = document.getElementById('root') ?? document.body;
root.replaceChildren(toolbar.header, toolbar.element, frame, details);
renderDetails();

const client = startLodClient(onWorker, (message) => host.reportError(message));
stats.inWorker = client.inWorker;
const ctx = canvas.getContext('2d', { alpha: false })!;

function onWorker(message: FromWorker): void {
  switch (message.type) {
    case 'index': {
      index = message.index;
      columns = message.columns;
      stats.indexMs = message.buildMs;
      // What the page showed before a reload, read before relayout() saves the fresh state.
      const restore = saved.key === meta?.key ? { ...saved } : undefined;
      if (restore?.startNs !== undefined && restore.endNs !== undefined && restore.endNs > restore.startNs) {
        startNs = restore.startNs;
        endNs = restore.endNs;
      } else {
        fitAll(false);
      }
      relayout();
      // A restored panel keeps its filter; a kernel from the code lens opens filtered to its
      // launches (and zoomed to them); a sweep point opens filtered to the path clicked.
      const initial = restore?.filter !== undefined ? restore.filter : meta?.filter !== undefined ? meta.filter : meta?.focusPath ? `path:${meta.focusPath}` : '';
      toolbar.setFilter(initial);
      if (initial) applyFilter(initial);
      if (initial && restore?.filter === undefined && meta?.filter !== undefined) fitToKept();
      loading.hidden = true;
      toolbar.setSummary(`${index.count.toLocaleString('en-US')} events · ${index.lanes.length} lanes${client.inWorker ? '' : ' · computed on the page'}`);
      requestLod();
      break;
    }
    case 'lod':
      inFlight = false;
      if (message.id !== lodId) break;
      result = message.result;
      stats.lodMs.push(message.ms);
      stats.rawKernels = rawKernelNames(message.result);
      schedule();
      break;
    case 'measure':
      if (measure && message.id === measureId) {
        measure.result = message.result;
        schedule();
      }
      break;
    case 'error':
      host.reportError(`timeline worker: ${message.message}`);
      break;
  }
}

// ---- window and layout ----------------------------------------------------------------------

function sizeCanvas(): { width: number; height: number } {
  const rect = frame.getBoundingClientRect();
  const width = Math.max(200, Math.floor(rect.width));
  const height = Math.max(160, Math.floor(rect.height));
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  return { width, height };
}

let cssWidth = 800;
let cssHeight = 400;

function relayout(): void {
  if (!index || !meta) return;
  layout = layoutRows(index, meta, collapsedGpus, expandedCus);
  focusRow = Math.min(focusRow, layout.rows.length - 1);
  clampScroll();
  saveState();
  schedule();
}

function clampScroll(): void {
  const max = Math.max(0, (layout?.heightPx ?? 0) - (cssHeight - RULER_PX));
  scrollY = Math.min(Math.max(0, scrollY), max);
}

function extent(): { from: number; to: number } {
  if (!index) return { from: 0, to: 1 };
  const span = Math.max(index.endNs - index.startNs, 1000);
  return { from: index.startNs - span * 0.02, to: index.startNs + span * 1.02 };
}

function setWindow(from: number, to: number): void {
  const { from: lo, to: hi } = extent();
  const full = hi - lo;
  let span = Math.min(Math.max(to - from, 50), full * 1.5);
  let a = from + (to - from - span) / 2;
  // Keep some of the data in view: at most half a window past either end.
  a = Math.min(Math.max(a, lo - span / 2), hi - span / 2);
  span = Math.max(span, 1e-6);
  startNs = a;
  endNs = a + span;
  saveStateSoon();
  schedule();
}

function fitAll(save = true): void {
  const { from, to } = extent();
  startNs = from;
  endNs = to;
  if (save) saveStateSoon();
  schedule();
}

/** The window around the events the filter keeps (a kernel's launches, opened from the lens). */
function fitToKept(): void {
  if (!columns || !pageMask) return;
  let a = Infinity;
  let b = -Infinity;
  for (let e = 0; e < columns.count; e++) {
    if (!pageMask[e]) continue;
    a = Math.min(a, visibleStartNs(columns, e));
    b = Math.max(b, columns.endNs[e]!, columns.startNs[e]!);
  }
  if (!Number.isFinite(a)) return;
  const pad = Math.max((b - a) * 0.05, 500);
  setWindow(a - pad, b + pad);
}

function rawKernelNames(r: LodResult): string[] {
  if (!columns) return [];
  const names = new Set<string>();
  for (let i = 0; i < r.raw.length && names.size < 64; i++) {
    const e = r.raw[i]!;
    if (columns.kind[e] === KIND_KERNEL) names.add(labelOf(columns, e) ?? '');
  }
  return [...names];
}

function zoomAt(factor: number, atX?: number): void {
  const pivot = atX !== undefined ? xToTime(scene(), atX) : (startNs + endNs) / 2;
  setWindow(pivot - (pivot - startNs) * factor, pivot + (endNs - pivot) * factor);
}

function panBy(px: number): void {
  const ns = (px / plotWidth(cssWidth)) * (endNs - startNs);
  setWindow(startNs + ns, endNs + ns);
}

function zoomToSelection(): void {
  if (measure) return setWindow(Math.min(measure.fromNs, measure.toNs), Math.max(measure.fromNs, measure.toNs));
  if (!columns || selected < 0) return;
  const events = [selected, ...related];
  let a = Infinity;
  let b = -Infinity;
  for (const e of events) {
    a = Math.min(a, visibleStartNs(columns, e));
    b = Math.max(b, columns.endNs[e]!, columns.startNs[e]!);
  }
  const pad = Math.max((b - a) * 0.15, 200);
  setWindow(a - pad, b + pad);
}

// ---- level of detail ------------------------------------------------------------------------

function visibleLanes(): number[] {
  if (!layout) return [];
  // A screen of rows above and below, so a vertical scroll does not wait for the worker.
  const margin = cssHeight;
  return layout.rows.filter((r): r is Extract<Row, { kind: 'lane' }> => r.kind === 'lane' && r.y + r.h > scrollY - margin && r.y < scrollY + cssHeight + margin).map((r) => r.lane);
}

function needsLod(): boolean {
  if (!index || !layout) return false;
  if (!result || resultFilter !== filterVersion) return true;
  const span = endNs - startNs;
  const covered = (result.endNs - result.startNs) / 3;
  const ratio = covered / span;
  if (ratio < 0.8 || ratio > 1.25) return true;
  if (startNs < result.startNs + span * 0.35 || endNs > result.endNs - span * 0.35) return true;
  const rowsNow = layout.rows.filter((r) => r.kind === 'lane' && r.y + r.h > scrollY && r.y < scrollY + cssHeight);
  return rowsNow.some((r) => r.kind === 'lane' && !resultLanes.has(r.lane));
}

function requestLod(): void {
  if (!index || inFlight || !needsLod()) return;
  const span = endNs - startNs;
  const lanes = visibleLanes();
  const request: LodRequest = { startNs: startNs - span, endNs: endNs + span, buckets: Math.round(plotWidth(cssWidth) * 3), lanes, rawMinPx: 2 };
  inFlight = true;
  lodId++;
  resultLanes = new Set(lanes);
  resultFilter = filterVersion;
  client.post({ type: 'lod', id: lodId, request });
}

// ---- drawing --------------------------------------------------------------------------------

function scene(): Scene {
  return {
    widthPx: cssWidth,
    heightPx: cssHeight,
    startNs,
    endNs,
    scrollY,
    layout: layout!,
    columns: columns!,
    index: index!,
    result,
    selected,
    related,
    doorbell,
    measure,
    hoverX,
    focusRow,
    keyboardFocus: document.activeElement === canvas,
    simulated: meta?.simulated ?? false,
  };
}

let pending = 0;
function schedule(): void {
  if (pending) return;
  pending = requestAnimationFrame(() => {
    pending = 0;
    render();
  });
}

function render(): void {
  if (!index || !layout || !columns) return;
  const t0 = performance.now();
  const size = sizeCanvas();
  cssWidth = size.width;
  cssHeight = size.height;
  clampScroll();
  palette ??= makePalette(theme, ctx);
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  draw(ctx, scene(), palette);
  const ms = performance.now() - t0;
  stats.draws++;
  stats.view = { startNs, endNs, scrollY, selected, lanesDrawn: layout.rows.length };
  if (stats.frameMs.length < 5000) stats.frameMs.push(ms);
  if (result && !stats.firstFrameAt && resultFilter === filterVersion) stats.firstFrameAt = performance.now();
  requestLod();
}

new ResizeObserver(() => schedule()).observe(frame);
canvas.addEventListener('focus', () => schedule());
canvas.addEventListener('blur', () => schedule());

observeTheme(() => {
  theme = readTheme();
  palette = undefined;
  schedule();
});

// ---- filter ---------------------------------------------------------------------------------

function applyFilter(text: string): void {
  try {
    const filter = parseFilter(text);
    toolbar.setFilterError(undefined);
    filterVersion++;
    // One pass over the columns when the query changes; the worker applies it while aggregating.
    const mask = columns && !isEmptyFilter(filter) ? filterMask(columns, filter) : undefined;
    pageMask = mask?.slice();
    let kept = columns?.count ?? 0;
    if (mask) {
      kept = 0;
      for (let i = 0; i < mask.length; i++) kept += mask[i]!;
    }
    stats.kept = kept;
    client.post({ type: 'filter', mask }, mask ? [mask.buffer as ArrayBuffer] : []);
    host.post({ type: 'filter-applied', filter: text.slice(0, TIMELINE_FILTER_MAX), kept });
    if (selected >= 0 && pageMask && !pageMask[selected]) select(-1);
    saved = { ...saved, filter: text };
    saveState();
    if (measure) requestMeasure();
    schedule();
  } catch (err) {
    if (err instanceof FilterSyntaxError) toolbar.setFilterError(err.message);
    else throw err;
  }
}

// ---- selection and details ------------------------------------------------------------------

function select(e: number, reveal = false): void {
  if (!columns || !index) return;
  selected = e;
  related = [];
  doorbell = -1;
  if (e >= 0) {
    const r = relatedEvents(columns, index, e);
    doorbell = r.doorbell;
    related = [...new Set([r.doorbell, ...r.packets, r.kernel, ...r.cus].filter((x) => x >= 0))];
    if (reveal) revealEvent(e);
  }
  renderDetails();
  schedule();
}

function revealEvent(e: number): void {
  if (!columns || !index || !layout) return;
  const a = visibleStartNs(columns, e);
  const b = Math.max(columns.endNs[e]!, columns.startNs[e]!);
  const span = endNs - startNs;
  if (b - a > span * 0.9) setWindow(a - (b - a) * 0.1, b + (b - a) * 0.1);
  else if (a < startNs || b > endNs) setWindow((a + b) / 2 - span / 2, (a + b) / 2 + span / 2);
  const row = layout.rowOfLane.get(index.laneOf[e]!);
  if (row && (row.y < scrollY || row.y + row.h > scrollY + cssHeight - RULER_PX)) {
    scrollY = row.y - (cssHeight - RULER_PX) / 3;
    clampScroll();
  }
}

function renderDetails(): void {
  if (!columns || !index || selected < 0) {
    details.replaceChildren(el('p', { class: 'hint' }, 'Click an event to see its facts and related events. Drag to pan, Ctrl+wheel or pinch to zoom, Shift+drag to measure.'));
    return;
  }
  const t = columns;
  const r = relatedEvents(t, index, selected);
  const facts = describeEvent(t, index, selected, meta?.vendor ?? 'amd');
  const link = (e: number, text: string) => {
    const b = el('button', { class: 'link', type: 'button' }, text);
    b.addEventListener('click', () => select(e, true));
    return b;
  };
  const chain: HTMLElement[] = [];
  if (r.doorbell >= 0) chain.push(link(r.doorbell, `Doorbell at ${describeRun(t, r.doorbell)}`));
  const shown = r.packets.slice(0, 12);
  if (shown.length > 0) chain.push(el('span', { class: 'chain-label' }, `${r.packets.length} packet${r.packets.length === 1 ? '' : 's'}:`), ...shown.map((p) => link(p, describeRun(t, p))));
  if (r.packets.length > shown.length) chain.push(el('span', { class: 'more' }, `+${r.packets.length - shown.length} more`));
  const last = r.packets.at(-1);
  if (last !== undefined) chain.push(link(last, `Completion at ${describeRun(t, last, 'end')}`));
  if (r.kernel >= 0 && r.kernel !== selected) chain.push(link(r.kernel, `Kernel ${describeRun(t, r.kernel)}`));
  if (t.kind[selected] === 0 && r.cus.length > 0) {
    chain.push(el('span', { class: 'chain-label' }, `${r.cus.length} CU span${r.cus.length === 1 ? '' : 's'} in this kernel:`));
    chain.push(...r.cus.slice(0, 16).map((c) => link(c, laneLabel('cu', t.lane[c]!, meta?.vendor))));
    if (r.cus.length > 16) chain.push(el('span', { class: 'more' }, `+${r.cus.length - 16} more`));
  }
  const parts: HTMLElement[] = [el('h2', {}, facts.title), el('dl', { class: 'facts' }, ...facts.rows.map(([k, v]) => el('div', { class: 'fact' }, el('dt', {}, k), el('dd', {}, v))))];
  if (chain.length > 0) parts.push(el('div', { class: 'chain', role: 'group', 'aria-label': 'Related events' }, ...chain));
  details.replaceChildren(...parts);
}

// ---- pointer --------------------------------------------------------------------------------

function localPoint(event: MouseEvent): { x: number; y: number } {
  const rect = canvas.getBoundingClientRect();
  return { x: event.clientX - rect.left, y: event.clientY - rect.top };
}

function pick(x: number, y: number): { row?: Row; event: number; run: number } {
  if (!layout || !columns || !index || y < RULER_PX) return { event: -1, run: -1 };
  const row = rowAt(layout, y - RULER_PX + scrollY);
  if (!row || row.kind !== 'lane' || x < GUTTER_PX) return { row, event: -1, run: -1 };
  const time = xToTime(scene(), x);
  const nsPerPx = (endNs - startNs) / plotWidth(cssWidth);
  let run = -1;
  if (result) {
    const nsPerBucket = (result.endNs - result.startNs) / result.buckets;
    const runs = result.runs;
    for (let i = 0; i < runs.lane.length; i++) {
      if (runs.lane[i] !== row.lane) continue;
      const a = result.startNs + runs.b0[i]! * nsPerBucket - nsPerPx;
      const b = result.startNs + runs.b1[i]! * nsPerBucket + nsPerPx;
      if (time >= a && time <= b) {
        run = i;
        break;
      }
    }
  }
  const event = row.lane < index.lanes.length ? eventAt(columns, index, row.lane, time, nsPerPx * 3, pageMask) : -1;
  return { row, event, run };
}

function showTooltip(x: number, y: number): void {
  const hit = pick(x, y);
  tooltip.hidden = true;
  if (!columns || !index || !result) return;
  let lines: string[] | undefined;
  const nsPerPx = (endNs - startNs) / plotWidth(cssWidth);
  const eventWidePx = hit.event >= 0 ? (Math.max(columns.endNs[hit.event]!, columns.startNs[hit.event]!) - visibleStartNs(columns, hit.event)) / nsPerPx : 0;
  if (hit.run >= 0 && (hit.event < 0 || (eventWidePx < 2 && result.runs.count[hit.run]! > 1))) {
    const laneId = hit.row?.kind === 'lane' ? hit.row.lane : -1;
    const heat = index.heat.find((h) => h.id === laneId);
    lines = describeAggregate(result, hit.run, heat?.cuCount);
  } else if (hit.event >= 0) {
    const facts = describeEvent(columns, index, hit.event, meta?.vendor ?? 'amd');
    lines = [facts.title, ...facts.rows.slice(0, 7).map(([k, v]) => `${k}: ${v}`)];
  }
  if (!lines) return;
  tooltip.replaceChildren(...lines.map((text, i) => el(i === 0 ? 'strong' : 'div', {}, text)));
  tooltip.hidden = false;
  const w = tooltip.offsetWidth;
  const h = tooltip.offsetHeight;
  tooltip.style.left = `${Math.min(x + 14, cssWidth - w - 4)}px`;
  tooltip.style.top = `${y + 16 + h > cssHeight ? y - h - 8 : y + 16}px`;
}

function describeAggregate(r: LodResult, i: number, cuCount?: number): string[] {
  const nsPerBucket = (r.endNs - r.startNs) / r.buckets;
  const spanNs = (r.runs.b1[i]! - r.runs.b0[i]!) * nsPerBucket;
  const busy = r.runs.busyNs[i]! / (spanNs * (cuCount ?? 1));
  const count = r.runs.count[i]!;
  const bytes = r.runs.bytes[i]!;
  const lines = [cuCount ? `${Math.round(busy * 100)} % of ${cuCount} CUs busy` : `${count.toLocaleString('en-US')} event${count === 1 ? '' : 's'} (zoom in to see each)`];
  lines.push(`busy ${Math.round(Math.min(busy, 1) * 100)} % of ${describeSpan(spanNs)}`);
  if (cuCount) lines.push(`${count.toLocaleString('en-US')} CU spans start here`);
  if (bytes > 0) lines.push(`${formatBytesShort(bytes)} in events starting here`);
  lines.push(`mostly ${PATHS[r.runs.path[i]!] ?? ''}`);
  return lines;
}

const formatBytesShort = (bytes: number) => formatBytes(Math.round(bytes));
const describeSpan = (ns: number) => formatDuration(ns);

let drag: { x: number; y: number; startNs: number; endNs: number; scrollY: number; measuring: boolean; moved: boolean; id: number } | undefined;

canvas.addEventListener('pointerdown', (event) => {
  if (event.button !== 0 || !layout) return;
  canvas.focus();
  const { x, y } = localPoint(event);
  if (x < GUTTER_PX && y >= RULER_PX) {
    const row = rowAt(layout, y - RULER_PX + scrollY);
    if (row) {
      focusRow = layout.rows.indexOf(row);
      activateRow(row);
    }
    return;
  }
  const measuring = event.shiftKey || measureMode;
  drag = { x, y, startNs, endNs, scrollY, measuring, moved: false, id: event.pointerId };
  canvas.setPointerCapture(event.pointerId);
  if (measuring) {
    const at = xToTime(scene(), x);
    measure = { fromNs: at, toNs: at };
  }
});

canvas.addEventListener('pointermove', (event) => {
  const { x, y } = localPoint(event);
  if (drag) {
    const dx = x - drag.x;
    const dy = y - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.measuring && measure) {
      measure.toNs = xToTime(scene(), x);
      requestMeasure();
    } else if (drag.moved) {
      const ns = (dx / plotWidth(cssWidth)) * (drag.endNs - drag.startNs);
      scrollY = drag.scrollY - dy;
      clampScroll();
      setWindow(drag.startNs - ns, drag.endNs - ns);
    }
    tooltip.hidden = true;
    hoverX = x;
    schedule();
    return;
  }
  hoverX = x >= GUTTER_PX ? x : undefined;
  showTooltip(x, y);
  schedule();
});

canvas.addEventListener('pointerup', (event) => {
  if (!drag) return;
  const { x, y } = localPoint(event);
  const wasClick = !drag.moved;
  const measuring = drag.measuring;
  canvas.releasePointerCapture(drag.id);
  drag = undefined;
  if (measuring && wasClick) measure = undefined;
  if (!measuring && wasClick) {
    measure = undefined;
    const hit = pick(x, y);
    select(hit.event);
  }
  saveStateSoon();
  schedule();
});

canvas.addEventListener('pointerleave', () => {
  hoverX = undefined;
  tooltip.hidden = true;
  schedule();
});

canvas.addEventListener('dblclick', (event) => {
  const { x, y } = localPoint(event);
  const hit = pick(x, y);
  if (hit.event >= 0) {
    select(hit.event);
    zoomToSelection();
  }
});

canvas.addEventListener(
  'wheel',
  (event) => {
    event.preventDefault();
    const { x } = localPoint(event);
    const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? cssHeight : 1;
    const dx = event.deltaX * unit;
    const dy = event.deltaY * unit;
    // Pinch arrives as a wheel event with ctrlKey set; Ctrl/Cmd+wheel zooms the same way.
    if (event.ctrlKey || event.metaKey) zoomAt(Math.exp(dy * 0.0025), x);
    else if (event.shiftKey) panBy(dy || dx);
    else if (Math.abs(dx) > Math.abs(dy)) panBy(dx);
    else {
      scrollY += dy;
      clampScroll();
      schedule();
    }
    tooltip.hidden = true;
  },
  { passive: false },
);

function requestMeasure(): void {
  if (!measure) return;
  measureId++;
  client.post({ type: 'measure', id: measureId, fromNs: measure.fromNs, toNs: measure.toNs });
}

// ---- keyboard -------------------------------------------------------------------------------

function activateRow(row: Row): void {
  if (row.kind === 'group') {
    if (!collapsedGpus.delete(row.gpu)) collapsedGpus.add(row.gpu);
    relayout();
  } else if (row.kind === 'cu-toggle') {
    if (!expandedCus.delete(row.gpu)) expandedCus.add(row.gpu);
    relayout();
  } else if (columns && index && row.lane < index.lanes.length) {
    const inView = eventsInRange(columns, index, row.lane, startNs, endNs, 4096).find((e) => !pageMask || pageMask[e]);
    if (inView !== undefined) select(inView);
  }
}

function toggleAllCus(): void {
  if (!index) return;
  const gpus = index.heat.map((h) => h.gpu);
  const allOpen = gpus.every((g) => expandedCus.has(g));
  for (const g of gpus) {
    if (allOpen) expandedCus.delete(g);
    else expandedCus.add(g);
  }
  relayout();
}

function stepSelection(direction: 1 | -1): void {
  if (!columns || !index || !layout) return;
  const row = layout.rows[focusRow];
  const lane = selected >= 0 ? index.laneOf[selected]! : row && row.kind === 'lane' && row.lane < index.lanes.length ? row.lane : -1;
  if (lane < 0) return;
  const a = index.laneStart[lane]!;
  const b = index.laneStart[lane + 1]!;
  let k = -1;
  if (selected >= 0) {
    for (let i = a; i < b; i++) if (index.order[i] === selected) k = i;
    k += direction;
  } else {
    k = direction === 1 ? a : b - 1;
  }
  // Events the filter hides are stepped over.
  while (pageMask && k >= a && k < b && !pageMask[index.order[k]!]) k += direction;
  if (k >= a && k < b) select(index.order[k]!, true);
}

canvas.addEventListener('keydown', (event) => {
  if (!layout) return;
  const key = event.key;
  let handled = true;
  switch (key) {
    case 'ArrowLeft':
    case 'a':
    case 'A':
      panBy(-plotWidth(cssWidth) * 0.15);
      break;
    case 'ArrowRight':
    case 'd':
    case 'D':
      panBy(plotWidth(cssWidth) * 0.15);
      break;
    case 'w':
    case 'W':
    case '+':
    case '=':
      zoomAt(0.7, hoverX);
      break;
    case 's':
    case 'S':
    case '-':
    case '_':
      zoomAt(1 / 0.7, hoverX);
      break;
    case 'ArrowUp':
    case 'ArrowDown': {
      focusRow = Math.min(Math.max(0, focusRow + (key === 'ArrowUp' ? -1 : 1)), layout.rows.length - 1);
      const row = layout.rows[focusRow]!;
      if (row.y < scrollY) scrollY = row.y;
      if (row.y + row.h > scrollY + cssHeight - RULER_PX) scrollY = row.y + row.h - (cssHeight - RULER_PX);
      clampScroll();
      toolbar.announce(`${row.kind === 'group' ? row.label : row.label}${row.kind === 'group' ? (row.collapsed ? ', collapsed' : ', expanded') : ''}`);
      schedule();
      break;
    }
    case 'Enter':
    case ' ':
      activateRow(layout.rows[focusRow]!);
      break;
    case ']':
      stepSelection(1);
      break;
    case '[':
      stepSelection(-1);
      break;
    case 'f':
    case 'F':
      zoomToSelection();
      break;
    case '0':
    case 'Home':
      fitAll();
      break;
    case 'm':
    case 'M':
      toolbar.toggleMeasure();
      break;
    case 'Escape':
      measure = undefined;
      select(-1);
      break;
    default:
      handled = false;
  }
  if (handled) {
    event.preventDefault();
    schedule();
  }
});

// ---- state ----------------------------------------------------------------------------------

function saveState(): void {
  if (!meta) return;
  saved = { ...saved, key: meta.key, startNs, endNs, expandedCus: [...expandedCus], collapsedGpus: [...collapsedGpus] };
  host.saveState(saved);
}

let saveTimer = 0;
function saveStateSoon(): void {
  if (saveTimer) return;
  saveTimer = window.setTimeout(() => {
    saveTimer = 0;
    saveState();
  }, 300);
}

// ---- host messages --------------------------------------------------------------------------

function handle(message: TimelineHostMessage, arrivedAt: number): void {
  switch (message.type) {
    case 'timeline': {
      // "Data arriving in the webview" for the benchmark: before validation, which is part of the cost.
      stats.receivedAt = arrivedAt;
      stats.firstFrameAt = 0;
      stats.events = message.columns.count;
      meta = message.meta;
      index = undefined;
      result = undefined;
      selected = -1;
      related = [];
      measure = undefined;
      toolbar.setMeta(meta);
      loading.textContent = `Indexing ${message.columns.count.toLocaleString('en-US')} events…`;
      loading.hidden = false;
      if (saved.key !== meta.key) saved = { key: meta.key };
      // Lent to the worker (transferred, not copied) until it answers with the index.
      client.post({ type: 'load', columns: message.columns, meta: { gpuCus: meta.gpuCus, vendor: meta.vendor } }, columnBuffers(message.columns));
      columns = undefined;
      pageMask = undefined;
      renderDetails();
      break;
    }
    case 'timeline-status':
      loading.hidden = false;
      loading.textContent = message.message;
      loading.classList.toggle('error', message.state === 'error');
      break;
    default: {
      const unhandled: never = message;
      host.reportError(`timeline panel: unhandled message ${JSON.stringify(unhandled)}`);
    }
  }
}

host.ready();
