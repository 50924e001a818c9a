/**
 * The readers beside a host-held timeline's engine (timelineRanges.ts, timelineRangeThread.ts):
 * passes shared through one claim give the parts of the whole file, and a reader that fails
 * makes the pass undefined (the engine then reads alone), never a part merged as if whole.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineMessage, ToEngine } from '../../src/core/runs/timelineEngineHost';
import { serveEngine } from '../../src/core/runs/timelineEngineProcess';
import type { RangeReader } from '../../src/core/runs/timelineRanges';
import { RangeReaders } from '../../src/core/runs/timelineRanges';
import type { FromRanges, ToRanges } from '../../src/core/runs/timelineRangeThread';
import { serveRanges } from '../../src/core/runs/timelineRangeThread';
import type { FromWorker } from '../../src/core/timeline/timelineEngineProtocol';
import type { LodResult } from '../../src/core/timeline/timelineLod';
import {
  OVERVIEW_CHUNK_EVENTS,
  answerAhead,
  binPart,
  mergeBins,
  mergeSurvey,
  planOverview,
  readLayout,
  surveyAndBin,
  surveyAndBinPart,
  surveyPart,
  surveyTimeline,
  timelineSpan,
} from '../../src/core/timeline/timelineOverview';
import { fitAllWindow, lodWindow } from '../../src/core/timeline/timelineView';
import { repeated, sdmatlBytes } from './timelineFixture';

const META = { gpuCus: [64, 64], vendor: 'amd' as const, simulated: true };

/** A reader in this thread: serveRanges behind a stand-in for a Worker (same process, so the descriptor is shared as a thread's is). */
class LocalReader extends EventEmitter implements RangeReader {
  terminated = 0;
  private readonly port = new EventEmitter();
  constructor(private readonly behave: 'serve' | 'exit' | 'error' = 'serve') {
    super();
    serveRanges({
      on: (event, listener) => void this.port.on(event, listener),
      postMessage: (m: FromRanges) => setImmediate(() => this.emit('message', m)),
    });
  }
  postMessage(message: ToRanges): void {
    if (this.behave === 'exit') setImmediate(() => this.emit('exit', 1));
    else if (this.behave === 'error') setImmediate(() => this.emit('message', { type: 'error', message: 'no' }));
    else setImmediate(() => this.port.emit('message', message));
  }
  async terminate(): Promise<number> {
    this.terminated++;
    return 0;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-ranges-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A file of more ranges than readers, so every reader gets some. */
const file = join(dir, 'ranges.sdmatl');
writeFileSync(file, sdmatlBytes(repeated(Math.ceil((OVERVIEW_CHUNK_EVENTS * 4.5) / 18))));

async function opened() {
  const handle = await open(file, 'r');
  const size = (await handle.stat()).size;
  const source = {
    fileBytes: size,
    read: (b: Uint8Array, o: number, l: number, p: number) => handle.read(b, o, l, p).then((r) => r.bytesRead),
  };
  const layout = await readLayout(source);
  return { handle, source, layout, shared: { fd: handle.fd, fileBytes: size, layout } };
}

describe('RangeReaders', () => {
  it('shares the survey and the binning with its readers: the merged parts are the lone reader’s', async () => {
    const { handle, source, layout, shared } = await opened();
    try {
      const readers = new RangeReaders(() => new LocalReader(), 2);
      const parts = await readers.survey(shared, (claim) => surveyPart(source, layout, claim));
      expect(parts).toHaveLength(3);
      const survey = mergeSurvey(layout, parts!, META, 0);
      expect(survey.index).toEqual((await surveyTimeline(source, META)).index);
      const plan = planOverview(survey, {
        startNs: survey.index.startNs,
        endNs: survey.index.endNs,
        buckets: 256,
        lanes: [...survey.index.lanes.keys(), ...survey.index.heat.map((h) => h.id)],
      })!;
      const binned = await readers.bin(shared, plan, (claim) => binPart(source, layout, plan, claim));
      expect(binned).toHaveLength(3);
      expect(binned!.filter((p) => p && p.events > 0).length).toBeGreaterThan(1);
      const merged = mergeBins(
        plan,
        binned!.map((p) => p!),
        layout.count,
        0,
      )!;
      const alone = mergeBins(
        plan,
        [(await binPart(source, layout, plan, { next: counter(), stop: () => undefined }))!],
        layout.count,
        0,
      )!;
      sameAnswer(merged, alone);
      readers.dispose();
    } finally {
      await handle.close();
    }
  });

  it('shares the pass that surveys and bins the first view: its shares answer as the lone pass does', async () => {
    const { handle, source, layout, shared } = await opened();
    try {
      const readers = new RangeReaders(() => new LocalReader(), 2);
      const span = await timelineSpan(source, layout);
      const ahead = { startNs: span.minStart, endNs: span.maxEnd, buckets: 333 };
      const shares = await readers.surveyAndBin(shared, ahead, (claim) =>
        surveyAndBinPart(source, layout, ahead, claim),
      );
      expect(shares).toHaveLength(3);
      expect(shares!.every((share) => share !== undefined)).toBe(true);
      expect(shares!.filter((share) => share!.survey.events > 0).length).toBeGreaterThan(1);
      const survey = mergeSurvey(
        layout,
        shares!.map((share) => share!.survey),
        META,
        0,
      );
      const lone = await surveyAndBin(source, layout, ahead);
      const aloneSurvey = mergeSurvey(layout, [lone.survey], META, 0);
      expect(survey.index).toEqual(aloneSurvey.index);
      const request = { ...ahead, lanes: [...survey.index.lanes.keys(), ...survey.index.heat.map((h) => h.id)] };
      const merged = answerAhead(
        survey,
        shares!.map((share) => share!.binned),
        request,
      )!;
      const alone = answerAhead(aloneSurvey, [lone.binned!], request)!;
      sameAnswer(merged, alone);
      readers.dispose();
    } finally {
      await handle.close();
    }
  });

  it.each(['exit', 'error'] as const)(
    'a reader that fails (%s) makes the pass undefined, and the readers unused after',
    async (how) => {
      const { handle, source, layout, shared } = await opened();
      try {
        const made: LocalReader[] = [];
        const readers = new RangeReaders(() => {
          const r = new LocalReader(made.length === 0 ? how : 'serve');
          made.push(r);
          return r;
        }, 2);
        expect(await readers.survey(shared, (claim) => surveyPart(source, layout, claim))).toBeUndefined();
        if (how === 'exit') expect(readers.size).toBe(0);
        readers.dispose();
        expect(made.every((r) => r.terminated === 1)).toBe(true);
      } finally {
        await handle.close();
      }
    },
  );

  it('a reader that cannot be started leaves the engine to read alone', () => {
    const readers = new RangeReaders(() => {
      throw new Error('no threads left');
    }, 2);
    expect(readers.size).toBe(0);
  });
});

/** Parts merged answer as one reader's pass does: the same counts, levels and events drawn one by one. */
function sameAnswer(merged: { result: LodResult }, alone: { result: LodResult }): void {
  expect(merged.result.totals.count).toEqual(alone.result.totals.count);
  expect(merged.result.runs.count).toEqual(alone.result.runs.count);
  expect(merged.result.runs.level).toEqual(alone.result.runs.level);
  expect(merged.result.raw).toEqual(alone.result.raw);
}

function counter() {
  let at = 0;
  return () => at++;
}

describe('serveEngine with readers', () => {
  it("answers the page's first frame from parts binned by its readers, as it would alone", async () => {
    const run = async (readers: number, view = false) => {
      const posted: EngineMessage[] = [];
      const emitter = new EventEmitter();
      serveEngine(
        {
          on: (event, listener) => void emitter.on(event, listener),
          postMessage: (m) => {
            posted.push(m);
            emitter.emit('posted', m);
          },
        },
        { readers, startReader: () => new LocalReader() },
      );
      const next = (pick: (m: EngineMessage) => boolean) =>
        new Promise<EngineMessage>((resolve) => {
          const found = posted.find(pick);
          if (found) return resolve(found);
          emitter.on('posted', (m: EngineMessage) => pick(m) && resolve(m));
        });
      emitter.emit('message', { type: 'open', file, meta: META } satisfies ToEngine);
      // As the page does: the view it will ask for first, which the readers then bin as they survey.
      if (view) emitter.emit('message', { type: 'view', whole: true, buckets: 300, rawMinPx: 2 } satisfies ToEngine);
      const index = (await next((m) => m.type === 'index')) as Extract<FromWorker, { type: 'index' }>;
      const lanes = [...index.index.lanes.keys(), ...index.index.heat.map((h) => h.id)];
      const whole = fitAllWindow(index.index.startNs, index.index.endNs);
      const window = view
        ? { ...lodWindow(whole.from, whole.to), rawMinPx: 2 }
        : { startNs: index.index.startNs, endNs: index.index.endNs };
      emitter.emit('message', {
        type: 'lod',
        id: 1,
        request: { ...window, buckets: 300, lanes },
      } satisfies ToEngine);
      const lod = (await next((m) => m.type === 'lod' && m.id === 1)) as Extract<FromWorker, { type: 'lod' }>;
      expect(lod.source).toBe(view ? 'ahead' : 'file');
      await next((m) => m.type === 'index' && m.stage === 'ready');
      const read = posted.findIndex((m) => m.type === 'read');
      expect(posted.findIndex((m) => m.type === 'lod')).toBeLessThan(read);
      return lod.result;
    };
    for (const view of [false, true]) {
      const shared = await run(2, view);
      const alone = await run(0, view);
      expect(shared.totals).toEqual(alone.totals);
      expect(shared.runs.count).toEqual(alone.runs.count);
      expect(shared.runs.level).toEqual(alone.runs.level);
      expect(shared.raw).toEqual(alone.raw);
    }
  });
});
