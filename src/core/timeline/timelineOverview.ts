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
 * first `maxRaw` wide ones in lane order), each event in the same bucket (the same arithmetic on
 * the same absolute times), the same counts, and the same bytes and busy times up to the order
 * their floating-point sums are added in. Where it cannot answer exactly (a filter, a lane asked
 * twice, more wide events than it keeps, a grid too large), it declines and the request waits
 * for the index.
 *
 * Both passes can be shared by several threads (src/core/runs/timelineRangeThread.ts): each
 * takes the next range of events not yet taken (`ChunkClaim`), keeps its own part (lanes and
 * counts; a grid, totals and wide events), and the parts are merged. The merge is exact for the
 * lanes, counts and the events drawn one by one; bytes and busy times are the same sums added
 * in another order.
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
import type { LodRequest, LodResult, LodRuns } from './timelineLod';
import { Growable, LOD_LEVELS, spreadBusy } from './timelineLod';
import type { HeatLane, LaneInfo, TimelineMeta } from './timelineModel';
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
/**
 * The largest grid (requested lanes x buckets) the overview bins; a larger one waits for the
 * index. A cell costs 74 bytes, so a grid at most 39 MB, one per reader and one merged (the page's
 * first frame is usually its visible lanes at three times its width: some 200,000 cells).
 */
const OVERVIEW_MAX_CELLS = 1 << 19;
/** Wide events kept while binning, per event the request may draw one by one; more and the overview declines. */
const CANDIDATES_PER_RAW = 4;
const PATH_COUNT = 4;
const LANE_TABLE = 4096;
const GPU_TABLE = 64;

/** A column of the file by name, as TIMELINE_COLUMN_NAMES lists them. */
type ColumnName = (typeof TIMELINE_COLUMN_NAMES)[number];

/** What the survey reads of each event. */
const SURVEY_COLUMNS: readonly ColumnName[] = ['kind', 'gpu', 'lane', 'startNs', 'endNs', 'flags'];
/**
 * What the overview reads: every column (the events drawn one by one carry all but `ref`, and
 * `ref` is read to be checked), so that the two passes refuse exactly the files the whole-file
 * reader refuses, before the page has drawn anything from one.
 */
const OVERVIEW_COLUMNS: readonly ColumnName[] = TIMELINE_COLUMN_NAMES;
/** What the span of the events is read from. */
const SPAN_COLUMNS: readonly ColumnName[] = ['startNs', 'endNs'];

/** The file, as the overview reads it: its size when opened and a positional read. */
export interface OverviewSource {
  fileBytes: number;
  read: ReadAt;
}

/** Hands out the file's ranges of events (OVERVIEW_CHUNK_EVENTS each) in order, each once; past the last, any number past it. */
export interface ChunkClaim {
  next(): number;
  /** Hands out nothing more, to any thread that shares it: a pass given up by one reader ends for all. */
  stop(): void;
}

/** Where a stopped claim stands: past any file's ranges (2^30 ranges of 2^16 events), and far from overflowing. */
const STOPPED = 2 ** 30;

/** A claim of one thread's own. */
export function localClaim(): ChunkClaim {
  let at = 0;
  return {
    next: () => at++,
    stop: () => {
      at = STOPPED;
    },
  };
}

/** A claim shared by threads through the first Int32 of `shared` (zeroed by whoever made it). */
export function sharedClaim(shared: SharedArrayBuffer): ChunkClaim {
  const counter = new Int32Array(shared, 0, 1);
  return { next: () => Atomics.add(counter, 0, 1), stop: () => void Atomics.store(counter, 0, STOPPED) };
}

/**
 * Each event's lane, numbered in the order lanes are first met, as the index's first pass
 * numbers them (a table per GPU and category for numbers below 4096, a map above). Lanes added
 * in the index's order first (`preload`) keep the index's ids.
 */
class LaneFinder {
  readonly lanes: LaneInfo[] = [];
  counts = new Int32Array(64);
  private readonly groupAt = new Int32Array(GPU_TABLE * 8).fill(-1);
  private readonly farGroupAt = new Map<number, number>();
  private tables = new Int32Array(0);
  /** Lane + 1 by kind, GPU below 64 and number below 256 (0: not met yet). */
  private readonly quick = new Int32Array(8 << 14);
  private readonly far = new Map<number, number>();

  constructor(private readonly vendor: TimelineMeta['vendor']) {}

  find(kind: number, gpu: number, rawNumber: number): number {
    // Most events: a lane of a small key, found again in one look.
    const quick = kind < 8 && gpu < 64 && rawNumber < 256 ? (((kind << 6) | gpu) << 8) | rawNumber : -1;
    if (quick >= 0) {
      const known = this.quick[quick]!;
      if (known > 0) return known - 1;
    }
    const categoryIndex = CATEGORY_TABLE[kind]!;
    const number = categoryIndex === CU_CATEGORY || categoryIndex === ENGINE_CATEGORY ? rawNumber : 0;
    const lane = this.findKey(gpu, categoryIndex, number);
    if (quick >= 0) this.quick[quick] = lane + 1;
    return lane;
  }

  /** Lanes by (GPU, category index, number), three numbers each, in order. */
  preload(keys: Float64Array): void {
    for (let k = 0; k + 2 < keys.length; k += 3) this.findKey(keys[k]!, keys[k + 1]!, keys[k + 2]!);
  }

  /** The lanes as (GPU, category index, number) triples, in their order here. */
  keys(): Float64Array {
    return laneKeysOf(this.lanes);
  }

  findKey(gpu: number, categoryIndex: number, number: number): number {
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

/** Lanes as (GPU, category index, number) triples, in order (float64: a number may be any 32-bit value). */
function laneKeysOf(lanes: readonly LaneInfo[]): Float64Array {
  const out = new Float64Array(lanes.length * 3);
  lanes.forEach((lane, i) => {
    out[i * 3] = lane.gpu;
    out[i * 3 + 1] = LANE_CATEGORIES.indexOf(lane.category);
    out[i * 3 + 2] = lane.number;
  });
  return out;
}

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
type RangeBuffers = { name: ColumnName; index: number; width: number; buffer: ArrayBuffer }[];

/** Reads events `from..from+n-1` of every column in `b` (the columns' reads at once). */
async function readRange(source: OverviewSource, layout: TimelineLayout, b: RangeBuffers, from: number, n: number) {
  await Promise.all(
    b.map(async ({ index, width, buffer }) => {
      const want = n * width;
      const into = new Uint8Array(buffer, 0, want);
      const position = layout.offsets[index]! + from * width;
      let got = 0;
      while (got < want) {
        const r = await source.read(into, got, want - got, position + got);
        if (!(Number.isSafeInteger(r) && r >= 0 && r <= want - got))
          throw new TimelineFormatError(
            `timeline file read returned ${r} bytes where at most ${want - got} were asked`,
          );
        if (r === 0)
          throw new TimelineFormatError(
            `timeline file is truncated: it ended at ${position + got} bytes while being read, ${source.fileBytes} expected`,
          );
        got += r;
      }
    }),
  );
}

/** A range of events handed out by fileRanges: its first event and its columns. */
interface FileRange {
  first: number;
  columns: TimelineRange;
}

/**
 * The columns `names` of a file, a range of events at a time (the ranges `claim` hands this
 * reader), into two sets of buffers used in turn: the next range is read while the caller works
 * on this one. Each range is checked before it is handed out, and must not be kept past the next.
 */
async function* fileRanges(
  source: OverviewSource,
  layout: TimelineLayout,
  names: readonly ColumnName[],
  claim: ChunkClaim,
  signal: AbortSignal | undefined,
): AsyncGenerator<FileRange> {
  const widths = timelineColumnWidths(layout.version);
  const count = layout.count;
  const chunk = OVERVIEW_CHUNK_EVENTS;
  const chunks = Math.ceil(count / chunk);
  const size = Math.min(chunk, Math.max(8, Math.ceil(count / 8) * 8));
  const present = names.filter((name) => TIMELINE_COLUMN_NAMES.indexOf(name) < widths.length);
  const set = (): RangeBuffers =>
    present.map((name) => {
      const index = TIMELINE_COLUMN_NAMES.indexOf(name);
      return { name, index, width: widths[index]!, buffer: new ArrayBuffer(size * widths[index]!) };
    });
  const sets = [set(), set()];
  const take = (turn: number) => {
    const c = claim.next();
    if (!(c >= 0 && c < chunks)) return undefined;
    const from = c * chunk;
    const n = Math.min(chunk, count - from);
    const read = readRange(source, layout, sets[turn]!, from, n);
    // A read that fails while another range is worked on is seen at its own await; never unhandled meanwhile.
    read.catch(() => undefined);
    return { from, n, read };
  };
  let turn = 0;
  let next = take(turn);
  while (next) {
    signal?.throwIfAborted();
    const { from, n, read } = next;
    await read;
    next = take(turn ^ 1);
    const columns: TimelineRange = { count: n };
    for (const { name, buffer } of sets[turn]!)
      (columns as Record<string, unknown>)[name] = new VIEWS[name](buffer, 0, n);
    checkTimelineValues(columns, from);
    yield { first: from, columns };
    turn ^= 1;
  }
}

/** The header of the file, checked against its size: where each column starts. */
export async function readLayout(source: OverviewSource): Promise<TimelineLayout> {
  const head = new Uint8Array(TIMELINE_HEADER_BYTES);
  let got = 0;
  while (got < head.length) {
    const r = await source.read(head, got, head.length - got, got);
    if (!(Number.isSafeInteger(r) && r >= 0 && r <= head.length - got))
      throw new TimelineFormatError(
        `timeline file read returned ${r} bytes where at most ${head.length - got} were asked`,
      );
    if (r === 0) break;
    got += r;
  }
  return timelineLayout(head.subarray(0, got), source.fileBytes);
}

/** What one reader's share of the survey found. */
export interface SurveyPart {
  /** Its lanes as (GPU, category index, number) triples, in the order it met them. */
  lanes: Float64Array;
  /** Events per lane, in that order. */
  counts: Int32Array;
  minStart: number;
  maxEnd: number;
  inferred: boolean;
  /** Events it surveyed: the parts' sum must be the file's count. */
  events: number;
}

/** One reader's share of the survey: the ranges `claim` hands it. */
export async function surveyPart(
  source: OverviewSource,
  layout: TimelineLayout,
  claim: ChunkClaim,
  signal?: AbortSignal,
): Promise<SurveyPart> {
  const finder = new LaneFinder('amd');
  let minStart = Infinity;
  let maxEnd = -Infinity;
  let inferred = false;
  let events = 0;
  for await (const { columns: r } of fileRanges(source, layout, SURVEY_COLUMNS, claim, signal)) {
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
    }
    if (flags && !inferred) for (let i = 0; i < r.count; i++) if ((flags[i]! & FLAG_INFERRED) !== 0) inferred = true;
    events += r.count;
  }
  return {
    lanes: finder.keys(),
    counts: finder.counts.slice(0, finder.lanes.length),
    minStart,
    maxEnd,
    inferred,
    events,
  };
}

/** What the survey found: the index the page lays out from, and what the overview bins with. */
export interface TimelineSurvey {
  layout: TimelineLayout;
  index: PageIndex;
  inferred: boolean;
  /** The index's lanes as (GPU, category index, number) triples, in id order. */
  laneKeys: Float64Array;
  ms: number;
}

/**
 * The parts of a survey as one: lanes met by any part, laid out as the index lays them out
 * (layoutLanes), their counts summed, the span the widest. Throws when the parts do not cover
 * the file (a reader stopped early).
 */
export function mergeSurvey(
  layout: TimelineLayout,
  parts: readonly SurveyPart[],
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'>,
  ms: number,
): TimelineSurvey {
  const events = parts.reduce((sum, p) => sum + p.events, 0);
  if (events !== layout.count) throw new Error(`the survey covered ${events} of the timeline's ${layout.count} events`);
  const finder = new LaneFinder(meta.vendor);
  let minStart = Infinity;
  let maxEnd = -Infinity;
  let inferred = false;
  for (const part of parts) {
    for (let j = 0; j < part.counts.length; j++) {
      const id = finder.findKey(part.lanes[j * 3]!, part.lanes[j * 3 + 1]!, part.lanes[j * 3 + 2]!);
      finder.counts[id]! += part.counts[j]!;
    }
    if (part.minStart < minStart) minStart = part.minStart;
    if (part.maxEnd > maxEnd) maxEnd = part.maxEnd;
    inferred ||= part.inferred;
  }
  const n = layout.count;
  const { sorted, laneStart, heat } = layoutLanes(finder.lanes, finder.counts, meta);
  return {
    layout,
    index: { count: n, lanes: sorted, laneStart, startNs: n > 0 ? minStart : 0, endNs: n > 0 ? maxEnd : 1, heat },
    inferred,
    laneKeys: laneKeysOf(sorted),
    ms,
  };
}

/**
 * The first pass in this thread alone: the header and size checked, then every event's lane,
 * the lanes' counts, the time span and whether any event was inferred. Holds nothing per event.
 */
export async function surveyTimeline(
  source: OverviewSource,
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor'>,
  signal?: AbortSignal,
): Promise<TimelineSurvey> {
  const t0 = performance.now();
  signal?.throwIfAborted();
  const layout = await readLayout(source);
  const part = await surveyPart(source, layout, localClaim(), signal);
  return mergeSurvey(layout, [part], meta, performance.now() - t0);
}

/** What the overview answers: a level-of-detail answer as the engine sends it. */
export interface OverviewAnswer {
  result: LodResult;
  records: EventRecords;
  rawKernels: string[];
  ms: number;
}

/** A request made ready to bin, as plain data every reader of the file can be handed. */
export interface BinPlan {
  request: LodRequest;
  buckets: number;
  laneKeys: Float64Array;
  heat: HeatLane[];
  realLanes: number;
}

/**
 * A request checked for what the overview can answer exactly: undefined for a lane asked twice
 * (or a CU lane under two strips), a lane id that is not a whole number, a window that is not
 * finite, or a grid over OVERVIEW_MAX_CELLS.
 */
export function planOverview(survey: TimelineSurvey, request: LodRequest): BinPlan | undefined {
  const buckets = Math.max(1, Math.floor(request.buckets));
  if (!(Number.isFinite(request.startNs) && Number.isFinite(request.endNs))) return undefined;
  if (request.lanes.length * buckets > OVERVIEW_MAX_CELLS) return undefined;
  const realLanes = survey.index.lanes.length;
  const heatOf = new Map(survey.index.heat.map((h) => [h.id, h]));
  const asked = new Set<number>();
  const underStrip = new Set<number>();
  for (const laneId of request.lanes) {
    if (!Number.isSafeInteger(laneId) || laneId < 0 || asked.has(laneId)) return undefined;
    asked.add(laneId);
    for (const cu of heatOf.get(laneId)?.cuLanes ?? []) {
      if (underStrip.has(cu)) return undefined;
      underStrip.add(cu);
    }
  }
  return { request, buckets, laneKeys: survey.laneKeys, heat: survey.index.heat, realLanes };
}

const CANDIDATE_KEYS = [
  'event',
  'slot',
  'lane',
  'kind',
  'op',
  'path',
  'gpu',
  'number',
  'id',
  'startNs',
  'endNs',
  'queuedNs',
  'bytes',
  'flag',
] as const;

/** A part's wide events as plain arrays (what crosses between threads). */
export type CandidateArrays = Pick<Candidates, (typeof CANDIDATE_KEYS)[number] | 'length'>;

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

  /** The arrays cut to the events kept, for another thread or for merging. */
  trimmed(): CandidateArrays {
    const n = this.length;
    const out = { length: n } as CandidateArrays;
    for (const key of CANDIDATE_KEYS) (out as Record<string, unknown>)[key] = this[key].slice(0, n);
    return out;
  }

  /** Another part's wide event `j`, for `slot` and `lane`. */
  pushFrom(other: CandidateArrays, j: number, slot: number, lane: number): void {
    if (this.length === this.event.length) this.grow();
    const at = this.length++;
    for (const key of CANDIDATE_KEYS) (this[key] as Float64Array)[at] = (other[key] as unknown as Float64Array)[j]!;
    this.slot[at] = slot;
    this.lane[at] = lane;
  }

  /** Another part's wide events after these. */
  append(other: CandidateArrays): void {
    while (this.event.length < this.length + other.length) this.grow();
    for (const key of CANDIDATE_KEYS)
      (this[key] as Float64Array).set(other[key] as unknown as Float64Array, this.length);
    this.length += other.length;
  }

  private grow(): void {
    for (const key of CANDIDATE_KEYS) {
      const a = this[key] as Float64Array;
      const out = new (a.constructor as Float64ArrayConstructor)(a.length * 2);
      out.set(a);
      (this as Record<string, unknown>)[key] = out;
    }
  }
}

/** A part's grid: per requested lane and bucket, what aggregate's scratch holds for one lane. */
export interface GridArrays {
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

/** The grid being binned, with the window it bins. */
interface Grid extends GridArrays {
  buckets: number;
  startNs: number;
  endNs: number;
  nsPerBucket: number;
  perNs: number;
}

/** One event into its slot's bucket, as binLane (timelineLod.ts) does it, in absolute times as it does. */
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
  if (
    lane > ll ||
    (lane === ll && (st > g.lastStart[cell]! || (st === g.lastStart[cell]! && event > g.lastEvent[cell]!)))
  ) {
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
      spreadBusy(g.busy, g.pathBusy, row, a, z, b0, b1, startNs, nsPerBucket, path);
    }
  }
  if (b > hi) hi = b;
  g.lo[slot] = lo;
  g.hi[slot] = hi;
}

/** What binRange reads besides the range and the grid. */
interface BinContext {
  finder: LaneFinder;
  /** Per lane: its slot in the request (-1: not asked), and the slot of the strip it sits under. */
  directSlot: Int32Array;
  heatSlot: Int32Array;
  rawMinNs: number;
  maxRaw: number;
  keepMost: number;
  wide: Candidates;
  totals: { count: Float64Array; bytes: Float64Array; busyNs: Float64Array };
}

/** binRange's answers besides the place of an event whose lane is past the grid's: the range is binned, or it cannot be. */
const BINNED = -1;
const DECLINED = -2;

/**
 * One range of events, from its event `from` on, into the grid: each event of a requested lane
 * (and of the CU lanes under a requested occupancy strip) counted in its slot's totals and
 * binned, or kept as a wide event. BINNED when done; DECLINED when there are more wide events
 * than the overview keeps; else the place in the range of an event whose lane is past
 * `directSlot` (one the survey did not see: the file changed; or, binning every lane as they are
 * met, one to make room for before going on from there). The hot loop: the grid's arrays in
 * locals, the bin of an event inside one bucket without a call.
 */
function binRange(r: TimelineRange, first: number, g: Grid, context: BinContext, from = 0): number {
  const { finder, directSlot, heatSlot, rawMinNs, maxRaw, keepMost, wide, totals } = context;
  const realLanes = directSlot.length;
  const kind = r.kind!;
  const gpu = r.gpu!;
  const numbers = r.lane!;
  const starts = r.startNs!;
  const ends = r.endNs!;
  const queuedNs = r.queuedNs!;
  const bytes = r.bytes!;
  const path = r.path!;
  const flags = r.flags;
  const {
    startNs,
    endNs,
    perNs,
    buckets,
    count,
    lastLane,
    lastStart,
    lastEvent,
    lastPath,
    inferred,
    busy,
    pathBusy,
    lo,
    hi,
  } = g;
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
  for (let i = from; i < r.count; i++) {
    const s0 = starts[i]!;
    const e0 = ends[i]!;
    const enAbs = e0 > s0 ? e0 : s0;
    const st = s0;
    const en = enAbs;
    if (st > endNs || en < startNs) continue;
    const k = kind[i]!;
    const gp = gpu[i]!;
    const nb = numbers[i]!;
    if (k !== lastKind || gp !== lastGpu || nb !== lastNumber) {
      lane = finder.find(k, gp, nb);
      if (lane >= realLanes) return i;
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
    // The lane's own slot first (where a wide event is drawn one by one), then its strip's.
    for (let pass = 0; pass < 2; pass++) {
      const slot = pass === 0 ? ds : hs;
      if (slot < 0) continue;
      totalCount[slot]! += 1;
      totalBytes[slot]! += eventBytes;
      totalBusy[slot]! += z - a;
      if (pass === 0 && maxRaw > 0) {
        let visible = s0;
        if (k === KIND_PACKET) {
          const q = queuedNs[i]!;
          if (q >= 0 && q < s0) visible = q;
        }
        if (Math.fround(enAbs - visible) >= rawMinNs) {
          if (wide.length >= keepMost) return DECLINED;
          wide.push(r, i, event, slot, lane);
          continue;
        }
      }
      if (spread) {
        bin(g, slot, st, en, eventBytes, p, flag, lane, event);
        continue;
      }
      const cell = slot * buckets + b;
      count[cell]! += 1;
      binned[cell]! += eventBytes;
      inferred[cell]! |= flag;
      if (b < lo[slot]!) lo[slot] = b;
      if (b > hi[slot]!) hi[slot] = b;
      if (z > a) {
        busy[cell]! += z - a;
        pathBusy[cell * PATH_COUNT + p]! += z - a;
      } else if (lane > lastLane[cell]! || (lane === lastLane[cell] && st >= lastStart[cell]!)) {
        // The latest event matters only to a cell with no busy time (gridRuns colours a busy one
        // by its busiest path, as aggregate does), so only an instant is weighed. In file order a
        // later event of the lane at the same start is later in lane order too.
        lastLane[cell] = lane;
        lastStart[cell] = st;
        lastEvent[cell] = event;
        lastPath[cell] = p;
      }
    }
  }
  return BINNED;
}

/** The window a plan bins: what every reader and the merge derive alike. */
function windowOf(plan: BinPlan) {
  const { request, buckets } = plan;
  const startNs = request.startNs;
  const endNs = request.endNs;
  const spanNs = Math.max(endNs - startNs, 1e-9);
  const nsPerBucket = spanNs / buckets;
  const maxRaw = request.maxRaw ?? 20_000;
  return {
    startNs,
    endNs,
    nsPerBucket,
    perNs: 1 / nsPerBucket,
    rawMinNs: (request.rawMinPx ?? 2) * nsPerBucket,
    maxRaw,
    keepMost: Math.max(maxRaw * CANDIDATES_PER_RAW, 1024),
  };
}

function emptyGrid(plan: BinPlan, slots = plan.request.lanes.length): Grid {
  const w = windowOf(plan);
  const cells = slots * plan.buckets;
  return {
    buckets: plan.buckets,
    startNs: w.startNs,
    endNs: w.endNs,
    nsPerBucket: w.nsPerBucket,
    perNs: w.perNs,
    busy: new Float64Array(cells),
    count: new Float64Array(cells),
    bytes: new Float64Array(cells),
    pathBusy: new Float64Array(cells * PATH_COUNT),
    lastPath: new Uint8Array(cells),
    lastLane: new Int32Array(cells).fill(-1),
    lastStart: new Float64Array(cells),
    lastEvent: new Int32Array(cells),
    inferred: new Uint8Array(cells),
    lo: new Int32Array(slots).fill(plan.buckets),
    hi: new Int32Array(slots).fill(-1),
  };
}

/** One reader's share of the overview: its grid, the lanes' totals over its events, its wide events. */
export interface BinPart {
  grid: GridArrays;
  totals: { count: Float64Array; bytes: Float64Array; busyNs: Float64Array };
  wide: CandidateArrays;
  events: number;
}

/** The buffers under a part, each once: what a thread hands over instead of copying. */
export function binPartBuffers(part: BinPart): ArrayBuffer[] {
  const arrays = [
    ...Object.values(part.grid),
    ...Object.values(part.totals),
    ...CANDIDATE_KEYS.map((key) => part.wide[key]),
  ] as ArrayBufferView[];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/**
 * One reader's share of the overview: the ranges `claim` hands it, binned by `plan`. Undefined
 * when it met more wide events than the overview keeps or a lane the survey did not see.
 */
export async function binPart(
  source: OverviewSource,
  layout: TimelineLayout,
  plan: BinPlan,
  claim: ChunkClaim,
  signal?: AbortSignal,
): Promise<BinPart | undefined> {
  const slots = plan.request.lanes.length;
  const directSlot = new Int32Array(plan.realLanes).fill(-1);
  const heatSlot = new Int32Array(plan.realLanes).fill(-1);
  const heatOf = new Map(plan.heat.map((h) => [h.id, h]));
  plan.request.lanes.forEach((laneId, slot) => {
    if (laneId < plan.realLanes) directSlot[laneId] = slot;
    else for (const cu of heatOf.get(laneId)?.cuLanes ?? []) if (cu < plan.realLanes) heatSlot[cu] = slot;
  });
  const finder = new LaneFinder('amd');
  finder.preload(plan.laneKeys);
  const w = windowOf(plan);
  const g = emptyGrid(plan);
  const context: BinContext = {
    finder,
    directSlot,
    heatSlot,
    rawMinNs: w.rawMinNs,
    maxRaw: w.maxRaw,
    keepMost: w.keepMost,
    wide: new Candidates(),
    totals: { count: new Float64Array(slots), bytes: new Float64Array(slots), busyNs: new Float64Array(slots) },
  };
  let events = 0;
  for await (const { first, columns } of fileRanges(source, layout, OVERVIEW_COLUMNS, claim, signal)) {
    // A lane the survey did not see (the file changed since), or too many wide events.
    if (binRange(columns, first, g, context) !== BINNED) return undefined;
    events += columns.count;
  }
  return partOf(g, context, events);
}

/** What a pass binned, as a part: the grid's arrays, the totals and the wide events. */
function partOf(g: Grid, context: BinContext, events: number): BinPart {
  const { busy, count, bytes, pathBusy, lastPath, lastLane, lastStart, lastEvent, inferred, lo, hi } = g;
  return {
    grid: { busy, count, bytes, pathBusy, lastPath, lastLane, lastStart, lastEvent, inferred, lo, hi },
    totals: context.totals,
    wide: context.wide.trimmed(),
    events,
  };
}

/** Adds a part's grid to the merged one, slot by slot; each bucket's colour from the event latest in aggregate's order. */
function addGrid(g: Grid, p: GridArrays): void {
  for (let slot = 0; slot < g.lo.length; slot++) addRow(g, slot, p, slot);
}

/**
 * The parts of an overview as one answer: grids and totals added, then the first maxRaw wide
 * events in lane order drawn one by one and any past them binned. Undefined when the parts do
 * not cover the file's `count` events or hold more wide events than the overview keeps.
 */
export function mergeBins(
  plan: BinPlan,
  parts: readonly BinPart[],
  count: number,
  t0: number,
): OverviewAnswer | undefined {
  if (parts.reduce((sum, p) => sum + p.events, 0) !== count) return undefined;
  const g = emptyGrid(plan);
  const slots = plan.request.lanes.length;
  const totals = { count: new Float64Array(slots), bytes: new Float64Array(slots), busyNs: new Float64Array(slots) };
  const wide = new Candidates();
  for (const part of parts) {
    addGrid(g, part.grid);
    for (let slot = 0; slot < slots; slot++) {
      totals.count[slot]! += part.totals.count[slot]!;
      totals.bytes[slot]! += part.totals.bytes[slot]!;
      totals.busyNs[slot]! += part.totals.busyNs[slot]!;
    }
    wide.append(part.wide);
  }
  return finishBins(plan, g, totals, wide, t0);
}

/**
 * A request's grid, totals and wide events, all its events in: the first maxRaw wide events in
 * lane order drawn one by one and any past them binned. Undefined with more wide events than
 * the overview keeps.
 */
function finishBins(
  plan: BinPlan,
  g: Grid,
  totals: BinPart['totals'],
  wide: Candidates,
  t0: number,
): OverviewAnswer | undefined {
  const w = windowOf(plan);
  if (wide.length > w.keepMost) return undefined;

  // The first maxRaw wide events in aggregate's order (lane slot, start, file order) are drawn
  // one by one; any past them are binned as the others were.
  const order = Array.from({ length: wide.length }, (_, j) => j).sort(
    (x, y) => wide.slot[x]! - wide.slot[y]! || wide.startNs[x]! - wide.startNs[y]! || wide.event[x]! - wide.event[y]!,
  );
  const raw = order.slice(0, w.maxRaw);
  for (const j of order.slice(w.maxRaw)) {
    const s0 = wide.startNs[j]!;
    const e0 = wide.endNs[j]!;
    const enAbs = e0 > s0 ? e0 : s0;
    bin(g, wide.slot[j]!, s0, enAbs, wide.bytes[j]!, wide.path[j]! & 3, wide.flag[j]!, wide.lane[j]!, wide.event[j]!);
  }

  const request = plan.request;
  return {
    result: {
      startNs: request.startNs,
      endNs: request.endNs,
      buckets: plan.buckets,
      raw: Int32Array.from(raw, (j) => wide.event[j]!),
      runs: gridRuns(plan, g),
      totals: { lane: Int32Array.from(request.lanes), ...totals },
    },
    records: wideRecords(wide, raw),
    rawKernels: raw.some((j) => wide.kind[j] === KIND_KERNEL) ? [''] : [],
    ms: performance.now() - t0,
  };
}

/** The merged grid as aggregate's runs: per slot, each bucket's level and colour, equal neighbours merged. */
function gridRuns(plan: BinPlan, g: Grid): LodRuns {
  const heatOf = new Map(plan.heat.map((h) => [h.id, h]));
  const runs = new Growable();
  const buckets = plan.buckets;
  for (let slot = 0; slot < plan.request.lanes.length; slot++) {
    const laneId = plan.request.lanes[slot]!;
    const heat = laneId >= plan.realLanes ? heatOf.get(laneId) : undefined;
    // A lane that is neither real nor a strip has nothing, as in aggregate.
    if (laneId >= plan.realLanes && !heat) continue;
    const capacityNs = g.nsPerBucket * (heat ? Math.max(1, heat.cuCount) : 1);
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
  return runs.done();
}

/** The records of the events drawn one by one, as eventRecords gives them (sdmatl files carry no names). */
function wideRecords(wide: Candidates, raw: readonly number[]): EventRecords {
  const pick = <T>(column: ArrayLike<T>) => raw.map((j) => column[j]!);
  return {
    ids: pick(wide.event),
    laneOf: pick(wide.lane),
    kind: pick(wide.kind),
    op: pick(wide.op),
    path: pick(wide.path),
    gpu: pick(wide.gpu),
    lane: pick(wide.number),
    id: pick(wide.id),
    startNs: pick(wide.startNs),
    endNs: pick(wide.endNs),
    queuedNs: pick(wide.queuedNs),
    bytes: pick(wide.bytes),
    flags: pick(wide.flag),
    label: raw.map(() => undefined),
  };
}

/**
 * The page's level-of-detail request answered from the file in this thread alone: one more pass
 * over it, binning each event of a requested lane (and of the CU lanes under a requested
 * occupancy strip). Undefined when the overview cannot answer it exactly (the module's comment
 * says when).
 */
export async function overviewLod(
  source: OverviewSource,
  survey: TimelineSurvey,
  request: LodRequest,
  signal?: AbortSignal,
): Promise<OverviewAnswer | undefined> {
  const t0 = performance.now();
  const plan = planOverview(survey, request);
  if (!plan) return undefined;
  const part = await binPart(source, survey.layout, plan, localClaim(), signal);
  return part && mergeBins(plan, [part], survey.layout.count, t0);
}

/**
 * The time span of a file's events: the earliest start and the latest end (an end before its
 * start counts as the start), over every range. The engine does not read it before its pass (it
 * guesses, guessTimelineSpan, and the survey finds the exact span as it goes): this is the exact
 * reference the guess and the overview are checked against.
 */
export async function timelineSpan(
  source: OverviewSource,
  layout: TimelineLayout,
  signal?: AbortSignal,
): Promise<{ minStart: number; maxEnd: number }> {
  const span = newSpan();
  for await (const { columns: r } of fileRanges(source, layout, SPAN_COLUMNS, localClaim(), signal)) spanOf(r, span);
  return { minStart: span[0]!, maxEnd: span[1]! };
}

/**
 * A guess at the time span of a file's events from its first and last ranges alone: a file
 * written in time order (the simulator's, iteration after iteration) has its earliest start in
 * the first and its latest end in the last. Two ranges of two columns, whatever the file's size; what
 * is binned from the guess is used only where the survey's exact span turns out the same.
 */
export async function guessTimelineSpan(
  source: OverviewSource,
  layout: TimelineLayout,
  signal?: AbortSignal,
): Promise<{ minStart: number; maxEnd: number }> {
  const last = Math.ceil(layout.count / OVERVIEW_CHUNK_EVENTS) - 1;
  const ranges = last > 0 ? [0, last] : [0];
  let at = 0;
  const claim: ChunkClaim = {
    next: () => (at < ranges.length ? ranges[at++]! : STOPPED),
    stop: () => {
      at = ranges.length;
    },
  };
  const span = newSpan();
  for await (const { columns: r } of fileRanges(source, layout, SPAN_COLUMNS, claim, signal)) spanOf(r, span);
  return { minStart: span[0]!, maxEnd: span[1]! };
}

/** A span before any event: the earliest start (0) and latest end (1) as a pair of numbers. */
function newSpan(): Float64Array {
  return Float64Array.of(Infinity, -Infinity);
}

/**
 * `span` (newSpan's pair) widened to the events of `r`. A typed pair, not an object: the loop
 * is compiled while it runs, and its stores at the end then have the same shape every call.
 */
function spanOf(r: TimelineRange, span: Float64Array): void {
  const startNs = r.startNs!;
  const endNs = r.endNs!;
  let minStart = span[0]!;
  let maxEnd = span[1]!;
  for (let i = 0; i < r.count; i++) {
    const st = startNs[i]!;
    const e0 = endNs[i]!;
    const en = e0 > st ? e0 : st;
    if (st < minStart) minStart = st;
    if (en > maxEnd) maxEnd = en;
  }
  span[0] = minStart;
  span[1] = maxEnd;
}

/**
 * One reader's share of a request binned for every lane as its lanes were met: what answerAhead
 * answers the page's first request from, every reader's share together.
 */
export interface BinnedAhead {
  /** The request binned, but for its lanes. */
  request: Omit<LodRequest, 'lanes'>;
  /** Its lanes as (GPU, category index, number) triples, in the order it met them: row i of the part is lane i's. */
  keys: Float64Array;
  part: BinPart;
}

/** One reader's share of the pass that is both the survey and the binning of the first view. */
export interface SurveyBinPart {
  survey: SurveyPart;
  binned: BinnedAhead;
}

/**
 * One pass over the file in this thread alone that is both the survey and the binning of the
 * page's first request (`ahead`: its window and buckets, known before the lanes are); when it
 * cannot bin (surveyAndBinPart), the file surveyed afresh and `binned` absent: the page's request
 * is then binned when it comes (overviewLod).
 */
export async function surveyAndBin(
  source: OverviewSource,
  layout: TimelineLayout,
  ahead: Omit<LodRequest, 'lanes'>,
  signal?: AbortSignal,
): Promise<{ survey: SurveyPart; binned?: BinnedAhead }> {
  const part = await surveyAndBinPart(source, layout, ahead, localClaim(), signal);
  if (part && part.survey.events === layout.count) return part;
  return { survey: await surveyPart(source, layout, localClaim(), signal) };
}

/**
 * One reader's share of the pass that both surveys the file and bins the page's first request
 * (`ahead`): the ranges `claim` hands it, every event binned in the row of its lane, rows added
 * as lanes are met. The survey's counts are the rows' totals, so the pass reads every column
 * once and finds each event's lane once; several readers sharing the claim each bin their own
 * rows, and answerAhead merges them.
 *
 * Undefined when it cannot bin every lane (more rows than OVERVIEW_MAX_CELLS allows, more wide
 * events than the overview keeps, an event outside the window: the file changed since its span
 * was read); it then stops the claim, so that every reader sharing it stops too, and the caller
 * surveys the file afresh.
 */
export async function surveyAndBinPart(
  source: OverviewSource,
  layout: TimelineLayout,
  ahead: Omit<LodRequest, 'lanes'>,
  claim: ChunkClaim,
  signal?: AbortSignal,
): Promise<SurveyBinPart | undefined> {
  const request = { ...ahead, lanes: [] };
  const plan: BinPlan = {
    request,
    buckets: Math.max(1, Math.floor(ahead.buckets)),
    laneKeys: new Float64Array(0),
    heat: [],
    realLanes: 0,
  };
  const w = windowOf(plan);
  const mostRows = Math.floor(OVERVIEW_MAX_CELLS / plan.buckets);
  const finder = new LaneFinder('amd');
  let rows = 0;
  let g = emptyGrid(plan, rows);
  const context: BinContext = {
    finder,
    directSlot: new Int32Array(0),
    heatSlot: new Int32Array(0),
    rawMinNs: w.rawMinNs,
    maxRaw: w.maxRaw,
    keepMost: w.keepMost,
    wide: new Candidates(),
    totals: { count: new Float64Array(0), bytes: new Float64Array(0), busyNs: new Float64Array(0) },
  };
  const span = newSpan();
  let inferred = false;
  let events = 0;
  for await (const { first, columns: r } of fileRanges(source, layout, OVERVIEW_COLUMNS, claim, signal)) {
    spanOf(r, span);
    const flags = r.flags;
    if (flags && !inferred) for (let i = 0; i < r.count; i++) if ((flags[i]! & FLAG_INFERRED) !== 0) inferred = true;
    events += r.count;
    // The first range's lanes found first, so that the grid is made once for most files.
    if (rows === 0) findLanes(r, finder);
    for (
      let at = rows === 0 ? 0 : binRange(r, first, g, context);
      at !== BINNED;
      at = binRange(r, first, g, context, at)
    ) {
      const needed = finder.lanes.length;
      if (at === DECLINED || needed > mostRows) {
        claim.stop();
        return undefined;
      }
      // Room for the lanes met so far and a quarter more: each row is its lane's.
      rows = Math.min(mostRows, Math.max(needed + (needed >> 2), rows * 2, 8));
      g = grownGrid(g, emptyGrid(plan, rows));
      context.directSlot = Int32Array.from({ length: rows }, (_, row) => row);
      context.heatSlot = new Int32Array(rows).fill(-1);
      context.totals = {
        count: grown(context.totals.count, rows),
        bytes: grown(context.totals.bytes, rows),
        busyNs: grown(context.totals.busyNs, rows),
      };
    }
  }
  const lanes = finder.lanes.length;
  const counted = context.totals.count.subarray(0, lanes).reduce((sum, n) => sum + n, 0);
  // Every event in a row, or the survey's counts would be short (an event outside the window).
  if (counted !== events) {
    claim.stop();
    return undefined;
  }
  const keys = finder.keys();
  return {
    survey: {
      lanes: keys,
      counts: Int32Array.from(context.totals.count.subarray(0, lanes)),
      minStart: span[0]!,
      maxEnd: span[1]!,
      inferred,
      events,
    },
    binned: { request: ahead, keys, part: partOf(g, context, events) },
  };
}

/** Each event's lane in `r` found (added to `finder` when new), in the order they are met. */
function findLanes(r: TimelineRange, finder: LaneFinder): void {
  const kind = r.kind!;
  const gpu = r.gpu!;
  const numbers = r.lane!;
  let lastKind = -1;
  let lastGpu = -1;
  let lastNumber = -1;
  for (let i = 0; i < r.count; i++) {
    const k = kind[i]!;
    const gp = gpu[i]!;
    const nb = numbers[i]!;
    if (k === lastKind && gp === lastGpu && nb === lastNumber) continue;
    finder.find(k, gp, nb);
    lastKind = k;
    lastGpu = gp;
    lastNumber = nb;
  }
}

/** `into` with the cells and rows of `from` copied in (`into` has at least as many rows). */
function grownGrid(from: Grid, into: Grid): Grid {
  for (const key of [
    'busy',
    'count',
    'bytes',
    'pathBusy',
    'lastPath',
    'lastLane',
    'lastStart',
    'lastEvent',
    'inferred',
    'lo',
    'hi',
  ] as const)
    (into[key] as Float64Array).set(from[key] as unknown as Float64Array);
  return into;
}

function grown(a: Float64Array, length: number): Float64Array {
  const out = new Float64Array(length);
  out.set(a);
  return out;
}

/**
 * The page's request answered from the lanes binned ahead (surveyAndBinPart, every reader's
 * share), when it is the request binned: each asked lane's rows as they are (the same sums in
 * the same order as binPart's, a lane's rows from several shares added as mergeBins adds parts),
 * an occupancy strip's CU rows added (their wide events binned into it, as binRange bins them
 * there), then finished as binPart's parts would be. Undefined when the request is another (a
 * window, buckets or event widths of its own), the shares do not cover the file, or the overview
 * cannot answer it exactly.
 */
export function answerAhead(
  survey: TimelineSurvey,
  binned: readonly BinnedAhead[],
  request: LodRequest,
): OverviewAnswer | undefined {
  const t0 = performance.now();
  if (binned.length === 0 || binned.some((b) => !sameAhead(b.request, request))) return undefined;
  if (binned.reduce((sum, b) => sum + b.part.events, 0) !== survey.layout.count) return undefined;
  const plan = planOverview(survey, request);
  if (!plan) return undefined;
  const slots = request.lanes.length;
  const g = emptyGrid(plan);
  const totals = { count: new Float64Array(slots), bytes: new Float64Array(slots), busyNs: new Float64Array(slots) };
  const wide = new Candidates();
  const heatOf = new Map(plan.heat.map((h) => [h.id, h]));
  // Every lane of the index met by some share, as it is when the survey is these shares' own.
  const metBy = new Uint8Array(plan.realLanes);
  for (const share of binned) {
    const from = share.part;
    const met = share.keys.length / 3;
    // Each lane of the index: its row in this share (the order it met the lanes in), -1 where it met none of its events.
    const finder = new LaneFinder('amd');
    finder.preload(share.keys);
    const rowOf = new Int32Array(plan.realLanes);
    const laneOfRow = new Int32Array(met).fill(-1);
    for (let id = 0; id < plan.realLanes; id++) {
      const row = finder.findKey(plan.laneKeys[id * 3]!, plan.laneKeys[id * 3 + 1]!, plan.laneKeys[id * 3 + 2]!);
      rowOf[id] = row < met ? row : -1;
      if (row < met) {
        laneOfRow[row] = id;
        metBy[id] = 1;
      }
    }
    // A lane this share met that the index does not have: not the survey these shares made.
    if (laneOfRow.some((id) => id < 0)) return undefined;
    const directOf = new Int32Array(met).fill(-1);
    const stripOf = new Int32Array(met).fill(-1);
    const take = (slot: number, laneId: number) => {
      const row = rowOf[laneId]!;
      if (row < 0) return -1;
      addRow(g, slot, from.grid, row, laneId);
      totals.count[slot]! += from.totals.count[row]!;
      totals.bytes[slot]! += from.totals.bytes[row]!;
      totals.busyNs[slot]! += from.totals.busyNs[row]!;
      return row;
    };
    request.lanes.forEach((laneId, slot) => {
      if (laneId < plan.realLanes) {
        const row = take(slot, laneId);
        if (row >= 0) directOf[row] = slot;
      } else
        for (const cu of heatOf.get(laneId)?.cuLanes ?? []) {
          if (cu >= plan.realLanes) continue;
          const row = take(slot, cu);
          if (row >= 0) stripOf[row] = slot;
        }
    });
    const w = from.wide;
    for (let j = 0; j < w.length; j++) {
      const row = w.lane[j]!;
      const laneId = laneOfRow[row]!;
      if (directOf[row]! >= 0) wide.pushFrom(w, j, directOf[row]!, laneId);
      if (stripOf[row]! >= 0) {
        const s0 = w.startNs[j]!;
        const e0 = w.endNs[j]!;
        bin(g, stripOf[row]!, s0, e0 > s0 ? e0 : s0, w.bytes[j]!, w.path[j]! & 3, w.flag[j]!, laneId, w.event[j]!);
      }
    }
  }
  if (metBy.includes(0)) return undefined;
  return finishBins(plan, g, totals, wide, t0);
}

/** Whether `request` is the one binned ahead as `a`, but for its lanes. */
function sameAhead(a: Omit<LodRequest, 'lanes'>, request: LodRequest): boolean {
  return (
    request.startNs === a.startNs &&
    request.endNs === a.endNs &&
    Math.max(1, Math.floor(request.buckets)) === Math.max(1, Math.floor(a.buckets)) &&
    (request.rawMinPx ?? 2) === (a.rawMinPx ?? 2) &&
    (request.maxRaw ?? 20_000) === (a.maxRaw ?? 20_000)
  );
}

/**
 * Row `row` of a part's grid added to slot `slot` of `g`; each bucket's colour from the event
 * latest in aggregate's order (lane, start, file order). `laneId`: the one lane the row holds,
 * by its id in the index (the row's own record of its lanes otherwise).
 */
function addRow(g: Grid, slot: number, p: GridArrays, row: number, laneId?: number): void {
  const buckets = g.buckets;
  for (let b = 0; b < buckets; b++) {
    const c = row * buckets + b;
    if (p.count[c] === 0 && p.busy[c] === 0) continue;
    const t = slot * buckets + b;
    g.busy[t]! += p.busy[c]!;
    g.count[t]! += p.count[c]!;
    g.bytes[t]! += p.bytes[c]!;
    for (let q = 0; q < PATH_COUNT; q++) g.pathBusy[t * PATH_COUNT + q]! += p.pathBusy[c * PATH_COUNT + q]!;
    g.inferred[t]! |= p.inferred[c]!;
    if (p.lastLane[c]! < 0) continue;
    const lane = laneId ?? p.lastLane[c]!;
    const st = p.lastStart[c]!;
    const ev = p.lastEvent[c]!;
    const ll = g.lastLane[t]!;
    if (lane > ll || (lane === ll && (st > g.lastStart[t]! || (st === g.lastStart[t]! && ev > g.lastEvent[t]!)))) {
      g.lastLane[t] = lane;
      g.lastStart[t] = st;
      g.lastEvent[t] = ev;
      g.lastPath[t] = p.lastPath[c]!;
    }
  }
  if (p.lo[row]! < g.lo[slot]!) g.lo[slot] = p.lo[row]!;
  if (p.hi[row]! > g.hi[slot]!) g.hi[slot] = p.hi[row]!;
}
