import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineLink, EngineMessage, ToEngine } from '../../src/core/runs/timelineEngineHost';
import { TimelineEngineHost } from '../../src/core/runs/timelineEngineHost';
import type { EnginePort } from '../../src/core/runs/timelineEngineProcess';
import { readersFor, sameIndex, serveEngine } from '../../src/core/runs/timelineEngineProcess';
import type { FromWorker } from '../../src/core/timeline/timelineEngineProtocol';
import {
  EngineAnswerSchema,
  EngineQuerySchema,
  TIMELINE_FILTER_MAX,
  parseTimelineHostMessage,
  parseTimelineWebviewMessage,
} from '../../src/core/timeline/timelineMessages';
import { PUSHED_ID, fitAllWindow, lodWindow, openingLanes } from '../../src/core/timeline/timelineView';
import { repeated, sdmatlBytes } from './timelineFixture';
import { OVERVIEW_CHUNK_EVENTS } from '../../src/core/timeline/timelineOverview';

const META = { gpuCus: [64, 64], vendor: 'amd' as const, simulated: true };

const VALID = [
  { type: 'filter', id: 1, text: 'path:engine/host' },
  { type: 'lod', id: 2, request: { startNs: 0, endNs: 1e6, buckets: 3000, lanes: [0, 1, 2], rawMinPx: 2 } },
  { type: 'measure', id: 3, fromNs: 10, toNs: 20 },
  { type: 'details', id: 4, event: -1 },
  { type: 'hit', id: 5, purpose: 'hover', lane: 0, timeNs: 5, slopNs: 1 },
  { type: 'step', id: 6, lane: 1, direction: -1 },
  { type: 'first', id: 7, lane: 1, fromNs: 0, toNs: 9 },
];

const HOSTILE: [string, unknown][] = [
  ['not an object', 'lod'],
  ['an unknown type', { type: 'shell', id: 1 }],
  ['load from the page', { type: 'load', columns: {}, meta: META }],
  ['a NaN window', { type: 'lod', id: 1, request: { startNs: NaN, endNs: 1, buckets: 10, lanes: [] } }],
  ['an infinite window', { type: 'lod', id: 1, request: { startNs: 0, endNs: Infinity, buckets: 10, lanes: [] } }],
  ['a window that ends first', { type: 'lod', id: 1, request: { startNs: 5, endNs: 1, buckets: 10, lanes: [] } }],
  ['a trillion buckets', { type: 'lod', id: 1, request: { startNs: 0, endNs: 1, buckets: 1e12, lanes: [] } }],
  ['fractional buckets', { type: 'lod', id: 1, request: { startNs: 0, endNs: 1, buckets: 1.5, lanes: [] } }],
  ['a negative lane', { type: 'lod', id: 1, request: { startNs: 0, endNs: 1, buckets: 10, lanes: [-1] } }],
  ['lanes not numbers', { type: 'lod', id: 1, request: { startNs: 0, endNs: 1, buckets: 10, lanes: ['0'] } }],
  ['a negative id', { type: 'details', id: -3, event: 0 }],
  ['an event past any timeline', { type: 'details', id: 1, event: 1e12 }],
  ['a filter too long', { type: 'filter', id: 1, text: 'x'.repeat(TIMELINE_FILTER_MAX + 1) }],
  ['a step of two', { type: 'step', id: 1, lane: 0, direction: 2 }],
  ['an unknown purpose', { type: 'hit', id: 1, purpose: 'delete', lane: 0, timeNs: 0, slopNs: 0 }],
  ['a negative slop', { type: 'hit', id: 1, purpose: 'hover', lane: 0, timeNs: 0, slopNs: -1 }],
  ['a string for a number', { type: 'measure', id: 1, fromNs: '0', toNs: 1 }],
];

describe('the host-held engine query schema', () => {
  it('accepts every query the page sends', () => {
    for (const q of VALID) expect(v.safeParse(EngineQuerySchema, q).success, q.type).toBe(true);
    for (const q of VALID)
      expect(parseTimelineWebviewMessage({ type: 'engine-query', query: q })?.type).toBe('engine-query');
  });

  it.each(HOSTILE)('refuses %s', (_what, q) => {
    expect(v.safeParse(EngineQuerySchema, q).success).toBe(false);
    expect(parseTimelineWebviewMessage({ type: 'engine-query', query: q })).toBeUndefined();
  });

  it('checks the answers on the page side (typed arrays where the engine sends them)', () => {
    expect(
      parseTimelineHostMessage({ type: 'engine-answer', answer: { type: 'pick', id: 1, event: 3 } }),
    ).toBeDefined();
    expect(parseTimelineHostMessage({ type: 'engine-answer', answer: { type: 'pick', id: 1 } })).toBeUndefined();
    const index = { count: 0, lanes: [], laneStart: [0], startNs: 0, endNs: 0, heat: [] };
    expect(v.safeParse(EngineAnswerSchema, { type: 'index', index, inferred: false, buildMs: 1 }).success).toBe(false);
    expect(
      v.safeParse(EngineAnswerSchema, {
        type: 'index',
        index: { ...index, laneStart: new Int32Array(1) },
        inferred: false,
        buildMs: 1,
      }).success,
    ).toBe(true);
    expect(parseTimelineHostMessage({ type: 'timeline-host-held', meta: { ...DEMO_META }, count: 5 })?.type).toBe(
      'timeline-host-held',
    );
  });
});

const DEMO_META = {
  key: 'demo/t.sdmatl',
  runId: 'demo',
  title: 'Timeline',
  simulated: true,
  nodeLabel: 'node',
  vendor: 'amd' as const,
  sizeBytes: 1,
  gpuCus: [64],
};

/** A thread stand-in: what the relay posts, and a way to answer or fail as the thread would. */
class FakeThread extends EventEmitter implements EngineLink {
  posted: ToEngine[] = [];
  terminated = 0;
  postMessage(message: ToEngine): void {
    this.posted.push(message);
  }
  terminate(): Promise<number> {
    this.terminated++;
    return Promise.resolve(0);
  }
  send(message: EngineMessage): void {
    this.emit('message', message);
  }
}

function relay(start?: (bundle: string) => EngineLink) {
  const answers: FromWorker[] = [];
  const failures: string[] = [];
  let thread: FakeThread | undefined;
  const host = new TimelineEngineHost({
    bundle: '/nowhere/timelineEngine.js',
    file: '/runs/r/timeline.sdmatl',
    meta: META,
    onAnswer: (a) => answers.push(a),
    onFailure: (m) => failures.push(m),
    start: start ?? (() => (thread = new FakeThread())),
  });
  return { host, answers, failures, thread: () => thread! };
}

const INDEX: FromWorker = {
  type: 'index',
  index: { count: 1, lanes: [], laneStart: new Int32Array(1), startNs: 0, endNs: 1, heat: [] },
  inferred: false,
  buildMs: 1,
};

describe('TimelineEngineHost (the relay)', () => {
  it('tells the thread the file to open, then relays valid queries', () => {
    const r = relay();
    expect(r.thread().posted[0]).toEqual({ type: 'open', file: '/runs/r/timeline.sdmatl', meta: META });
    r.thread().send(INDEX);
    expect(r.host.ready).toBe(true);
    for (const q of VALID) expect(r.host.query(q)).toBe(true);
    expect(r.thread().posted.slice(1)).toEqual(VALID);
    expect(r.answers).toEqual([INDEX]);
  });

  it.each(HOSTILE)('answers %s with an error and never hands it to the engine', (_what, q) => {
    const r = relay();
    r.thread().send(INDEX);
    expect(r.host.query(q)).toBe(false);
    expect(r.thread().posted).toHaveLength(1);
    expect(r.answers.at(-1)).toMatchObject({ type: 'error' });
    expect((r.answers.at(-1) as { message: string }).message).toMatch(/refused/);
    expect(r.failures).toEqual([]);
    expect(r.host.ready).toBe(true);
  });

  it('reports a file the thread could not open as a failure, once, and stops the thread', () => {
    const r = relay();
    r.thread().send({ type: 'failed', message: 'the timeline file is too large' });
    r.thread().emit('exit', 1);
    expect(r.failures).toEqual(['the timeline file is too large']);
    expect(r.thread().terminated).toBe(1);
    expect(r.host.query(VALID[0])).toBe(false);
  });

  it('an engine error before the index fails the load; after it, it is one answer', () => {
    const before = relay();
    before.thread().send({ type: 'error', message: 'bad columns' });
    expect(before.failures).toEqual(['bad columns']);
    const after = relay();
    after.thread().send(INDEX);
    after.thread().send({ type: 'error', message: 'one query failed' });
    expect(after.failures).toEqual([]);
    expect(after.answers.at(-1)).toEqual({ type: 'error', message: 'one query failed' });
    // The overview's index is relayed for the page to draw from, but the engine is not built yet.
    const overview = relay();
    overview.thread().send({ ...INDEX, stage: 'overview' } as FromWorker);
    expect(overview.answers).toHaveLength(1);
    expect(overview.host.ready).toBe(false);
    overview.thread().send({ type: 'error', message: 'the file changed' });
    expect(overview.failures).toEqual(['the file changed']);
  });

  it('a thread that exits or errors is a failure, not a hang', () => {
    const exited = relay();
    exited.thread().send(INDEX);
    exited.thread().emit('exit', 0);
    expect(exited.failures[0]).toMatch(/stopped \(exit code 0\)/);
    const errored = relay();
    errored.thread().emit('error', new Error('out of memory'));
    expect(errored.failures[0]).toMatch(/out of memory/);
  });

  it('dispose (Cancel, the panel closed) terminates the thread and reports nothing', () => {
    const r = relay();
    r.host.dispose();
    r.thread().emit('exit', 1);
    expect(r.thread().terminated).toBe(1);
    expect(r.failures).toEqual([]);
    expect(r.host.query(VALID[0])).toBe(false);
  });

  it('a real worker thread that crashes gives an error', async () => {
    const failure = new Promise<string>((resolve) => {
      new TimelineEngineHost({
        bundle: 'unused',
        file: '/x.sdmatl',
        meta: META,
        onAnswer: () => undefined,
        onFailure: resolve,
        start: () =>
          new Worker(
            "require('node:worker_threads').parentPort.once('message', () => { throw new Error('engine crashed'); });",
            {
              eval: true,
            },
          ) as unknown as EngineLink,
      });
    });
    expect(await failure).toMatch(/engine crashed/);
  });

  it('a real worker thread that exits gives an error', async () => {
    const failure = new Promise<string>((resolve) => {
      new TimelineEngineHost({
        bundle: 'unused',
        file: '/x.sdmatl',
        meta: META,
        onAnswer: () => undefined,
        onFailure: resolve,
        start: () => new Worker('process.exit(3)', { eval: true }) as unknown as EngineLink,
      });
    });
    expect(await failure).toMatch(/exit code 3/);
  });
});

/** The thread's side, on a stand-in port. */
function port() {
  const emitter = new EventEmitter();
  const out: EngineMessage[] = [];
  const p: EnginePort & {
    send(m: ToEngine): void;
    out: EngineMessage[];
    next(type: string): Promise<EngineMessage>;
    answer(id: number): Promise<EngineMessage>;
  } = {
    on: (event, listener) => void emitter.on(event, listener),
    postMessage: (m) => {
      out.push(m);
      emitter.emit('posted', m);
    },
    send: (m) => emitter.emit('message', m),
    out,
    next: (type) =>
      new Promise((resolve) => {
        const found = out.find((m) => m.type === type);
        if (found) return resolve(found);
        const on = (m: EngineMessage) => {
          if (m.type !== type) return;
          emitter.off('posted', on);
          resolve(m);
        };
        emitter.on('posted', on);
      }),
    // The answer to query `id`, whenever it comes (a query sent while the engine finishes loading waits for it).
    answer: (id) =>
      new Promise((resolve) => {
        const mine = (m: EngineMessage) => 'id' in m && m.id === id;
        const found = out.find(mine);
        if (found) return resolve(found);
        const on = (m: EngineMessage) => {
          if (!mine(m)) return;
          emitter.off('posted', on);
          resolve(m);
        };
        emitter.on('posted', on);
      }),
  };
  return p;
}

/**
 * An engine that waits for the page's first request as long as a test may take: these tests
 * send it at once, and a machine under load must not make the overview give up on it first.
 */
const PATIENT = { overviewWaitMs: 60_000 };

describe('serveEngine (the engine)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-engine-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file itself, builds the index and answers queries sent before it was ready', async () => {
    const columns = repeated(20);
    const file = join(dir, 'timeline.sdmatl');
    writeFileSync(file, sdmatlBytes(columns));
    const p = port();
    serveEngine(p);
    p.send({ type: 'open', file, meta: META });
    p.send({ type: 'step', id: 9, lane: 0, direction: 1 });
    const read = (await p.next('read')) as Extract<EngineMessage, { type: 'read' }>;
    expect(read.count).toBe(columns.count);
    const index = (await p.next('index')) as Extract<FromWorker, { type: 'index' }>;
    expect(index.index.count).toBe(columns.count);
    expect(v.safeParse(EngineAnswerSchema, index).success).toBe(true);
    const pick = (await p.next('pick')) as Extract<FromWorker, { type: 'pick' }>;
    expect(pick.id).toBe(9);
    expect(pick.event).toBeGreaterThanOrEqual(0);
    p.send({
      type: 'lod',
      id: 10,
      request: { startNs: index.index.startNs, endNs: index.index.endNs, buckets: 500, lanes: [0, 1, 2] },
    });
    const lod = await p.next('lod');
    expect(v.safeParse(EngineAnswerSchema, lod).success).toBe(true);
  });

  it('a file that is not a timeline is a failure', async () => {
    const file = join(dir, 'broken.sdmatl');
    writeFileSync(file, 'not a timeline at all, just text that is long enough to have a header');
    const p = port();
    serveEngine(p);
    p.send({ type: 'open', file, meta: META });
    const failed = (await p.next('failed')) as Extract<EngineMessage, { type: 'failed' }>;
    expect(failed.message.length).toBeGreaterThan(0);
    expect(p.out.some((m) => m.type === 'index')).toBe(false);
  });

  it('a file that is missing is a failure', async () => {
    const p = port();
    serveEngine(p);
    p.send({ type: 'open', file: join(dir, 'none.sdmatl'), meta: META });
    expect(((await p.next('failed')) as { message: string }).message).toMatch(/none\.sdmatl|ENOENT|not/);
  });
});

describe('serveEngine: the overview before the index', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-overview-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, times: number) => {
    const file = join(dir, name);
    writeFileSync(file, sdmatlBytes(repeated(times)));
    return file;
  };
  const at = (p: ReturnType<typeof port>, pick: (m: EngineMessage) => boolean) => p.out.findIndex(pick);

  it("answers the page's first level of detail from the file before reading it whole, then says the index is ready", async () => {
    const file = write('overview.sdmatl', 40);
    const p = port();
    serveEngine(p, PATIENT);
    p.send({ type: 'open', file, meta: META });
    const first = (await p.next('index')) as Extract<FromWorker, { type: 'index' }>;
    expect(first.stage).toBe('overview');
    expect(v.safeParse(EngineAnswerSchema, first).success).toBe(true);
    // What the page sends on 'timeline-host-held' and on the index: no selection, no filter, its first frame.
    p.send({ type: 'details', id: 0, event: -1 });
    p.send({ type: 'filter', id: 1, text: '' });
    const lanes = [...first.index.lanes.keys(), ...first.index.heat.map((h) => h.id)];
    p.send({
      type: 'lod',
      id: 2,
      request: { startNs: first.index.startNs, endNs: first.index.endNs, buckets: 400, lanes },
    });
    p.send({ type: 'hit', id: 3, purpose: 'hover', lane: 0, timeNs: first.index.startNs + 5000, slopNs: 100 });
    const hit = (await p.next('hit')) as Extract<FromWorker, { type: 'hit' }>;
    expect(hit.id).toBe(3);
    const lod = (await p.next('lod')) as Extract<FromWorker, { type: 'lod' }>;
    expect(v.safeParse(EngineAnswerSchema, lod).success).toBe(true);
    // The filter and the first frame came from the overview, before the whole file was read;
    // the hover waited for the built index, which is the overview's.
    const read = at(p, (m) => m.type === 'read');
    expect(at(p, (m) => m.type === 'filter')).toBeLessThan(read);
    expect(at(p, (m) => m.type === 'lod')).toBeLessThan(read);
    const ready = at(p, (m) => m.type === 'index' && m.stage === 'ready');
    expect(ready).toBeGreaterThan(read);
    expect(at(p, (m) => m.type === 'hit')).toBeGreaterThan(ready);
    expect(p.out.filter((m) => m.type === 'index')).toHaveLength(2);
    expect(p.out.some((m) => m.type === 'error' || m.type === 'failed')).toBe(false);
    // The same request answered by the built engine: the overview's answer was the engine's.
    p.send({
      type: 'lod',
      id: 4,
      request: { startNs: first.index.startNs, endNs: first.index.endNs, buckets: 400, lanes },
    });
    const built = (await p.answer(4)) as Extract<FromWorker, { type: 'lod' }>;
    expect(built.result.totals).toEqual(lod.result.totals);
    expect(built.result.runs.count).toEqual(lod.result.runs.count);
    expect(built.result.raw).toEqual(lod.result.raw);
  });

  it("bins the page's first view while it surveys the file: that request is answered from it, as the built engine answers it", async () => {
    const file = write('ahead.sdmatl', 60);
    const p = port();
    serveEngine(p, PATIENT);
    // As the page does on 'timeline-host-held': its view first (it fits the whole timeline), then no selection, no filter.
    p.send({ type: 'open', file, meta: META });
    p.send({ type: 'view', whole: true, buckets: 900, rawMinPx: 2 });
    p.send({ type: 'details', id: 0, event: -1 });
    p.send({ type: 'filter', id: 1, text: '' });
    const first = (await p.next('index')) as Extract<FromWorker, { type: 'index' }>;
    expect(first.stage).toBe('overview');
    const whole = fitAllWindow(first.index.startNs, first.index.endNs);
    const lanes = [...first.index.lanes.keys(), ...first.index.heat.map((h) => h.id)].reverse();
    const request = { ...lodWindow(whole.from, whole.to), buckets: 900, lanes, rawMinPx: 2 };
    // Pushed with the index, unasked: the lanes a timeline opens with, binned ahead.
    const pushed = (await p.answer(PUSHED_ID)) as Extract<FromWorker, { type: 'lod' }>;
    expect(pushed.source).toBe('ahead');
    expect(v.safeParse(EngineAnswerSchema, pushed).success).toBe(true);
    const opening = { ...request, lanes: openingLanes(first.index) };
    expect([...pushed.result.totals.lane]).toEqual(opening.lanes);
    expect(at(p, (m) => m.type === 'lod' && m.id === PUSHED_ID)).toBe(at(p, (m) => m.type === 'index') + 1);
    p.send({ type: 'lod', id: 2, request });
    const lod = (await p.answer(2)) as Extract<FromWorker, { type: 'lod' }>;
    expect(lod.source).toBe('ahead');
    expect(v.safeParse(EngineAnswerSchema, lod).success).toBe(true);
    await p.next('read');
    p.send({ type: 'lod', id: 3, request });
    const built = (await p.answer(3)) as Extract<FromWorker, { type: 'lod' }>;
    expect(built.source).toBeUndefined();
    expect(lod.result.totals).toEqual(built.result.totals);
    expect(lod.result.runs.count).toEqual(built.result.runs.count);
    expect(lod.result.runs.level).toEqual(built.result.runs.level);
    expect(lod.result.raw).toEqual(built.result.raw);
    // The pushed view is the built engine's answer to the same request too.
    p.send({ type: 'lod', id: 4, request: opening });
    const builtOpening = (await p.answer(4)) as Extract<FromWorker, { type: 'lod' }>;
    expect(pushed.result.totals).toEqual(builtOpening.result.totals);
    expect(pushed.result.runs.count).toEqual(builtOpening.result.runs.count);
    expect(pushed.result.runs.level).toEqual(builtOpening.result.runs.level);
    expect(pushed.result.raw).toEqual(builtOpening.result.raw);

    // Another request (the page was resized before it asked) is binned from the file in a pass of its own.
    const q = port();
    serveEngine(q, PATIENT);
    q.send({ type: 'open', file, meta: META });
    q.send({ type: 'view', whole: true, buckets: 900, rawMinPx: 2 });
    await q.next('index');
    q.send({ type: 'lod', id: 2, request: { ...request, buckets: 901 } });
    expect(((await q.answer(2)) as Extract<FromWorker, { type: 'lod' }>).source).toBe('file');
  });

  it('a file whose latest end is not in its last range: the guessed span misses, nothing is pushed, the request is binned from the file', async () => {
    // More than two ranges, one event in the middle ending after every other: the span guessed
    // from the file's ends is narrower than the survey's.
    const columns = repeated(Math.ceil((OVERVIEW_CHUNK_EVENTS * 2.5) / 18));
    const mid = Math.floor(columns.count / 2);
    columns.endNs[mid] = columns.endNs[columns.count - 1]! * 3;
    const file = join(dir, 'late-end.sdmatl');
    writeFileSync(file, sdmatlBytes(columns));
    const p = port();
    serveEngine(p, PATIENT);
    p.send({ type: 'open', file, meta: META });
    p.send({ type: 'view', whole: true, buckets: 700, rawMinPx: 2 });
    const first = (await p.next('index')) as Extract<FromWorker, { type: 'index' }>;
    expect(first.index.endNs).toBe(columns.endNs[mid]);
    const whole = fitAllWindow(first.index.startNs, first.index.endNs);
    const request = { ...lodWindow(whole.from, whole.to), buckets: 700, rawMinPx: 2, lanes: openingLanes(first.index) };
    p.send({ type: 'lod', id: 2, request });
    const lod = (await p.answer(2)) as Extract<FromWorker, { type: 'lod' }>;
    expect(lod.source).toBe('file');
    expect(p.out.some((m) => m.type === 'lod' && m.id === PUSHED_ID)).toBe(false);
    await p.next('read');
    p.send({ type: 'lod', id: 3, request });
    const built = (await p.answer(3)) as Extract<FromWorker, { type: 'lod' }>;
    expect(lod.result.totals).toEqual(built.result.totals);
    expect(lod.result.runs.count).toEqual(built.result.runs.count);
    expect(lod.result.raw).toEqual(built.result.raw);
  });

  it('a page whose first view is not the whole timeline (a restored window or filter) is not waited for', async () => {
    const file = write('not-whole.sdmatl', 20);
    const p = port();
    // A wait for the view that would outlast the test: the view says at once that there is nothing to bin ahead.
    serveEngine(p, { ...PATIENT, viewWaitMs: 60_000 });
    p.send({ type: 'open', file, meta: META });
    p.send({ type: 'view', whole: false, buckets: 900, rawMinPx: 2 });
    const first = (await p.next('index')) as Extract<FromWorker, { type: 'index' }>;
    p.send({
      type: 'lod',
      id: 2,
      request: { startNs: first.index.startNs, endNs: first.index.endNs, buckets: 300, lanes: [0, 1] },
    });
    expect(((await p.next('lod')) as Extract<FromWorker, { type: 'lod' }>).source).toBe('file');
  });

  it('a query that needs the index ends the overview: the first frame then comes from the built engine', async () => {
    const file = write('needs-index.sdmatl', 10);
    const p = port();
    serveEngine(p);
    p.send({ type: 'open', file, meta: META });
    const first = (await p.next('index')) as Extract<FromWorker, { type: 'index' }>;
    p.send({ type: 'filter', id: 1, text: 'path:engine/host' });
    p.send({
      type: 'lod',
      id: 2,
      request: { startNs: first.index.startNs, endNs: first.index.endNs, buckets: 50, lanes: [0] },
    });
    await p.next('lod');
    expect(at(p, (m) => m.type === 'lod')).toBeGreaterThan(at(p, (m) => m.type === 'read'));
    const filter = p.out.find((m) => m.type === 'filter') as Extract<FromWorker, { type: 'filter' }>;
    expect(filter.kept).toBeLessThan(first.index.count);
  });

  it('builds the index anyway when the page asks nothing (a hidden panel)', async () => {
    const file = write('quiet.sdmatl', 5);
    const p = port();
    serveEngine(p, { overviewWaitMs: 5 });
    p.send({ type: 'open', file, meta: META });
    await p.next('read');
    const indexes = () => p.out.filter((m) => m.type === 'index') as Extract<FromWorker, { type: 'index' }>[];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(indexes().map((m) => m.stage)).toEqual(['overview', 'ready']);
  });

  it('readersFor: one reader per processor past two, at least one from 2 processors, at most 3', () => {
    expect([1, 2, 3, 4, 5, 8, 16, 128].map(readersFor)).toEqual([0, 1, 1, 2, 3, 3, 3, 3]);
  });

  it('sameIndex: the built index replaces the overview only when it lays out the same', () => {
    const base = {
      count: 3,
      lanes: [{ id: 0, gpu: 0, category: 'kernel' as const, number: 0, label: 'Kernels', eventCount: 3 }],
      laneStart: Int32Array.from([0, 3]),
      startNs: 0,
      endNs: 10,
      heat: [],
    };
    expect(sameIndex(base, { ...base, laneStart: base.laneStart.slice() })).toBe(true);
    expect(sameIndex(base, { ...base, endNs: 11 })).toBe(false);
    expect(sameIndex(base, { ...base, laneStart: Int32Array.from([0, 2]) })).toBe(false);
    expect(sameIndex(base, { ...base, lanes: [{ ...base.lanes[0]!, eventCount: 2 }] })).toBe(false);
  });
});
