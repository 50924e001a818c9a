/**
 * A host-held timeline's engine (dist/timelineEngine.js, the process the extension host
 * starts for a big timeline) from opening the file to the page's first view, by how many reader
 * threads share its pass over the file (one pass that surveys the file and bins the first view,
 * pushed with the index): none (the engine's own thread alone) or 1 to 3. The engine picks by processor count
 * (timelineEngineProcess.ts, READERS); this benchmark is how that choice is checked on a machine.
 *
 * Each case runs in a fresh Node process, as a panel opening its first timeline: the host is
 * started, the page's view is sent at once (`view`: the whole timeline, BUCKETS buckets), and when
 * the overview's index comes, the page's request for the lanes it opens with (`openingLanes`).
 * Printed, medians of RUNS (interleaved round by round): the index, the first view (the pushed one
 * when it is the page's request, else the answer to that request), the built index, and the peak
 * resident memory of the engine's process. Reference, in the same run: a fresh process that reads the
 * file's bytes once, in 1 MiB reads (the least any reader of the file pays); the ratio is the
 * first view to it. The 10^7-event file of bench/timeline.mjs is made with the simulator
 * (`sdma-probe sweep --backend sim --sizes 1M --cus 64`), or TIMELINE_ENGINE_FILE names one.
 *
 * TIMELINE_ENGINE_EVENTS (default 10^7), TIMELINE_ENGINE_RUNS (default 5),
 * TIMELINE_ENGINE_READERS (comma-separated, default: 0 to 3 as the processors allow, and `auto`).
 * A view that does not count every event of its lanes, or a case that fails, exits non-zero.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FromWorker } from '../src/core/timeline/timelineEngineProtocol';
import type { LodRequest, LodResult } from '../src/core/timeline/timelineLod';
import { fitAllWindow, lodWindow, openingLanes } from '../src/core/timeline/timelineView';
import { TimelineEngineHost, processMemory } from '../src/core/runs/timelineEngineHost';
import { makeSimTimeline } from './simTimeline';

const EVENTS = Number(process.env.TIMELINE_ENGINE_EVENTS ?? 10_000_000);
const RUNS = Math.max(1, Number(process.env.TIMELINE_ENGINE_RUNS) || 5);
/** A page 1,300 pixels wide asks for three windows of three buckets a pixel (timelineView.ts lodBuckets). */
const BUCKETS = 3900;
const META = { gpuCus: [256, 256, 256, 256, 256, 256, 256, 256], vendor: 'amd' as const, simulated: true };
const root = process.cwd();
const bundle = join(root, 'dist', 'timelineEngine.js');

interface Figures {
  events: number;
  readers: number;
  indexMs: number;
  firstViewMs: number;
  /** 'pushed' (binned in the survey's pass), or the answer's source ('ahead', 'file' or 'index'). */
  firstSource: string;
  readyMs: number;
  /** The engine process's peak resident memory. */
  maxRssMb: number;
}

/** One case, in this process: the engine with `readers` (undefined: its own choice) on `file`. */
async function one(file: string, readers: number | undefined): Promise<Figures> {
  const t0 = performance.now();
  let indexMs = NaN;
  let request: LodRequest | undefined;
  let first: { ms: number; source: string } | undefined;
  let laneStart: Int32Array = new Int32Array(1);
  let readersUsed = 0;
  return new Promise<Figures>((done, fail) => {
    const host = new TimelineEngineHost({
      bundle,
      file,
      meta: META,
      readers,
      onRead: (_count, _readMs, shared) => (readersUsed = shared),
      onFailure: (message) => fail(new Error(message)),
      onAnswer: (answer: FromWorker) => {
        const ms = performance.now() - t0;
        if (answer.type === 'error') return fail(new Error(answer.message));
        if (answer.type === 'index' && answer.stage !== 'ready' && !request) {
          indexMs = ms;
          laneStart = answer.index.laneStart;
          const whole = fitAllWindow(answer.index.startNs, answer.index.endNs);
          request = {
            ...lodWindow(whole.from, whole.to),
            buckets: BUCKETS,
            rawMinPx: 2,
            lanes: openingLanes(answer.index),
          };
          host.query({ type: 'lod', id: 1, request });
          return;
        }
        if (answer.type === 'lod' && !first && request && answers(answer, request)) {
          first = { ms, source: answer.id === 0 ? 'pushed' : (answer.source ?? 'index') };
          const wrong = uncounted(answer.result, laneStart);
          if (wrong) fail(new Error(wrong));
          return;
        }
        if (answer.type === 'index' && answer.stage === 'ready') {
          // The engine's own process: its high-water mark, read before it is stopped.
          const engineMb = host.pid === undefined ? NaN : (processMemory(host.pid)?.peakMb ?? NaN);
          host.dispose();
          if (!first) return fail(new Error('the index was built before any view came'));
          done({
            events: answer.index.count,
            readers: readersUsed,
            indexMs,
            firstViewMs: first.ms,
            firstSource: first.source,
            readyMs: ms,
            maxRssMb: engineMb,
          });
        }
      },
    });
    host.query({ type: 'view', whole: true, buckets: BUCKETS, rawMinPx: 2 });
  });
}

/** Whether a level-of-detail answer is the page's request: its window, its buckets, every lane it asked. */
function answers(answer: Extract<FromWorker, { type: 'lod' }>, request: LodRequest): boolean {
  const r = answer.result;
  if (r.startNs !== request.startNs || r.endNs !== request.endNs || r.buckets !== request.buckets) return false;
  const has = new Set(r.totals.lane);
  return request.lanes.every((lane) => has.has(lane));
}

/**
 * Why the whole-window view `r` miscounts, or undefined when each real lane it covers counts
 * exactly that lane's events (`laneStart`: the index's lane bounds; the heat lanes come after).
 */
function uncounted(r: LodResult, laneStart: Int32Array): string | undefined {
  const lanes = laneStart.length - 1;
  for (let i = 0; i < r.totals.lane.length; i++) {
    const lane = r.totals.lane[i]!;
    if (lane >= lanes) continue;
    const want = laneStart[lane + 1]! - laneStart[lane]!;
    if (r.totals.count[i] !== want) return `lane ${lane} counts ${r.totals.count[i]} events, not its ${want}`;
  }
  return undefined;
}

/** The file's bytes read once, in 1 MiB reads into one buffer: ms. */
function readOnce(file: string): number {
  const t0 = performance.now();
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  try {
    while (readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    closeSync(fd);
  }
  return performance.now() - t0;
}

/** A case in a fresh process: this bundle with `--one`. */
function child(file: string, readers: string): Figures | { readMs: number } {
  const r = spawnSync(process.execPath, [__filename, '--one', file, readers], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`readers ${readers} exited ${r.status}: ${r.stderr.slice(0, 600)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Figures | { readMs: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` first`);
  const cpus = availableParallelism();
  const cases = (
    process.env.TIMELINE_ENGINE_READERS ?? [...[0, 1, 2, 3].filter((r) => r + 1 <= cpus), 'auto'].join(',')
  )
    .split(',')
    .map((s) => s.trim());
  const scratch = mkdtempSync(join(tmpdir(), 'sdma-lens-engine-'));
  try {
    const file = process.env.TIMELINE_ENGINE_FILE
      ? resolve(process.env.TIMELINE_ENGINE_FILE)
      : makeSimTimeline(resolve(process.argv[2] ?? join(root, 'native', 'build', 'sdma-probe')), scratch, EVENTS);
    readOnce(file); // the file in the system's cache, as for every case
    const got = new Map<string, Figures[]>(cases.map((c) => [c, []]));
    const reference: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      reference.push((child(file, 'read') as { readMs: number }).readMs);
      for (const c of cases) got.get(c)!.push(child(file, c) as Figures);
    }
    const ref = median(reference);
    const ms = (v: number) => `${v.toFixed(0)} ms`.padStart(8);
    const events = got.get(cases[0]!)![0]!.events;
    console.log(`timeline engine, ${events} events, ${cpus} processors, median of ${RUNS} fresh processes`);
    console.log(`  reference: the file read once                          ${ms(ref)}`);
    for (const c of cases) {
      const f = got.get(c)!;
      const view = median(f.map((x) => x.firstViewMs));
      const sources = [...new Set(f.map((x) => x.firstSource))].join('/');
      console.log(
        `  readers ${c.padEnd(4)} (${f[0]!.readers} used): index ${ms(median(f.map((x) => x.indexMs)))}, first view ${ms(view)} (${sources}), ` +
          `built index ${ms(median(f.map((x) => x.readyMs)))}, peak ${median(f.map((x) => x.maxRssMb)).toFixed(0)} MB; ` +
          `first view / read once: ${(view / ref).toFixed(2)}`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--one') {
  const [file, which] = [process.argv[3]!, process.argv[4]!];
  if (which === 'read') process.stdout.write(`${JSON.stringify({ readMs: readOnce(file) })}\n`);
  else
    one(file, which === 'auto' ? undefined : Number(which)).then(
      (f) => process.stdout.write(`${JSON.stringify(f)}\n`),
      (err: unknown) => {
        console.error(err instanceof Error ? err.message : String(err));
        process.exit(1);
      },
    );
} else main();
