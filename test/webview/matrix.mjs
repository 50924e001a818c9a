#!/usr/bin/env node
// The matrix panel in headless Chromium under its real CSP: a matrix from the real helper
// (simulated 8-GPU node, one cell failed on purpose) streamed as the host streams it, then
// the heat maps, the weak pairs (none on the simulated node), the SIMULATED badge, keyboard navigation, theme colours,
// an invalid message, and screenshots. Then a concurrent matrix (all pairs at once): the
// per-GPU send/receive sums next to each grid and the path's total.
//
//   node test/webview/matrix.mjs            checks + docs/images/matrix-dark.png
//   node test/webview/matrix.mjs --out DIR  screenshots in every theme in DIR
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document, getComputedStyle, requestAnimationFrame */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { checker, report, runMain } from './report.mjs';
import { checkSeriesContrast } from './contrastCheck.mjs';
import { checkTableActions } from './tableActionsCheck.mjs';
import { startServer } from './timelineHarness.mjs';
import { pageCss } from '../../scripts/pageCss.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const here = join(repo, 'test/webview');
const probe = join(repo, 'native/build/sdma-probe');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = resolve(repo, outIndex >= 0 ? args[outIndex + 1] : 'docs/images');

const HELPER_ARGS = [
  'matrix',
  '--backend',
  'sim',
  '--iters',
  '5',
  '--paths',
  'cu/host,engine/host',
  '--fault',
  'corrupt-after=60',
];
const CONCURRENT_ARGS = [
  'matrix',
  '--backend',
  'sim',
  '--iters',
  '5',
  '--paths',
  'cu/host,engine/host',
  '--concurrent',
];

function runText(helperArgs = HELPER_ARGS, id = 'matrix-demo') {
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id,
    command: 'matrix',
    createdAt: '2026-11-30T00:00:00Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: helperArgs },
  };
  let out;
  let end = { type: 'run-end', status: 'ok', exitCode: 0, signal: null, message: '', endedAt: '2026-11-30T00:00:01Z' };
  try {
    out = execFileSync(probe, helperArgs, { encoding: 'utf8' });
  } catch (err) {
    out = err.stdout; // exit 4: the damaged cell, as intended
    end = { ...end, status: 'error', exitCode: 4, message: '1 cell failed' };
  }
  return `${JSON.stringify(header)}\n${out.trimEnd()}\n${JSON.stringify(end)}\n`;
}

async function build(tmp) {
  const assets = join(tmp, 'assets');
  mkdirSync(assets, { recursive: true });
  await esbuild.build({
    entryPoints: { matrix: join(repo, 'webview/matrix/main.ts') },
    outdir: assets,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  const support = join(tmp, 'matrixSupport.mjs');
  await esbuild.build({
    entryPoints: [join(here, 'matrixSupport.ts')],
    outfile: support,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return { assets, support: await import(pathToFileURL(support).href) };
}

async function serve(support, assets) {
  pageCss(join(repo, 'webview/matrix/matrix.css'), join(assets, 'matrix.css'));
  return startServer(support, assets, { index: { script: 'matrix.js', style: 'matrix.css', title: 'Matrix' } });
}

/** A matrix over host, GPU 0 and GPU 1 (`--gpus host,0,1`): a host row and column, handwritten records. */
function hostMatrixText() {
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'matrix-host-demo',
    command: 'matrix',
    createdAt: '2026-11-30T00:00:00Z',
    target: { kind: 'local' },
    helper: {
      path: 'sdma-probe',
      args: ['matrix', '--backend', 'sim', '--paths', 'engine/host', '--gpus', 'host,0,1'],
    },
  };
  const lines = [
    header,
    {
      type: 'hello',
      protocol: 1,
      helper: { name: 'sdma-probe', version: '0.1.0' },
      command: 'matrix',
      backend: 'sim',
      simulated: true,
      backendsBuilt: ['sim'],
      pid: 1,
    },
  ];
  const ends = [-1, 0, 1];
  for (const src of ends)
    for (const dst of ends) {
      if (src === dst) continue;
      const gbps = src < 0 || dst < 0 ? 52 + src + dst : 180;
      const ns = (1 << 20) / gbps;
      lines.push({
        type: 'matrix-cell',
        mover: 'engine',
        initiator: 'host',
        src,
        dst,
        sizeBytes: 1 << 20,
        cus: 0,
        engines: 1,
        iters: 3,
        medianNs: ns,
        meanNs: ns,
        minNs: ns,
        maxNs: ns,
        gbps,
        gbpsMean: gbps,
        validated: true,
      });
    }
  lines.push({ type: 'done', status: 'ok', samples: 6, elapsedMs: 1 });
  return lines.map((x) => JSON.stringify(x)).join('\n') + '\n';
}

/** Four GPUs whose links agree but one: GPU 2 -> GPU 1 at half the others (handwritten records). */
function weakMatrixText() {
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'matrix-weak-demo',
    command: 'matrix',
    createdAt: '2026-11-30T00:00:00Z',
    target: { kind: 'local' },
    helper: {
      path: 'sdma-probe',
      args: ['matrix', '--backend', 'cuda', '--paths', 'engine/host', '--gpus', '0,1,2,3'],
    },
  };
  const lines = [
    header,
    {
      type: 'hello',
      protocol: 1,
      helper: { name: 'sdma-probe', version: '0.1.0' },
      command: 'matrix',
      backend: 'cuda',
      simulated: false,
      backendsBuilt: ['cuda'],
      pid: 1,
    },
  ];
  for (const src of [0, 1, 2, 3])
    for (const dst of [0, 1, 2, 3]) {
      if (src === dst) continue;
      const gbps = src === 2 && dst === 1 ? 90 : 180 + (src - dst) / 10;
      const ns = (1 << 20) / gbps;
      lines.push({
        type: 'matrix-cell',
        mover: 'engine',
        initiator: 'host',
        src,
        dst,
        sizeBytes: 1 << 20,
        cus: 0,
        engines: 1,
        iters: 3,
        medianNs: ns,
        meanNs: ns,
        minNs: ns,
        maxNs: ns,
        gbps,
        gbpsMean: gbps,
        validated: true,
      });
    }
  lines.push({ type: 'done', status: 'ok', samples: 12, elapsedMs: 1 });
  return lines.map((x) => JSON.stringify(x)).join('\n') + '\n';
}

async function drive(origin, messages, formatGbps, concurrentMessages, hostMessages, weakMessages) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'sdma-lens-chromium-'));
  const failures = [];
  const check = checker(failures);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1100, height: 900 },
    locale: 'en-US',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => m.type() === 'error' && failures.push(`console error: ${m.text()}`));
    page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => failures.push(`request failed: ${r.url()}`));
    page.on('response', (r) => r.status() >= 400 && failures.push(`HTTP ${r.status()}: ${r.url()}`));
    const posted = () => page.evaluate(() => window.__preview.posted);
    const frames = () =>
      page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    const post = (m) => page.evaluate((x) => window.postMessage(x, '*'), m);

    await page.goto(`${origin}/index.html?theme=dark`);
    await page.waitForFunction(() => window.__preview.posted.some((m) => m.type === 'ready'));
    check((await posted())[0]?.type === 'ready', 'the panel posts {type: "ready"} first');
    for (const m of messages) {
      await post(m);
      await page.waitForTimeout(60);
    }
    await frames();
    const view = messages.at(-1).view;

    for (const p of view.paths) {
      const n = p.gpus.length;
      const section = page.locator(`section.path[data-path="${p.path}"]`);
      const cells = await section
        .locator('table.heatmap td.cell')
        .evaluateAll((tds) =>
          tds.map((td) => ({ text: td.textContent, cls: td.className, bg: getComputedStyle(td).backgroundColor })),
        );
      check(cells.length === n * n, `${p.path}: the heat map draws every cell (${cells.length} = ${n} x ${n})`);
      const expected = p.rows.flat();
      check(
        expected.every((c, i) =>
          c.state === 'measured'
            ? cells[i].text === formatGbps(c.gbps)
            : c.state === 'self'
              ? cells[i].text === ''
              : true,
        ),
        `${p.path}: each cell shows its GB/s, the diagonal blank`,
      );
      check(
        expected.filter((c) => c.state === 'measured').length ===
          cells.filter((c) => c.cls.includes('measured')).length,
        `${p.path}: ${p.measured} measured cells coloured`,
      );
      const colours = new Set(cells.filter((c) => c.cls.includes('measured')).map((c) => c.bg));
      check(colours.size > 1, `${p.path}: the colour follows the GB/s (${colours.size} shades)`);
      const weakestText = await section.locator('.weakest-text').textContent();
      // The simulated node's pairs differ by its seeded noise only: none is called weak.
      check(
        p.weakest.length === 0 &&
          /^No pair stands out: the slowest, GPU \d → GPU \d at [\d.]+ GB\/s, is \d\.\d% below the median/.test(
            weakestText,
          ),
        `${p.path}: no pair is framed as weak within the noise: ${weakestText}`,
      );
      check(
        (await section.locator('td.cell.weakest').count()) === 0 &&
          (await section.locator('.weakest-key').count()) === 0,
        `${p.path}: no cell is marked weak, and the legend has no weak-pair key`,
      );
      check((await section.locator('.legend').count()) === 1, `${p.path}: a legend`);
    }
    const failed = page.locator('td.cell.failed');
    check(
      (await failed.count()) === 1 && /failed, validation/.test((await failed.getAttribute('aria-label')) ?? ''),
      'the failed cell is marked and says why',
    );
    const badge = page.locator('.simulated-badge');
    check(await badge.isVisible(), 'the SIMULATED badge is visible');

    // Keyboard: one tab stop per grid, arrows move, the live region reads the cell.
    const first = page.locator('section.path').first().locator('td[tabindex="0"]');
    await first.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowLeft');
    const focused = await page.evaluate(() => ({
      row: document.activeElement?.dataset.row,
      col: document.activeElement?.dataset.col,
    }));
    check(
      focused.row === '1' && focused.col === '0',
      `arrow keys move between cells (now row ${focused.row}, column ${focused.col})`,
    );
    const detail = await page.locator('section.path').first().locator('.cell-detail').textContent();
    check(/^GPU 1 → GPU 0: [\d.]+ GB\/s/.test(detail), `the focused cell is read out: "${detail}"`);
    check(
      (await page.locator('details.all-cells tbody tr').count()) ===
        view.paths.reduce((s, p) => s + p.gpus.length * (p.gpus.length - 1), 0),
      'the table form lists every cell',
    );
    check(
      (await page.evaluate(() => window.__preview.state()))?.runId === view.runId,
      'the run id is kept in webview state (for restore after reload)',
    );

    const darkBg = await page
      .locator('td.cell.measured')
      .first()
      .evaluate((td) => getComputedStyle(td).backgroundColor);
    mkdirSync(outDir, { recursive: true });
    for (const theme of ['light', 'high-contrast', 'dark']) {
      await page.evaluate((t) => window.__preview.setTheme(t), theme);
      await frames();
      if (theme === 'light') {
        const lightBg = await page
          .locator('td.cell.measured')
          .first()
          .evaluate((td) => getComputedStyle(td).backgroundColor);
        check(lightBg !== darkBg, `cells take the theme's colours (dark ${darkBg}, light ${lightBg})`);
      }
      if (outIndex >= 0 || theme === 'dark') {
        const file = join(outDir, `matrix-${theme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(`  wrote ${file}`);
      }
    }
    // The heat map's colour and the weakest pair's outline 3:1 on the background in each of VS Code's own themes.
    await checkSeriesContrast(page, check, 'matrix');

    // Every cell but the diagonal, of every path: failed ones too, with their state.
    await checkTableActions(
      { page, check, posted },
      {
        what: 'matrix',
        heading: `SDMA Lens bandwidth matrix ${view.runId}`,
        rows: view.paths.reduce((n, p) => n + p.rows.flat().filter((c) => c.state !== 'self').length, 0),
      },
    );
    const before = (await posted()).length;
    await post({ type: 'matrix-view', view: { runId: 7 } });
    await frames();
    const reported = (await posted()).slice(before);
    check(
      reported.length === 1 && reported[0].type === 'webview-error',
      'an invalid host message is reported as webview-error, not drawn',
    );
    check(
      (await page.locator('table.heatmap').count()) === view.paths.length,
      'the heat maps are still shown after it',
    );
    check((await page.locator('table.totals').count()) === 0, 'a matrix of pairs measured alone has no per-GPU totals');

    // All pairs at once: the same grids, plus each GPU's row and column sums and the total.
    for (const m of concurrentMessages) {
      await post(m);
      await page.waitForTimeout(60);
    }
    await frames();
    const cview = concurrentMessages.at(-1).view;
    const heading = await page.locator('header h1').textContent();
    check(
      /all pairs at once/.test(heading) && /all pairs at once/.test(await page.locator('header .muted').textContent()),
      `the header says all pairs ran at once: "${heading.trim()}"`,
    );
    for (const p of cview.paths) {
      const section = page.locator(`section.path[data-path="${p.path}"]`);
      check(
        /all pairs at once/.test(await section.locator('h2').textContent()),
        `${p.path}: the title says all pairs at once`,
      );
      const shown = await section
        .locator('table.heatmap tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td.cell')].map((td) => td.textContent)));
      const rows = await section
        .locator('table.totals tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      check(rows.length === p.gpus.length, `${p.path}: a send/receive row per GPU next to the grid (${rows.length})`);
      // The sums drawn are those of the GB/s the grid shows (each to the precision shown).
      const expected = p.rows.map((row, i) => [
        `GPU ${p.gpus[i]}`,
        formatGbps(row.reduce((sum, c) => sum + (c.gbps ?? 0), 0)),
        formatGbps(p.rows.reduce((sum, r) => sum + (r[i].gbps ?? 0), 0)),
      ]);
      check(
        JSON.stringify(rows) === JSON.stringify(expected),
        `${p.path}: each GPU's send and receive are its row and column sums (${rows[0]?.join(' ')})`,
      );
      check(
        shown.flat().filter((t) => /^[\d.]+$/.test(t)).length === p.measured,
        `${p.path}: the grid still shows every cell's GB/s`,
      );
      const total = await section.locator('.total-text').textContent();
      check(
        total.includes(`All ${p.total.pairs} pairs at once: ${formatGbps(p.total.gbps)} GB/s in total`),
        `${p.path}: the path's total is drawn: "${total}"`,
      );
      check(
        /^No pair stands out/.test(await section.locator('.weakest-text').textContent()),
        `${p.path}: the weak-pair line is still there`,
      );
      const grid = await section.locator('.grid-and-totals').boundingBox();
      const heat = await section.locator('table.heatmap').boundingBox();
      const totals = await section.locator('table.totals').boundingBox();
      check(
        grid !== null && totals.x > heat.x + heat.width - 1,
        `${p.path}: the totals sit next to the grid, not under it`,
      );
    }
    if (outIndex < 0) {
      const file = join(outDir, 'matrix-concurrent-dark.png');
      await page.screenshot({ path: file, fullPage: true });
      console.log(`  wrote ${file}`);
    }
    // A host row and column: labelled "host", the host -> host corner blank, each host cell read out by its pair.
    await post(hostMessages.at(-1));
    await frames();
    const hview = hostMessages.at(-1).view;
    check(
      JSON.stringify(hview.paths[0].gpus) === '[-1,0,1]',
      `the view spans host, GPU 0, GPU 1 (${JSON.stringify(hview.paths[0].gpus)})`,
    );
    const hsection = page.locator('section.path').first();
    const colHeads = await hsection.locator('table.heatmap thead th').allTextContents();
    const rowHeads = await hsection.locator('table.heatmap tbody th').allTextContents();
    check(
      colHeads[1] === 'host' && rowHeads[0] === 'host',
      `the heat map has a host column and row (${colHeads.join(' | ')}; ${rowHeads.join(' | ')})`,
    );
    const hostCells = await hsection
      .locator('table.heatmap tbody tr')
      .first()
      .locator('td.cell')
      .evaluateAll((tds) =>
        tds.map((td) => td.getAttribute('aria-label') ?? td.getAttribute('title') ?? td.textContent),
      );
    check(
      hostCells.some((t) => /^host → GPU 0: [\d.]+ GB\/s/.test(t ?? '')),
      `host cells are read out by their pair (${hostCells.join(' | ')})`,
    );

    // One link far below the others: named as the weak pair, marked, read out and keyed in the legend.
    await post(weakMessages.at(-1));
    await frames();
    const wsection = page.locator('section.path').first();
    const weakLine = await wsection.locator('.weakest-text').textContent();
    check(
      /^Weak pair: GPU 2 → GPU 1, 90\.00 GB\/s, 50\.0% below the median 179\.9 \(modified z-score −\d+\.\d\)\.$/.test(
        weakLine ?? '',
      ),
      `a pair far below the others is named weak: "${weakLine}"`,
    );
    const marked = wsection.locator('td.cell.weakest');
    check(
      (await marked.count()) === 1 &&
        (await marked.getAttribute('aria-label')) === 'GPU 2 → GPU 1: 90.00 GB/s, weak pair',
      `only that cell is marked and read out as weak (${await marked.getAttribute('aria-label')})`,
    );
    check(
      (await wsection.locator('.legend .weakest-key').textContent()) === 'weak pair',
      'the legend keys the weak-pair outline',
    );
    for (const v of await page.evaluate(() => window.__preview.cspViolations)) failures.push(`CSP violation: ${v}`);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  return failures;
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'sdma-lens-matrix-'));
  let server;
  try {
    const { assets, support } = await build(tmp);
    const messages = support.matrixMessages(runText(), 4);
    const concurrentMessages = support.matrixMessages(runText(CONCURRENT_ARGS, 'matrix-concurrent-demo'), 3);
    const served = await serve(support, assets);
    server = served.server;
    const hostMessages = support.matrixMessages(hostMatrixText(), 1);
    const weakMessages = support.matrixMessages(weakMatrixText(), 1);
    const failures = await drive(
      served.origin,
      messages,
      support.formatGbps,
      concurrentMessages,
      hostMessages,
      weakMessages,
    );
    report(failures);
  } finally {
    server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

runMain(main);
