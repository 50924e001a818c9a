/**
 * What the user picked and what it is tied to: selecting an event (its doorbell, packets,
 * kernel and CU spans), revealing it, stepping through a lane, the hit test under the pointer,
 * the details pane and the tooltip. The engine holds the events: each of these asks it by
 * message and acts on the answer when it is still the latest one asked (a hover answer that
 * arrives after the pointer moved on is dropped).
 */
import { el } from '../shared/dom';
import { describeAggregate } from '../../src/core/timeline/timelineDescribe';
import type { Row } from './layout';
import { rowAt } from './layout';
import { remember } from './known';
import type { EventDetails, HitAnswer } from '../../src/core/timeline/timelineQueries';
import { GUTTER_PX, RULER_PX, plotWidth, xToTime } from './renderer';
import { els, s, schedule, wire } from './state';
import { clampScroll, scene, setWindow, zoomToSelection } from './viewport';
import type { HitPurpose } from '../../src/core/timeline/timelineEngineProtocol';

/** What to do with the selection's details when they arrive. */
let pendingSelect = { reveal: false, zoom: false };
/** Queries in flight that may change the selection (details, steps, clicks). */
let selecting = 0;
/** Zoom to the selection once those have been answered (F pressed right after ]). */
let zoomAfter = false;

/** Zooms to the selection, or, while one is still being chosen, to the one chosen once it is. */
export function zoomToSelectionSoon(): void {
  if (selecting > 0) zoomAfter = true;
  else zoomToSelection();
}

function settled(): void {
  selecting = Math.max(0, selecting - 1);
  if (selecting === 0 && zoomAfter) {
    zoomAfter = false;
    zoomToSelection();
  }
}

/** Selects `e` (-1: nothing); its details, related events and records come from the engine. */
export function select(e: number, reveal = false, zoom = false): void {
  if (!s.index) return;
  s.detailsId++;
  if (e < 0) {
    // The engine's selection too (a step from here starts at a lane's end).
    wire.client.post({ type: 'details', id: s.detailsId, event: -1 });
    s.selected = -1;
    s.related = [];
    s.doorbell = -1;
    s.details = undefined;
    renderDetails();
    schedule();
    return;
  }
  pendingSelect = { reveal, zoom };
  selecting++;
  wire.client.post({ type: 'details', id: s.detailsId, event: e });
}

/** The engine's answer to `select`: shown when it is the latest asked. */
export function onDetails(id: number, details: EventDetails | undefined): void {
  if (id !== s.detailsId || !details) return settled();
  s.known = remember(s.known, details.records);
  s.details = details;
  s.selected = details.event;
  s.related = details.related;
  s.doorbell = details.doorbell;
  if (pendingSelect.reveal) revealEvent(details);
  if (pendingSelect.zoom) zoomToSelection();
  renderDetails();
  schedule();
  settled();
}

function revealEvent(d: EventDetails): void {
  if (!s.layout) return;
  const a = d.extent.fromNs;
  const b = d.extent.toNs;
  const span = s.endNs - s.startNs;
  if (b - a > span * 0.9) setWindow(a - (b - a) * 0.1, b + (b - a) * 0.1);
  else if (a < s.startNs || b > s.endNs) setWindow((a + b) / 2 - span / 2, (a + b) / 2 + span / 2);
  const row = s.layout.rowOfLane.get(s.known.laneOf[d.event]!);
  if (row && (row.y < s.scrollY || row.y + row.h > s.scrollY + s.cssHeight - RULER_PX)) {
    s.scrollY = row.y - (s.cssHeight - RULER_PX) / 3;
    clampScroll();
  }
}

/** Whether the engine's next `pick` answer is revealed (a step) or only selected (a row activated). */
let pickReveals = false;

export function stepSelection(direction: 1 | -1): void {
  if (!s.index || !s.layout) return;
  const row = s.layout.rows[s.focusRow];
  const lane = row && row.kind === 'lane' && row.lane < s.index.lanes.length ? row.lane : -1;
  pickReveals = true;
  selecting++;
  wire.client.post({ type: 'step', id: ++s.pickId, lane, direction });
}

/** Selects the first event of `lane` in view that the filter keeps. */
export function selectFirstInView(lane: number): void {
  pickReveals = false;
  selecting++;
  wire.client.post({ type: 'first', id: ++s.pickId, lane, fromNs: s.startNs, toNs: s.endNs });
}

/** The engine's answer to a step or a row's activation. */
export function onPick(id: number, event: number): void {
  if (id === s.pickId && event >= 0) select(event, pickReveals);
  settled();
}

export function renderDetails(): void {
  const d = s.details;
  if (!s.index || s.selected < 0 || !d) {
    els.details.replaceChildren(
      el(
        'p',
        { class: 'hint' },
        'Click an event to see its facts and related events. Drag to pan, Ctrl+wheel or pinch to zoom, Shift+drag to measure.',
      ),
    );
    return;
  }
  const link = (e: number, text: string) => {
    const b = el('button', { class: 'link', type: 'button' }, text);
    b.addEventListener('click', () => select(e, true));
    return b;
  };
  const chain: HTMLElement[] = [];
  if (d.doorbellLink) chain.push(link(d.doorbellLink.event, d.doorbellLink.text));
  if (d.packets.length > 0)
    chain.push(
      el('span', { class: 'chain-label' }, `${d.packetsTotal} packet${d.packetsTotal === 1 ? '' : 's'}:`),
      ...d.packets.map((p) => link(p.event, p.text)),
    );
  if (d.packetsTotal > d.packets.length)
    chain.push(el('span', { class: 'more' }, `+${d.packetsTotal - d.packets.length} more`));
  if (d.completion) chain.push(link(d.completion.event, d.completion.text));
  if (d.kernel) chain.push(link(d.kernel.event, d.kernel.text));
  if (d.cusTotal > 0) {
    chain.push(
      el('span', { class: 'chain-label' }, `${d.cusTotal} CU span${d.cusTotal === 1 ? '' : 's'} in this kernel:`),
    );
    chain.push(...d.cus.map((c) => link(c.event, c.text)));
    if (d.cusTotal > 16) chain.push(el('span', { class: 'more' }, `+${d.cusTotal - 16} more`));
  }
  const parts: HTMLElement[] = [
    el('h2', {}, d.title),
    el(
      'dl',
      { class: 'facts' },
      ...d.rows.map(([k, v]) => el('div', { class: 'fact' }, el('dt', {}, k), el('dd', {}, v))),
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

/** What is under a point of the canvas on the page's side: the row, the level-of-detail run, the time and slop to ask the engine with. */
export function pick(x: number, y: number): { row?: Row; run: number; lane: number; timeNs: number; slopNs: number } {
  const none = { run: -1, lane: -1, timeNs: 0, slopNs: 0 };
  if (!s.layout || !s.index || y < RULER_PX) return none;
  const row = rowAt(s.layout, y - RULER_PX + s.scrollY);
  if (!row || row.kind !== 'lane' || x < GUTTER_PX) return { ...none, row };
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
  const lane = row.lane < s.index.lanes.length ? row.lane : -1;
  return { row, run, lane, timeNs: time, slopNs: nsPerPx * 3 };
}

/** Asks the engine for the event under (x, y): to select it, or to select and zoom to it. */
export function pickEvent(x: number, y: number, purpose: Exclude<HitPurpose, 'hover'>): void {
  const hit = pick(x, y);
  if (hit.lane < 0) {
    if (purpose === 'select') select(-1);
    return;
  }
  selecting++;
  wire.client.post({ type: 'hit', id: ++s.pickId, purpose, lane: hit.lane, timeNs: hit.timeNs, slopNs: hit.slopNs });
}

/** Where the pointer was when the latest tooltip was asked for, and the run under it. */
let hovered: { x: number; y: number; run: number; lane: number } | undefined;

export function showTooltip(x: number, y: number): void {
  const hit = pick(x, y);
  const id = ++s.hoverId;
  hovered = undefined;
  if (!s.index || !s.result || !hit.row || hit.row.kind !== 'lane') {
    els.tooltip.hidden = true;
    return;
  }
  hovered = { x, y, run: hit.run, lane: hit.row.lane };
  if (hit.lane < 0) {
    onHit(id, 'hover', { event: -1, fromNs: 0, toNs: 0, lines: [] });
    return;
  }
  wire.client.post({ type: 'hit', id, purpose: 'hover', lane: hit.lane, timeNs: hit.timeNs, slopNs: hit.slopNs });
}

/** Hides the tooltip, and drops any answer still coming for it. */
export function hideTooltip(): void {
  s.hoverId++;
  hovered = undefined;
  els.tooltip.hidden = true;
}

/** The engine's answer for the event under a point. */
export function onHit(id: number, purpose: HitPurpose, answer: HitAnswer): void {
  if (purpose !== 'hover') {
    if (id === s.pickId) {
      if (purpose === 'select') select(answer.event);
      else if (answer.event >= 0) select(answer.event, false, true);
    }
    return settled();
  }
  if (id !== s.hoverId || !hovered || !s.index || !s.result) return;
  const { x, y, run, lane } = hovered;
  let lines: string[] | undefined;
  const nsPerPx = (s.endNs - s.startNs) / plotWidth(s.cssWidth);
  const eventWidePx = answer.event >= 0 ? (answer.toNs - answer.fromNs) / nsPerPx : 0;
  if (
    run >= 0 &&
    run < s.result.runs.count.length &&
    (answer.event < 0 || (eventWidePx < 2 && s.result.runs.count[run]! > 1))
  ) {
    const heat = s.index.heat.find((h) => h.id === lane);
    lines = describeAggregate(s.result, run, heat?.cuCount);
  } else if (answer.event >= 0) {
    lines = answer.lines;
  }
  els.tooltip.hidden = true;
  if (!lines) return;
  els.tooltip.replaceChildren(...lines.map((text, i) => el(i === 0 ? 'strong' : 'div', {}, text)));
  els.tooltip.hidden = false;
  const w = els.tooltip.offsetWidth;
  const h = els.tooltip.offsetHeight;
  els.tooltip.style.left = `${Math.min(x + 14, s.cssWidth - w - 4)}px`;
  els.tooltip.style.top = `${y + 16 + h > s.cssHeight ? y - h - 8 : y + 16}px`;
}
