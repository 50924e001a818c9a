#!/usr/bin/env node
// The fleet panel in headless Chromium under its real CSP: a fleet of five simulated nodes
// from the real helper (one --seed each, one with --sim-weak engine=0.6), judged by the
// core with a threshold file, and a sixth node whose step failed: the header and SIMULATED
// badge, every node row with the weak node marked first and the failed one's error, the
// outlier sentences, a figure picked by mouse and by keyboard (the
// page asks with select-figure, the host's figure-values answer is drawn with chart.js, the
// outlier named in the chart's aria-label and drawn in the theme's red), "Open" on a node's
// run, the table buttons, an invalid message, a theme switch; then a 1,000-node fleet.
//
//   node test/webview/fleet.mjs            checks + docs/images/fleet-dark.png
//   node test/webview/fleet.mjs --out DIR  checks + screenshots (dark, light) in DIR
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document, requestAnimationFrame */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { pageCss } from '../../scripts/pageCss.mjs';
import { runMain } from './report.mjs';
import { checkTableActions } from './tableActionsCheck.mjs';
import { checkSeriesContrast } from './contrastCheck.mjs';
import { THEMES } from './themes.mjs';
import { frames, probe, repo, withPage } from './timelineHarness.mjs';

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 ? resolve(repo, args[outIndex + 1]) : undefined;
const BIG = 1000;

/** The fleet page and its support module, built as scripts/build.mjs builds them. */
async function setup(tmp, assets) {
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  await esbuild.build({
    entryPoints: { fleet: join(repo, 'webview/fleet/main.ts') },
    outdir: assets,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  pageCss(join(repo, 'webview/fleet/fleet.css'), join(assets, 'fleet.css'));
  const supportFile = join(tmp, 'fleetSupport.mjs');
  await esbuild.build({
    entryPoints: [join(repo, 'test/webview/fleetSupport.ts')],
    outfile: supportFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    define: { __dirname: JSON.stringify(join(repo, 'test/support')) },
  });
  const support = await import(pathToFileURL(supportFile).href);
  return { support, pages: { index: { script: 'fleet.js', style: 'fleet.css', title: 'Fleet' } } };
}

/**
 * The figure's canvas: its aria-label, size, inked samples (every 7th pixel drawn) and how many
 * pixels are each of the given colours (within a small distance: anti-aliasing blends edges).
 */
const canvasFacts = (page, colors = {}) =>
  page.evaluate((want) => {
    const c = document.querySelector('#figure-chart canvas');
    if (!c) return undefined;
    const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const targets = Object.entries(want).map(([name, hex]) => [name, rgb(hex)]);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    const counts = Object.fromEntries(targets.map(([name]) => [name, 0]));
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] === 0) continue;
      if (i % (4 * 7) === 0) inked++;
      for (const [name, [r, g, b]] of targets)
        if (d[i + 3] > 200 && Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 24) counts[name]++;
    }
    let hash = 0;
    for (let i = 0; i < d.length; i += 97) hash = (hash * 31 + d[i]) | 0;
    return { label: c.getAttribute('aria-label'), width: c.width, height: c.height, inked, counts, hash };
  }, colors);

const selects = (messages) => messages.filter((m) => m.type === 'select-figure');

async function main() {
  await withPage('fleet', { width: 1200, height: 1000 }, setup, async ({ support, page, check, posted }) => {
    const post = (m) => page.evaluate((x) => window.postMessage(x, '*'), m);
    const fleet = support.smallFleet(probe);
    const { view } = fleet.message;
    const weak = support.WEAK_NODE;
    const red = {
      dark: THEMES.dark.variables['--vscode-charts-red'],
      light: THEMES.light.variables['--vscode-charts-red'],
    };

    check((await posted())[0]?.type === 'ready', 'the panel posts {type: "ready"} first');
    // What the core made of the five real runs, before the page is asked to show it.
    const flaggedNodes = [...new Set(view.outliers.map((o) => o.node))];
    check(
      flaggedNodes.length === 1 && flaggedNodes[0] === weak,
      `the core flags only the weak node (${flaggedNodes.join(', ')})`,
    );
    const flaggedFigure = view.figures.find((f) => f.outlierNodeCount > 0);
    const plainFigure = view.figures.find((f) => f.outlierNodeCount === 0 && f.judged);
    check(
      flaggedFigure !== undefined && plainFigure !== undefined,
      `the fleet has figures with and without an outlier (${view.figures.filter((f) => f.outlierNodeCount > 0).length} and ${view.figures.filter((f) => f.outlierNodeCount === 0).length})`,
    );

    const sent = (await posted()).length;
    await post(fleet.message);
    await page.waitForSelector('table.nodes-table tbody tr');
    await frames(page, 2);

    // Header.
    check(
      (await page.locator('header h1').textContent()) === `Fleet ${view.id}`,
      `the header names the fleet (${await page.locator('header h1').textContent()})`,
    );
    const facts = await page.locator('header p.facts').textContent();
    check(
      facts.includes(`Slurm job ${view.job}`) && facts.includes(`${view.nodes.length} nodes`),
      `and its Slurm job and node count (${facts})`,
    );
    check((await page.locator('header .status').textContent()) === view.status, `and its status (${view.status})`);
    check(await page.locator('header .simulated-badge').isVisible(), 'the SIMULATED badge is shown');
    check((await page.locator('header p.rule').textContent()).includes(view.rule), 'the outlier rule is said');
    check(
      (await page.locator('header ul.notes li').allTextContents()).join('\n') === view.notes.join('\n'),
      `the fleet's notes are listed (${view.notes.length})`,
    );

    // Nodes.
    const rows = await page.locator('table.nodes-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        node: tr.dataset.node,
        cls: tr.className,
        cells: [...tr.children].map((c) => c.textContent),
      })),
    );
    check(
      rows.length === view.nodes.length && rows.every((r, i) => r.node === view.nodes[i].node),
      `a row per node, in the view's order (${rows.map((r) => r.node).join(', ')})`,
    );
    const weakRow = rows.find((r) => r.node === weak);
    check(rows[0]?.node === weak, `the weak node is listed first (${rows[0]?.node})`);
    check(
      weakRow?.cls.includes('flagged') && /outlier/.test(weakRow.cells[1]) && /FAIL/.test(weakRow.cells[1]),
      `the weak node is marked in words, not by colour alone ("${weakRow?.cells[1]}")`,
    );
    const failedRow = rows.find((r) => r.node === support.FAILED_NODE);
    const measuredRows = rows.filter((r) => r.node !== weak && r.node !== support.FAILED_NODE);
    check(
      weakRow?.cells[4]?.startsWith('FAIL') &&
        failedRow?.cells[4]?.startsWith('FAIL') &&
        measuredRows.every((r) => r.cells[4] === 'pass'),
      `the thresholds column: FAIL for the weak node and the one that never ran, pass for the others (${rows.map((r) => r.cells[4]).join(', ')})`,
    );
    check(
      failedRow?.cells[2] === 'missing' &&
        failedRow.cells[5].includes(support.FAILED_ERROR) &&
        /missing/.test(failedRow.cells[1]) &&
        failedRow.cells[6] === '',
      `the node that never ran says so, with its error and no run to open ("${failedRow?.cells[1]}", "${failedRow?.cells[5]}")`,
    );
    check(
      rows[1]?.node === support.FAILED_NODE,
      `it is listed after the outlier node, before the nodes that passed (${rows[1]?.node})`,
    );
    check(
      measuredRows.length === 4 && measuredRows.every((r) => !r.cls.includes('flagged') && r.cells[1] === ''),
      'no other node is marked',
    );
    const weakOutliers = view.nodes.find((n) => n.node === weak).outliers;
    check(
      weakRow?.cells[3] === String(weakOutliers),
      `the weak node's outlier count (${weakRow?.cells[3]} of ${weakOutliers})`,
    );

    // Outliers.
    const sentences = await page.locator('ul.outlier-list li').allTextContents();
    check(
      sentences.length === view.outliers.length && sentences.every((s, i) => s === view.outliers[i].text),
      `every outlier sentence is listed (${sentences.length}: "${sentences[0]}")`,
    );

    // The first figure with an outlier is picked at once: the page asks for its values.
    const asked = selects((await posted()).slice(sent));
    check(
      asked.length === 1 && asked[0].key === flaggedFigure.key,
      `the page asks for the first figure with an outlier (${JSON.stringify(asked)})`,
    );
    check(
      /Loading/.test(await page.locator('#figure-chart').textContent()),
      'and says it is loading until the values come',
    );
    await post(fleet.figure(flaggedFigure.key));
    await page.waitForSelector('#figure-chart canvas');
    await frames(page, 3);
    let drawn = await canvasFacts(page, { red: red.dark });
    check(
      drawn.width > 300 && drawn.height > 150 && drawn.inked > 300,
      `the figure's chart is drawn (${drawn.width}x${drawn.height}, ${drawn.inked} inked samples)`,
    );
    check(
      drawn.label.includes(weak) &&
        /1 outlier:/.test(drawn.label) &&
        drawn.label.includes(`each of ${flaggedFigure.nodes} nodes`),
      `its aria-label names the outlier: "${drawn.label}"`,
    );
    check(drawn.counts.red > 20, `the outlier is drawn in the theme's red (${drawn.counts.red} pixels)`);
    check(
      (await page.locator('#figure-chart figcaption').textContent()) === flaggedFigure.label,
      `the chart is captioned with the figure (${flaggedFigure.label})`,
    );
    const pressed = await page.locator('button.figure-pick[aria-pressed="true"]').getAttribute('data-key');
    check(pressed === flaggedFigure.key, 'the figure picked is pressed in the list');

    // A click on a figure without an outlier: select-figure, then its values drawn, no red.
    const before = (await posted()).length;
    await page.locator(`button.figure-pick[data-key="${plainFigure.key}"]`).click();
    const clicked = selects((await posted()).slice(before));
    check(
      clicked.length === 1 && clicked[0].key === plainFigure.key,
      `a click on ${plainFigure.label} posts select-figure for it (${JSON.stringify(clicked)})`,
    );
    // An answer for another figure than the one picked now is not drawn.
    await post(fleet.figure(flaggedFigure.key));
    await frames(page, 2);
    check(
      (await page.locator('#figure-chart canvas').count()) === 0,
      'a late answer for the figure picked before is dropped',
    );
    await post(fleet.figure(plainFigure.key));
    await page.waitForSelector('#figure-chart canvas');
    await frames(page, 3);
    drawn = await canvasFacts(page, { red: red.dark });
    check(
      drawn.inked > 300 && /no outliers/.test(drawn.label) && drawn.counts.red === 0,
      `its chart is drawn without red, and says so (${drawn.inked} inked, ${drawn.counts.red} red; "${drawn.label.slice(-60)}")`,
    );
    check(
      (await page.evaluate(() => window.__preview.state()))?.figure === plainFigure.key &&
        (await page.evaluate(() => window.__preview.state()))?.fleet === view.id,
      'the page keeps the fleet and the figure in its state, for a restore',
    );

    // Keyboard: the picked figure is the list's tab stop; ArrowDown picks the next, End the last.
    const order = await page
      .locator('button.figure-pick')
      .evaluateAll((bs) => bs.map((b) => ({ key: b.dataset.key, tab: b.tabIndex })));
    check(
      order.filter((b) => b.tab === 0).length === 1 && order.find((b) => b.tab === 0)?.key === plainFigure.key,
      'one tab stop in the figure list, on the figure picked',
    );
    const at = order.findIndex((b) => b.key === plainFigure.key);
    const next = order[Math.min(at + 1, order.length - 1)].key;
    await page.locator(`button.figure-pick[data-key="${plainFigure.key}"]`).focus();
    const beforeKeys = (await posted()).length;
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    const keyed = selects((await posted()).slice(beforeKeys)).map((m) => m.key);
    const last = order.at(-1).key;
    check(
      JSON.stringify(keyed) ===
        JSON.stringify([next, last].filter((k, i, a) => a.indexOf(k) === i && k !== plainFigure.key)),
      `ArrowDown picks the next figure, End the last (${keyed.join(' | ')})`,
    );
    check((await page.evaluate(() => document.activeElement?.dataset.key)) === last, 'the focus moves with the pick');
    await post(fleet.figure(last));
    await page.waitForSelector('#figure-chart canvas');
    await frames(page, 3);
    const lastLabel = view.figures.find((f) => f.key === last).label;
    check(
      (await page.locator('#figure-chart figcaption').textContent()) === lastLabel &&
        (await canvasFacts(page)).inked > 300,
      `and the host's answer is drawn (${lastLabel})`,
    );
    // Back to the flagged figure by keyboard (Home is the first figure, which has the outlier).
    await page.keyboard.press('Home');
    check(
      selects(await posted()).at(-1)?.key === view.figures[0].key && view.figures[0].outlierNodeCount > 0,
      'Home picks the first figure, one with an outlier',
    );
    await post(fleet.figure(view.figures[0].key));
    await page.waitForSelector('#figure-chart canvas');
    await frames(page, 3);
    // The page as a user first sees it (before the table buttons' checks leave their status text).
    await page.mouse.move(0, 0);
    if (outDir) {
      mkdirSync(outDir, { recursive: true });
      await page.screenshot({ path: join(outDir, 'fleet-dark.png'), fullPage: true });
      console.log(`  wrote ${join(outDir, 'fleet-dark.png')}`);
    } else {
      const file = join(repo, 'docs/images/fleet-dark.png');
      await page.screenshot({ path: file, fullPage: true });
      console.log(`  wrote ${file}`);
    }

    // Open a node's run.
    const weakRun = view.nodes.find((n) => n.node === weak).runs[0];
    await page.getByRole('button', { name: `Open the sweep run of ${weak}, ${weakRun.runId}` }).click();
    const opened = (await posted()).at(-1);
    check(
      opened?.type === 'open-run' && opened.runId === weakRun.runId,
      `"sweep" on the weak node's row posts open-run with its run id (${JSON.stringify(opened)})`,
    );

    await checkTableActions(
      { page, check, posted },
      { what: 'fleet', heading: `SDMA Lens fleet ${view.id}`, rows: view.nodes.length },
    );

    const sentBad = (await posted()).length;
    await post({ type: 'figure-values', figure: { key: view.figures[0].key, values: [{ node: 'x', value: 'fast' }] } });
    await post({ type: 'fleet-view', view: { id: 7 } });
    await frames(page, 2);
    const reported = (await posted()).slice(sentBad);
    check(
      reported.length === 2 && reported.every((m) => m.type === 'webview-error'),
      `invalid host messages are reported as webview-error, not drawn (${reported.map((m) => m.type).join(', ')})`,
    );
    check(
      (await page.locator('table.nodes-table tbody tr').count()) === view.nodes.length &&
        (await page.locator('#figure-chart canvas').count()) === 1,
      'the nodes and the chart drawn before stay',
    );

    // Theme switch: the chart is drawn again in the new theme's colours.
    const dark = await canvasFacts(page, { darkRed: red.dark, lightRed: red.light });
    await page.evaluate(() => window.__preview.setTheme('light'));
    await frames(page, 3);
    const light = await canvasFacts(page, { darkRed: red.dark, lightRed: red.light });
    check(
      light.inked > 300 &&
        light.hash !== dark.hash &&
        dark.counts.darkRed > 20 &&
        light.counts.lightRed > 20 &&
        light.counts.darkRed === 0,
      `a theme switch redraws the chart in the light theme's red (dark: ${dark.counts.darkRed} dark-red pixels; light: ${light.counts.lightRed} light-red, ${light.counts.darkRed} dark-red)`,
    );
    if (outDir) {
      await page.screenshot({ path: join(outDir, 'fleet-light.png'), fullPage: true });
      console.log(`  wrote ${join(outDir, 'fleet-light.png')}`);
    }
    await page.evaluate(() => window.__preview.setTheme('dark'));
    // Nodes, outliers and their key 3:1 on the background in each of VS Code's own themes.
    await checkSeriesContrast(page, check, 'fleet');

    // 1,000 nodes.
    const built = performance.now();
    const big = support.bigFleet(probe, BIG);
    console.log(
      `  (the ${BIG}-node fleet view built in Node in ${Math.round(performance.now() - built)} ms; its page message is ${JSON.stringify(big.message).length} characters of JSON)`,
    );
    const bigView = big.message.view;
    const beforeBig = (await posted()).length;
    const renderMs = await page.evaluate(
      ({ m, n }) =>
        new Promise((ok) => {
          const t0 = performance.now();
          window.postMessage(m, '*');
          const wait = () =>
            document.querySelectorAll('table.nodes-table tbody tr').length === n
              ? requestAnimationFrame(() => ok(performance.now() - t0))
              : requestAnimationFrame(wait);
          requestAnimationFrame(wait);
        }),
      { m: big.message, n: BIG },
    );
    console.log(
      `  ${BIG}-node fleet: from postMessage to ${BIG} rows in the page and the next frame: ${renderMs.toFixed(0)} ms`,
    );
    const bigRows = await page
      .locator('table.nodes-table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => ({ node: tr.dataset.node, flagged: tr.classList.contains('flagged') })));
    const weakBig = bigView.nodes.filter((n) => n.outliers > 0).map((n) => n.node);
    check(bigRows.length === BIG, `the nodes table has ${BIG} rows (${bigRows.length})`);
    check(
      weakBig.length === BIG / 100 &&
        bigRows.slice(0, weakBig.length).every((r, i) => r.flagged && r.node === weakBig[i]) &&
        bigRows.slice(weakBig.length).every((r) => !r.flagged),
      `the ${weakBig.length} weak nodes come first and are the ones marked`,
    );
    const bigAsk = selects((await posted()).slice(beforeBig));
    check(
      bigAsk.length === 1,
      `the page asks for one figure of the ${BIG}-node fleet (${bigAsk.map((m) => m.key).join(', ')})`,
    );
    if (bigAsk.length === 1) {
      const answer = big.figure(bigAsk[0].key);
      const chartMs = await page.evaluate(
        (m) =>
          new Promise((ok) => {
            const t0 = performance.now();
            window.postMessage(m, '*');
            const wait = () =>
              document.querySelector('#figure-chart canvas')
                ? requestAnimationFrame(() => ok(performance.now() - t0))
                : requestAnimationFrame(wait);
            requestAnimationFrame(wait);
          }),
        answer,
      );
      console.log(
        `  ${BIG}-node figure: from postMessage of its ${answer.figure.values.length} values to the chart in the page and the next frame: ${chartMs.toFixed(0)} ms`,
      );
      const bigChart = await canvasFacts(page, { red: red.dark });
      check(
        bigChart.inked > 300 &&
          bigChart.counts.red > 20 &&
          bigChart.label.includes(`each of ${BIG} nodes`) &&
          weakBig.every((n) => bigChart.label.includes(n)),
        `its chart draws ${BIG} nodes and names the ${weakBig.length} outliers (${bigChart.inked} inked, ${bigChart.counts.red} red)`,
      );
    }
  });
}

runMain(main);
