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
import type { ColumnRange, LodColumns, TimeBlocks } from './timelineCompact';
import {
  BLOCK,
  BLOCK_SHIFT,
  allocLodColumns,
  firstReachingIn,
  fitsOffset,
  floatTimes,
  laneShiftFor,
  recutBlocks,
  tagOf,
} from './timelineCompact';

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
  /** Lane id of every event: 16-bit with up to 65,535 lanes. */
  laneOf: Int32Array | Uint16Array;
  /** Event indices grouped by lane (`laneStart[l]..laneStart[l+1]`), by start time inside a lane. */
  order: Int32Array;
  laneStart: Int32Array;
  /** Running maximum of end times along `order` within each lane: the first event that can reach a time is a binary search. */
  maxEnd: Float64Array | Uint32Array;
  /**
   * The bases `maxEnd`'s values are offsets from: absent for the index's own running maxima
   * (float64 times); the compact columns' blocks when the engine shares their 32-bit offsets
   * instead of keeping a second copy.
   */
  maxEndBlocks?: TimeBlocks;
  /** For each packet, the doorbell event that announced it; -1 otherwise. */
  announcedBy: Int32Array;
  /**
   * For each event with a `ref`, the event index that `ref` names; -1 otherwise. The file's own
   * `ref` column when ids are the events' indices and every ref names an event or is -1.
   */
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
export const ENGINE_CATEGORY = 3;
export const CU_CATEGORY = 5;

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
 * (kind, GPU, number) to count each lane's events, and with them the times' range and whether
 * the bytes fit 32 bits; a second reads every column in file order and writes each event to its
 * lane's next slot. Events of a lane usually arrive in time order; the second pass checks that
 * as it goes and only a lane found out of order is sorted afterwards. With `withLod`, the same
 * pass also writes the compact lane-ordered columns the level of detail reads
 * (timelineCompact.ts), so no column is ever read in random order; with `shareMaxEnd` as well,
 * the index's running maxima are those columns' (`maxEndBlocks` their bases) instead of a copy
 * of its own, 8 bytes an event less.
 */
export function buildIndex(
  t: TimelineColumns,
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'> = { gpuCus: [], vendor: 'amd' },
): TimelineIndex {
  return buildIndexAndLod(t, meta, false).index;
}

/** Lanes of a timeline found by the first pass, in the order they were first seen. */
interface FoundLanes {
  lanes: LaneInfo[];
  counts: Int32Array;
  minStart: number;
  maxEnd: number;
  wholeTimes: boolean;
  bytesFit32: boolean;
}

/** Index into LANE_CATEGORIES of each `kind` value; kinds past the known ones sit on engine lanes. */
export const CATEGORY_TABLE = (() => {
  const table = new Uint8Array(256).fill(ENGINE_CATEGORY);
  CATEGORY_OF_KIND.forEach((c, k) => (table[k] = c));
  return table;
})();
/** Numbers below this find their lane in a per-(GPU, category) table; larger ones in a Map. */
const LANE_TABLE = 4096;
/** GPUs below this find their table by index; others through a Map. */
const GPU_TABLE = 64;
const U32_MAX = 0xffff_ffff;

/** The first pass: each event's lane (in first-seen order) into `laneOf`, the lanes' counts, and the columns' range. */
function findLanes(t: TimelineColumns, laneOf: Int32Array, vendor: TimelineMeta['vendor']): FoundLanes {
  const n = t.count;
  const lanes: LaneInfo[] = [];
  let counts = new Int32Array(64);
  // Per (GPU, category) group: where its table of lanes by number starts in `tables`.
  const groupAt = new Int32Array(GPU_TABLE * 8).fill(-1);
  const farGroupAt = new Map<number, number>();
  let tables = new Int32Array(0);
  const far = new Map<number, number>();
  const kinds = t.kind;
  const gpus = t.gpu;
  const numbers = t.lane;
  const start = t.startNs;
  const end = t.endNs;
  const bytes = t.bytes;
  let minStart = Infinity;
  let maxEnd = -Infinity;
  let whole = true;
  let fit = true;
  for (let i = 0; i < n; i++) {
    const categoryIndex = CATEGORY_TABLE[kinds[i]!]!;
    const numbered = categoryIndex === CU_CATEGORY || categoryIndex === ENGINE_CATEGORY;
    const number = numbered ? numbers[i]! : 0;
    const gpu = gpus[i]!;
    const group = gpu * 8 + categoryIndex;
    let at = group < GPU_TABLE * 8 ? groupAt[group]! : (farGroupAt.get(group) ?? -1);
    let lane: number;
    if (number < LANE_TABLE) {
      if (at < 0) {
        at = tables.length;
        const grown = new Int32Array(at + LANE_TABLE).fill(-1);
        grown.set(tables);
        tables = grown;
        if (group < GPU_TABLE * 8) groupAt[group] = at;
        else farGroupAt.set(group, at);
      }
      lane = tables[at + number]!;
    } else {
      lane = far.get(group * 2 ** 32 + number) ?? -1;
    }
    if (lane < 0) {
      lane = lanes.length;
      if (number < LANE_TABLE) tables[at + number] = lane;
      else far.set(group * 2 ** 32 + number, lane);
      const category = LANE_CATEGORIES[categoryIndex]!;
      lanes.push({ id: lane, gpu, category, number, label: laneLabel(category, number, vendor), eventCount: 0 });
      if (lane >= counts.length) {
        const grown = new Int32Array(counts.length * 2);
        grown.set(counts);
        counts = grown;
      }
    }
    laneOf[i] = lane;
    counts[lane]!++;
    // The range, as scanRange (timelineCompact.ts) finds it.
    const s = start[i]!;
    const e0 = end[i]!;
    const e = e0 > s ? e0 : s;
    if (s < minStart) minStart = s;
    if (e > maxEnd) maxEnd = e;
    if (whole && (s !== Math.floor(s) || e !== Math.floor(e))) whole = false;
    const b = bytes[i]!;
    if (fit && !(b >= 0 && b <= U32_MAX && b === Math.floor(b))) fit = false;
  }
  return { lanes, counts, minStart, maxEnd, wholeTimes: whole, bytesFit32: fit };
}

/** The lanes in presentation order, their ids renumbered to it, where each starts, and the occupancy strips. */
export interface LaneLayout {
  /** The lanes by GPU, category and number; each `id` is its place here. */
  sorted: LaneInfo[];
  /** First-seen lane number -> its id in `sorted`. */
  renumber: Int32Array;
  laneStart: Int32Array;
  heat: HeatLane[];
}

/**
 * Lanes found in first-seen order (and their event counts) laid out as the viewer shows them:
 * by GPU, category and number, with one occupancy strip per GPU that has CU lanes. The order
 * depends only on which lanes exist, so any reader that finds the same lanes gets the same ids.
 */
export function layoutLanes(lanes: LaneInfo[], counts: Int32Array, meta: Pick<TimelineMeta, 'gpuCus'>): LaneLayout {
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
  return { sorted, renumber, laneStart, heat };
}

export function buildIndexAndLod(
  t: TimelineColumns,
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'> = { gpuCus: [], vendor: 'amd' },
  withLod = true,
  shareMaxEnd = false,
): { index: TimelineIndex; lod: LodColumns | undefined } {
  const n = t.count;
  const laneOf = new Int32Array(n);
  const found = findLanes(t, laneOf, meta.vendor);
  const { sorted, renumber, laneStart, heat } = layoutLanes(found.lanes, found.counts, meta);
  const laneCount = sorted.length;

  const range: ColumnRange = {
    minStartNs: n > 0 ? found.minStart : 0,
    maxEndNs: n > 0 ? found.maxEnd : 0,
    wholeTimes: found.wholeTimes,
    bytesFit32: found.bytesFit32,
  };
  const allocated = withLod ? allocLodColumns(laneStart, range) : undefined;
  const order = new Int32Array(n);
  const maxEnd = allocated && shareMaxEnd ? undefined : new Float64Array(n);
  // Each event's lane as the second pass renumbers it: 2 bytes an event where they fit.
  const laneOfOut = laneCount <= 0xffff ? new Uint16Array(n) : laneOf;
  // The second pass writes these in lane order, all over each array: their pages are mapped
  // here first, in address order, which costs the system less than mapping them as scattered
  // first writes do.
  touchPages(order);
  if (maxEnd) touchPages(maxEnd);
  if (allocated) for (const column of lodArrays(allocated)) touchPages(column);
  const state = allocated
    ? placeWithLod(t, laneOf, laneOfOut, renumber, laneStart, order, maxEnd, allocated)
    : place(t, laneOf, laneOfOut, renumber, laneStart, order, maxEnd!);
  const lod = settleLanes(t, laneStart, order, state, maxEnd, allocated);

  // The first pass's 32-bit lanes, once renumbered into 16 bits, hold the doorbell links: no
  // moment holds both as well as the lanes.
  const { announcedBy, refIndex } = links(t, laneOfOut, order, laneStart, laneOfOut !== laneOf ? laneOf : undefined);

  const index: TimelineIndex = {
    count: n,
    lanes: sorted,
    laneOf: laneOfOut,
    order,
    laneStart,
    maxEnd: maxEnd ?? lod!.maxEnd,
    announcedBy,
    refIndex,
    startNs: n > 0 ? found.minStart : 0,
    endNs: n > 0 ? found.maxEnd : 1,
    heat,
  };
  if (!maxEnd && lod!.blocks) index.maxEndBlocks = lod!.blocks;
  return { index, lod };
}

/** Writes one element of every page of `a` (4 KiB pages, or a few writes a page where they are larger). */
function touchPages(a: Int32Array | Uint32Array | Float64Array | Float32Array | Uint8Array): void {
  const step = 4096 / a.BYTES_PER_ELEMENT;
  for (let i = 0; i < a.length; i += step) a[i] = 0;
}

function lodArrays(lod: LodColumns) {
  return [lod.startNs, lod.endNs, lod.maxEnd, lod.extentNs, lod.bytes, lod.tags];
}

/** `placeWithLod`'s answer per lane: its events arrived out of time order. */
const OUT_OF_ORDER = 1;
/** `placeWithLod`'s answer per lane: a block's times do not fit 32-bit offsets from its base (as they arrived). */
const TOO_WIDE = 2;
const U32_LIMIT = 0xffff_ffff;

/**
 * The second pass without compact columns: every event to its lane's next slot in `order` (and
 * its renumbered lane into `laneOfOut`), the lanes' running maxima of end times, and which
 * lanes arrived out of time order.
 */
function place(
  t: TimelineColumns,
  laneOf: Int32Array,
  laneOfOut: Int32Array | Uint16Array,
  renumber: Int32Array,
  laneStart: Int32Array,
  order: Int32Array,
  maxEnd: Float64Array,
): Uint8Array {
  const n = t.count;
  const laneCount = laneStart.length - 1;
  const fill = laneStart.slice(0, laneCount);
  const lastStart = new Float64Array(laneCount).fill(-Infinity);
  const running = new Float64Array(laneCount).fill(-Infinity);
  const unsorted = new Uint8Array(laneCount);
  const start = t.startNs;
  const end = t.endNs;
  for (let i = 0; i < n; i++) {
    const l = renumber[laneOf[i]!]!;
    laneOfOut[i] = l;
    const k = fill[l]!++;
    order[k] = i;
    const st = start[i]!;
    const e0 = end[i]!;
    const en = e0 > st ? e0 : st;
    if (st < lastStart[l]!) unsorted[l] = OUT_OF_ORDER;
    lastStart[l] = st;
    let run = running[l]!;
    if (en > run) running[l] = run = en;
    maxEnd[k] = run;
  }
  return unsorted;
}

/**
 * The second pass with the compact lane-ordered columns (`place`, and every column of `lod`
 * written at the event's slot): one sequential read stream per column, one write stream per
 * lane and column. A lane's slots fill in order, so the first event written to a block is at
 * its first slot: its start is the block's base (the earliest of the block when the lane is in
 * time order; the lane is rewritten after sorting otherwise).
 */
function placeWithLod(
  t: TimelineColumns,
  laneOf: Int32Array,
  laneOfOut: Int32Array | Uint16Array,
  renumber: Int32Array,
  laneStart: Int32Array,
  order: Int32Array,
  maxEnd: Float64Array | undefined,
  lod: LodColumns,
): Uint8Array {
  const n = t.count;
  const laneCount = laneStart.length - 1;
  const fill = laneStart.slice(0, laneCount);
  const lastStart = new Float64Array(laneCount).fill(-Infinity);
  const running = new Float64Array(laneCount).fill(-Infinity);
  const state = new Uint8Array(laneCount);
  const start = t.startNs;
  const end = t.endNs;
  const kinds = t.kind;
  const queued = t.queuedNs;
  const bytes = t.bytes;
  const path = t.path;
  const blocks = lod.blocks;
  const narrow = blocks !== undefined;
  // Every lane's blocks are BLOCK positions long here (`allocLodColumns`); settleLanes cuts a
  // lane whose offsets do not fit into shorter ones.
  const laneBlock = narrow ? blocks.laneBlock : laneStart;
  const bases = narrow ? blocks.base : running;
  // The base of each lane's current block.
  const laneBase = new Float64Array(laneCount);
  const ls = lod.startNs;
  const le = lod.endNs;
  const lm = lod.maxEnd;
  const lx = lod.extentNs;
  const lb = lod.bytes;
  const lt = lod.tags;
  const flags = t.flags;
  for (let i = 0; i < n; i++) {
    const l = renumber[laneOf[i]!]!;
    laneOfOut[i] = l;
    const k = fill[l]!++;
    order[k] = i;
    const st = start[i]!;
    const e0 = end[i]!;
    const en = e0 > st ? e0 : st;
    if (st < lastStart[l]!) state[l]! |= OUT_OF_ORDER;
    lastStart[l] = st;
    let run = running[l]!;
    if (en > run) running[l] = run = en;
    if (maxEnd) maxEnd[k] = run;
    const kind = kinds[i]!;
    let visible = st;
    if (kind === KIND_PACKET) {
      const q = queued[i]!;
      if (q >= 0 && q < st) visible = q;
    }
    let base = 0;
    if (narrow) {
      const at = k - laneStart[l]!;
      if ((at & (BLOCK - 1)) === 0) {
        laneBase[l] = st;
        bases[laneBlock[l]! + (at >>> BLOCK_SHIFT)] = st;
      }
      base = laneBase[l]!;
      // Starts and ends are at or after the block's first start unless the lane is out of order.
      if (run - base > U32_LIMIT) state[l]! |= TOO_WIDE;
    }
    ls[k] = st - base;
    le[k] = en - base;
    lm[k] = run - base;
    lx[k] = en - visible;
    lb[k] = bytes[i]!;
    lt[k] = tagOf(path[i]!, kind, flags !== undefined && (flags[i]! & FLAG_INFERRED) !== 0);
  }
  return state;
}

/**
 * After the second pass: lanes whose events arrived out of time order are sorted, then their
 * running maxima and compact columns (their blocks' bases too) rewritten from the sorted order.
 * A lane whose blocks' times do not fit 32-bit offsets from their bases is cut into shorter
 * blocks and its times written again (`wideLanes`; returned with the new blocks); only when one
 * of its events cannot fit at all are every lane's times written again as float64 (returned in
 * place of `lod`).
 */
function settleLanes(
  t: TimelineColumns,
  laneStart: Int32Array,
  order: Int32Array,
  state: Uint8Array,
  maxEnd: Float64Array | undefined,
  lod: LodColumns | undefined,
): LodColumns | undefined {
  const laneCount = laneStart.length - 1;
  const start = t.startNs;
  const endCol = t.endNs;
  const blocks = lod?.blocks;
  const wide: number[] = [];
  for (let l = 0; l < laneCount; l++) {
    const s = state[l]!;
    if (s === TOO_WIDE) wide.push(l);
    if ((s & OUT_OF_ORDER) === 0) continue;
    const a = laneStart[l]!;
    const b = laneStart[l + 1]!;
    order.subarray(a, b).sort((x, y) => start[x]! - start[y]! || x - y);
    let run = -Infinity;
    let base = 0;
    let fits = true;
    for (let k = a; k < b; k++) {
      const e = order[k]!;
      const st = start[e]!;
      const en = Math.max(endCol[e]!, st);
      if (en > run) run = en;
      if (maxEnd) maxEnd[k] = run;
      if (!lod) continue;
      if (blocks) {
        if (((k - a) & (BLOCK - 1)) === 0) {
          base = st;
          blocks.base[blocks.laneBlock[l]! + ((k - a) >>> BLOCK_SHIFT)] = st;
        }
        if (!fitsOffset(run - base)) fits = false;
      }
      writeLod(lod, t, e, k, st, en, run, base);
    }
    if (!fits) wide.push(l);
  }
  if (!lod || !blocks || wide.length === 0) return lod;
  const recut = wideLanes(t, laneStart, order, blocks, wide);
  if (recut) {
    // Only the times change: they are offsets from other bases now.
    const { startNs: ls, endNs: le, maxEnd: lm } = lod;
    const bases = recut.base;
    for (const l of wide) {
      const a = laneStart[l]!;
      const shift = recut.laneShift[l]!;
      const mask = (1 << shift) - 1;
      const block0 = recut.laneBlock[l]!;
      let run = -Infinity;
      let base = 0;
      for (let k = a; k < laneStart[l + 1]!; k++) {
        const e = order[k]!;
        const st = start[e]!;
        const e0 = endCol[e]!;
        const en = e0 > st ? e0 : st;
        if (en > run) run = en;
        if (((k - a) & mask) === 0) bases[block0 + ((k - a) >>> shift)] = base = st;
        ls[k] = st - base;
        le[k] = en - base;
        lm[k] = run - base;
      }
    }
    return { ...lod, blocks: recut };
  }
  const float = floatTimes(lod);
  for (let l = 0; l < laneCount; l++) {
    let run = -Infinity;
    for (let k = laneStart[l]!; k < laneStart[l + 1]!; k++) {
      const e = order[k]!;
      const st = start[e]!;
      const en = Math.max(endCol[e]!, st);
      if (en > run) run = en;
      float.startNs[k] = st;
      float.endNs[k] = en;
      float.maxEnd[k] = run;
    }
  }
  return float;
}

/**
 * The blocks with each lane of `wide` (in time order, its times too far apart for blocks of
 * BLOCK) cut into the longest blocks whose offsets fit; undefined when some lane's do not fit
 * even one event a block. Reads each such lane's times once more, in its order.
 */
function wideLanes(
  t: TimelineColumns,
  laneStart: Int32Array,
  order: Int32Array,
  blocks: TimeBlocks,
  wide: readonly number[],
): TimeBlocks | undefined {
  const shifts = new Map<number, number>();
  for (const l of wide) {
    const a = laneStart[l]!;
    const shift = laneShiftFor(order, a, laneStart[l + 1]! - a, t.startNs, t.endNs);
    if (shift < 0) return undefined;
    shifts.set(l, shift);
  }
  return recutBlocks(blocks, laneStart, shifts);
}

/** Event `e` of the file into slot `k` of the lane-ordered columns, times as offsets from `base` (its block's; 0 for float64 times). */
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
  lod.tags[k] = tagOf(t.path[e]!, kind, t.flags !== undefined && (t.flags[e]! & FLAG_INFERRED) !== 0);
}

/**
 * Doorbell -> first packet through `ref`, and each packet -> the latest doorbell rung on its
 * engine before it was queued. `spare`, an array of n no longer needed, holds the latter when given.
 */
function links(
  t: TimelineColumns,
  laneOf: Int32Array | Uint16Array,
  order: Int32Array,
  laneStart: Int32Array,
  spare?: Int32Array,
) {
  const n = t.count;
  const refIndex = refIndices(t);
  const announcedBy = (spare ?? new Int32Array(n)).fill(-1);
  const kinds = t.kind;
  const starts = t.startNs;
  const queued = t.queuedNs;
  let packets = new Int32Array(0);
  let doorbells = new Int32Array(0);
  for (let l = 0; l + 1 < laneStart.length; l++) {
    const a = laneStart[l]!;
    const b = laneStart[l + 1]!;
    if (a === b) continue;
    const first = kinds[order[a]!];
    if (first === KIND_CU || first === KIND_KERNEL || first === KIND_TRANSFER) continue;
    // Engine lane: packets carry their doorbell's time as queuedNs; doorbells sit at startNs.
    if (packets.length < b - a) {
      packets = new Int32Array(b - a);
      doorbells = new Int32Array(b - a);
    }
    let packetCount = 0;
    let doorbellCount = 0;
    for (let k = a; k < b; k++) {
      const e = order[k]!;
      const kind = kinds[e];
      if (kind === KIND_DOORBELL) doorbells[doorbellCount++] = e;
      else if (kind === KIND_PACKET) packets[packetCount++] = e;
    }
    const lanePackets = packets.subarray(0, packetCount);
    // By queue time, then event: usually the order they already have, checked before sorting.
    const byQueue = (x: number, y: number) =>
      (queued[x]! >= 0 ? queued[x]! : starts[x]!) - (queued[y]! >= 0 ? queued[y]! : starts[y]!) || x - y;
    let inOrder = true;
    for (let j = 1; j < packetCount && inOrder; j++) inOrder = byQueue(lanePackets[j]!, lanePackets[j - 1]!) > 0;
    if (!inOrder) lanePackets.sort(byQueue);
    let lastDoorbell = -1;
    let d = 0;
    for (let j = 0; j < packetCount; j++) {
      const p = lanePackets[j]!;
      const q = queued[p]! >= 0 ? queued[p]! : starts[p]!;
      while (d < doorbellCount && starts[doorbells[d]!]! <= q) lastDoorbell = doorbells[d++]!;
      announcedBy[p] = lastDoorbell;
    }
    // A doorbell's own ref wins over timing: it names the first packet for certain.
    for (let j = 0; j < doorbellCount; j++) {
      const db = doorbells[j]!;
      const firstPacket = refIndex[db]!;
      if (firstPacket >= 0 && laneOf[firstPacket] === l) announcedBy[firstPacket] = db;
    }
  }
  return { announcedBy, refIndex };
}

/**
 * For each event with a `ref`, the event whose id it names (the last one, when ids repeat); -1
 * otherwise. When ids are the events' own indices and every ref is an index or -1, that is the
 * `ref` column itself (no copy: 4 bytes an event less).
 */
function refIndices(t: TimelineColumns): Int32Array {
  const n = t.count;
  const ids = t.id;
  const refs = t.ref;
  // Ids are usually each event's own index (as the helper writes them): a ref is then the event.
  let identity = true;
  let maxId = -1;
  let minId = 0;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    if (id !== i) identity = false;
    if (id > maxId) maxId = id;
    if (id < minId) minId = id;
  }
  if (identity) {
    let inRange = true;
    for (let i = 0; i < n && inRange; i++) {
      const r = refs[i]!;
      inRange = r >= -1 && r < n;
    }
    if (inRange) return refs;
    const refIndex = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const r = refs[i]!;
      refIndex[i] = r >= 0 && r < n ? r : -1;
    }
    return refIndex;
  }
  const refIndex = new Int32Array(n);
  // Otherwise a dense table when ids are small (4 bytes per event; a Map would cost far more).
  const dense = minId >= 0 && maxId < 4 * n + 1024;
  const table = dense ? new Int32Array(maxId + 1).fill(-1) : undefined;
  const map = dense ? undefined : new Map<number, number>();
  for (let i = 0; i < n; i++) {
    if (table) table[ids[i]!] = i;
    else map!.set(ids[i]!, i);
  }
  for (let i = 0; i < n; i++) {
    const r = refs[i]!;
    refIndex[i] = r < 0 ? -1 : table ? (r < table.length ? table[r]! : -1) : (map!.get(r) ?? -1);
  }
  return refIndex;
}

/** First position in the lane's order whose event may end at or after `timeNs`. */
export function firstReaching(
  index: Pick<TimelineIndex, 'laneStart' | 'maxEnd' | 'maxEndBlocks'>,
  lane: number,
  timeNs: number,
): number {
  return firstReachingIn(index.maxEnd, index.maxEndBlocks, index.laneStart, lane, timeNs);
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
