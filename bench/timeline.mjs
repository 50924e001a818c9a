#!/usr/bin/env node
// The timeline panel with 1,000,000 events (or --events N), in headless Chromium, against
// chart.js drawing the same events the obvious way (bench/timelineChartjs.ts) as the
// reference, each in a fresh browser. Prints, for both and as ratios:
//   - file open -> first full frame: from opening the sdmatl file on disk to the first frame
//     drawn with the level of detail of the whole window (target: <= 1 s at 10^7 events). The
//     file is opened once the page is ready and the browser is quiet (`browserSettled`: headless
//     Chromium's own UI renderer is still starting then); the wait is printed.
//     Below HOST_HELD_EVENTS (2,000,000) as the panel does it: the host's read (readTimelineFile
//     in this Node process, the extension-host stand-in), the transfer to the page (fetched
//     column by column from this process, as one message would carry them), the index and
//     level of detail in the page's worker. From HOST_HELD_EVENTS, also as the panel does it:
//     this process plays the host and starts the shipped engine in its own process
//     (dist/timelineEngine.js, `npm run build` first), which reads the file and builds the
//     index; the page gets no columns and asks each query of this process (the relay,
//     TimelineEngineHost), so the figure holds the engine's read and build, the query's trips
//     and the drawing; and data -> first full frame, from the timeline message arriving in the page;
//   - peak memory while loading, per process: this Node process (RSS), the page's renderer
//     (PSS, the worker included), both sampled every 50 ms from file open to the first frame
//     (a host-held timeline: to its built index), and a host-held timeline's engine process
//     (its own high-water mark then) (target: no process above 1 GB; bench/timelineHost.mjs
//     measures a real VS Code extension host);
//   - frame time p95 during scripted pan and zoom: main-thread work per frame (input handling
//     plus drawing), and the interval between animation frames as Chromium paced them
//     (target: <= 16 ms);
//   - memory after a garbage collection: the page's JS heap (CDP) and the renderer process's
//     proportional set size, which also holds the worker and every typed array (target:
//     <= 300 MB).
//
//   node bench/timeline.mjs [--events N] [--frames N] [--skip-reference] [--reference-events N] [--via-devtools]
//                           [--host-held | --page-held]   (force either path whatever the size)
//                           [--readers N]   (reader threads beside a host-held timeline's engine;
//                                            default: the engine's own choice by processor count)
//
// chart.js cannot hold 10^7 events in a page (one object per event): the reference is capped
// at --reference-events (default 10^6) and printed at that size, with the ratios as measured.
/* global window, document, requestAnimationFrame, WheelEvent, PerformanceObserver, setInterval, clearInterval */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEMO_META,
  buildPage,
  browserSettled,
  bundleBrowser,
  deliver,
  deliverFetched,
  holdOnHost,
  launch,
  loadSupport,
  makeTimeline,
  rendererMemoryBytes,
  repo,
  startServer,
} from '../test/webview/timelineHarness.mjs';

const args = process.argv.slice(2);
const opt = (flag, fallback) => {
  const i = args.indexOf(flag);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const EVENTS = opt('--events', 1_000_000);
const FRAMES = opt('--frames', 240);
// 136 events per iteration of the four paths at 1 MiB with 64 CUs (docs/SIMULATOR.md).
const ITERS = Math.max(1, Math.round(EVENTS / 136));
// The older delivery (base64 pieces over the DevTools protocol, then a cloned message), to
// compare with figures measured that way; its transfer is not what a host's message costs.
const VIA_DEVTOOLS = args.includes('--via-devtools');
const REF_EVENTS = Math.min(EVENTS, opt('--reference-events', 1_000_000));
const FORCE_HOST = args.includes('--host-held');
const FORCE_PAGE = args.includes('--page-held');
const READERS = args.includes('--readers') ? opt('--readers', 0) : undefined;
const REF_ITERS = Math.max(1, Math.round(REF_EVENTS / 136));

const p95 = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)];
};
const mb = (bytes) => bytes / 1e6;

async function memory(page, profile) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
  return { heapMb: mb(heap), rendererMb: mb(rendererMemoryBytes(profile) ?? NaN) };
}

/** Scripted pan and zoom on the timeline canvas, one input per animation frame, as a user's wheel would. */
async function driveTimeline(page, frames) {
  return page.evaluate(async (n) => {
    const canvas = document.querySelector('canvas');
    const rect = canvas.getBoundingClientRect();
    const stats = window.__timelineStats;
    const longTasks = [];
    const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
    observer.observe({ entryTypes: ['longtask'] });
    const before = stats.frameMs.length;
    const intervals = [];
    const inputMs = [];
    let last = 0;
    const at = {
      clientX: rect.left + 190 + (rect.width - 190) * 0.4,
      clientY: rect.top + 120,
      bubbles: true,
      cancelable: true,
    };
    const quarter = Math.floor(n / 4);
    for (let i = 0; i < n; i++) {
      const phase = Math.floor(i / quarter);
      const init =
        phase === 0
          ? { ...at, ctrlKey: true, deltaY: -60 }
          : phase === 1
            ? { ...at, shiftKey: true, deltaY: 40 }
            : phase === 2
              ? { ...at, ctrlKey: true, deltaY: 60 }
              : { ...at, shiftKey: true, deltaY: -40 };
      const now = await new Promise((ok) => requestAnimationFrame(ok));
      if (last) intervals.push(now - last);
      last = now;
      const t0 = performance.now();
      canvas.dispatchEvent(new WheelEvent('wheel', init));
      inputMs.push(performance.now() - t0);
    }
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    observer.disconnect();
    const drawMs = stats.frameMs.slice(before);
    return { drawMs, inputMs, intervals, longTasks, lodMs: stats.lodMs.slice(-50), draws: drawMs.length };
  }, frames);
}

async function driveChartjs(page, frames, budgetMs) {
  return page.evaluate(
    async ({ n, budget }) => {
      const chart = window.__chart;
      const stats = window.__timelineStats;
      const before = stats.frameMs.length;
      const start = performance.now();
      const quarter = Math.floor(n / 4);
      let done = 0;
      for (let i = 0; i < n && performance.now() - start < budget; i++) {
        const phase = Math.floor(i / quarter);
        if (phase === 0) chart.zoom(0.86);
        else if (phase === 1) chart.pan(0.05);
        else if (phase === 2) chart.zoom(1 / 0.86);
        else chart.pan(-0.05);
        done++;
        await new Promise((ok) => requestAnimationFrame(ok));
      }
      return { drawMs: stats.frameMs.slice(before), done };
    },
    { n: frames, budget: budgetMs },
  );
}

/** Peak memory of this process and of the page's renderer, sampled until `stop()`. */
function samplePeaks(profile) {
  const peak = { nodeMb: mb(process.memoryUsage().rss), rendererMb: mb(rendererMemoryBytes(profile) ?? 0) };
  const sample = () => {
    peak.nodeMb = Math.max(peak.nodeMb, mb(process.memoryUsage().rss));
    peak.rendererMb = Math.max(peak.rendererMb, mb(rendererMemoryBytes(profile) ?? 0));
  };
  const timer = setInterval(sample, 50);
  return {
    peak,
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

async function measure(kind, origin, file, support, hostHeld = false) {
  const b = await launch({ width: 1400, height: 900 }, { bypassCSP: true });
  try {
    const { page } = b;
    await page.goto(`${origin}/${kind}.html?theme=dark`);
    await page.waitForFunction(() => window.__preview?.posted.some((m) => m.type === 'ready'));
    const idle = await memory(page, b.profile);
    // The file is opened once the browser is quiet: headless Chromium's own UI renderer is still
    // starting when the page is ready, and would share the processors with the load measured.
    const settledMs = await browserSettled(b.profile);
    const sampler = samplePeaks(b.profile);
    // File open: the host's read and check of the whole file, as the extension does it.
    const openedAt = performance.timeOrigin + performance.now();
    let hostColumns;
    let hostReadMs = NaN;
    let events;
    let held;
    if (hostHeld) {
      // The engine process reads the file; this process relays the page's queries.
      held = await holdOnHost(page, support, { file, meta: DEMO_META, readers: READERS, fetchable: true });
      events = held.figures.count;
    } else {
      // As the extension reads it: one buffer, the columns views over it (a Uint8Array made from
      // the Buffer itself would be a second copy of the file).
      const read = readFileSync(file);
      hostColumns = support.readTimelineFile(new Uint8Array(read.buffer, read.byteOffset, read.byteLength));
      hostReadMs = performance.timeOrigin + performance.now() - openedAt;
      events = VIA_DEVTOOLS
        ? await deliver(page, file, DEMO_META)
        : await deliverFetched(page, `${origin}/${file.split('/').pop()}`, DEMO_META);
    }
    try {
      await page.waitForFunction(() => window.__timelineStats.firstFrameAt > 0, undefined, {
        timeout: 600_000,
        polling: 50,
      });
      // A host-held timeline draws its first frames from the engine's overview of the file; the
      // load ends when the engine has built its index (zoom, hover and search from then on):
      // memory is sampled until then.
      if (hostHeld)
        await page.waitForFunction(() => window.__timelineStats.readyAt > 0, undefined, {
          timeout: 600_000,
          polling: 50,
        });
    } catch (err) {
      if (held?.figures.failure) throw new Error(`the engine failed: ${held.figures.failure}`);
      throw err;
    }
    const peak = sampler.stop();
    // The engine's own process: its peak so far (the kernel's high-water mark), the index built.
    if (held) peak.engineMb = support.processMemory(held.engine.pid)?.peakMb ?? NaN;
    if (held) hostReadMs = held.figures.readMs;
    hostColumns = undefined;
    const s = await page.evaluate(() => ({
      ...window.__timelineStats,
      frameMs: undefined,
      timeOrigin: performance.timeOrigin,
    }));
    const firstMs = s.firstFrameAt - s.receivedAt;
    const fromOpenMs = s.timeOrigin + s.firstFrameAt - openedAt;
    const loaded = await memory(page, b.profile);
    const drive = kind === 'timeline' ? await driveTimeline(page, FRAMES) : await driveChartjs(page, FRAMES, 120_000);
    const after = await memory(page, b.profile);
    held?.engine.dispose();
    if (held && held.figures.problems.length > 0) throw new Error(`relay: ${held.figures.problems.join('; ')}`);
    if (b.failures.length > 0) throw new Error(`${kind}: ${b.failures.join('; ')}`);
    void hostColumns;
    return {
      events,
      settledMs,
      firstMs,
      fromOpenMs,
      hostReadMs,
      peak,
      idle,
      loaded,
      after,
      drive,
      indexMs: s.indexMs,
      inWorker: s.inWorker,
      hostHeld: s.hostHeld,
      // The first frame's parts: open -> index on the page, index -> first full frame (the
      // level-of-detail query's trip and computation), the engine's first LOD, its drawing.
      indexFromOpenMs: s.timeOrigin + s.indexAt - openedAt,
      readyFromOpenMs: s.readyAt > 0 ? s.timeOrigin + s.readyAt - openedAt : NaN,
      builtMs: s.builtMs,
      indexToFrameMs: s.firstFrameAt - s.indexAt,
      firstLodMs: s.lodMs?.[0] ?? NaN,
      firstLodSource: s.firstLodSource,
      indexToAnswerMs: s.firstLodAt - s.indexAt,
      firstDrawMs: s.firstFrameDrawMs,
    };
  } finally {
    await b.close();
  }
}

/** Where a host-held timeline's first level of detail came from (the page's stats.firstLodSource). */
const LOD_SOURCE = {
  pushed: 'binned while surveying and pushed with the index, answered in',
  ahead: 'binned while surveying, answered in',
  file: 'binned from the file',
  index: 'from the built index',
};

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'sdma-lens-bench-timeline-'));
  let server;
  try {
    const assets = join(tmp, 'assets');
    await buildPage(assets);
    // In the served folder: the page fetches it from there.
    const file = makeTimeline(assets, { sizes: '1M', cus: 64, iters: ITERS });
    await bundleBrowser(join(repo, 'bench/timelineChartjs.ts'), join(assets, 'chartjs.js'));
    const support = await loadSupport(tmp);
    const served = await startServer(support, assets, {
      timeline: { script: 'timeline.js' },
      chartjs: { script: 'chartjs.js' },
    });
    server = served.server;

    const hostHeld = FORCE_HOST || (!FORCE_PAGE && EVENTS >= support.HOST_HELD_EVENTS);
    const t = await measure('timeline', served.origin, file, support, hostHeld);
    const drawP95 = p95(t.drive.drawMs);
    const workP95 = p95(t.drive.drawMs.map((d, i) => d + (t.drive.inputMs[i] ?? 0)));
    console.log(
      `timeline panel, ${t.events.toLocaleString('en-US')} events (level of detail ${t.hostHeld ? `in an engine process the host starts${READERS === undefined ? '' : `, ${READERS} reader threads`}` : t.inWorker ? 'in a worker' : 'on the page'}):`,
    );
    console.log(
      `  file open -> first frame   ${t.fromOpenMs.toFixed(0)} ms   (target <= 1000 at 10^7${t.hostHeld ? '' : `; host read ${t.hostReadMs.toFixed(0)} ms`})`,
    );
    console.log(
      `  browser quiet              ${t.settledMs.toFixed(0)} ms after the page was ready (the file is opened then; headless Chromium's own UI renderer starts with the browser)`,
    );
    console.log(
      `  first frame's parts        open -> index on the page ${t.indexFromOpenMs.toFixed(0)} ms (${t.hostHeld ? "the engine's survey of the file" : 'build'} ${t.indexMs.toFixed(0)} ms), index -> first frame ${t.indexToFrameMs.toFixed(0)} ms (its answer on the page after ${t.indexToAnswerMs.toFixed(0)} ms; first LOD ${t.hostHeld ? `${LOD_SOURCE[t.firstLodSource] ?? t.firstLodSource} ` : ''}${t.firstLodMs.toFixed(0)} ms, draw ${t.firstDrawMs.toFixed(1)} ms)`,
    );
    if (t.hostHeld)
      console.log(
        `  file open -> index built   ${t.readyFromOpenMs.toFixed(0)} ms   (engine read ${t.hostReadMs.toFixed(0)} ms from open, build ${t.builtMs.toFixed(0)} ms; zoom, hover and search wait for it)`,
      );
    console.log(
      `  data -> first full frame   ${t.firstMs.toFixed(0)} ms   (${t.hostHeld ? 'from word that the host holds the events' : `index and lane-ordered columns built in ${t.indexMs.toFixed(0)} ms`})`,
    );
    console.log(
      `  peak while loading         renderer ${t.peak.rendererMb.toFixed(0)} MB, Node (host stand-in) ${t.peak.nodeMb.toFixed(0)} MB${t.hostHeld ? `, engine process ${t.peak.engineMb.toFixed(0)} MB` : ''} (target: each <= 1000)`,
    );
    console.log(
      `  pan/zoom frame work p95    ${workP95.toFixed(2)} ms  (draw ${drawP95.toFixed(2)} ms; target <= 16) over ${t.drive.draws} frames`,
    );
    console.log(
      `  frame interval p95         ${p95(t.drive.intervals).toFixed(1)} ms  (as paced by headless Chromium)`,
    );
    console.log(`  long tasks (>50 ms)        ${t.drive.longTasks.length}`);
    console.log(`  worker LOD p95             ${p95(t.drive.lodMs).toFixed(1)} ms (off the page thread)`);
    console.log(
      `  memory loaded              renderer ${t.loaded.rendererMb.toFixed(0)} MB (idle page ${t.idle.rendererMb.toFixed(0)} MB), JS heap ${t.loaded.heapMb.toFixed(1)} MB; after pan/zoom renderer ${t.after.rendererMb.toFixed(0)} MB (target <= 500)`,
    );

    if (args.includes('--skip-reference')) return;
    const refFile = REF_ITERS === ITERS ? file : makeTimeline(assets, { sizes: '1M', cus: 64, iters: REF_ITERS });
    const r = await measure('chartjs', served.origin, refFile, support);
    const rP95 = p95(r.drive.drawMs);
    const scale = t.events / r.events;
    console.log(
      `reference: chart.js drawing ${r.events === t.events ? 'the same events' : `${r.events.toLocaleString('en-US')} of the same simulator's events (it cannot hold ${t.events.toLocaleString('en-US')})`} naively (one dataset per lane, on the page thread):`,
    );
    console.log(
      `  file open -> first frame   ${r.fromOpenMs.toFixed(0)} ms   (browser quiet ${r.settledMs.toFixed(0)} ms after the page was ready)`,
    );
    console.log(`  data -> first full frame   ${r.firstMs.toFixed(0)} ms`);
    console.log(
      `  peak while loading         renderer ${r.peak.rendererMb.toFixed(0)} MB, Node (host stand-in) ${r.peak.nodeMb.toFixed(0)} MB`,
    );
    console.log(`  pan/zoom frame p95         ${rP95.toFixed(0)} ms over ${r.drive.done} frames (stopped after 120 s)`);
    console.log(
      `  memory loaded              renderer ${r.loaded.rendererMb.toFixed(0)} MB, JS heap ${r.loaded.heapMb.toFixed(1)} MB; after pan/zoom renderer ${r.after.rendererMb.toFixed(0)} MB`,
    );
    console.log(
      scale === 1
        ? 'ratios (reference / timeline):'
        : `ratios (reference at ${r.events.toLocaleString('en-US')} / timeline at ${t.events.toLocaleString('en-US')}, ${scale.toFixed(0)}x the events; not scaled):`,
    );
    console.log(
      `  first frame from open ${(r.fromOpenMs / t.fromOpenMs).toFixed(1)}x   first frame ${(r.firstMs / t.firstMs).toFixed(1)}x   frame p95 ${(rP95 / workP95).toFixed(0)}x   renderer memory ${(r.loaded.rendererMb / t.loaded.rendererMb).toFixed(2)}x   peak renderer ${(r.peak.rendererMb / t.peak.rendererMb).toFixed(2)}x`,
    );
  } finally {
    server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
