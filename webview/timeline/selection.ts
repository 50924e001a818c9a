/**
 * What the user picked and what it is tied to: selecting an event (its doorbell, packets,
 * kernel and CU spans), revealing it, stepping through a lane, the hit test under the pointer,
 * the details pane and the tooltip.
 */
import { visibleStartNs } from '../../src/core/timeline/timelineLod';
import { eventAt, laneLabel, relatedEvents } from '../../src/core/timeline/timelineModel';
import { el } from '../shared/dom';
import { describeAggregate, describeEvent, describeRun } from './describe';
import type { Row } from './layout';
import { rowAt } from './layout';
import { GUTTER_PX, RULER_PX, plotWidth, xToTime } from './renderer';
import { els, s, schedule } from './state';
import { clampScroll, scene, setWindow } from './viewport';

export function select(e: number, reveal = false): void {
  if (!s.columns || !s.index) return;
  s.selected = e;
  s.related = [];
  s.doorbell = -1;
  if (e >= 0) {
    const r = relatedEvents(s.columns, s.index, e);
    s.doorbell = r.doorbell;
    s.related = [...new Set([r.doorbell, ...r.packets, r.kernel, ...r.cus].filter((x) => x >= 0))];
    if (reveal) revealEvent(e);
  }
  renderDetails();
  schedule();
}

export function revealEvent(e: number): void {
  if (!s.columns || !s.index || !s.layout) return;
  const a = visibleStartNs(s.columns, e);
  const b = Math.max(s.columns.endNs[e]!, s.columns.startNs[e]!);
  const span = s.endNs - s.startNs;
  if (b - a > span * 0.9) setWindow(a - (b - a) * 0.1, b + (b - a) * 0.1);
  else if (a < s.startNs || b > s.endNs) setWindow((a + b) / 2 - span / 2, (a + b) / 2 + span / 2);
  const row = s.layout.rowOfLane.get(s.index.laneOf[e]!);
  if (row && (row.y < s.scrollY || row.y + row.h > s.scrollY + s.cssHeight - RULER_PX)) {
    s.scrollY = row.y - (s.cssHeight - RULER_PX) / 3;
    clampScroll();
  }
}

export function stepSelection(direction: 1 | -1): void {
  if (!s.columns || !s.index || !s.layout) return;
  const row = s.layout.rows[s.focusRow];
  const lane =
    s.selected >= 0
      ? s.index.laneOf[s.selected]!
      : row && row.kind === 'lane' && row.lane < s.index.lanes.length
        ? row.lane
        : -1;
  if (lane < 0) return;
  const a = s.index.laneStart[lane]!;
  const b = s.index.laneStart[lane + 1]!;
  let k = -1;
  if (s.selected >= 0) {
    for (let i = a; i < b; i++) if (s.index.order[i] === s.selected) k = i;
    k += direction;
  } else {
    k = direction === 1 ? a : b - 1;
  }
  // Events the filter hides are stepped over.
  while (s.pageMask && k >= a && k < b && !s.pageMask[s.index.order[k]!]) k += direction;
  if (k >= a && k < b) select(s.index.order[k]!, true);
}

export function renderDetails(): void {
  if (!s.columns || !s.index || s.selected < 0) {
    els.details.replaceChildren(
      el(
        'p',
        { class: 'hint' },
        'Click an event to see its facts and related events. Drag to pan, Ctrl+wheel or pinch to zoom, Shift+drag to measure.',
      ),
    );
    return;
  }
  const t = s.columns;
  const r = relatedEvents(t, s.index, s.selected);
  const facts = describeEvent(t, s.index, s.selected, s.meta?.vendor ?? 'amd', s.meta?.simulated ?? false);
  const link = (e: number, text: string) => {
    const b = el('button', { class: 'link', type: 'button' }, text);
    b.addEventListener('click', () => select(e, true));
    return b;
  };
  const chain: HTMLElement[] = [];
  if (r.doorbell >= 0) chain.push(link(r.doorbell, `Doorbell at ${describeRun(t, r.doorbell)}`));
  const shown = r.packets.slice(0, 12);
  if (shown.length > 0)
    chain.push(
      el('span', { class: 'chain-label' }, `${r.packets.length} packet${r.packets.length === 1 ? '' : 's'}:`),
      ...shown.map((p) => link(p, describeRun(t, p))),
    );
  if (r.packets.length > shown.length)
    chain.push(el('span', { class: 'more' }, `+${r.packets.length - shown.length} more`));
  const last = r.packets.at(-1);
  if (last !== undefined) chain.push(link(last, `Completion at ${describeRun(t, last, 'end')}`));
  if (r.kernel >= 0 && r.kernel !== s.selected) chain.push(link(r.kernel, `Kernel ${describeRun(t, r.kernel)}`));
  if (t.kind[s.selected] === 0 && r.cus.length > 0) {
    chain.push(
      el('span', { class: 'chain-label' }, `${r.cus.length} CU span${r.cus.length === 1 ? '' : 's'} in this kernel:`),
    );
    chain.push(...r.cus.slice(0, 16).map((c) => link(c, laneLabel('cu', t.lane[c]!, s.meta?.vendor))));
    if (r.cus.length > 16) chain.push(el('span', { class: 'more' }, `+${r.cus.length - 16} more`));
  }
  const parts: HTMLElement[] = [
    el('h2', {}, facts.title),
    el(
      'dl',
      { class: 'facts' },
      ...facts.rows.map(([k, v]) => el('div', { class: 'fact' }, el('dt', {}, k), el('dd', {}, v))),
    ),
  ];
  if (chain.length > 0)
    parts.push(el('div', { class: 'chain', role: 'group', 'aria-label': 'Related events' }, ...chain));
  els.details.replaceChildren(...parts);
}

export function localPoint(event: MouseEvent): { x: number; y: number } {
  const rect = els.canvas.getBoundingClientRect();
  return { x: event.clientX - rect.left, y: event.clientY - rect.top };
}

export function pick(x: number, y: number): { row?: Row; event: number; run: number } {
  if (!s.layout || !s.columns || !s.index || y < RULER_PX) return { event: -1, run: -1 };
  const row = rowAt(s.layout, y - RULER_PX + s.scrollY);
  if (!row || row.kind !== 'lane' || x < GUTTER_PX) return { row, event: -1, run: -1 };
  const time = xToTime(scene(), x);
  const nsPerPx = (s.endNs - s.startNs) / plotWidth(s.cssWidth);
  let run = -1;
  if (s.result) {
    const nsPerBucket = (s.result.endNs - s.result.startNs) / s.result.buckets;
    const runs = s.result.runs;
    for (let i = 0; i < runs.lane.length; i++) {
      if (runs.lane[i] !== row.lane) continue;
      const a = s.result.startNs + runs.b0[i]! * nsPerBucket - nsPerPx;
      const b = s.result.startNs + runs.b1[i]! * nsPerBucket + nsPerPx;
      if (time >= a && time <= b) {
        run = i;
        break;
      }
    }
  }
  const event =
    row.lane < s.index.lanes.length ? eventAt(s.columns, s.index, row.lane, time, nsPerPx * 3, s.pageMask) : -1;
  return { row, event, run };
}

export function showTooltip(x: number, y: number): void {
  const hit = pick(x, y);
  els.tooltip.hidden = true;
  if (!s.columns || !s.index || !s.result) return;
  let lines: string[] | undefined;
  const nsPerPx = (s.endNs - s.startNs) / plotWidth(s.cssWidth);
  const eventWidePx =
    hit.event >= 0
      ? (Math.max(s.columns.endNs[hit.event]!, s.columns.startNs[hit.event]!) - visibleStartNs(s.columns, hit.event)) /
        nsPerPx
      : 0;
  if (hit.run >= 0 && (hit.event < 0 || (eventWidePx < 2 && s.result.runs.count[hit.run]! > 1))) {
    const laneId = hit.row?.kind === 'lane' ? hit.row.lane : -1;
    const heat = s.index.heat.find((h) => h.id === laneId);
    lines = describeAggregate(s.result, hit.run, heat?.cuCount);
  } else if (hit.event >= 0) {
    const facts = describeEvent(s.columns, s.index, hit.event, s.meta?.vendor ?? 'amd', s.meta?.simulated ?? false);
    lines = [facts.title, ...facts.rows.slice(0, 8).map(([k, v]) => `${k}: ${v}`)];
  }
  if (!lines) return;
  els.tooltip.replaceChildren(...lines.map((text, i) => el(i === 0 ? 'strong' : 'div', {}, text)));
  els.tooltip.hidden = false;
  const w = els.tooltip.offsetWidth;
  const h = els.tooltip.offsetHeight;
  els.tooltip.style.left = `${Math.min(x + 14, s.cssWidth - w - 4)}px`;
  els.tooltip.style.top = `${y + 16 + h > s.cssHeight ? y - h - 8 : y + 16}px`;
}
