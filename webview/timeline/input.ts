/**
 * Pointer and keyboard on the canvas: drag to pan (Shift or measure mode: measure), click to
 * select, double-click to zoom to an event, wheel and pinch to zoom or scroll; arrow keys, WASD,
 * [ and ], F, 0, M and Escape; the gutter folds GPUs and opens CU lanes.
 */
import type { Row } from './layout';
import { rowAt } from './layout';
import { GUTTER_PX, RULER_PX, plotWidth, xToTime } from './renderer';
import {
  hideTooltip,
  localPoint,
  pickEvent,
  select,
  selectFirstInView,
  showTooltip,
  stepSelection,
  zoomToSelectionSoon,
} from './selection';
import { els, s, saveStateSoon, schedule, wire } from './state';
import { clampScroll, fitAll, panBy, relayout, scene, setWindow, zoomAt } from './viewport';

export function requestMeasure(): void {
  if (!s.measure) return;
  s.measureId++;
  wire.client.post({ type: 'measure', id: s.measureId, fromNs: s.measure.fromNs, toNs: s.measure.toNs });
}

export function activateRow(row: Row): void {
  if (row.kind === 'group') {
    if (!s.collapsedGpus.delete(row.gpu)) s.collapsedGpus.add(row.gpu);
    relayout();
  } else if (row.kind === 'cu-toggle') {
    if (!s.expandedCus.delete(row.gpu)) s.expandedCus.add(row.gpu);
    relayout();
  } else if (s.index && row.lane < s.index.lanes.length) {
    selectFirstInView(row.lane);
  }
}

export function toggleAllCus(): void {
  if (!s.index) return;
  const gpus = s.index.heat.map((h) => h.gpu);
  const allOpen = gpus.every((g) => s.expandedCus.has(g));
  for (const g of gpus) {
    if (allOpen) s.expandedCus.delete(g);
    else s.expandedCus.add(g);
  }
  relayout();
}

/** Listens on the canvas; called once by main.ts. */
export function listenForInput(): void {
  const canvas = els.canvas;
  canvas.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || !s.layout) return;
    els.canvas.focus();
    const { x, y } = localPoint(event);
    if (x < GUTTER_PX && y >= RULER_PX) {
      const row = rowAt(s.layout, y - RULER_PX + s.scrollY);
      if (row) {
        s.focusRow = s.layout.rows.indexOf(row);
        activateRow(row);
      }
      return;
    }
    const measuring = event.shiftKey || s.measureMode;
    s.drag = {
      x,
      y,
      startNs: s.startNs,
      endNs: s.endNs,
      scrollY: s.scrollY,
      measuring,
      moved: false,
      id: event.pointerId,
    };
    els.canvas.setPointerCapture(event.pointerId);
    if (measuring) {
      const at = xToTime(scene(), x);
      s.measure = { fromNs: at, toNs: at };
    }
  });

  canvas.addEventListener('pointermove', (event) => {
    const { x, y } = localPoint(event);
    if (s.drag) {
      const dx = x - s.drag.x;
      const dy = y - s.drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) s.drag.moved = true;
      if (s.drag.measuring && s.measure) {
        s.measure.toNs = xToTime(scene(), x);
        requestMeasure();
      } else if (s.drag.moved) {
        const ns = (dx / plotWidth(s.cssWidth)) * (s.drag.endNs - s.drag.startNs);
        s.scrollY = s.drag.scrollY - dy;
        clampScroll();
        setWindow(s.drag.startNs - ns, s.drag.endNs - ns);
      }
      hideTooltip();
      s.hoverX = x;
      schedule();
      return;
    }
    s.hoverX = x >= GUTTER_PX ? x : undefined;
    showTooltip(x, y);
    schedule();
  });

  canvas.addEventListener('pointerup', (event) => {
    if (!s.drag) return;
    const { x, y } = localPoint(event);
    const wasClick = !s.drag.moved;
    const measuring = s.drag.measuring;
    els.canvas.releasePointerCapture(s.drag.id);
    s.drag = undefined;
    if (measuring && wasClick) s.measure = undefined;
    if (!measuring && wasClick) {
      s.measure = undefined;
      pickEvent(x, y, 'select');
    }
    saveStateSoon();
    schedule();
  });

  canvas.addEventListener('pointerleave', () => {
    s.hoverX = undefined;
    hideTooltip();
    schedule();
  });

  canvas.addEventListener('dblclick', (event) => {
    const { x, y } = localPoint(event);
    pickEvent(x, y, 'zoom');
  });

  canvas.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const { x } = localPoint(event);
      const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? s.cssHeight : 1;
      const dx = event.deltaX * unit;
      const dy = event.deltaY * unit;
      // Pinch arrives as a wheel event with ctrlKey set; Ctrl/Cmd+wheel zooms the same way.
      if (event.ctrlKey || event.metaKey) zoomAt(Math.exp(dy * 0.0025), x);
      else if (event.shiftKey) panBy(dy || dx);
      else if (Math.abs(dx) > Math.abs(dy)) panBy(dx);
      else {
        s.scrollY += dy;
        clampScroll();
        schedule();
      }
      hideTooltip();
    },
    { passive: false },
  );

  canvas.addEventListener('keydown', (event) => {
    if (!s.layout) return;
    const key = event.key;
    let handled = true;
    switch (key) {
      case 'ArrowLeft':
      case 'a':
      case 'A':
        panBy(-plotWidth(s.cssWidth) * 0.15);
        break;
      case 'ArrowRight':
      case 'd':
      case 'D':
        panBy(plotWidth(s.cssWidth) * 0.15);
        break;
      case 'w':
      case 'W':
      case '+':
      case '=':
        zoomAt(0.7, s.hoverX);
        break;
      case 's':
      case 'S':
      case '-':
      case '_':
        zoomAt(1 / 0.7, s.hoverX);
        break;
      case 'ArrowUp':
      case 'ArrowDown': {
        s.focusRow = Math.min(Math.max(0, s.focusRow + (key === 'ArrowUp' ? -1 : 1)), s.layout.rows.length - 1);
        const row = s.layout.rows[s.focusRow]!;
        if (row.y < s.scrollY) s.scrollY = row.y;
        if (row.y + row.h > s.scrollY + s.cssHeight - RULER_PX) s.scrollY = row.y + row.h - (s.cssHeight - RULER_PX);
        clampScroll();
        wire.toolbar.announce(
          `${row.kind === 'group' ? row.label : row.label}${row.kind === 'group' ? (row.collapsed ? ', collapsed' : ', expanded') : ''}`,
        );
        schedule();
        break;
      }
      case 'Enter':
      case ' ':
        activateRow(s.layout.rows[s.focusRow]!);
        break;
      case ']':
        stepSelection(1);
        break;
      case '[':
        stepSelection(-1);
        break;
      case 'f':
      case 'F':
        zoomToSelectionSoon();
        break;
      case '0':
      case 'Home':
        fitAll();
        break;
      case 'm':
      case 'M':
        wire.toolbar.toggleMeasure();
        break;
      case 'Escape':
        s.measure = undefined;
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
}
