#!/usr/bin/env node
// The compare panel in headless Chromium under its real CSP: the 2x H200 sweep against its
// rerun (bench/results), drawn with chart.js (both runs' bandwidth, the ratio with its
// interval), the curve picker by mouse and keyboard, the verdict table, "Open", then an
// invalid message, a theme switch, the run-to-run tolerance by default and from baseline runs
// (where it came from, a column, the state a reload reopens), and a matrix comparison (one
// size: a table, no curve).
//
//   node test/webview/compare.mjs            checks
//   node test/webview/compare.mjs --out DIR  checks + screenshots in DIR
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { pageCss } from '../../scripts/pageCss.mjs';
import { checkSeriesContrast } from './contrastCheck.mjs';
import { frames, repo, withPage } from './timelineHarness.mjs';
import { runMain } from './report.mjs';
import { checkTableActions } from './tableActionsCheck.mjs';

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 ? resolve(repo, args[outIndex + 1]) : undefined;

/** The compare page and its support module, built as scripts/build.mjs builds them. */
async function setup(tmp, assets) {
  await esbuild.build({
    entryPoints: { compare: join(repo, 'webview/compare/main.ts') },
    outdir: assets,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  pageCss(join(repo, 'webview/compare/compare.css'), join(assets, 'compare.css'));
  const supportFile = join(tmp, 'compareSupport.mjs');
  // The support module reads bench/results relative to test/support.
  await esbuild.build({
    entryPoints: [join(repo, 'test/webview/compareSupport.ts')],
    outfile: supportFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    define: { __dirname: JSON.stringify(join(repo, 'test/support')) },
  });
  const support = await import(pathToFileURL(supportFile).href);
  return { support, pages: { index: { script: 'compare.js', style: 'compare.css', title: 'Compare' } } };
}

/** Inked samples per canvas: drawn pixels, every 7th. */
const ink = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('figure canvas')].map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let inked = 0;
      for (let i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) inked++;
      return { label: c.getAttribute('aria-label'), width: c.width, height: c.height, inked };
    }),
  );

async function main() {
  await withPage('compare', { width: 1100, height: 1100 }, setup, async ({ support, page, check, posted }) => {
    const message = support.compareMessage('sweep');
    const { view } = message;
    const worst = view.groups.find((g) => g.points.some((p) => p.key === view.summary.worstRegression?.key));

    check((await posted())[0]?.type === 'ready', 'the panel posts {type: "ready"} first');

    await page.evaluate((m) => window.postMessage(m, '*'), message);
    await page.waitForSelector('figure canvas');
    await frames(page, 3);
    const drawn = await ink(page);
    check(drawn.length === 2, `two charts: bandwidth of A and B, and the ratio below (${drawn.length})`);
    check(
      drawn.every((d) => d.width > 200 && d.height > 100 && d.inked > 300),
      `both charts are drawn (${drawn.map((d) => `${d.width}x${d.height}, ${d.inked} inked`).join('; ')})`,
    );
    check(
      drawn[1]?.label?.includes('ratio B / A') && drawn[1].label.includes('regression'),
      `the ratio chart names its points and verdicts (${drawn[1]?.label?.slice(0, 120)}…)`,
    );

    const options = await page.locator('#group-picker option').allTextContents();
    check(
      options.length === view.groups.length && view.groups.length === 12,
      `the picker lists every curve (${options.length} of ${view.groups.length})`,
    );
    const selected = await page.locator('#group-picker').inputValue();
    check(worst !== undefined && selected === worst.key, `it opens on the curve of the worst regression (${selected})`);
    check(
      (await page.locator('figcaption').textContent()) === worst?.label,
      `the figure names that curve (${await page.locator('figcaption').textContent()})`,
    );

    const rows = await page.locator('table.points tbody tr').count();
    check(rows === view.summary.common, `the table has a row per point (${rows} for ${view.summary.common})`);
    const regressions = await page.locator('table.points tbody tr.state-regression').count();
    check(
      regressions === view.summary.regressions,
      `rows marked regression: ${regressions}, as the summary counts (${view.summary.regressions})`,
    );
    check(
      (await page.locator('table.points tbody tr.shown').count()) === worst?.points.length,
      'the rows of the curve shown are marked',
    );
    const summaryText = await page.locator('ul.summary-lines').textContent();
    check(summaryText.includes(view.summaryLines[0]), `the summary says ${view.summaryLines[0]}`);

    // Pick another curve with the mouse: the charts redraw for it and the page keeps the choice.
    const engine = view.groups.find((g) => g.label === 'engine/host · GPU 0 → GPU 1 · pipelined');
    await page.locator('#group-picker').selectOption(engine.key);
    await frames(page, 3);
    const after = await ink(page);
    check(
      after.length === 2 && after[0].label.startsWith(engine.label) && after.every((d) => d.inked > 300),
      `picking ${engine.label} redraws both charts for it`,
    );
    check(
      (await page.evaluate(() => window.__preview.state()))?.group === engine.key,
      'the page keeps the curve picked in its state',
    );

    // And with the keyboard: the picker keeps focus across the redraw.
    await page.locator('#group-picker').focus();
    await page.keyboard.press('ArrowDown');
    await frames(page, 3);
    const next = view.groups[view.groups.findIndex((g) => g.key === engine.key) + 1];
    check(
      (await page.evaluate(() => document.activeElement?.id)) === 'group-picker',
      'the picker keeps focus after a keyboard change',
    );
    check(
      (await page.locator('figcaption').textContent()) === next?.label,
      `ArrowDown moves to the next curve (${await page.locator('figcaption').textContent()})`,
    );

    // A tooltip on the ratio chart.
    await page.locator('figure canvas').nth(1).scrollIntoViewIfNeeded();
    const box = await page.locator('figure canvas').nth(1).boundingBox();
    const before = (await ink(page))[1].inked;
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await frames(page, 2);
    const hovered = (await ink(page))[1].inked;
    check(hovered > before, `hovering the ratio chart draws its tooltip (${before} -> ${hovered} inked samples)`);

    await page.getByRole('button', { name: /^Open run A/ }).click();
    const opened = (await posted()).at(-1);
    check(
      opened?.type === 'open-run' && opened.side === 'a',
      `"Open" next to A posts open-run for A (${JSON.stringify(opened)})`,
    );

    await checkTableActions(
      { page, check, posted },
      {
        what: 'compare',
        heading: `SDMA Lens comparison of ${view.kind} runs ${view.a.id} (A) and ${view.b.id} (B)`,
        rows: view.groups.reduce((n, g) => n + g.points.length, 0),
      },
    );
    const sent = (await posted()).length;
    await page.evaluate(() =>
      window.postMessage(
        { type: 'compare-view', view: { kind: 'sweep', groups: [{ points: [{ ratio: null }] }] } },
        '*',
      ),
    );
    await frames(page, 2);
    const reported = (await posted()).slice(sent);
    check(
      reported.length === 1 && reported[0].type === 'webview-error',
      'an invalid host message is reported as webview-error, not drawn',
    );
    check((await page.locator('figure canvas').count()) === 2, 'the charts drawn before stay');

    await page.evaluate(() => window.__preview.setTheme('light'));
    await frames(page, 3);
    const light = await ink(page);
    check(light.length === 2 && light.every((d) => d.inked > 300), 'a theme switch redraws both charts');
    // A, B and B's swatch 3:1 on the background in each of VS Code's own themes.
    await checkSeriesContrast(page, check, 'compare', 'light');
    const state = await page.evaluate(() => window.__preview.state());
    check(
      state?.a === 'first' && state?.b === 'rerun' && state?.tolerance === 0,
      `the page keeps both run ids and the tolerance in its state, for a restore (${JSON.stringify(state)})`,
    );

    check(
      (await page.locator('.tolerance').textContent())?.includes('Run-to-run tolerance: 0 %, given'),
      'the tolerance given is said with where it came from',
    );
    if (outDir) {
      mkdirSync(outDir, { recursive: true });
      await page.screenshot({ path: join(outDir, 'compare-light.png'), fullPage: true });
      console.log(`  wrote ${join(outDir, 'compare-light.png')}`);
    }

    // By default: the tolerance measured in bench/results, said with its source; every point within noise.
    const byDefault = support.compareMessage('sweepDefault');
    await page.evaluate((m) => window.postMessage(m, '*'), byDefault);
    await frames(page, 3);
    const tolerance = await page.locator('.tolerance').textContent();
    const derivation = await page.locator('ul.summary-lines').textContent();
    check(
      tolerance.includes('Run-to-run tolerance: 6.3 %, the default') &&
        derivation.includes(
          '(default: 95th percentile of |ratio − 1| of the same point in two runs of one node (1x H200, bench/results h200x1-2026-12-01 and h200x1-rerun-2026-12-01, 1,371 points))',
        ),
      `the default tolerance and where it came from (${tolerance})`,
    );
    check(
      (await page.locator('table.points tbody tr.state-same').count()) === 84,
      'by default all 84 points are the same',
    );
    const toleranceCells = await page.locator('table.points tbody tr td:nth-child(5)').allTextContents();
    check(
      toleranceCells.length === 84 && toleranceCells.every((t) => t === '6.3 %'),
      `a tolerance column (${toleranceCells[0]})`,
    );
    const defaultState = await page.evaluate(() => window.__preview.state());
    check(
      defaultState?.tolerance === undefined && defaultState?.baselines === undefined,
      `the default is not kept as a given tolerance (${JSON.stringify(defaultState)})`,
    );

    // From baseline runs: a tolerance per path and size band, listed, and the runs kept for a reload.
    const estimated = support.compareMessage('baselines');
    await page.evaluate((m) => window.postMessage(m, '*'), estimated);
    await frames(page, 3);
    const lines = await page.locator('ul.tolerance-lines li').allTextContents();
    check(
      lines.length === estimated.view.toleranceLines.length &&
        lines[0]?.startsWith('run-to-run tolerance of cu/device, below 1 MiB: '),
      `each path and size band's tolerance is listed (${lines.length}: ${lines[0]})`,
    );
    check(
      (await page.locator('.tolerance').textContent()).includes("estimated from 3 runs of A's setup"),
      'it says the tolerance was estimated from 3 runs',
    );
    const estimatedState = await page.evaluate(() => window.__preview.state());
    check(
      JSON.stringify(estimatedState?.baselines) === JSON.stringify(['full', 'full-rerun']) &&
        estimatedState?.tolerance === undefined,
      `the page keeps the baseline runs in its state (${JSON.stringify(estimatedState)})`,
    );
    await frames(page, 2);
    const estimatedInk = await ink(page);
    check(
      estimatedInk.length === 2 && estimatedInk.every((d) => d.inked > 300),
      'both charts are drawn with a tolerance per size band',
    );
    if (outDir) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(outDir, 'compare-baselines.png') });
      console.log(`  wrote ${join(outDir, 'compare-baselines.png')}`);
    }

    const matrix = support.compareMessage('matrix');
    await page.evaluate((m) => window.postMessage(m, '*'), matrix);
    await frames(page, 3);
    check(
      (await page.locator('figure canvas').count()) === 0,
      'a matrix comparison (one size per cell) draws no curve',
    );
    check(
      (await page.locator('section.curve p.muted').textContent())?.includes('one size, so no curve to draw'),
      'and says why',
    );
    const matrixRows = await page.locator('table.points tbody tr').count();
    const onlyRows = await page.locator('table.points tbody tr.state-only').count();
    check(
      matrixRows === matrix.view.summary.common + matrix.view.summary.onlyInA &&
        onlyRows === matrix.view.summary.onlyInA,
      `its table lists the 4 common cells and the 4 only in A (${matrixRows} rows, ${onlyRows} only in A)`,
    );
    check(
      (await page.locator('ul.notes').textContent()).includes('--concurrent'),
      'its note says B ran all pairs at once',
    );
  });
}

runMain(main);
