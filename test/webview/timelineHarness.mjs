// The timeline panel outside VS Code, shared by the browser checks (timeline.mjs,
// runTimeline.mjs; collective.mjs uses its page runner, withPage) and the
// benchmark (bench/timeline.mjs): builds the page, serves it with the panel's exact HTML and
// CSP, stands in for the VS Code host (theme variables, acquireVsCodeApi), and delivers a
// timeline the way the extension does: one message whose columns are typed arrays.
/* global window, requestAnimationFrame, atob, fetch, MessageEvent */
/* global document */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { buildTimelineWebview } from '../../webview/timeline/build.mjs';
import { THEMES as LOOKALIKES, VSCODE_THEMES } from './themes.mjs';
import { checker, report } from './report.mjs';

/** The look-alike themes (`?theme=dark`) and VS Code's own, by id (`?theme=Light%2B`). */
const THEMES = { ...LOOKALIKES, ...VSCODE_THEMES };

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const here = join(repo, 'test/webview');
export const probe = join(repo, 'native/build/sdma-probe');

/** Runs the simulator for a timeline file; returns its path. */
export function makeTimeline(dir, { sizes = '512M', cus = 64, iters = 1, paths = 'all' } = {}) {
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  const file = join(dir, `timeline-${sizes}-${cus}-${iters}.sdmatl`);
  execFileSync(
    probe,
    [
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      sizes,
      '--paths',
      paths,
      '--cus',
      String(cus),
      '--iters',
      '1',
      '--timeline-size',
      sizes,
      '--timeline-cus',
      String(cus),
      '--timeline-iters',
      String(iters),
      '--timeline-out',
      file,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return file;
}

export const DEMO_META = {
  key: 'demo/timeline.sdmatl',
  runId: 'demo',
  title: 'Timeline · 512 MiB',
  simulated: true,
  nodeLabel: 'AMD Instinct MI350X',
  vendor: 'amd',
  sizeBytes: 512 * 1024 * 1024,
  gpuCus: [256, 256, 256, 256, 256, 256, 256, 256],
};

/** Bundles a TypeScript entry for the browser (extra pages of the benchmark). */
export async function bundleBrowser(entry, outfile) {
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
}

export async function loadSupport(tmp) {
  const outfile = join(tmp, 'timelineSupport.mjs');
  await esbuild.build({
    entryPoints: [join(here, 'timelineSupport.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}

const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json', '.html': 'text/html' };

/**
 * Serves `pages`: name -> script (and style) file name in `assetDir` (the page's module). Every
 * page gets its panel's HTML shell and CSP from `support` (the timeline's, `timelineHtml`, when
 * it has one; otherwise the other panels', `panelHtml`), and the fake host API before its
 * module, which answers `ready` with the `replay` messages.
 */
export async function startServer(support, assetDir, pages, replay = []) {
  const shell = support.timelineHtml ?? support.panelHtml;
  const makeNonce = support.timelineNonce ?? support.makeNonce;
  const fakeVscode = `const THEMES = ${JSON.stringify(THEMES)};\nconst REPLAY = ${JSON.stringify(replay)};\n${readFileSync(join(here, 'fakeVscode.js'), 'utf8')}`;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status, type, body) => {
      res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' });
      res.end(body);
    };
    const page = pages[url.pathname.replace(/^\/|\.html$/g, '')];
    if (page) {
      const theme = THEMES[url.searchParams.get('theme') ?? 'dark'] ?? THEMES.dark;
      const origin = `http://${req.headers.host}`;
      const nonce = makeNonce();
      // What VS Code adds around the panel's own HTML: the theme class, and (here) the fake host API.
      const html = shell({
        cspSource: origin,
        scriptUri: `${origin}/${page.script}`,
        styleUri: `${origin}/${page.style ?? 'timeline.css'}`,
        nonce,
        title: page.title ?? 'Timeline demo',
      })
        .replace('<body>', `<body class="${theme.bodyClass}" data-vscode-theme-kind="${theme.bodyClass}">`)
        .replace(
          '<script type="module"',
          `<script nonce="${nonce}" src="${origin}/fake-vscode.js"></script>\n<script type="module"`,
        );
      return send(200, 'text/html', html);
    }
    if (url.pathname === '/fake-vscode.js') return send(200, 'text/javascript', fakeVscode);
    if (url.pathname.startsWith('/relay/')) {
      // A host message's typed arrays, once (holdOnHost's relay when the page may fetch).
      const body = relayed.get(url.pathname);
      relayed.delete(url.pathname);
      if (!body) return send(404, 'text/plain', 'not found');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
      return res.end(body);
    }
    if (url.pathname === '/favicon.ico') return send(204, 'text/plain', '');
    const file = join(assetDir, url.pathname.replace(/^\/+/, ''));
    if (!file.startsWith(assetDir) || !existsSync(file) || !statSync(file).isFile())
      return send(404, 'text/plain', 'not found');
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      // A part of a file (the benchmark fetches a timeline column by column), read from disk as asked.
      const from = Number(range[1]);
      const length = Number(range[2]) - from + 1;
      const part = Buffer.alloc(length);
      const fd = openSync(file, 'r');
      try {
        readSync(fd, part, 0, length, from);
      } finally {
        closeSync(fd);
      }
      res.writeHead(206, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
      return res.end(part);
    }
    send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

export async function buildPage(assetDir) {
  mkdirSync(assetDir, { recursive: true });
  await buildTimelineWebview({ outdir: assetDir });
}

/**
 * A fresh headless Chromium. `bypassCSP` only for the benchmark, whose page fetches its
 * timeline from the harness (deliverFetched), which the panel's CSP rightly forbids.
 */
export async function launch(viewport = { width: 1280, height: 800 }, { bypassCSP = false } = {}) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'sdma-lens-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport,
    bypassCSP,
    deviceScaleFactor: 1.5,
    locale: 'en-US',
    timezoneId: 'UTC',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--enable-precise-memory-info',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const failures = [];
  page.on('console', (m) => {
    if (m.type() === 'error') failures.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => failures.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => r.status() >= 400 && failures.push(`HTTP ${r.status()}: ${r.url()}`));
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, failures, profile, close };
}

/**
 * Hands the file's bytes to the page in pieces (a single 50 MB argument is too much for the
 * DevTools protocol), then posts the timeline message as the host would. The page-side
 * parser mirrors the sdmatl layout of docs/PROTOCOL.md (versions 1 and 2); the columns arrive
 * as typed arrays.
 */
export async function deliver(page, file, meta) {
  const bytes = readFileSync(file);
  await page.evaluate((n) => {
    window.__feed = new Uint8Array(n);
    window.__feedAt = 0;
  }, bytes.length);
  const piece = 6 << 20;
  for (let o = 0; o < bytes.length; o += piece) {
    await page.evaluate(
      (b64) => {
        const s = atob(b64);
        const a = window.__feed;
        let at = window.__feedAt;
        for (let i = 0; i < s.length; i++) a[at++] = s.charCodeAt(i);
        window.__feedAt = at;
      },
      bytes.subarray(o, o + piece).toString('base64'),
    );
  }
  return page.evaluate((m) => {
    const data = window.__feed;
    const view = new DataView(data.buffer);
    const version = view.getUint32(8, true);
    const n = Number(view.getBigUint64(16, true));
    let off = 32;
    const take = (width, Make) => {
      const out = new Make(data.slice(off, off + width * n).buffer);
      off += (width * n + 7) & ~7;
      return out;
    };
    const columns = {
      count: n,
      kind: take(1, Uint8Array),
      op: take(1, Uint8Array),
      path: take(1, Uint8Array),
      gpu: take(2, Uint16Array),
      lane: take(4, Uint32Array),
      id: take(4, Int32Array),
      ref: take(4, Int32Array),
      startNs: take(8, Float64Array),
      endNs: take(8, Float64Array),
      queuedNs: take(8, Float64Array),
      bytes: take(8, Float64Array),
    };
    // Version 2: the flags column follows (bit 0: inferred).
    if (version >= 2) columns.flags = take(1, Uint8Array);
    window.__feed = undefined;
    // Like a webview's message from its host: a structured clone of the typed arrays.
    window.postMessage({ type: 'timeline', meta: m, columns }, '*');
    return n;
  }, meta);
}

/**
 * `deliver` for the benchmark's large timelines: the page fetches the file from the harness's
 * server column by column (HTTP ranges), so each column arrives in its own buffer as a host's
 * message would deliver it, and hands the page the timeline message as the webview's message
 * event, without the extra copies of base64 pieces over the DevTools protocol (which at 10^7
 * events would take longer, and hold more, than everything measured).
 */
export async function deliverFetched(page, url, meta) {
  return page.evaluate(
    async ({ href, m }) => {
      const part = async (from, length) =>
        length === 0
          ? new ArrayBuffer(0)
          : (await fetch(href, { headers: { range: `bytes=${from}-${from + length - 1}` } })).arrayBuffer();
      const view = new DataView(await part(0, 32));
      const version = view.getUint32(8, true);
      const n = Number(view.getBigUint64(16, true));
      let off = 32;
      const take = async (width, Make) => {
        const out = new Make(await part(off, width * n));
        off += (width * n + 7) & ~7;
        return out;
      };
      const columns = { count: n };
      columns.kind = await take(1, Uint8Array);
      columns.op = await take(1, Uint8Array);
      columns.path = await take(1, Uint8Array);
      columns.gpu = await take(2, Uint16Array);
      columns.lane = await take(4, Uint32Array);
      columns.id = await take(4, Int32Array);
      columns.ref = await take(4, Int32Array);
      columns.startNs = await take(8, Float64Array);
      columns.endNs = await take(8, Float64Array);
      columns.queuedNs = await take(8, Float64Array);
      columns.bytes = await take(8, Float64Array);
      if (version >= 2) columns.flags = await take(1, Uint8Array);
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'timeline', meta: m, columns } }));
      return n;
    },
    { href: url, m: meta },
  );
}

/**
 * Waits for the engine to have answered the page's queries (a selection's details, a step, a
 * filter: the page asks its worker for them), then for `n` animation frames.
 */
export const frames = async (page, n = 2) => {
  await page.waitForFunction(() => (window.__timelineStats?.queries ?? 0) === 0, undefined, {
    timeout: 30_000,
    polling: 10,
  });
  return page.evaluate(
    (count) =>
      new Promise((ok) => {
        let left = count;
        const step = () => (--left <= 0 ? ok() : requestAnimationFrame(step));
        requestAnimationFrame(step);
      }),
    n,
  );
};

/** Distinct colours sampled in the middle of the timeline's canvas: more than a few once the plot is drawn. */
export function paintedColours(page) {
  return page.evaluate(() => {
    const c = document.querySelector('canvas');
    const d = c
      .getContext('2d')
      .getImageData(
        Math.round(c.width * 0.3),
        Math.round(c.height * 0.1),
        Math.round(c.width * 0.5),
        Math.round(c.height * 0.5),
      ).data;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 64) colours.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return colours.size;
  });
}
/**
 * PSS of this browser's page renderers (the page and its worker live there; the headless
 * browser's own UI renderer, `--top-chrome-webui`, is not the page and is left out).
 */
export function rendererMemoryBytes(profile) {
  let total = 0;
  for (const { pid, cmdline } of browserProcesses(profile)) {
    if (!cmdline.includes('--type=renderer') || cmdline.includes('--top-chrome-webui')) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // A process that just exited has no memory to count.
    }
  }
  return total;
}

/**
 * The processes of the browser started with `profile`, with their command lines. Chromium
 * rewrites its children's command lines into one space-separated string, so they are matched as
 * text (NULs made spaces, so every argument ends with one): a process of this browser names its
 * profile directory.
 */
function browserProcesses(profile) {
  const out = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(`--user-data-dir=${profile} `)) out.push({ pid, cmdline });
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** CPU time (clock ticks, user + system, every thread) of each of `processes` so far. */
function cpuTicks(processes) {
  const ticks = new Map();
  for (const { pid } of processes) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks;
}

/**
 * Waits until the browser started with `profile` is quiet: its processes together used at most
 * `busyTicks` clock ticks (10 ms each) over `windowMs`, up to `maxMs`. Headless Chromium starts
 * its own UI renderer (`--top-chrome-webui`) with the browser, and it is still working when the
 * first page has loaded: a measurement that starts then shares the processors with it. Returns
 * how long it waited (Linux; elsewhere at once, 0).
 */
export async function browserSettled(profile, { windowMs = 200, busyTicks = 2, maxMs = 5000 } = {}) {
  const t0 = performance.now();
  if (process.platform !== 'linux') return 0;
  let before = cpuTicks(browserProcesses(profile));
  while (performance.now() - t0 < maxMs) {
    await new Promise((done) => setTimeout(done, windowMs));
    const now = cpuTicks(browserProcesses(profile));
    // A process started meanwhile counts all its time; one that ended, none.
    let used = 0;
    for (const [pid, t] of now) used += t - (before.get(pid) ?? 0);
    if (used <= busyTicks) break;
    before = now;
  }
  return performance.now() - t0;
}

/**
 * One browser check of a panel page, from start to report: a scratch folder, the page built
 * by `setup(tmp, assets)` (it returns the `support` module, whose nonce and HTML shell the
 * server uses, and the `pages` to serve), Chromium open on it (dark theme) until the panel
 * posts `ready`. `body` gets what it checks with; CSP violations, console errors and the
 * clean-up are here.
 */
export async function withPage(name, viewport, setup, body) {
  const tmp = mkdtempSync(join(tmpdir(), `sdma-lens-${name}-`));
  const assets = join(tmp, 'assets');
  mkdirSync(assets, { recursive: true });
  let server;
  let browser;
  const failures = [];
  const check = checker(failures);
  try {
    const { support, pages } = await setup(tmp, assets);
    const served = await startServer(support, assets, pages);
    server = served.server;
    browser = await launch(viewport);
    const { page } = browser;
    const stats = () => page.evaluate(() => window.__timelineStats);
    const posted = () => page.evaluate(() => window.__preview.posted);
    await page.goto(`${served.origin}/index.html?theme=dark`);
    await page.waitForFunction(() => window.__preview.posted.some((m) => m.type === 'ready'));
    await body({ support, tmp, page, check, stats, posted, origin: served.origin });
    for (const v of await page.evaluate(() => window.__preview.cspViolations)) failures.push(`CSP violation: ${v}`);
    failures.push(...browser.failures);
    await browser.close();
    browser = undefined;
  } finally {
    if (browser?.close) await browser.close();
    server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  report(failures);
}

/** withPage for the timeline page, built and served as the extension ships it. */
export function withTimelinePage(name, viewport, body) {
  const setup = async (tmp, assets) => {
    const support = await loadSupport(tmp);
    await buildPage(assets);
    return { support, pages: { index: { script: 'timeline.js' } } };
  };
  return withPage(name, viewport, setup, body);
}

/** The engine's bundle as the extension ships it (`npm run build` writes it). */
export const ENGINE_BUNDLE = join(repo, 'dist/timelineEngine.js');

/** The relay each page's queries go to (the latest timeline held on it). */
const relays = new WeakMap();

/** The typed arrays a message to the page may carry (what `packTyped` takes out and the page makes again). */
const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
];

/** Host messages' typed arrays waiting for the page to fetch them, by path; each served once. */
const relayed = new Map();
let relayedCount = 0;

/**
 * A host message with its typed arrays taken out into one buffer, for `dispatchPacked` to make
 * again on the page: each array is `{ __typed, at, bytes }`, its place in `bytes`. The DevTools
 * protocol carries only text, and Playwright's own encoding of a typed array goes a byte at a
 * time on Node 20 (about 150 ms for the 2 MB of a 10^7-event first answer), where VS Code's
 * webview messages carry typed arrays as binary: the stand-in should not cost what the host it
 * stands in for does not.
 */
function packTyped(message) {
  const parts = [];
  let at = 0;
  const take = (value) => {
    if (ArrayBuffer.isView(value) && TYPED_ARRAYS.includes(value.constructor.name)) {
      parts.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      const out = { __typed: value.constructor.name, at, bytes: value.byteLength };
      at += value.byteLength;
      return out;
    }
    if (Array.isArray(value)) return value.map(take);
    if (value !== null && typeof value === 'object') {
      const out = {};
      for (const [key, v] of Object.entries(value)) out[key] = take(v);
      return out;
    }
    return value;
  };
  const skeleton = take(message);
  return { skeleton, bytes: parts.length > 0 ? Buffer.concat(parts, at) : undefined };
}

/**
 * On the page: `packTyped`'s message made again (each typed array in a buffer of its own) and
 * dispatched as the host's message event. The arrays' bytes come fetched from `path` (binary,
 * as VS Code carries them; a page whose CSP is bypassed: the benchmark's) or as base64.
 */
async function dispatchPacked({ skeleton, path, base64, seq }) {
  const kinds = {
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
  };
  let bytes;
  if (path) bytes = new Uint8Array(await (await fetch(path)).arrayBuffer());
  else if (base64 !== undefined) {
    const text = atob(base64);
    bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  }
  const revive = (v) => {
    if (Array.isArray(v)) return v.map(revive);
    if (v === null || typeof v !== 'object') return v;
    if (typeof v.__typed === 'string' && Object.hasOwn(kinds, v.__typed))
      return new kinds[v.__typed](bytes.slice(v.at, v.at + v.bytes).buffer);
    const out = {};
    for (const key of Object.keys(v)) out[key] = revive(v[key]);
    return out;
  };
  // Dispatched in the order they were posted (`seq`, per page), whichever arrived first: a
  // message fetched may come after the one posted after it. A page loaded afresh starts counting
  // from the first message it gets.
  const inbox = (window.__hostInbox ??= { next: seq, waiting: new Map() });
  inbox.waiting.set(seq, revive(skeleton));
  while (inbox.waiting.has(inbox.next)) {
    const data = inbox.waiting.get(inbox.next);
    inbox.waiting.delete(inbox.next);
    inbox.next++;
    window.dispatchEvent(new MessageEvent('message', { data }));
  }
}

/** The number of the last message posted to each page (dispatchPacked puts them back in this order). */
const posted = new WeakMap();

/**
 * Posts a host message to the page, its typed arrays as binary by fetch (`fetchable`) or as
 * base64; resolves once the page has it.
 */
function postToPage(page, message, fetchable) {
  const seq = (posted.get(page) ?? 0) + 1;
  posted.set(page, seq);
  const { skeleton, bytes } = packTyped(message);
  if (!bytes) return page.evaluate(dispatchPacked, { skeleton, seq });
  if (!fetchable) return page.evaluate(dispatchPacked, { skeleton, base64: bytes.toString('base64'), seq });
  const path = `/relay/${++relayedCount}`;
  relayed.set(path, bytes);
  return page.evaluate(dispatchPacked, { skeleton, path, seq }).finally(() => relayed.delete(path));
}

/**
 * Plays the extension host for a host-held timeline, as timelinePanel.ts does: reads the
 * file's header for its count, starts the engine process (`bundle`, the shipped
 * dist/timelineEngine.js) through the same relay (TimelineEngineHost), tells the page the
 * events are host-held, validates each message the page posts with the panel's parser and
 * relays its queries, and posts the engine's answers back as host messages, in order (each
 * sent without waiting for the page to have handled the one before, as VS Code posts). The
 * engine is a process of its own (its memory is its own: processMemory).
 * `fetchable`: the page may fetch from the harness's server (its CSP bypassed, as the
 * benchmark's is), so typed arrays reach it as binary; else as base64.
 */
export async function holdOnHost(page, support, { file, meta, bundle = ENGINE_BUNDLE, readers, fetchable = false }) {
  if (!existsSync(bundle)) throw new Error(`${bundle} is not built (npm run build)`);
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(32);
  try {
    readSync(fd, head, 0, 32, 0);
  } finally {
    closeSync(fd);
  }
  const { count } = support.readTimelineHeader(new Uint8Array(head), statSync(file).size);
  const figures = { count, readMs: NaN, readers: 0, failure: undefined, problems: [] };
  let delivered = Promise.resolve();
  // As VS Code posts to a webview: in order, without waiting for the page to have handled the
  // message before (the page puts them back in order, dispatchPacked).
  const toPage = (message) => {
    const sent = postToPage(page, message, fetchable).catch((err) => figures.problems.push(String(err)));
    delivered = delivered.then(() => sent);
  };
  const engine = new support.TimelineEngineHost({
    bundle,
    file,
    meta: { gpuCus: meta.gpuCus, vendor: meta.vendor, simulated: meta.simulated },
    readers,
    onRead: (_events, ms, readers) => {
      figures.readMs = ms;
      figures.readers = readers;
    },
    onAnswer: (answer) => toPage({ type: 'engine-answer', answer }),
    onFailure: (message) => {
      figures.failure = message;
      toPage({ type: 'timeline-status', state: 'error', message });
    },
  });
  // One relay function a page: a second timeline held on the same page takes it over.
  const relay = (raw) => {
    const message = support.parseTimelineWebviewMessage(raw);
    if (message?.type === 'engine-query') engine.query(message.query);
    else figures.problems.push(`the page posted an invalid message: ${JSON.stringify(raw).slice(0, 200)}`);
  };
  if (!relays.has(page)) await page.exposeFunction('__hostRelay', (raw) => relays.get(page)?.(raw));
  relays.set(page, relay);
  toPage({ type: 'timeline-host-held', meta, count });
  return { engine, figures, flushed: () => delivered };
}
