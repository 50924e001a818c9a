#!/usr/bin/env node
// Browser preview of the sweep panel, outside VS Code: builds the webview bundle, serves it
// with the panel's real HTML and CSP, stands in for the VS Code host (theme variables,
// acquireVsCodeApi, posted messages), replays a run as the host would while it streams, and
// drives headless Chromium to check the page and take the docs screenshots.
//
//   node test/webview/preview.mjs RUN.ndjson            check + docs/images/sweep-{dark,light,high-contrast}.png
//   node test/webview/preview.mjs --probe               same, with a run from native/build/sdma-probe sweep --backend sim
//   node test/webview/preview.mjs --probe --sim-gpus 1  a one-GPU node: three endpoint pairs and the pair switcher
//                                                        (how the docs screenshots are made)
//   node test/webview/preview.mjs RUN.ndjson --serve    serve only; open the printed URL in a browser
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
// Functions passed to page.evaluate run in the page, hence the browser globals.
/* global window, document, requestAnimationFrame */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { checker, report, runMain } from './report.mjs';
import { startServer } from './timelineHarness.mjs';
import { pageCss } from '../../scripts/pageCss.mjs';
import { checkTableActions } from './tableActionsCheck.mjs';
import { checkSeriesContrast } from './contrastCheck.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const here = join(repo, 'test/webview');
const distWebview = join(repo, 'dist/webview');
const probe = join(repo, 'native/build/sdma-probe');
const args = process.argv.slice(2);
const serveOnly = args.includes('--serve');
const outDir = resolve(repo, valueOf('--out') ?? 'docs/images');
const runArg = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--out');

function valueOf(flag) {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

const RUN_HEADER = {
  type: 'run',
  format: 'sdma-lens-run',
  version: 1,
  id: 'demo',
  command: 'sweep',
  createdAt: '2026-11-30T00:00:00Z',
  target: { kind: 'local' },
  helper: { path: 'sdma-probe', args: ['sweep', '--backend', 'sim'] },
};

function readRunText() {
  if (runArg) return readFileSync(resolve(runArg), 'utf8');
  if (args.includes('--probe')) {
    if (!existsSync(probe)) throw new Error(`--probe: ${probe} is not built`);
    // --sim-gpus 1: a one-GPU node, whose default sweep has three endpoint pairs (the pair switcher).
    const gpus = args.includes('--sim-gpus') ? ['--sim-gpus', args[args.indexOf('--sim-gpus') + 1]] : [];
    const records = execFileSync(probe, ['sweep', '--backend', 'sim', ...gpus], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    // The host closes every saved run with how it saw the helper end. Fixed dates (and the
    // simulator's fixed seed) keep the docs screenshots reproducible.
    const end = {
      type: 'run-end',
      status: 'ok',
      exitCode: 0,
      signal: null,
      message: '',
      endedAt: '2026-11-30T00:00:01Z',
    };
    return `${JSON.stringify(RUN_HEADER)}\n${records.trimEnd()}\n${JSON.stringify(end)}\n`;
  }
  throw new Error('usage: node test/webview/preview.mjs RUN.ndjson | --probe  [--serve] [--out DIR]');
}

/** The webview entry of scripts/build.mjs, alone: the host and CLI bundles are not needed here. */
async function buildWebview() {
  mkdirSync(distWebview, { recursive: true });
  await esbuild.build({
    entryPoints: { sweep: join(repo, 'webview/sweep/main.ts') },
    outdir: distWebview,
    bundle: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  pageCss(join(repo, 'webview/sweep/sweep.css'), join(distWebview, 'sweep.css'));
}

/** panelHtml and the run replay are TypeScript; bundle them for this Node process. */
async function loadSupport(tmp) {
  const outfile = join(tmp, 'previewSupport.mjs');
  await esbuild.build({
    entryPoints: [join(here, 'previewSupport.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}

async function drive(origin, messages) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'sdma-lens-chromium-'));
  const failures = [];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1180, height: 900 },
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
    ],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') failures.push(`console error: ${m.text()}`);
      else if (m.type() === 'warning') console.warn(`  console warning: ${m.text()}`);
    });
    page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => failures.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on('response', (r) => r.status() >= 400 && failures.push(`HTTP ${r.status()}: ${r.url()}`));

    const posted = () => page.evaluate(() => window.__preview.posted);
    const frames = () =>
      page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    const post = (message) => page.evaluate((m) => window.postMessage(m, '*'), message);
    const check = checker(failures);

    await page.goto(`${origin}/index.html?theme=dark`);
    await page.waitForFunction(() => window.__preview.posted.some((m) => m.type === 'ready'));
    check((await posted())[0]?.type === 'ready', 'the panel posts {type: "ready"} first');

    // Streamed updates, as fast as the host's throttle allows.
    await page.evaluate(() => (document.querySelector('canvas').dataset.previewMark = 'first'));
    for (const message of messages) {
      await post(message);
      await page.waitForTimeout(150);
    }
    await frames();
    const canvases = await page.evaluate(() =>
      [...document.querySelectorAll('canvas')].map((c) => c.dataset.previewMark ?? ''),
    );
    check(
      canvases.length === 1 && canvases[0] === 'first',
      `${messages.length} updates redrew one chart, not a new one each time`,
    );
    const final = messages.at(-1).view;
    const headers = await page.locator('.data-table thead th').allTextContents();
    const rows = await page.locator('.data-table tbody tr').count();
    console.log(`  table columns: ${headers.join(' | ')}`);
    check(
      rows === new Set(final.series.flatMap((s) => s.points.map((p) => p.sizeBytes))).size,
      `the table has one row per message size (${rows})`,
    );
    check(
      headers.some((h) => /^cu\/host · \d+ CUs?$/.test(h)) || !final.series.some((s) => s.path === 'cu/host'),
      'cu/* columns name the CU count',
    );
    check(
      headers.includes('engine/host') || !final.series.some((s) => s.path === 'engine/host'),
      'the engine/host column is named "engine/host"',
    );
    if (final.simulated) {
      const badge = page.locator('.simulated-badge');
      check(await badge.isVisible(), 'the SIMULATED badge is visible');
      check(
        (await badge.getAttribute('title')) === 'Numbers come from the simulated MI350X model, not a measurement',
        'the badge explains itself on hover',
      );
    }

    // The Evidence column: one per series, a word per sample with the detail as its tooltip.
    const evidenceHeads = await page.locator('.data-table thead th.evidence-head').count();
    const shownSeries = headers.length - 1 - evidenceHeads;
    check(
      evidenceHeads === shownSeries && evidenceHeads > 0,
      `an Evidence column beside each series (${evidenceHeads})`,
    );
    const evidenceCells = page.locator('.data-table tbody td.evidence');
    const words = await evidenceCells.allTextContents();
    const expected = final.series.every((s) => s.points.every((p) => p.evidence?.state === 'simulated'))
      ? 'simulated'
      : undefined;
    check(
      words.length > 0 && (!expected || words.every((w) => w === expected || w === '—')),
      `every sample's Evidence cell says ${expected ?? 'its word'} (${new Set(words).size} distinct)`,
    );
    check(
      ((await evidenceCells.first().getAttribute('title')) ?? '').length > 0,
      'an Evidence cell has the detail as its tooltip',
    );
    const flaggedBefore = final.series
      .flatMap((s) => s.points)
      .filter((p) => p.evidence?.state === 'contradicts').length;
    check(
      (await page.locator('.evidence-note').isVisible()) === flaggedBefore > 0,
      flaggedBefore > 0
        ? `the note at the top explains ${flaggedBefore} flagged sample(s)`
        : 'no evidence note while no sample is flagged',
    );
    check(
      (await page.locator('.data-table td.evidence-contradicts').count()) <= flaggedBefore,
      'no Evidence cell is flagged but a contradicting sample',
    );
    // A sample whose evidence contradicts its label: flagged in the table, explained at the top.
    const flagged = JSON.parse(JSON.stringify(messages.at(-1)));
    const engine = flagged.view.series.find(
      (s) => s.path.startsWith('engine/') && !s.series && s.points[0]?.evidence?.state !== 'contradicts',
    );
    if (engine) {
      const cellsBefore = await page.locator('.data-table td.evidence-contradicts').count();
      engine.points[0].evidence = {
        ...(engine.points[0].evidence ?? {}),
        state: 'contradicts',
        word: '✗ contradicts',
        title: 'simulated: a CU copy kernel carried the bytes (--fault mislabel-after)',
        source: 'simulated',
        observed: 'cu',
        verdict: 'contradicts',
        detail: 'simulated: a CU copy kernel carried the bytes (--fault mislabel-after)',
      };
      flagged.evidenceNote = 'A sample is flagged ✗ contradicts.';
      await post(flagged);
      await frames();
      check(await page.locator('.evidence-note').isVisible(), 'a flagged sample is explained at the top of the page');
      check(
        (await page.locator('.evidence-note').textContent())?.includes('A sample is flagged'),
        "the note is the host's words",
      );
      // The first size of the series' pair is shown only where the page shows that pair and CU count.
      check(
        (await page.locator('.data-table td.evidence-contradicts').count()) >= cellsBefore,
        'its Evidence cell is flagged',
      );
      check((await page.locator('.data-table td.contradicts .flag').count()) >= 1, 'its GB/s cell is marked ✗');
      await post(messages.at(-1));
      await frames();
      check(
        (await page.locator('.evidence-note').isVisible()) === flaggedBefore > 0,
        'the note follows the flagged samples the run has',
      );
    }

    if (messages.at(-1)?.advice) {
      const advice = page.locator('details.advice');
      check(await advice.isVisible(), 'the Advice section is shown');
      const knobs = await page.locator('details.advice td.knob').allTextContents();
      // GPU -> GPU pairs get the per-put GIN threshold; no pair gets a process-wide engine switch.
      if (final.pairs.some((p) => p.src >= 0 && p.dst >= 0 && p.src !== p.dst))
        check(
          knobs.some((k) => k.startsWith('NCCL_GIN_ANVIL_SDMA_THRESHOLD=')),
          `the advice lists the GIN put threshold (${knobs.length} settings)`,
        );
      check(
        !knobs.some((k) => k.startsWith('HSA_ENABLE_SDMA=') || k.startsWith('HSA_ENABLE_PEER_SDMA=')),
        `the advice for ${final.pairs[0]?.label} sets no process-wide SDMA switch (${knobs.length} settings)`,
      );
      // Apply is offered only where a setting has a value (an imported run may have none).
      const applicable = messages.at(-1).advice.recommendations.some((r) => r.value !== undefined);
      const suggest = page.locator('details.advice button.suggest');
      check(
        (await suggest.count()) === (applicable ? 1 : 0),
        applicable ? 'the Apply button is offered' : 'no Apply button where no setting has a value',
      );
      if (applicable) {
        const before = (await posted()).length;
        await suggest.click();
        check(
          (await posted()).slice(before).some((m) => m.type === 'suggest-settings'),
          'the Apply button asks the host to suggest settings',
        );
      }
      const basis = await page.locator('details.advice p.advice-basis').textContent();
      check(
        !/:\s*$/.test(basis ?? '') || (await page.locator('details.advice ul.crossovers li').count()) > 0,
        `no heading over an empty list ("${basis}")`,
      );
    }

    // The table's buttons: labelled, reachable, and each posts only its message (the host builds the table).
    await checkTableActions(
      { page, check, posted },
      {
        what: 'sweep',
        heading: `SDMA Lens sweep ${final.runId}`,
        rows: new Set(final.series.flatMap((s) => s.points.map((p) => p.sizeBytes))).size,
      },
    );

    mkdirSync(outDir, { recursive: true });
    for (const theme of ['dark', 'light', 'high-contrast']) {
      // Switched live, as VS Code does: the chart must redraw in the new colours.
      await page.evaluate((t) => window.__preview.setTheme(t), theme);
      await frames();
      await page.mouse.move(0, 0);
      const file = join(outDir, `sweep-${theme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`  wrote ${file}`);
    }
    await page.evaluate(() => window.__preview.setTheme('dark'));
    // Every series solid and 3:1 on the background in each of VS Code's own themes.
    await checkSeriesContrast(page, check, 'sweep');

    // A message the schema rejects is ignored and reported, never drawn.
    const before = (await posted()).length;
    await post({ type: 'sweep', view: { runId: 42 } });
    await frames();
    const reported = (await posted()).slice(before);
    check(
      reported.length === 1 && reported[0].type === 'webview-error',
      'an invalid host message is reported as webview-error',
    );

    // Picking another CU count redraws and tells the host.
    const other = final.cuCounts.find((c) => c !== 64 && c !== Math.max(...final.cuCounts)) ?? final.cuCounts[0];
    if (other !== undefined && final.cuCounts.length > 1) {
      const label = other === 1 ? '1 CU' : `${other} CUs`;
      await page.locator('#cu-select').click();
      await page.getByRole('option', { name: label, exact: true }).click();
      await frames();
      const last = (await posted()).at(-1);
      check(last?.type === 'cus-selected' && last.cus === other, `picking ${label} posts cus-selected`);
      const columns = await page.locator('.data-table thead th').allTextContents();
      check(
        columns.some((h) => h.endsWith(`· ${label}`)),
        `the table follows the CU selection (${label})`,
      );
      check(
        (await page.evaluate(() => window.__preview.state()))?.pickedCus === other,
        'the choice is kept in webview state',
      );
    }

    // Endpoint pairs: a run of several shows one at a time behind a keyboard-driven radio group.
    const switcher = page.locator('.pair-selector');
    if (final.pairs.length > 1) {
      check(await switcher.isVisible(), `the pair switcher is shown for ${final.pairs.length} pairs`);
      const radios = page.getByRole('radio');
      check((await radios.count()) === final.pairs.length, 'one radio per endpoint pair');
      check(
        (await radios.nth(0).getAttribute('aria-checked')) === 'true' &&
          (await radios.nth(0).textContent()) === final.pairs[0].label,
        `the first pair (${final.pairs[0].label}) is checked first`,
      );
      await radios.nth(0).focus();
      await page.keyboard.press('ArrowRight');
      await frames();
      const second = final.pairs[1];
      const last = (await posted()).at(-1);
      check(
        last?.type === 'pair-selected' && last.src === second.src && last.dst === second.dst,
        `ArrowRight picks ${second.label} and tells the host`,
      );
      check(
        (await page.evaluate(() => document.activeElement?.textContent)) === second.label,
        'focus follows the choice',
      );
      check(
        (await page.locator('.data-table caption').textContent())?.startsWith(`${second.label}: `),
        'the table caption names the pair shown',
      );
      check((await page.locator('.header').textContent())?.includes(second.label), 'the header names the pair shown');
      check(
        (await page.evaluate(() => window.__preview.state()))?.pickedPair?.src === second.src,
        'the pair is kept in webview state',
      );
      const unsupported = final.unsupported.filter((u) => u.src === second.src && u.dst === second.dst);
      const items = await page.locator('.unsupported').allTextContents();
      check(
        items.length === unsupported.length && items.every((t) => t.includes(`not for ${second.label}: `)),
        `paths the pair cannot have say why (${items.length})`,
      );
    } else {
      check(!(await switcher.isVisible()), 'no pair switcher for a run of one pair');
    }

    const violations = await page.evaluate(() => window.__preview.cspViolations);
    for (const v of violations) failures.push(`CSP violation: ${v}`);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  return failures;
}

async function main() {
  const runText = readRunText();
  await buildWebview();
  const tmp = mkdtempSync(join(tmpdir(), 'sdma-lens-preview-'));
  let server;
  try {
    const support = await loadSupport(tmp);
    const messages = support.sweepMessages(runText, 4);
    const served = await startServer(
      support,
      distWebview,
      { index: { script: 'sweep.js', style: 'sweep.css', title: 'Sweep demo' } },
      serveOnly ? messages : [],
    );
    server = served.server;
    const origin = served.origin;
    if (serveOnly) {
      console.log(`serving ${origin}/index.html?theme=dark  (theme=light, theme=high-contrast); Ctrl-C stops`);
      return;
    }
    console.log(`sweep.js: ${statSync(join(distWebview, 'sweep.js')).size} bytes (unminified)`);
    const failures = await drive(origin, messages);
    report(failures);
  } finally {
    if (!serveOnly) server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

runMain(main);
