/**
 * The first frame of a big timeline before its index exists. The file is columnar, so a range
 * of events can be read from every column into small buffers that are used again for the next
 * range: two passes over the file then cost a copy from the system's cache and no fresh memory
 * per event, where the index (timelineModel.ts) must first hold every column. The survey finds
 * the lanes, their counts and the time span (the index the page lays out from); the overview
 * bins the page's first level-of-detail request straight from the file.
 *
 * The overview answers what `aggregate` (timelineLod.ts) would answer for the same request on
 * the built index: the same lanes and ids (layoutLanes), the same events drawn one by one (the
 * first `maxRaw` wide ones in lane order), the same counts and bytes per bucket, and the same
 * busy times up to the order floating-point sums are added in (an event whose start falls on a
 * bucket boundary may round to the other side when the window's arithmetic is inexact). Where it
 * cannot answer exactly (a filter, a lane asked twice, more wide events than it keeps, a grid
 * too large), it declines and the request waits for the index.
 *
 * The file is outside data: each range is checked as the whole-file readers check it, and a bad
 * value is named by its event in the file.
 */
import type { PageIndex } from './timelineEngineProtocol';
import type { ReadAt, TimelineLayout, TimelineRange } from './timelineFile';
import {
  FLAG_INFERRED,
  TIMELINE_COLUMN_NAMES,
  TIMELINE_HEADER_BYTES,
  TimelineFormatError,
  checkTimelineValues,
  timelineColumnWidths,
  timelineLayout,
} from './timelineFile';
import { timesFit32 } from './timelineCompact';
import type { LodRequest, LodResult } from './timelineLod';
import { Growable, LOD_LEVELS } from './timelineLod';
import type { LaneInfo, TimelineMeta } from './timelineModel';
import {
  CATEGORY_TABLE,
  CU_CATEGORY,
  ENGINE_CATEGORY,
  KIND_KERNEL,
  KIND_PACKET,
  LANE_CATEGORIES,
  laneLabel,
  layoutLanes,
} from './timelineModel';
import type { EventRecords } from './timelineQueries';

/** Events read from every column at a time: a multiple of 8, so each column's range starts 8-aligned. */
export const OVERVIEW_CHUNK_EVENTS = 1 << 16;
/** The largest grid (requested lanes x buckets) the overview bins; a larger one waits for the index. */
const MAX_CELLS = 1 << 20;
/** Wide events kept while binning, per event the request may draw one by one; more and the overview declines. */
const CANDIDATES_PER_RAW = 4;
/** Kernel names reported with an answer, as the engine does. */
const RAW_KERNEL_NAMES = 64;
const PATH_COUNT = 4;
const LANE_TABLE = 4096;
const GPU_TABLE = 64;

/** What the survey reads of each event. */
const SURVEY_COLUMNS: readonly ColumnName[] = ['kind', 'gpu', 'lane', 'startNs', 'endNs', 'flags'];
/** What the overview reads: all but `ref` (the events drawn one by one carry every other column). */
const OVERVIEW_COLUMNS: readonly ColumnName[] = TIMELINE_COLUMN_NAMES.filter((name) => name !== 'ref');

/** The file, as the overview reads it: its size when opened and a positional read. */
export interface OverviewSource {
  fileBytes: number;
  read: ReadAt;
}

/**
 * Each event's lane in first-seen order, as the index's first pass numbers them (a table per
 * GPU and category for numbers below 4096, a map above).
 */
class LaneFinder {
  readonly lanes: LaneInfo[] = [];
  counts = new Int32Array(64);
  private readonly groupAt = new Int32Array(GPU_TABLE * 8).fill(-1);
  private readonly farGroupAt = new Map<number, number>();
  private tables = new Int32Array(0);
  private readonly far = new Map<number, number>();

  constructor(private readonly vendor: TimelineMeta['vendor']) {}

  find(kind: number, gpu: number, rawNumber: number): number {
    const categoryIndex = CATEGORY_TABLE[kind]!;
    const number = categoryIndex === CU_CATEGORY || categoryIndex === ENGINE_CATEGORY ? rawNumber : 0;
    const group = gpu * 8 + categoryIndex;
    if (number < LANE_TABLE) {
      let at = group < GPU_TABLE * 8 ? this.groupAt[group]! : (this.farGroupAt.get(group) ?? -1);
      if (at < 0) {
        at = this.tables.length;
        const grown = new Int32Array(at + LANE_TABLE).fill(-1);
        grown.set(this.tables);
        this.tables = grown;
        if (group < GPU_TABLE * 8) this.groupAt[group] = at;
        else this.farGroupAt.set(group, at);
      }
      const lane = this.tables[at + number]!;
      if (lane >= 0) return lane;
      const added = this.add(gpu, categoryIndex, number);
      this.tables[at + number] = added;
      return added;
    }
    const key = group * 2 ** 32 + number;
    const lane = this.far.get(key);
    if (lane !== undefined) return lane;
    const added = this.add(gpu, categoryIndex, number);
    this.far.set(key, added);
    return added;
  }

  private add(gpu: number, categoryIndex: number, number: number): number {
    const id = this.lanes.length;
    const category = LANE_CATEGORIES[categoryIndex]!;
    this.lanes.push({ id, gpu, category, number, label: laneLabel(category, number, this.vendor), eventCount: 0 });
    if (id >= this.counts.length) {
      const grown = new Int32Array(this.counts.length * 2);
      grown.set(this.counts);
      this.counts = grown;
    }
    return id;
  }
}

/** A column of the file by name, as TIMELINE_COLUMN_NAMES lists them. */
type ColumnName = (typeof TIMELINE_COLUMN_NAMES)[number];

const VIEWS: Record<ColumnName, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  kind: Uint8Array,
  op: Uint8Array,
  path: Uint8Array,
  gpu: Uint16Array,
  lane: Uint32Array,
  id: Int32Array,
  ref: Int32Array,
  startNs: Float64Array,
  endNs: Float64Array,
  queuedNs: Float64Array,
  bytes: Float64Array,
  flags: Uint8Array,
};

/** One range's buffers, one per column read. */
interface RangeBuffers {
  columns: { name: ColumnName; index: number; width: number; buffer: ArrayBuffer }[];
}

/** Reads events `from..from+n-1` of every column in `b` (the columns' reads at once). */
async function readRange(source: OverviewSource, layout: TimelineLayout, b: RangeBuffers, from: number, n: number) {
  await Promise.all(
    b.columns.map(async ({ index, width, buffer }) => {
      const want = n * width;
      const into = new Uint8Array(buffer, 0, want);
      const position = layout.offsets[index]! + from * width;
      let got = 0;
      while (got < want) {
        const r = await source.read(into, got, want - got, position + got);
        if (!(Number.isSafeInteger(r) && r >= 0 && r <= want - got))
          throw new TimelineFormatError(`timeline file read returned ${r} bytes where at most ${want - got} were asked`);
        if (r === 0)
          throw new TimelineFormatError(
            `timeline file is truncated: it ended at ${position + got} bytes while being read, ${source.fileBytes} expected`,
          );
        got += r;
      }
    }),
  );
}

/**
 * The columns `names` of a file, a range of events at a time, into two sets of buffers used in
 * turn: the next range is read while the caller works on this one. Each range is checked before
 * it is handed out, and must not be kept past the next one.
 */
async function* fileRanges(
  source: OverviewSource,
  layout: TimelineLayout,
  names: readonly ColumnName[],
  signal: AbortSignal | undefined,
): AsyncGenerator<TimelineRange> {
  const widths = timelineColumnWidths(layout.version);
  const chunk = Math.min(OVERVIEW_CHUNK_EVENTS, Math.max(8, Math.ceil(layout.count / 8) * 8));
  const present = names.filter((name) => TIMELINE_COLUMN_NAMES.indexOf(name) < widths.length);
  const set = (): RangeBuffers => ({
    columns: present.map((name) => {
      const index = TIMELINE_COLUMN_NAMES.indexOf(name);
      return { name, index, width: widths[index]!, buffer: new ArrayBuffer(chunk * widths[index]!) };
    }),
  });
  const sets = [set(), set()];
  const count = layout.count;
  let next: Promise<void> | undefined = count > 0 ? readRange(source, layout, sets[0]!, 0, Math.min(chunk, count)) : undefined;
  for (let from = 0, turn = 0; from < count; from += chunk, turn ^= 1) {
    signal?.throwIfAborted();
    const n = Math.min(chunk, count - from);
    await next;
    const after = from + chunk;
    next = after < count ? readRange(source, layout, sets[turn ^ 1]!, after, Math.min(chunk, count - after)) : undefined;
    // A read that fails while this range is worked on is seen at the next await; it must not go unhandled meanwhile.
    next?.catch(() => undefined);
    const range: TimelineRange = { count: n };
    for (const { name, buffer } of sets[turn]!.columns)
      (range as Record<string, unknown>)[name] = new VIEWS[name](buffer, 0, n);
    checkTimelineValues(range, from);
    yield range;
  }
}

/** What the survey found: the index the page lays out from, and what the overview bins with. */
export interface TimelineSurvey {
  layout: TimelineLayout;
  index: PageIndex;
  inferred: boolean;
  /** The compact columns' base (the first start when times fit 32-bit offsets, else 0): windows are binned relative to it. */
  baseNs: number;
  finder: LaneFinder;
  /** First-seen lane -> lane id. */
  renumber: Int32Array;
  ms: number;
}

/**
 * The first pass: the header and size checked, then every event's lane, the lanes' counts, the
 * time span and whether any event was inferred. Holds nothing per event.
 */
export async function surveyTimeline(
  source: OverviewSource,
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'>,
  signal?: AbortSignal,
): Promise<TimelineSurvey> {
  const t0 = performance.now();
  signal?.throwIfAborted();
  const head = new Uint8Array(TIMELINE_HEADER_BYTES);
  let got = 0;
  while (got < head.length) {
    const r = await source.read(head, got, head.length - got, got);
    if (!(Number.isSafeInteger(r) && r >= 0 && r <= head.length - got))
      throw new TimelineFormatError(`timeline file read returned ${r} bytes where at most ${head.length - got} were asked`);
    if (r === 0) break;
    got += r;
  }
  const layout = timelineLayout(head.subarray(0, got), source.fileBytes);
  const finder = new LaneFinder(meta.vendor);
  let minStart = Infinity;
  let maxEnd = -Infinity;
  let whole = true;
  let inferred = false;
  for await (const r of fileRanges(source, layout, SURVEY_COLUMNS, signal)) {
    const kind = r.kind!;
    const gpu = r.gpu!;
    const lane = r.lane!;
    const startNs = r.startNs!;
    const endNs = r.endNs!;
    const flags = r.flags;
    let counts = finder.counts;
    let lastKind = -1;
    let lastGpu = -1;
    let lastNumber = -1;
    let l = -1;
    for (let i = 0; i < r.count; i++) {
      const k = kind[i]!;
      const gp = gpu[i]!;
      const nb = lane[i]!;
      if (k !== lastKind || gp !== lastGpu || nb !== lastNumber) {
        l = finder.find(k, gp, nb);
        if (l >= counts.length) counts = finder.counts;
        lastKind = k;
        lastGpu = gp;
        lastNumber = nb;
      }
      counts[l]!++;
      const s = startNs[i]!;
      const e0 = endNs[i]!;
      const e = e0 > s ? e0 : s;
      if (s < minStart) minStart = s;
      if (e > maxEnd) maxEnd = e;
      if (whole && (s !== Math.floor(s) || e !== Math.floor(e))) whole = false;
    }
    if (flags && !inferred) for (let i = 0; i < r.count; i++) if ((flags[i]! & FLAG_INFERRED) !== 0) inferred = true;
  }
  const n = layout.count;
  const { sorted, renumber, laneStart, heat } = layoutLanes(finder.lanes, finder.counts, meta);
  const range = { minStartNs: n > 0 ? minStart : 0, maxEndNs: n > 0 ? maxEnd : 0, wholeTimes: whole, bytesFit32: true };
  return {
    layout,
    index: { count: n, lanes: sorted, laneStart, startNs: n > 0 ? minStart : 0, endNs: n > 0 ? maxEnd : 1, heat },
    inferred,
    baseNs: timesFit32(range) ? range.minStartNs : 0,
    finder,
    renumber,
    ms: performance.now() - t0,
  };
}

/** What the overview answers: a level-of-detail answer as the engine sends it. */
export interface OverviewAnswer {
  result: LodResult;
  records: EventRecords;
  rawKernels: string[];
  ms: number;
}

/** Wide events met while binning: drawn one by one, or binned afterwards when more than `maxRaw` are. */
class Candidates {
  length = 0;
  event = new Int32Array(64);
  slot = new Int32Array(64);
  lane = new Int32Array(64);
  kind = new Uint8Array(64);
  op = new Uint8Array(64);
  path = new Uint8Array(64);
  gpu = new Uint16Array(64);
  number = new Uint32Array(64);
  id = new Int32Array(64);
  startNs = new Float64Array(64);
  endNs = new Float64Array(64);
  queuedNs = new Float64Array(64);
  bytes = new Float64Array(64);
  flag = new Uint8Array(64);

  push(r: TimelineRange, i: number, event: number, slot: number, lane: number): void {
    if (this.length === this.event.length) this.grow();
    const at = this.length++;
    this.event[at] = event;
    this.slot[at] = slot;
    this.lane[at] = lane;
    this.kind[at] = r.kind![i]!;
    this.op[at] = r.op![i]!;
    this.path[at] = r.path![i]!;
    this.gpu[at] = r.gpu![i]!;
    this.number[at] = r.lane![i]!;
    this.id[at] = r.id![i]!;
    this.startNs[at] = r.startNs![i]!;
    this.endNs[at] = r.endNs![i]!;
    this.queuedNs[at] = r.queuedNs![i]!;
    this.bytes[at] = r.bytes![i]!;
    this.flag[at] = (r.flags?.[i] ?? 0) & FLAG_INFERRED;
  }

  private grow(): void {
    for (const key of Object.keys(this) as (keyof this)[]) {
      const a = this[key];
      if (!ArrayBuffer.isView(a)) continue;
      const typed = a as unknown as Float64Array;
      const out = new (typed.constructor as Float64ArrayConstructor)(typed.length * 2);
      out.set(typed);
      (this as Record<keyof this, unknown>)[key] = out;
    }
  }
}

/** The grid being binned: per requested lane and bucket, what aggregate's scratch holds for one lane. */
interface Grid {
  buckets: number;
  startNs: number;
  endNs: number;
  nsPerBucket: number;
  perNs: number;
  busy: Float64Array;
  count: Float64Array;
  bytes: Float64Array;
  pathBusy: Float64Array;
  lastPath: Uint8Array;
  /** The event that set lastPath: aggregate's order is lane, then start, then file order. */
  lastLane: Int32Array;
  lastStart: Float64Array;
  lastEvent: Int32Array;
  inferred: Uint8Array;
  lo: Int32Array;
  hi: Int32Array;
}

/** One event into its slot's bucket, as binLane (timelineLod.ts) does it; st/en relative to the base. */
function bin(
  g: Grid,
  slot: number,
  st: number,
  en: number,
  eventBytes: number,
  path: number,
  flag: number,
  lane: number,
  event: number,
): void {
  const { startNs, endNs, nsPerBucket, perNs, buckets } = g;
  const last = buckets - 1;
  const row = slot * buckets;
  const a = st > startNs ? st : startNs;
  const z = en < endNs ? en : endNs;
  let b = Math.floor((st - startNs) * perNs);
  if (b < 0) b = 0;
  else if (b > last) b = last;
  const cell = row + b;
  g.count[cell]! += 1;
  g.bytes[cell]! += eventBytes;
  const ll = g.lastLane[cell]!;
  if (lane > ll || (lane === ll && (st > g.lastStart[cell]! || (st === g.lastStart[cell]! && event > g.lastEvent[cell]!)))) {
    g.lastLane[cell] = lane;
    g.lastStart[cell] = st;
    g.lastEvent[cell] = event;
    g.lastPath[cell] = path;
  }
  g.inferred[cell]! |= flag;
  let lo = g.lo[slot]!;
  let hi = g.hi[slot]!;
  if (b < lo) lo = b;
  if (z > a) {
    let b0 = Math.floor((a - startNs) * perNs);
    let b1 = Math.floor((z - startNs) * perNs);
    if (b0 > last) b0 = last;
    if (b1 > last) b1 = last;
    if (b0 < lo) lo = b0;
    if (b1 > hi) hi = b1;
    if (b0 === b1) {
      g.busy[row + b0]! += z - a;
      g.pathBusy[(row + b0) * PATH_COUNT + path]! += z - a;
    } else {
      for (let bb = b0; bb <= b1; bb++) {
        const from = startNs + bb * nsPerBucket;
        const to = from + nsPerBucket;
        const ov = (z < to ? z : to) - (a > from ? a : from);
        if (ov <= 0) continue;
        g.busy[row + bb]! += ov;
        g.pathBusy[(row + bb) * PATH_COUNT + path]! += ov;
      }
    }
  }
  if (b > hi) hi = b;
  g.lo[slot] = lo;
  g.hi[slot] = hi;
}

/**
 * One range of events into the grid: each event of a requested lane (and of the CU lanes under
 * a requested occupancy strip) counted in its slot's totals and binned, or kept as a wide event.
 * False when there are more wide events than the overview keeps. The hot loop: the grid's arrays
 * in locals, the bin of an event inside one bucket without a call.
 */
function binRange(
  r: TimelineRange,
  first: number,
  g: Grid,
  survey: TimelineSurvey,
  directSlot: Int32Array,
  heatSlot: Int32Array,
  rawMinNs: number,
  maxRaw: number,
  keepMost: number,
  wide: Candidates,
  totals: { count: Float64Array; bytes: Float64Array; busyNs: Float64Array },
): boolean {
  const kind = r.kind!;
  const gpu = r.gpu!;
  const numbers = r.lane!;
  const starts = r.startNs!;
  const ends = r.endNs!;
  const queuedNs = r.queuedNs!;
  const bytes = r.bytes!;
  const path = r.path!;
  const flags = r.flags;
  const finder = survey.finder;
  const renumber = survey.renumber;
  const base = survey.baseNs;
  const { startNs, endNs, perNs, buckets, count, lastLane, lastStart, lastEvent, lastPath, inferred, busy, pathBusy, lo, hi } = g;
  const last = buckets - 1;
  const totalCount = totals.count;
  const totalBytes = totals.bytes;
  const totalBusy = totals.busyNs;
  const binned = g.bytes;
  // The last lane found, kept: consecutive events usually share their lane.
  let lastKind = -1;
  let lastGpu = -1;
  let lastNumber = -1;
  let lane = -1;
  for (let i = 0; i < r.count; i++) {
    const s0 = starts[i]!;
    const e0 = ends[i]!;
    const enAbs = e0 > s0 ? e0 : s0;
    const st = s0 - base;
    const en = enAbs - base;
    if (st > endNs || en < startNs) continue;
    const k = kind[i]!;
    const gp = gpu[i]!;
    const nb = numbers[i]!;
    if (k !== lastKind || gp !== lastGpu || nb !== lastNumber) {
      lane = renumber[finder.find(k, gp, nb)]!;
      lastKind = k;
      lastGpu = gp;
      lastNumber = nb;
    }
    const ds = directSlot[lane]!;
    const hs = heatSlot[lane]!;
    if (ds < 0 && hs < 0) continue;
    const a = st > startNs ? st : startNs;
    const z = en < endNs ? en : endNs;
    const eventBytes = bytes[i]!;
    const p = path[i]! & 3;
    const flag = flags ? flags[i]! & FLAG_INFERRED : 0;
    const event = first + i;
    let b = Math.floor((st - startNs) * perNs);
    if (b < 0) b = 0;
    else if (b > last) b = last;
    // Spread over several buckets (the general path, bin()) or inside one: b0 === b1 === b.
    const spread = z > a && Math.floor((z - startNs) * perNs) > b && b < last;
    if (ds >= 0) {
      totalCount[ds]! += 1;
      totalBytes[ds]! += eventBytes;
      totalBusy[ds]! += z - a;
      let visible = s0;
      if (k === KIND_PACKET) {
        const q = queuedNs[i]!;
        if (q >= 0 && q < s0) visible = q;
      }
      if (maxRaw > 0 && Math.fround(enAbs - visible) >= rawMinNs) {
        if (wide.length >= keepMost) return false;
        wide.push(r, i, event, ds, lane);
      } else if (spread) {
        bin(g, ds, st, en, eventBytes, p, flag, lane, event);
      } else {
        const cell = ds * buckets + b;
        count[cell]! += 1;
        binned[cell]! += eventBytes;
        // In file order a later event of the lane at the same start is later in lane order too.
        if (lane > lastLane[cell]! || (lane === lastLane[cell] && st >= lastStart[cell]!)) {
          lastLane[cell] = lane;
          lastStart[cell] = st;
          lastEvent[cell] = event;
          lastPath[cell] = p;
        }
        inferred[cell]! |= flag;
        if (b < lo[ds]!) lo[ds] = b;
        if (b > hi[ds]!) hi[ds] = b;
        if (z > a) {
          busy[cell]! += z - a;
          pathBusy[cell * PATH_COUNT + p]! += z - a;
        }
      }
    }
    if (hs >= 0) {
      totalCount[hs]! += 1;
      totalBytes[hs]! += eventBytes;
      totalBusy[hs]! += z - a;
      if (spread) {
        bin(g, hs, st, en, eventBytes, p, flag, lane, event);
      } else {
        const cell = hs * buckets + b;
        count[cell]! += 1;
        binned[cell]! += eventBytes;
        if (lane > lastLane[cell]! || (lane === lastLane[cell] && st >= lastStart[cell]!)) {
          lastLane[cell] = lane;
          lastStart[cell] = st;
          lastEvent[cell] = event;
          lastPath[cell] = p;
        }
        inferred[cell]! |= flag;
        if (b < lo[hs]!) lo[hs] = b;
        if (b > hi[hs]!) hi[hs] = b;
        if (z > a) {
          busy[cell]! += z - a;
          pathBusy[cell * PATH_COUNT + p]! += z - a;
        }
      }
    }
  }
  return true;
}

/**
 * The page's level-of-detail request answered from the file: one more pass over it, binning
 * each event of a requested lane (and of the CU lanes under a requested occupancy strip).
 * Undefined when the overview cannot answer it exactly (the module's comment says when).
 */
export async function overviewLod(
  source: OverviewSource,
  survey: TimelineSurvey,
  request: LodRequest,
  signal?: AbortSignal,
): Promise<OverviewAnswer | undefined> {
  const t0 = performance.now();
  const index = survey.index;
  const realLanes = index.lanes.length;
  const slots = request.lanes.length;
  const buckets = Math.max(1, Math.floor(request.buckets));
  if (!(Number.isFinite(request.startNs) && Number.isFinite(request.endNs)) || slots * buckets > MAX_CELLS) return undefined;
  const directSlot = new Int32Array(realLanes).fill(-1);
  const heatSlot = new Int32Array(realLanes).fill(-1);
  const capacity = new Float64Array(slots);
  const heatOf = new Map(index.heat.map((h) => [h.id, h]));
  for (let slot = 0; slot < slots; slot++) {
    const laneId = request.lanes[slot]!;
    if (!Number.isSafeInteger(laneId) || laneId < 0) return undefined;
    if (laneId < realLanes) {
      if (directSlot[laneId]! >= 0) return undefined;
      directSlot[laneId] = slot;
      capacity[slot] = 1;
      continue;
    }
    const heat = heatOf.get(laneId);
    if (!heat) continue;
    for (const cu of heat.cuLanes) {
      if (heatSlot[cu]! >= 0) return undefined;
      heatSlot[cu] = slot;
    }
    capacity[slot] = Math.max(1, heat.cuCount);
  }

  const base = survey.baseNs;
  const startNs = request.startNs - base;
  const endNs = request.endNs - base;
  const spanNs = Math.max(endNs - startNs, 1e-9);
  const nsPerBucket = spanNs / buckets;
  const rawMinNs = (request.rawMinPx ?? 2) * nsPerBucket;
  const maxRaw = request.maxRaw ?? 20_000;
  const cells = slots * buckets;
  const g: Grid = {
    buckets,
    startNs,
    endNs,
    nsPerBucket,
    perNs: 1 / nsPerBucket,
    busy: new Float64Array(cells),
    count: new Float64Array(cells),
    bytes: new Float64Array(cells),
    pathBusy: new Float64Array(cells * PATH_COUNT),
    lastPath: new Uint8Array(cells),
    lastLane: new Int32Array(cells).fill(-1),
    lastStart: new Float64Array(cells),
    lastEvent: new Int32Array(cells),
    inferred: new Uint8Array(cells),
    lo: new Int32Array(slots).fill(buckets),
    hi: new Int32Array(slots).fill(-1),
  };
  const totals = { count: new Float64Array(slots), bytes: new Float64Array(slots), busyNs: new Float64Array(slots) };
  const wide = new Candidates();
  const keepMost = Math.max(maxRaw * CANDIDATES_PER_RAW, 1024);

  let first = 0;
  for await (const r of fileRanges(source, survey.layout, OVERVIEW_COLUMNS, signal)) {
    if (!binRange(r, first, g, survey, directSlot, heatSlot, rawMinNs, maxRaw, keepMost, wide, totals)) return undefined;
    first += r.count;
  }

  // The first maxRaw wide events in aggregate's order (lane slot, start, file order) are drawn
  // one by one; any past them are binned as the others were.
  const order = Array.from({ length: wide.length }, (_, j) => j).sort(
    (x, y) => wide.slot[x]! - wide.slot[y]! || wide.startNs[x]! - wide.startNs[y]! || wide.event[x]! - wide.event[y]!,
  );
  const raw = order.slice(0, maxRaw);
  for (const j of order.slice(maxRaw)) {
    const s0 = wide.startNs[j]!;
    const e0 = wide.endNs[j]!;
    const enAbs = e0 > s0 ? e0 : s0;
    bin(g, wide.slot[j]!, s0 - base, enAbs - base, wide.bytes[j]!, wide.path[j]! & 3, wide.flag[j]!, wide.lane[j]!, wide.event[j]!);
  }

  const runs = new Growable();
  for (let slot = 0; slot < slots; slot++) {
    const laneId = request.lanes[slot]!;
    if (capacity[slot] === 0) continue;
    const capacityNs = nsPerBucket * capacity[slot]!;
    const row = slot * buckets;
    for (let b = g.lo[slot]!; b <= g.hi[slot]!; b++) {
      const cell = row + b;
      const used = g.busy[cell]!;
      const n = g.count[cell]!;
      if (used <= 0 && n <= 0) continue;
      let level = 0;
      let p = g.lastPath[cell]!;
      if (used > 0) {
        level = Math.min(LOD_LEVELS, Math.max(1, Math.ceil((used / capacityNs) * LOD_LEVELS - 1e-9)));
        let best = -1;
        for (let q = 0; q < PATH_COUNT; q++) {
          const v = g.pathBusy[cell * PATH_COUNT + q]!;
          if (v > best) {
            best = v;
            p = q;
          }
        }
      }
      runs.push(laneId, b, level, p, g.inferred[cell]!, n, g.bytes[cell]!, used);
    }
  }

  const records: EventRecords = {
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
  const names = new Set<string>();
  for (const j of raw) {
    records.ids.push(wide.event[j]!);
    records.laneOf.push(wide.lane[j]!);
    records.kind.push(wide.kind[j]!);
    records.op.push(wide.op[j]!);
    records.path.push(wide.path[j]!);
    records.gpu.push(wide.gpu[j]!);
    records.lane.push(wide.number[j]!);
    records.id.push(wide.id[j]!);
    records.startNs.push(wide.startNs[j]!);
    records.endNs.push(wide.endNs[j]!);
    records.queuedNs.push(wide.queuedNs[j]!);
    records.bytes.push(wide.bytes[j]!);
    records.flags.push(wide.flag[j]!);
    // sdmatl files carry no names.
    records.label.push(undefined);
    if (wide.kind[j] === KIND_KERNEL && names.size < RAW_KERNEL_NAMES) names.add('');
  }
  return {
    result: {
      startNs: request.startNs,
      endNs: request.endNs,
      buckets,
      raw: Int32Array.from(raw, (j) => wide.event[j]!),
      runs: runs.done(),
      totals: { lane: Int32Array.from(request.lanes), ...totals },
    },
    records,
    rawKernels: [...names],
    ms: performance.now() - t0,
  };
}
