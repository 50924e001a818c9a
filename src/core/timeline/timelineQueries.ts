/**
 * What the page asks the engine about events, answered from the columns and index the engine
 * alone holds: an event's records for drawing, its details and related events, the event under
 * the pointer, the next one in a lane, the filter's mask with what it keeps. Pure functions of
 * their arguments (no worker globals), unit-tested against the page's former computation.
 */
import type { TimelineColumns } from './timelineFile';
import { isInferred, labelOf } from './timelineFile';
import type { TimelineFilter } from './timelineFilter';
import { filterMask, isEmptyFilter } from './timelineFilter';
import { visibleStartNs } from './timelineLod';
import type { TimelineIndex, TimelineMeta } from './timelineModel';
import { eventAt, eventsInRange, laneLabel, relatedEvents } from './timelineModel';
import { describeEvent, describeRun } from './timelineDescribe';

/** What the page draws of some events, parallel arrays over `ids`. */
export interface EventRecords {
  ids: number[];
  laneOf: number[];
  kind: number[];
  op: number[];
  path: number[];
  gpu: number[];
  lane: number[];
  id: number[];
  startNs: number[];
  endNs: number[];
  queuedNs: number[];
  bytes: number[];
  flags: number[];
  label: (string | undefined)[];
}

export function eventRecords(
  t: TimelineColumns,
  index: Pick<TimelineIndex, 'laneOf'>,
  ids: Iterable<number>,
): EventRecords {
  const r: EventRecords = {
    ids: [],
    laneOf: [],
    kind: [],
    op: [],
    path: [],
    gpu: [],
    lane: [],
    id: [],
    startNs: [],
    endNs: [],
    queuedNs: [],
    bytes: [],
    flags: [],
    label: [],
  };
  for (const e of ids) {
    if (!(e >= 0 && e < t.count)) continue;
    r.ids.push(e);
    r.laneOf.push(index.laneOf[e]!);
    r.kind.push(t.kind[e]!);
    r.op.push(t.op[e]!);
    r.path.push(t.path[e]!);
    r.gpu.push(t.gpu[e]!);
    r.lane.push(t.lane[e]!);
    r.id.push(t.id[e]!);
    r.startNs.push(t.startNs[e]!);
    r.endNs.push(t.endNs[e]!);
    r.queuedNs.push(t.queuedNs[e]!);
    r.bytes.push(t.bytes[e]!);
    r.flags.push(isInferred(t, e) ? 1 : 0);
    r.label.push(labelOf(t, e));
  }
  return r;
}

/** A link of the details pane: the event it selects and what it says. */
export interface ChainLink {
  event: number;
  text: string;
}

/** The details pane of a selected event, and what the page draws and zooms to with it. */
export interface EventDetails {
  event: number;
  title: string;
  rows: [string, string][];
  doorbell: number;
  /** The doorbell, packets, kernel and CU spans tied to the event (the event itself excluded when not one of them). */
  related: number[];
  /** The chain's parts, in the order shown. */
  doorbellLink?: ChainLink;
  packets: ChainLink[];
  packetsTotal: number;
  completion?: ChainLink;
  kernel?: ChainLink;
  cus: ChainLink[];
  cusTotal: number;
  /** Drawn extent of the event alone, and of it with its related events. */
  extent: { fromNs: number; toNs: number };
  relatedExtent: { fromNs: number; toNs: number };
  /** Records of the event and its related events, for drawing them highlighted. */
  records: EventRecords;
}

function extentOf(t: TimelineColumns, events: readonly number[]): { fromNs: number; toNs: number } {
  let a = Infinity;
  let b = -Infinity;
  for (const e of events) {
    a = Math.min(a, visibleStartNs(t, e));
    b = Math.max(b, t.endNs[e]!, t.startNs[e]!);
  }
  return { fromNs: a, toNs: b };
}

export function eventDetails(
  t: TimelineColumns,
  index: TimelineIndex,
  e: number,
  vendor: TimelineMeta['vendor'],
  simulated: boolean,
): EventDetails {
  const r = relatedEvents(t, index, e);
  const facts = describeEvent(t, index, e, vendor, simulated);
  const related = [...new Set([r.doorbell, ...r.packets, r.kernel, ...r.cus].filter((x) => x >= 0))];
  const last = r.packets.at(-1);
  const details: EventDetails = {
    event: e,
    title: facts.title,
    rows: facts.rows,
    doorbell: r.doorbell,
    related,
    packets: r.packets.slice(0, 12).map((p) => ({ event: p, text: describeRun(t, p) })),
    packetsTotal: r.packets.length,
    cus: [],
    cusTotal: 0,
    extent: extentOf(t, [e]),
    relatedExtent: extentOf(t, [e, ...related]),
    records: eventRecords(t, index, [e, ...related]),
  };
  if (r.doorbell >= 0) details.doorbellLink = { event: r.doorbell, text: `Doorbell at ${describeRun(t, r.doorbell)}` };
  if (last !== undefined) details.completion = { event: last, text: `Completion at ${describeRun(t, last, 'end')}` };
  if (r.kernel >= 0 && r.kernel !== e) details.kernel = { event: r.kernel, text: `Kernel ${describeRun(t, r.kernel)}` };
  if (t.kind[e] === 0 && r.cus.length > 0) {
    details.cusTotal = r.cus.length;
    details.cus = r.cus.slice(0, 16).map((c) => ({ event: c, text: laneLabel('cu', t.lane[c]!, vendor) }));
  }
  return details;
}

/** The event under the pointer and its tooltip lines; -1 and none when nothing is there. */
export interface HitAnswer {
  event: number;
  /** Drawn extent of the event (for telling a lone event from a run of many). */
  fromNs: number;
  toNs: number;
  lines: string[];
}

export function hitEvent(
  t: TimelineColumns,
  index: TimelineIndex,
  lane: number,
  timeNs: number,
  slopNs: number,
  mask: Uint8Array | undefined,
  vendor: TimelineMeta['vendor'],
  simulated: boolean,
): HitAnswer {
  const e = lane >= 0 && lane < index.lanes.length ? eventAt(t, index, lane, timeNs, slopNs, mask) : -1;
  if (e < 0) return { event: -1, fromNs: 0, toNs: 0, lines: [] };
  const facts = describeEvent(t, index, e, vendor, simulated);
  return {
    event: e,
    fromNs: visibleStartNs(t, e),
    toNs: Math.max(t.endNs[e]!, t.startNs[e]!),
    lines: [facts.title, ...facts.rows.slice(0, 8).map(([k, v]) => `${k}: ${v}`)],
  };
}

/** The event after (1) or before (-1) `from` in `lane`, skipping what the mask hides; from a lane's end when `from` is -1. */
export function stepInLane(
  index: TimelineIndex,
  lane: number,
  from: number,
  direction: 1 | -1,
  mask?: Uint8Array,
): number {
  if (from >= 0) lane = index.laneOf[from]!;
  if (!(lane >= 0 && lane < index.lanes.length)) return -1;
  const a = index.laneStart[lane]!;
  const b = index.laneStart[lane + 1]!;
  let k = -1;
  if (from >= 0) {
    for (let i = a; i < b; i++) if (index.order[i] === from) k = i;
    k += direction;
  } else {
    k = direction === 1 ? a : b - 1;
  }
  while (mask && k >= a && k < b && !mask[index.order[k]!]) k += direction;
  return k >= a && k < b ? index.order[k]! : -1;
}

/** The first event of `lane` in view that the mask keeps; -1 when none. */
export function firstInView(
  t: TimelineColumns,
  index: TimelineIndex,
  lane: number,
  fromNs: number,
  toNs: number,
  mask?: Uint8Array,
): number {
  if (!(lane >= 0 && lane < index.lanes.length)) return -1;
  return eventsInRange(t, index, lane, fromNs, toNs, 4096).find((e) => !mask || mask[e]) ?? -1;
}

/** The filter's mask (none for an empty filter), the events it keeps and their drawn extent. */
export interface FilterAnswer {
  mask: Uint8Array | undefined;
  kept: number;
  /** Extent of the kept events; fromNs > toNs when none is kept or there is no filter. */
  fromNs: number;
  toNs: number;
}

export function applyFilterQuery(t: TimelineColumns, filter: TimelineFilter): FilterAnswer {
  if (isEmptyFilter(filter)) return { mask: undefined, kept: t.count, fromNs: Infinity, toNs: -Infinity };
  const mask = filterMask(t, filter);
  let kept = 0;
  let a = Infinity;
  let b = -Infinity;
  for (let e = 0; e < mask.length; e++) {
    if (!mask[e]) continue;
    kept++;
    const s = visibleStartNs(t, e);
    if (s < a) a = s;
    const f = Math.max(t.endNs[e]!, t.startNs[e]!);
    if (f > b) b = f;
  }
  return { mask, kept, fromNs: a, toNs: b };
}
