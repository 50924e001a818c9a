/**
 * The timeline as the viewer needs it: which lane every event sits on, each lane's events in
 * time order, and the links between events (doorbell -> packets it announced). Built once per
 * timeline from the columns (typed arrays, never one object per event), in the webview's
 * worker, and shared with the page so hit tests are a binary search.
 */
import type { PathName, TimelineEvent } from '../protocol';
import { PACKET_OPS, PATHS, TIMELINE_EVENT_KINDS } from '../protocol';
import type { TimelineColumns } from './timelineFile';
import { FLAG_INFERRED, emptyColumns } from './timelineFile';
import type { LodColumns } from './timelineCompact';
import { allocLodColumns, scanRange } from './timelineCompact';

export const KIND_KERNEL = 0;
export const KIND_CU = 1;
export const KIND_PACKET = 2;
export const KIND_DOORBELL = 3;
export const KIND_PROXY = 4;
/** A transfer a kernel made whose CUs are not known (Profile's device-trace copies, one per launch, label and peer). */
export const KIND_TRANSFER = 5;

/**
 * The `lane` of a packet or doorbell whose engine is not known (docs/PROTOCOL.md): the runtime,
 * the device API or the profiler did not say which engine ran it. Such events share one
 * "Unknown engine" lane per GPU.
 */
export const ENGINE_UNKNOWN = 0xffff;

/** Lane categories, in the order they are stacked inside a GPU's group. */
export const LANE_CATEGORIES = ['kernel', 'transfer', 'proxy', 'engine', 'cu-heat', 'cu'] as const;
export type LaneCategory = (typeof LANE_CATEGORIES)[number];

export interface LaneInfo {
  id: number;
  gpu: number;
  category: LaneCategory;
  /** CU index for `cu`, engine id for `engine`, 0 otherwise. */
  number: number;
  label: string;
  eventCount: number;
}

/** What the page knows about a timeline besides its events. */
export interface TimelineMeta {
  /** Identifies the timeline for restore and caching: `<run id>/<file name>`. */
  key: string;
  runId: string;
  title: string;
  simulated: boolean;
  nodeLabel: string;
  vendor: 'amd' | 'nvidia' | 'unknown';
  sizeBytes: number;
  /** The path the user came for (a sweep point), shown first; undefined for the whole timeline. */
  focusPath?: PathName;
  /** CUs per GPU from the topology, for occupancy; index = GPU. 0 when unknown. */
  gpuCus: number[];
  /** The filter the panel opens with (a kernel's launches, from the code lens); a restored panel keeps its own. */
  filter?: string;
}

export interface TimelineIndex {
  count: number;
  lanes: LaneInfo[];
  /** Lane id of every event. */
  laneOf: Int32Array;
  /** Event indices grouped by lane (`laneStart[l]..laneStart[l+1]`), by start time inside a lane. */
  order: Int32Array;
  laneStart: Int32Array;
  /** Running maximum of end times along `order` within each lane: the first event that can reach a time is a binary search. */
  maxEnd: Float64Array | Uint32Array;
  /**
   * Added to each `maxEnd` value: 0 for the index's own running maxima; the compact columns'
   * base when the engine shares theirs (u32 offsets) instead of keeping a second copy.
   */
  maxEndBase?: number;
  /** For each packet, the doorbell event that announced it; -1 otherwise. */
  announcedBy: Int32Array;
  /** For each event with a `ref`, the event index that `ref` names; -1 otherwise. */
  refIndex: Int32Array;
  startNs: number;
  endNs: number;
  /** One occupancy strip per GPU that has CU lanes: the virtual lane id and the CU lanes it sums. */
  heat: HeatLane[];
}

export interface HeatLane {
  id: number;
  gpu: number;
  cuLanes: number[];
  /** CUs the occupancy is a fraction of: the GPU's CU count when known, else the lanes seen. */
  cuCount: number;
}

/** Index into LANE_CATEGORIES of each event kind's lane: doorbells share their engine's lane. */
const CATEGORY_OF_KIND = [0, 5, 3, 3, 2, 1];
const ENGINE_CATEGORY = 3;
const CU_CATEGORY = 5;

export function laneLabel(category: LaneCategory, number: number, vendor: TimelineMeta['vendor'] = 'amd'): string {
  switch (category) {
    case 'kernel':
      return 'Kernels';
    case 'transfer':
      return 'Kernel-started transfers';
    case 'proxy':
      return 'Host proxy thread';
    case 'engine':
      if (number === ENGINE_UNKNOWN) return 'Unknown engine';
      return vendor === 'nvidia' ? `Copy engine ${number}` : `SDMA engine ${number}`;
    case 'cu-heat':
      return vendor === 'nvidia' ? 'SM occupancy' : 'CU occupancy';
    case 'cu':
      // Lanes past 1023 are XCC x 1024 + CU (AMD's CU ids restart on every die).
      if (number >= 1024)
        return `XCC ${Math.floor(number / 1024)} ${vendor === 'nvidia' ? 'SM' : 'CU'} ${number % 1024}`;
      return vendor === 'nvidia' ? `SM ${number}` : `CU ${number}`;
  }
}

/**
 * Builds lanes and per-lane order (a counting sort by lane): one pass reads the lane columns
 * (kind, GPU, number) to count each lane's events, a second reads every column in file order
 * and writes each event to its lane's next slot. Events of a lane usually arrive in time
 * order; the second pass checks that as it goes and only a lane found out of order is sorted
 * afterwards. With `withLod`, the same pass also writes the compact lane-ordered columns the
 * level of detail reads (timelineCompact.ts), so no column is ever read in random order.
 */
export function buildIndex(
  t: TimelineColumns,
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'> = { gpuCus: [], vendor: 'amd' },
): TimelineIndex {
  return buildIndexAndLod(t, meta, false).index;
}

export function buildIndexAndLod(
  t: TimelineColumns,
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'> = { gpuCus: [], vendor: 'amd' },
  withLod = true,
): { index: TimelineIndex; lod: LodColumns | undefined } {
  const n = t.count;
  const laneOf = new Int32Array(n);
  const lanes: LaneInfo[] = [];
  const counts: number[] = [];
  // Lane lookup without a string or a Map probe per event: one small table per GPU and
  // category, indexed by CU or engine number (a Map only for numbers past the table).
  const tables = new Map<number, Int32Array>();
  const far = new Map<number, number>();
  const TABLE = 4096;
  const kinds = t.kind;
  const gpus = t.gpu;
  const numbers = t.lane;
  let lastGroup = -1;
  let lastTable: Int32Array | undefined;
  for (let i = 0; i < n; i++) {
    const categoryIndex = CATEGORY_OF_KIND[kinds[i]!] ?? ENGINE_CATEGORY;
    const numbered = categoryIndex === CU_CATEGORY || categoryIndex === ENGINE_CATEGORY;
    const number = numbered ? numbers[i]! : 0;
    const gpu = gpus[i]!;
    const group = gpu * 8 + categoryIndex;
    let lane = -1;
    let table: Int32Array | undefined;
    if (number < TABLE) {
      if (group === lastGroup) table = lastTable;
      else {
        table = tables.get(group);
        if (!table) tables.set(group, (table = new Int32Array(TABLE).fill(-1)));
        lastGroup = group;
        lastTable = table;
      }
      lane = table![number]!;
    } else {
      lane = far.get(group * 2 ** 32 + number) ?? -1;
    }
    if (lane < 0) {
      lane = lanes.length;
      if (table) table[number] = lane;
      else far.set(group * 2 ** 32 + number, lane);
      const category = LANE_CATEGORIES[categoryIndex]!;
      lanes.push({ id: lane, gpu, category, number, label: laneLabel(category, number, meta.vendor), eventCount: 0 });
      counts.push(0);
    }
    laneOf[i] = lane;
    counts[lane]!++;
  }
  lanes.forEach((lane, i) => (lane.eventCount = counts[i]!));
  // Stable presentation order: GPU, category, number. Lane ids are renumbered to follow it.
  const sorted = [...lanes].sort(
    (a, b) =>
      a.gpu - b.gpu || LANE_CATEGORIES.indexOf(a.category) - LANE_CATEGORIES.indexOf(b.category) || a.number - b.number,
  );
  const renumber = new Int32Array(lanes.length);
  sorted.forEach((lane, i) => {
    renumber[lane.id] = i;
    lane.id = i;
  });
  const laneCount = sorted.length;
  const laneStart = new Int32Array(laneCount + 1);
  for (const lane of sorted) laneStart[lane.id + 1] = lane.eventCount;
  for (let l = 0; l < laneCount; l++) laneStart[l + 1]! += laneStart[l]!;

  const start = t.startNs;
  const endCol = t.endNs;
  const range = withLod ? scanRange(start, endCol, t.bytes, n) : undefined;
  const lod = range ? allocLodColumns(n, range) : undefined;
  const base = lod ? lod.baseNs : 0;
  const fill = laneStart.slice(0, laneCount);
  const order = new Int32Array(n);
  // Where each event goes in lane order, for the compact columns' scatter (then dropped).
  const slot = lod ? new Int32Array(n) : undefined;
  const maxEnd = new Float64Array(n);
  const lastStart = new Float64Array(laneCount).fill(-Infinity);
  const running = new Float64Array(laneCount).fill(-Infinity);
  const unsorted = new Uint8Array(laneCount);
  let minStart = Infinity;
  let maxEndAll = -Infinity;
  // The one pass over the event columns: sequential reads, one write stream per lane.
  for (let i = 0; i < n; i++) {
    const l = renumber[laneOf[i]!]!;
    laneOf[i] = l;
    const k = fill[l]!++;
    order[k] = i;
    if (slot) slot[i] = k;
    const st = start[i]!;
    const e0 = endCol[i]!;
    const en = e0 > st ? e0 : st;
    if (st < lastStart[l]!) unsorted[l] = 1;
    lastStart[l] = st;
    let run = running[l]!;
    if (en > run) running[l] = run = en;
    maxEnd[k] = run;
    if (st < minStart) minStart = st;
    if (en > maxEndAll) maxEndAll = en;
  }
  if (lod) scatterLod(lod, t, slot!, laneStart);
  // Lanes whose events arrived out of time order: sorted, then their running maxima (and
  // compact columns) rewritten from the sorted order.
  for (let l = 0; l < laneCount; l++) {
    if (!unsorted[l]) continue;
    const a = laneStart[l]!;
    const b = laneStart[l + 1]!;
    order.subarray(a, b).sort((x, y) => start[x]! - start[y]! || x - y);
    let run = -Infinity;
    for (let k = a; k < b; k++) {
      const e = order[k]!;
      const st = start[e]!;
      const en = Math.max(endCol[e]!, st);
      if (en > run) run = en;
      maxEnd[k] = run;
      if (lod) writeLod(lod, t, e, k, st, en, run, base);
    }
  }

  const { announcedBy, refIndex } = links(t, laneOf, order, laneStart);

  const heat: HeatLane[] = [];
  const cuLanesByGpu = new Map<number, number[]>();
  for (const lane of sorted) {
    if (lane.category !== 'cu') continue;
    const list = cuLanesByGpu.get(lane.gpu) ?? [];
    list.push(lane.id);
    cuLanesByGpu.set(lane.gpu, list);
  }
  for (const [gpu, cuLanes] of cuLanesByGpu) {
    const known = meta.gpuCus[gpu] ?? 0;
    heat.push({ id: sorted.length + heat.length, gpu, cuLanes, cuCount: Math.max(known, cuLanes.length) });
  }

  const index: TimelineIndex = {
    count: n,
    lanes: sorted,
    laneOf,
    order,
    laneStart,
    maxEnd,
    announcedBy,
    refIndex,
    startNs: n > 0 ? minStart : 0,
    endNs: n > 0 ? maxEndAll : 1,
    heat,
  };
  return { index, lod };
}

/**
 * The lane-ordered columns, reading the file's columns in file order: one column at a time,
 * event `i` to its slot `slot[i]`, so each loop has one sequential read stream and one write
 * stream per lane (all columns at once would be one per lane and column, more than the
 * processor tracks). The running maxima are then a sequential pass per lane.
 */
function scatterLod(lod: LodColumns, t: TimelineColumns, slot: Int32Array, laneStart: Int32Array): void {
  const n = t.count;
  const base = lod.baseNs;
  const start = t.startNs;
  const end = t.endNs;
  const ls = lod.startNs;
  for (let i = 0; i < n; i++) ls[slot[i]!] = start[i]! - base;
  const le = lod.endNs;
  for (let i = 0; i < n; i++) {
    const st = start[i]!;
    const e0 = end[i]!;
    le[slot[i]!] = (e0 > st ? e0 : st) - base;
  }
  const lx = lod.extentNs;
  const kinds = t.kind;
  const queued = t.queuedNs;
  for (let i = 0; i < n; i++) {
    const st = start[i]!;
    const e0 = end[i]!;
    let visible = st;
    if (kinds[i] === KIND_PACKET) {
      const q = queued[i]!;
      if (q >= 0 && q < st) visible = q;
    }
    lx[slot[i]!] = (e0 > st ? e0 : st) - visible;
  }
  const lb = lod.bytes;
  const bytes = t.bytes;
  for (let i = 0; i < n; i++) lb[slot[i]!] = bytes[i]!;
  const lp = lod.path;
  const path = t.path;
  for (let i = 0; i < n; i++) lp[slot[i]!] = path[i]! & 3;
  const lk = lod.kind;
  for (let i = 0; i < n; i++) lk[slot[i]!] = kinds[i]!;
  const flags = t.flags;
  const lf = lod.flags;
  if (flags) for (let i = 0; i < n; i++) lf[slot[i]!] = flags[i]! & FLAG_INFERRED;
  const lm = lod.maxEnd;
  for (let l = 0; l + 1 < laneStart.length; l++) {
    let run = -Infinity;
    for (let k = laneStart[l]!; k < laneStart[l + 1]!; k++) {
      const e = le[k]!;
      if (e > run) run = e;
      lm[k] = run;
    }
  }
}

/** Event `e` of the file into slot `k` of the lane-ordered columns. */
function writeLod(
  lod: LodColumns,
  t: TimelineColumns,
  e: number,
  k: number,
  st: number,
  en: number,
  run: number,
  base: number,
): void {
  lod.startNs[k] = st - base;
  lod.endNs[k] = en - base;
  lod.maxEnd[k] = run - base;
  let visible = st;
  const kind = t.kind[e]!;
  if (kind === KIND_PACKET) {
    const q = t.queuedNs[e]!;
    if (q >= 0 && q < st) visible = q;
  }
  lod.extentNs[k] = en - visible;
  lod.bytes[k] = t.bytes[e]!;
  lod.path[k] = t.path[e]! & 3;
  lod.kind[k] = kind;
  if (t.flags) lod.flags[k] = t.flags[e]! & FLAG_INFERRED;
}

/** Doorbell -> first packet through `ref`, and each packet -> the latest doorbell rung on its engine before it was queued. */
function links(t: TimelineColumns, laneOf: Int32Array, order: Int32Array, laneStart: Int32Array) {
  const n = t.count;
  const refIndex = new Int32Array(n).fill(-1);
  const announcedBy = new Int32Array(n).fill(-1);
  let maxId = -1;
  let minId = 0;
  for (let i = 0; i < n; i++) {
    if (t.id[i]! > maxId) maxId = t.id[i]!;
    if (t.id[i]! < minId) minId = t.id[i]!;
  }
  // Ids are usually 0..n-1; a dense table then costs 4 bytes per event, a Map would cost far more.
  const dense = minId >= 0 && maxId < 4 * n + 1024;
  const table = dense ? new Int32Array(maxId + 1).fill(-1) : undefined;
  const map = dense ? undefined : new Map<number, number>();
  for (let i = 0; i < n; i++) {
    if (table) table[t.id[i]!] = i;
    else map!.set(t.id[i]!, i);
  }
  const lookup = (id: number) => (id < 0 ? -1 : table ? (id < table.length ? table[id]! : -1) : (map!.get(id) ?? -1));
  for (let i = 0; i < n; i++) if (t.ref[i]! >= 0) refIndex[i] = lookup(t.ref[i]!);

  for (let l = 0; l + 1 < laneStart.length; l++) {
    const a = laneStart[l]!;
    const b = laneStart[l + 1]!;
    if (
      a === b ||
      t.kind[order[a]!] === KIND_CU ||
      t.kind[order[a]!] === KIND_KERNEL ||
      t.kind[order[a]!] === KIND_TRANSFER
    )
      continue;
    // Engine lane: packets carry their doorbell's time as queuedNs; doorbells sit at startNs.
    let lastDoorbell = -1;
    const packets: number[] = [];
    for (let k = a; k < b; k++) {
      const e = order[k]!;
      if (t.kind[e] === KIND_DOORBELL) continue;
      if (t.kind[e] === KIND_PACKET) packets.push(e);
    }
    const doorbells: number[] = [];
    for (let k = a; k < b; k++) if (t.kind[order[k]!] === KIND_DOORBELL) doorbells.push(order[k]!);
    packets.sort((x, y) => queueTime(t, x) - queueTime(t, y) || x - y);
    let d = 0;
    for (const p of packets) {
      while (d < doorbells.length && t.startNs[doorbells[d]!]! <= queueTime(t, p)) lastDoorbell = doorbells[d++]!;
      announcedBy[p] = lastDoorbell;
    }
    // A doorbell's own ref wins over timing: it names the first packet for certain.
    for (const db of doorbells) {
      const first = refIndex[db]!;
      if (first >= 0 && laneOf[first] === l) announcedBy[first] = db;
    }
  }
  return { announcedBy, refIndex };
}

function queueTime(t: TimelineColumns, i: number): number {
  const q = t.queuedNs[i]!;
  return q >= 0 ? q : t.startNs[i]!;
}

/** First position in the lane's order whose event may end at or after `timeNs`. */
export function firstReaching(
  index: Pick<TimelineIndex, 'laneStart' | 'maxEnd' | 'maxEndBase'>,
  lane: number,
  timeNs: number,
): number {
  // Compared as offsets: exact for u32 offsets and float64 times alike.
  timeNs -= index.maxEndBase ?? 0;
  let lo = index.laneStart[lane]!;
  let hi = index.laneStart[lane + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (index.maxEnd[mid]! < timeNs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The event of `lane` under `timeNs`, within `slopNs` either side, the nearest one when several; -1 when none. Events the filter's `mask` hides are skipped. */
export function eventAt(
  t: TimelineColumns,
  index: TimelineIndex,
  lane: number,
  timeNs: number,
  slopNs: number,
  mask?: Uint8Array,
): number {
  const end = index.laneStart[lane + 1]!;
  let best = -1;
  let bestDistance = Infinity;
  for (let k = firstReaching(index, lane, timeNs - slopNs); k < end; k++) {
    const e = index.order[k]!;
    const s =
      t.kind[e] === KIND_PACKET && t.queuedNs[e]! >= 0 ? Math.min(t.queuedNs[e]!, t.startNs[e]!) : t.startNs[e]!;
    if (s > timeNs + slopNs) break;
    if (mask && !mask[e]) continue;
    const f = Math.max(t.endNs[e]!, t.startNs[e]!);
    const distance = timeNs < s ? s - timeNs : timeNs > f ? timeNs - f : 0;
    // Doorbells are instants on top of packets: prefer them when the pointer is on them.
    const bias = t.kind[e] === KIND_DOORBELL ? -0.5 : 0;
    if (distance <= slopNs && distance + bias < bestDistance) {
      best = e;
      bestDistance = distance + bias;
    }
  }
  return best;
}

/** Events of `lane` overlapping [fromNs, toNs], in time order. */
export function eventsInRange(
  t: TimelineColumns,
  index: TimelineIndex,
  lane: number,
  fromNs: number,
  toNs: number,
  limit = Infinity,
): number[] {
  const out: number[] = [];
  const end = index.laneStart[lane + 1]!;
  for (let k = firstReaching(index, lane, fromNs); k < end && out.length < limit; k++) {
    const e = index.order[k]!;
    if (t.startNs[e]! > toNs) break;
    if (Math.max(t.endNs[e]!, t.startNs[e]!) >= fromNs) out.push(e);
  }
  return out;
}

/** Events tied to `e`: the doorbell, packets and completion chain; for a kernel, the CU spans it ran. */
export function relatedEvents(
  t: TimelineColumns,
  index: TimelineIndex,
  e: number,
  limit = 2048,
): { doorbell: number; packets: number[]; cus: number[]; kernel: number } {
  const kind = t.kind[e];
  let doorbell = -1;
  let packets: number[] = [];
  let cus: number[] = [];
  let kernel = -1;
  if (kind === KIND_DOORBELL) doorbell = e;
  if (kind === KIND_PACKET) doorbell = index.announcedBy[e]!;
  if (doorbell >= 0) {
    const lane = index.laneOf[doorbell]!;
    for (let k = index.laneStart[lane]!; k < index.laneStart[lane + 1]! && packets.length < limit; k++) {
      const p = index.order[k]!;
      if (t.kind[p] === KIND_PACKET && index.announcedBy[p] === doorbell) packets.push(p);
    }
  }
  if (kind === KIND_KERNEL) {
    kernel = e;
    for (const lane of index.lanes) {
      if (lane.category !== 'cu' || lane.gpu !== t.gpu[e]) continue;
      for (const c of eventsInRange(t, index, lane.id, t.startNs[e]!, t.endNs[e]!, 4)) {
        if (t.path[c] === t.path[e] && t.startNs[c]! >= t.startNs[e]! && t.endNs[c]! <= t.endNs[e]!) cus.push(c);
      }
      if (cus.length >= limit) break;
    }
  } else {
    // The kernel that ran (or waited for) this event: same GPU and path, covering its start.
    const kernelLane = index.lanes.find((l) => l.category === 'kernel' && l.gpu === t.gpu[e]);
    const at = t.startNs[e]!;
    if (kernelLane) {
      for (const k of eventsInRange(t, index, kernelLane.id, at, at, 8)) {
        if (t.path[k] === t.path[e] && t.startNs[k]! <= at && t.endNs[k]! >= at) kernel = k;
      }
    }
    if (kind === KIND_CU) cus = [e];
  }
  if (packets.length === 0 && kind === KIND_PACKET) packets = [e];
  return { doorbell, packets, cus, kernel };
}

/** Columns from inline events (small timelines printed in the helper's output). */
export function columnsFromEvents(events: readonly TimelineEvent[]): TimelineColumns {
  const n = events.length;
  const c = emptyColumns(n);

  // A flags column only when an event has a flag: absent means every event was observed.
  if (events.some((e) => e.inferred === true)) c.flags = new Uint8Array(n);
  events.forEach((e, i) => {
    if (c.flags && e.inferred === true) c.flags[i] = FLAG_INFERRED;
    c.kind[i] = TIMELINE_EVENT_KINDS.indexOf(e.kind);
    c.op[i] = PACKET_OPS.indexOf(e.op);
    c.path[i] = PATHS.indexOf(e.path);
    c.gpu[i] = e.gpu;
    c.lane[i] = e.lane;
    c.id[i] = e.id;
    c.ref[i] = e.ref;
    c.startNs[i] = e.startNs;
    c.endNs[i] = e.endNs;
    c.queuedNs[i] = e.queuedNs;
    c.bytes[i] = e.bytes;
  });
  return c;
}

/** Keeps only the events of one path (a sweep point's timeline shows the path the user clicked). */
export function filterColumns(t: TimelineColumns, keep: (i: number) => boolean): TimelineColumns {
  const picked: number[] = [];
  for (let i = 0; i < t.count; i++) if (keep(i)) picked.push(i);
  const take = <A extends { length: number; [i: number]: number }>(src: A, make: (n: number) => A): A => {
    const out = make(picked.length);
    picked.forEach((from, to) => (out[to] = src[from]!));
    return out;
  };
  return {
    count: picked.length,
    kind: take(t.kind, (n) => new Uint8Array(n)),
    op: take(t.op, (n) => new Uint8Array(n)),
    path: take(t.path, (n) => new Uint8Array(n)),
    gpu: take(t.gpu, (n) => new Uint16Array(n)),
    lane: take(t.lane, (n) => new Uint32Array(n)),
    id: take(t.id, (n) => new Int32Array(n)),
    ref: take(t.ref, (n) => new Int32Array(n)),
    startNs: take(t.startNs, (n) => new Float64Array(n)),
    endNs: take(t.endNs, (n) => new Float64Array(n)),
    queuedNs: take(t.queuedNs, (n) => new Float64Array(n)),
    bytes: take(t.bytes, (n) => new Float64Array(n)),
    ...(t.label && t.labels ? { label: take(t.label, (n) => new Int32Array(n)), labels: t.labels } : {}),
    ...(t.cus ? { cus: take(t.cus, (n) => new Uint32Array(n)) } : {}),
    ...(t.flags ? { flags: take(t.flags, (n) => new Uint8Array(n)) } : {}),
  };
}

/** Bytes an event moved: CU spans and packets carry bytes; kernels repeat their CUs' bytes, so they do not count. */
export function movesBytes(kind: number): boolean {
  return kind === KIND_CU || kind === KIND_PACKET;
}
