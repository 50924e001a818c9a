/**
 * The overview of a host-held timeline (timelineOverview.ts) against the built index: its survey
 * must lay out the same lanes as buildIndexAndLod, and its level of detail must be what
 * aggregate answers for the same request on the built index.
 */
import { describe, expect, it } from 'vitest';
import {
  emptyColumns,
  type ReadAt,
  type TimelineColumns,
  TimelineFormatError,
} from '../../src/core/timeline/timelineFile';
import { aggregate, type LodRequest } from '../../src/core/timeline/timelineLod';
import { buildIndexAndLod } from '../../src/core/timeline/timelineModel';
import {
  OVERVIEW_CHUNK_EVENTS,
  answerAhead,
  binPart,
  guessTimelineSpan,
  mergeBins,
  mergeSurvey,
  overviewLod,
  planOverview,
  readLayout,
  sharedClaim,
  surveyAndBin,
  surveyAndBinPart,
  surveyPart,
  surveyTimeline,
  timelineSpan,
} from '../../src/core/timeline/timelineOverview';
import { fitAllWindow, lodWindow } from '../../src/core/timeline/timelineView';
import { eventRecords } from '../../src/core/timeline/timelineQueries';
import { random } from '../support/bigRun';
import { repeated, sdmatlBytes } from './timelineFixture';

const META = { gpuCus: [80, 0, 64], vendor: 'amd' as const };

interface Shape {
  events: number;
  /** Added to every time: past 2^32 ns of span the compact columns keep float64 times. */
  spanNs: number;
  fractional?: boolean;
  /** Probability that an event is long (drawn one by one at the whole window). */
  wide?: number;
}

/** Random events over a few GPUs and every kind: lanes in and out of time order, ties, instants, queued packets, flags. */
function randomTimeline(seed: number, shape: Shape): TimelineColumns {
  const r = random(seed);
  const n = shape.events;
  const t = emptyColumns(n, true);
  t.flags = new Uint8Array(n);
  let clock = 0;
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(r() * 5);
    t.kind[i] = kind;
    t.gpu[i] = [0, 2, 7][Math.floor(r() * 3)]!;
    t.lane[i] =
      kind === 1 ? Math.floor(r() * 12) : kind === 2 || kind === 3 ? [0, 1, 0xffff, 5000][Math.floor(r() * 4)]! : 0;
    t.op[i] = Math.floor(r() * 3);
    t.path[i] = Math.floor(r() * 4);
    t.id[i] = i;
    // Mostly forward in time, sometimes back (a lane out of order), sometimes the same start (ties).
    const step = r() < 0.1 ? -Math.floor(r() * 5000) : r() < 0.1 ? 0 : Math.floor(r() * (shape.spanNs / n) * 2);
    clock = Math.max(0, clock + step);
    let start = clock;
    if (shape.fractional) start += Math.floor(r() * 4) / 4;
    const long = r() < (shape.wide ?? 0.01);
    const length = kind === 3 ? 0 : long ? Math.floor(shape.spanNs * (0.02 + r() * 0.2)) : Math.floor(r() * 3000);
    t.startNs[i] = start;
    t.endNs[i] = r() < 0.02 ? start - 1 : start + length;
    t.queuedNs[i] = kind === 2 && r() < 0.7 ? Math.max(0, start - Math.floor(r() * 20000)) : -1;
    t.bytes[i] = kind === 3 ? 0 : Math.floor(r() * 2 ** 26);
    t.ref[i] = kind === 3 && i + 1 < n ? i + 1 : -1;
    t.flags[i] = r() < 0.05 ? 1 : 0;
  }
  return t;
}

function source(bytes: Uint8Array) {
  const read: ReadAt = async (buffer, offset, length, position) => {
    const part = bytes.subarray(position, Math.min(bytes.length, position + length));
    buffer.set(part, offset);
    return part.length;
  };
  return { fileBytes: bytes.length, read };
}

/** Every lane and every occupancy strip. */
function allLanes(index: { lanes: unknown[]; heat: { id: number }[] }): number[] {
  return [...index.lanes.keys(), ...index.heat.map((h) => h.id)];
}

async function both(t: TimelineColumns, request: (index: ReturnType<typeof buildIndexAndLod>['index']) => LodRequest) {
  const built = buildIndexAndLod(t, META, true, true);
  const src = source(sdmatlBytes(t));
  const survey = await surveyTimeline(src, META);
  const req = request(built.index);
  const expected = aggregate(built.lod!, built.index, req);
  const got = await overviewLod(src, survey, req);
  return { built, survey, req, expected, got };
}

describe('surveyTimeline', () => {
  it('lays out the lanes, counts, span and occupancy strips as the built index does', async () => {
    for (const seed of [1, 2, 3]) {
      const t = randomTimeline(seed, { events: 3000, spanNs: 5e6 });
      const { built, survey } = await both(t, (index) => ({
        startNs: index.startNs,
        endNs: index.endNs,
        buckets: 64,
        lanes: [0],
      }));
      const { count, lanes, laneStart, startNs, endNs, heat } = built.index;
      expect(survey.index).toEqual({ count, lanes, laneStart, startNs, endNs, heat });
      expect(survey.inferred).toBe(true);
    }
  });

  it('reads a timeline larger than one range of events, and names a bad value by its event in the file', async () => {
    const t = repeated(Math.ceil((OVERVIEW_CHUNK_EVENTS * 1.5) / 18));
    const src = source(sdmatlBytes(t));
    const survey = await surveyTimeline(src, META);
    expect(survey.index.count).toBe(t.count);
    const bad = OVERVIEW_CHUNK_EVENTS + 17;
    t.kind[bad] = 9;
    const broken = source(sdmatlBytes(t));
    await expect(surveyTimeline(broken, META)).rejects.toThrow(
      new TimelineFormatError(`timeline file event ${bad}: kind 9 is not one of 0..4`),
    );
  });

  it('refuses a file whose size is not what its header says, and a read past the end', async () => {
    const bytes = sdmatlBytes(repeated(3));
    await expect(surveyTimeline(source(bytes.subarray(0, bytes.length - 8)), META)).rejects.toThrow(/truncated/);
    const shrinking = { fileBytes: bytes.length, read: source(bytes.subarray(0, 200)).read };
    await expect(surveyTimeline(shrinking, META)).rejects.toThrow(/truncated/);
  });

  it('stops at a cancelled signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(surveyTimeline(source(sdmatlBytes(repeated(3))), META, controller.signal)).rejects.toThrow(
      'cancelled',
    );
  });
});

describe('overviewLod', () => {
  // A window of buckets x 2^k ns: every bucket boundary and overlap is exact, so the answers
  // must be equal to the last bit whatever order the sums were added in.
  const exactWindow =
    (buckets: number) => (index: { startNs: number; endNs: number; lanes: unknown[]; heat: { id: number }[] }) => {
      const width = 2 ** Math.ceil(Math.log2((index.endNs - index.startNs) / buckets + 1));
      return { startNs: index.startNs, endNs: index.startNs + width * buckets, buckets, lanes: allLanes(index) };
    };

  it('answers the whole window exactly as aggregate does on the built index', async () => {
    for (const seed of [11, 12, 13, 14]) {
      const t = randomTimeline(seed, { events: 4000, spanNs: 8e6 });
      const { built, expected, got } = await both(t, exactWindow(512));
      expect(got, `seed ${seed}`).toBeDefined();
      expect(got!.result.raw.length, `seed ${seed}: some events are drawn one by one`).toBeGreaterThan(0);
      expect(got!.result).toEqual(expected);
      expect(got!.records).toEqual(eventRecords(t, built.index, expected.raw));
    }
  });

  it('answers exactly with float64 times (a span past 2^32 ns) and with fractional times', async () => {
    for (const shape of [
      { events: 3000, spanNs: 2 ** 33 },
      { events: 3000, spanNs: 4e6, fractional: true },
    ]) {
      const t = randomTimeline(21, shape);
      const { expected, got } = await both(t, exactWindow(300));
      expect(got!.result).toEqual(expected);
    }
  });

  it('bins the wide events past maxRaw as aggregate does (the first ones in lane order are drawn)', async () => {
    const t = randomTimeline(31, { events: 3000, spanNs: 8e6, wide: 0.1 });
    const { expected, got } = await both(t, (index) => ({ ...exactWindow(256)(index), maxRaw: 40 }));
    expect(expected.raw.length).toBe(40);
    expect(got!.result).toEqual(expected);
  });

  it('answers a zoomed window and a subset of lanes', async () => {
    const t = randomTimeline(41, { events: 4000, spanNs: 8e6 });
    const { expected, got } = await both(t, (index) => ({
      startNs: index.startNs + 2 ** 20,
      endNs: index.startNs + 2 ** 20 + 2 ** 12 * 200,
      buckets: 200,
      lanes: [index.heat[0]!.id, 3, 0, 5, 99_999],
    }));
    expect(got!.result).toEqual(expected);
  });

  it('keeps every count and byte for any window (busy time up to summation order)', async () => {
    const t = randomTimeline(51, { events: 4000, spanNs: 7.3e6 });
    const { expected, got } = await both(t, (index) => ({
      startNs: index.startNs + 1234.5,
      endNs: index.endNs - 777,
      buckets: 333,
      lanes: allLanes(index),
    }));
    const a = got!.result;
    expect(a.totals.count).toEqual(expected.totals.count);
    expect(a.raw).toEqual(expected.raw);
    const sum = (x: Float64Array) => x.reduce((s, v) => s + v, 0);
    expect(sum(a.runs.count)).toBe(sum(expected.runs.count));
    expect(sum(a.runs.bytes)).toBe(sum(expected.runs.bytes));
    expect(Math.abs(sum(a.totals.busyNs) - sum(expected.totals.busyNs))).toBeLessThanOrEqual(
      1e-6 * sum(expected.totals.busyNs),
    );
  });

  it('declines what it cannot answer exactly: a lane asked twice, too many wide events, a grid too large', async () => {
    const t = randomTimeline(61, { events: 3000, spanNs: 8e6, wide: 0.6 });
    const src = source(sdmatlBytes(t));
    const survey = await surveyTimeline(src, META);
    const window = { startNs: survey.index.startNs, endNs: survey.index.endNs };
    expect(await overviewLod(src, survey, { ...window, buckets: 100, lanes: [1, 1] })).toBeUndefined();
    // More than 1,024 wide events, and room to draw 10 of them one by one.
    const real = [...survey.index.lanes.keys()];
    expect(await overviewLod(src, survey, { ...window, buckets: 100, lanes: real, maxRaw: 10 })).toBeUndefined();
    expect(
      await overviewLod(src, survey, { ...window, buckets: 20_000, lanes: Array.from({ length: 60 }, (_, i) => i) }),
    ).toBeUndefined();
    expect(await overviewLod(src, survey, { ...window, buckets: 100, lanes: [0, 1, 2] })).toBeDefined();
  });
});

describe('the overview shared by several readers', () => {
  it('parts that take ranges in turn merge into the one-reader survey and the aggregate answer', async () => {
    const t = randomTimeline(71, { events: OVERVIEW_CHUNK_EVENTS * 3 + 1234, spanNs: 6e8 });
    const built = buildIndexAndLod(t, META, true, true);
    const src = source(sdmatlBytes(t));
    const layout = await readLayout(src);
    // Three readers share one claim; their awaits interleave, so each gets some of the ranges.
    const claim = sharedClaim(new SharedArrayBuffer(4));
    const parts = await Promise.all([0, 1, 2].map(() => surveyPart(src, layout, claim)));
    expect(parts.filter((p) => p.events > 0).length).toBeGreaterThan(1);
    const survey = mergeSurvey(layout, parts, META, 0);
    const alone = await surveyTimeline(src, META);
    expect(survey.index).toEqual(alone.index);
    expect(survey.laneKeys).toEqual(alone.laneKeys);

    const width = 2 ** Math.ceil(Math.log2((survey.index.endNs - survey.index.startNs) / 640 + 1));
    const request = {
      startNs: survey.index.startNs,
      endNs: survey.index.startNs + width * 640,
      buckets: 640,
      lanes: allLanes(survey.index),
    };
    const plan = planOverview(survey, request)!;
    const binClaim = sharedClaim(new SharedArrayBuffer(4));
    const binned = await Promise.all([0, 1].map(() => binPart(src, layout, plan, binClaim)));
    expect(binned.every((p) => p && p.events > 0)).toBe(true);
    const merged = mergeBins(
      plan,
      binned.map((p) => p!),
      t.count,
      0,
    )!;
    expect(merged.result).toEqual(aggregate(built.lod!, built.index, request));
    // A part missing (a reader that stopped) is not an answer.
    expect(mergeBins(plan, [binned[0]!], t.count, 0)).toBeUndefined();
    expect(() => mergeSurvey(layout, [parts[0]!], META, 0)).toThrow(/covered/);
  });
});

describe('surveyAndBin: the survey that bins the first view as it goes', () => {
  /** The span read first, then the one pass: the survey as mergeSurvey lays it out, and what was binned. */
  async function ahead(
    t: TimelineColumns,
    view: (span: { minStart: number; maxEnd: number }) => Omit<LodRequest, 'lanes'>,
  ) {
    const src = source(sdmatlBytes(t));
    const layout = await readLayout(src);
    const span = await timelineSpan(src, layout);
    const spec = view(span);
    const { survey, binned } = await surveyAndBin(src, layout, spec);
    return { src, spec, survey: mergeSurvey(layout, [survey], META, 0), binned };
  }
  // Buckets of 2^k ns from the first start: every sum exact whatever its order.
  const exact = (buckets: number) => (span: { minStart: number; maxEnd: number }) => {
    const width = 2 ** Math.ceil(Math.log2((span.maxEnd - span.minStart) / buckets + 1));
    return { startNs: span.minStart, endNs: span.minStart + width * buckets, buckets };
  };

  it('surveys as surveyTimeline does and answers any lanes of the request it binned as aggregate does', async () => {
    for (const seed of [81, 82, 83]) {
      const t = randomTimeline(seed, { events: 5000, spanNs: 9e6 });
      const built = buildIndexAndLod(t, META, true, true);
      const { spec, survey, binned } = await ahead(t, exact(256));
      expect(survey.index).toEqual((await surveyTimeline(source(sdmatlBytes(t)), META)).index);
      expect(survey.inferred).toBe(true);
      expect(binned).toBeDefined();
      const all = allLanes(built.index);
      const strip = built.index.heat[0]!.id;
      for (const lanes of [all, [strip, 3, 0, 5, 99_999], [...all].reverse(), [strip]]) {
        const request = { ...spec, lanes };
        const got = answerAhead(survey, [binned!], request);
        const expected = aggregate(built.lod!, built.index, request);
        expect(got, `seed ${seed}, lanes ${lanes.join(',')}`).toBeDefined();
        expect(got!.result).toEqual(expected);
        expect(got!.records).toEqual(eventRecords(t, built.index, expected.raw));
      }
    }
  });

  it('answers the whole-timeline view the page asks first (its window from timelineView.ts), the wide events past maxRaw binned', async () => {
    const t = randomTimeline(84, { events: 4000, spanNs: 7.7e6, wide: 0.05 });
    const built = buildIndexAndLod(t, META, true, true);
    const { spec, survey, binned } = await ahead(t, (span) => {
      const whole = fitAllWindow(span.minStart, span.maxEnd);
      return { ...lodWindow(whole.from, whole.to), buckets: 1234, rawMinPx: 2, maxRaw: 30 };
    });
    const request = { ...spec, lanes: allLanes(built.index) };
    const got = answerAhead(survey, [binned!], request)!;
    const expected = aggregate(built.lod!, built.index, request);
    expect(expected.raw.length).toBe(30);
    // Counts, the events drawn one by one and every lane's own row are exact; a strip's busy time
    // is the same sum added lane by lane.
    expect(got.result.raw).toEqual(expected.raw);
    expect(got.result.totals.count).toEqual(expected.totals.count);
    expect(got.result.runs.count).toEqual(expected.runs.count);
    expect(got.result.runs.b0).toEqual(expected.runs.b0);
    expect(got.result.runs.level).toEqual(expected.runs.level);
    for (let j = 0; j < expected.runs.busyNs.length; j++)
      expect(Math.abs(got.result.runs.busyNs[j]! - expected.runs.busyNs[j]!)).toBeLessThanOrEqual(
        1e-9 * expected.runs.busyNs[j]!,
      );
  });

  it('answers only the request it binned: another window, bucket count, width or maxRaw is not its', async () => {
    const t = randomTimeline(85, { events: 2000, spanNs: 5e6 });
    const { spec, survey, binned } = await ahead(t, exact(128));
    const lanes = [0, 1];
    expect(answerAhead(survey, [binned!], { ...spec, lanes })).toBeDefined();
    for (const other of [
      { startNs: spec.startNs + 1 },
      { endNs: spec.endNs * 2 },
      { buckets: 129 },
      { rawMinPx: 3 },
      { maxRaw: 5 },
    ])
      expect(answerAhead(survey, [binned!], { ...spec, ...other, lanes }), JSON.stringify(other)).toBeUndefined();
    // A lane asked twice, as overviewLod declines it.
    expect(answerAhead(survey, [binned!], { ...spec, lanes: [1, 1] })).toBeUndefined();
  });

  it('gives the binning up but still surveys: too many wide events, too many lanes for its grid, an event outside the window', async () => {
    const wide = randomTimeline(86, { events: 3000, spanNs: 8e6, wide: 0.6 });
    const lone = (await surveyTimeline(source(sdmatlBytes(wide)), META)).index;
    const tooWide = await ahead(wide, (span) => ({ ...exact(100)(span), maxRaw: 10 }));
    expect(tooWide.binned).toBeUndefined();
    expect(tooWide.survey.index).toEqual(lone);
    // 2^19 cells: 60 lanes of 20,000 buckets do not fit.
    const tooMany = await ahead(wide, (span) => ({ ...exact(20_000)(span) }));
    expect(tooMany.binned).toBeUndefined();
    expect(tooMany.survey.index).toEqual(lone);
    const outside = await ahead(wide, (span) => ({
      startNs: span.minStart,
      endNs: (span.minStart + span.maxEnd) / 2,
      buckets: 100,
    }));
    expect(outside.binned).toBeUndefined();
    expect(outside.survey.index).toEqual(lone);
  });

  it('bins a file larger than one range, whose lanes first appear past the first range', async () => {
    const t = randomTimeline(87, { events: OVERVIEW_CHUNK_EVENTS * 2 + 500, spanNs: 3e8 });
    // The GPU 7 lanes start only in the last range: rows are added for them there.
    for (let i = 0; i < OVERVIEW_CHUNK_EVENTS * 2; i++) if (t.gpu[i] === 7) t.gpu[i] = 2;
    const built = buildIndexAndLod(t, META, true, true);
    const { spec, survey, binned } = await ahead(t, exact(512));
    expect(survey.index).toEqual((await surveyTimeline(source(sdmatlBytes(t)), META)).index);
    const request = { ...spec, lanes: allLanes(built.index) };
    expect(answerAhead(survey, [binned!], request)!.result).toEqual(aggregate(built.lod!, built.index, request));
  });

  it('is shared by readers taking ranges in turn: their shares answer as aggregate does; one that cannot bin stops them all', async () => {
    const t = randomTimeline(88, { events: OVERVIEW_CHUNK_EVENTS * 3 + 777, spanNs: 4e8 });
    const built = buildIndexAndLod(t, META, true, true);
    const src = source(sdmatlBytes(t));
    const layout = await readLayout(src);
    const spec = exact(512)(await timelineSpan(src, layout));
    const claim = sharedClaim(new SharedArrayBuffer(4));
    const shares = await Promise.all([0, 1, 2].map(() => surveyAndBinPart(src, layout, spec, claim)));
    expect(shares.every((share) => share !== undefined)).toBe(true);
    expect(shares.filter((share) => share!.survey.events > 0).length).toBeGreaterThan(1);
    const survey = mergeSurvey(
      layout,
      shares.map((share) => share!.survey),
      META,
      0,
    );
    expect(survey.index).toEqual((await surveyTimeline(src, META)).index);
    const binned = shares.map((share) => share!.binned);
    for (const lanes of [
      allLanes(built.index),
      [built.index.heat[0]!.id, 4, 1],
      [...allLanes(built.index)].reverse(),
    ]) {
      const request = { ...spec, lanes };
      const got = answerAhead(survey, binned, request)!;
      const expected = aggregate(built.lod!, built.index, request);
      expect(got.result, lanes.join(',')).toEqual(expected);
      expect(got.records).toEqual(eventRecords(t, built.index, expected.raw));
    }
    // Shares that do not cover the file (a reader's part missing) are not an answer.
    expect(answerAhead(survey, binned.slice(1), { ...spec, lanes: [0] })).toBeUndefined();

    // One share meets more wide events than it keeps (all in the file's first range): it gives up,
    // and the others stop at their next range instead of reading the file to its end.
    const ranges = 10;
    const wide = randomTimeline(89, { events: OVERVIEW_CHUNK_EVENTS * ranges, spanNs: 4e8, wide: 0 });
    for (let i = 0; i < OVERVIEW_CHUNK_EVENTS; i += 4) wide.endNs[i] = wide.startNs[i]! + 4e7;
    const wideSrc = source(sdmatlBytes(wide));
    const wideLayout = await readLayout(wideSrc);
    const wideSpec = { ...exact(64)(await timelineSpan(wideSrc, wideLayout)), maxRaw: 1000 };
    let handedOut = 0;
    const stopping = sharedClaim(new SharedArrayBuffer(4));
    const counted = {
      next: () => {
        const c = stopping.next();
        if (c < ranges) handedOut++;
        return c;
      },
      stop: () => stopping.stop(),
    };
    const given = await Promise.all([0, 1].map(() => surveyAndBinPart(wideSrc, wideLayout, wideSpec, counted)));
    expect(given.some((share) => share === undefined)).toBe(true);
    expect(handedOut).toBeLessThan(ranges / 2);
    // Alone, the same pass surveys the file afresh instead.
    const alone = await surveyAndBin(wideSrc, wideLayout, wideSpec);
    expect(alone.binned).toBeUndefined();
    expect(alone.survey.events).toBe(wide.count);
  });

  it('guessTimelineSpan: the span of the first and last ranges, exact for a file in time order', async () => {
    const t = randomTimeline(90, { events: OVERVIEW_CHUNK_EVENTS * 3 + 5, spanNs: 5e8 });
    // In time order: each event starts after the one before and ends before the next one starts.
    for (let i = 0; i < t.count; i++) {
      t.startNs[i] = i * 10;
      t.endNs[i] = i * 10 + 5;
    }
    const reads: number[] = [];
    const src = source(sdmatlBytes(t));
    const counted = {
      ...src,
      read: (b: Uint8Array, o: number, l: number, p: number) => (reads.push(l), src.read(b, o, l, p)),
    };
    const layout = await readLayout(counted);
    reads.length = 0;
    expect(await guessTimelineSpan(counted, layout)).toEqual(await timelineSpan(src, layout));
    // Two ranges of the two time columns, whatever the file's size.
    expect(reads.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(2 * OVERVIEW_CHUNK_EVENTS * 16);
    // An event in the middle that ends last: the guess is narrower than the span.
    t.endNs[OVERVIEW_CHUNK_EVENTS + 7] = t.count * 20;
    const late = source(sdmatlBytes(t));
    const guess = await guessTimelineSpan(late, layout);
    expect(guess.maxEnd).toBeLessThan((await timelineSpan(late, layout)).maxEnd);
    // One range only: the guess is the span.
    const small = randomTimeline(91, { events: 500, spanNs: 1e6 });
    const smallSrc = source(sdmatlBytes(small));
    const smallLayout = await readLayout(smallSrc);
    expect(await guessTimelineSpan(smallSrc, smallLayout)).toEqual(await timelineSpan(smallSrc, smallLayout));
  });

  it('an empty timeline: nothing to bin, and the answer is empty', async () => {
    const t = emptyColumns(0, true);
    const { spec, survey, binned } = await ahead(t, () => ({ startNs: -1, endNs: 2, buckets: 10 }));
    expect(survey.index.count).toBe(0);
    const got = answerAhead(survey, [binned!], { ...spec, lanes: [] });
    expect(got?.result.runs.count.length ?? 0).toBe(0);
  });
});
