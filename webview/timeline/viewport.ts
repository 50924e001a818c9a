/**
 * The timeline's window onto time and lanes: the canvas size, the row layout, the time span
 * shown and the vertical scroll, zooming and panning, fitting to everything, to the filter's
 * events or to the selection, and the scene the renderer draws from them.
 */
import { layoutRows } from './layout';
import type { Scene } from './renderer';
import { RULER_PX, plotWidth, xToTime } from './renderer';
import { els, s, saveState, saveStateSoon, schedule } from './state';
import { fitAllWindow } from '../../src/core/timeline/timelineView';

export function sizeCanvas(): { width: number; height: number } {
  const rect = els.frame.getBoundingClientRect();
  const width = Math.max(200, Math.floor(rect.width));
  const height = Math.max(160, Math.floor(rect.height));
  const dpr = window.devicePixelRatio || 1;
  if (els.canvas.width !== Math.round(width * dpr) || els.canvas.height !== Math.round(height * dpr)) {
    els.canvas.width = Math.round(width * dpr);
    els.canvas.height = Math.round(height * dpr);
    els.canvas.style.width = `${width}px`;
    els.canvas.style.height = `${height}px`;
  }
  return { width, height };
}

export function relayout(): void {
  if (!s.index || !s.meta) return;
  s.layout = layoutRows(s.index, s.meta, s.collapsedGpus, s.expandedCus);
  s.focusRow = Math.min(s.focusRow, s.layout.rows.length - 1);
  clampScroll();
  saveState();
  schedule();
}

export function clampScroll(): void {
  const max = Math.max(0, (s.layout?.heightPx ?? 0) - (s.cssHeight - RULER_PX));
  s.scrollY = Math.min(Math.max(0, s.scrollY), max);
}

export function extent(): { from: number; to: number } {
  if (!s.index) return { from: 0, to: 1 };
  return fitAllWindow(s.index.startNs, s.index.endNs);
}

export function setWindow(from: number, to: number): void {
  const { from: lo, to: hi } = extent();
  const full = hi - lo;
  let span = Math.min(Math.max(to - from, 50), full * 1.5);
  let a = from + (to - from - span) / 2;
  // Keep some of the data in view: at most half a window past either end.
  a = Math.min(Math.max(a, lo - span / 2), hi - span / 2);
  span = Math.max(span, 1e-6);
  s.startNs = a;
  s.endNs = a + span;
  saveStateSoon();
  schedule();
}

export function fitAll(save = true): void {
  const { from, to } = extent();
  s.startNs = from;
  s.endNs = to;
  if (save) saveStateSoon();
  schedule();
}

/** The window around the events the filter keeps (a kernel's launches, opened from the lens). */
export function fitToKept(a: number, b: number): void {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b < a) return;
  const pad = Math.max((b - a) * 0.05, 500);
  setWindow(a - pad, b + pad);
}

export function zoomAt(factor: number, atX?: number): void {
  const pivot = atX !== undefined ? xToTime(scene(), atX) : (s.startNs + s.endNs) / 2;
  setWindow(pivot - (pivot - s.startNs) * factor, pivot + (s.endNs - pivot) * factor);
}

export function panBy(px: number): void {
  const ns = (px / plotWidth(s.cssWidth)) * (s.endNs - s.startNs);
  setWindow(s.startNs + ns, s.endNs + ns);
}

export function zoomToSelection(): void {
  if (s.measure)
    return setWindow(Math.min(s.measure.fromNs, s.measure.toNs), Math.max(s.measure.fromNs, s.measure.toNs));
  if (!s.details || s.selected < 0) return;
  const a = s.details.relatedExtent.fromNs;
  const b = s.details.relatedExtent.toNs;
  const pad = Math.max((b - a) * 0.15, 200);
  setWindow(a - pad, b + pad);
}

export function scene(): Scene {
  return {
    widthPx: s.cssWidth,
    heightPx: s.cssHeight,
    startNs: s.startNs,
    endNs: s.endNs,
    scrollY: s.scrollY,
    layout: s.layout!,
    columns: s.known.columns,
    index: { laneOf: s.known.laneOf, heat: s.index!.heat, lanes: s.index!.lanes },
    result: s.result,
    selected: s.selected,
    related: s.related,
    doorbell: s.doorbell,
    measure: s.measure,
    hoverX: s.hoverX,
    focusRow: s.focusRow,
    keyboardFocus: document.activeElement === els.canvas,
    simulated: s.meta?.simulated ?? false,
  };
}
