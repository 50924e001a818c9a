#!/usr/bin/env node
// Browser checks of the timeline panel, outside VS Code: the page under its real CSP (worker
// included), a timeline from the simulator delivered as the host delivers it, then render,
// zoom, pan, select, keyboard, filter, theme switch and screenshots.
//
//   node test/webview/timeline.mjs            checks + docs/images/timeline-dark.png
//   node test/webview/timeline.mjs --out DIR  screenshots in every theme in DIR, plus close-ups of selection and measure
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkSeriesContrast } from './contrastCheck.mjs';
import {
  DEMO_META,
  deliver,
  frames,
  makeTimeline,
  paintedColours,
  repo,
  withTimelinePage,
} from './timelineHarness.mjs';
import { runMain } from './report.mjs';

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = resolve(repo, outIndex >= 0 ? args[outIndex + 1] : 'docs/images');
// Close-ups of the selection and the measure tool are for review, not the docs.
const extraShots = outIndex >= 0;

async function main() {
  await withTimelinePage('timeline', { width: 1280, height: 820 }, async ({ tmp, page, check, stats, posted }) => {
    // 512 MiB: four 128 MiB packets per engine copy, so one doorbell announces several packets.
    const file = makeTimeline(tmp, { sizes: '512M', cus: 64, iters: 2 });
    check((await posted())[0]?.type === 'ready', 'the panel posts {type: "ready"} first');

    const count = await deliver(page, file, DEMO_META);
    await page.waitForFunction(() => window.__timelineStats.firstFrameAt > 0, undefined, { timeout: 10_000 });
    await frames(page, 3);
    let s = await stats();
    check(s.inWorker, 'level of detail runs in a worker started from a blob: URL under the panel CSP');
    check(s.events === count && count > 0, `${count} events arrived as typed arrays and were drawn`);
    const shown = (await posted()).filter((m) => m.type === 'timeline-shown');
    check(
      shown.length === 1 && shown[0].events === count,
      'the page tells the host once that the timeline is drawn (ends the host progress notification)',
    );
    check(
      (await page.locator('.simulated-badge').isVisible()) === true,
      'the SIMULATED badge shows for simulated data',
    );
    const painted = await paintedColours(page);
    check(painted > 8, `the plot is drawn (${painted} distinct colours sampled)`);

    mkdirSync(outDir, { recursive: true });
    const canvas = page.locator('canvas');
    const box = await canvas.boundingBox();
    const plotX = (f) => box.x + 190 + (box.width - 190) * f;

    // Zoom in with Ctrl+wheel (what a pinch sends) around the first iteration.
    const before = s.view;
    await page.mouse.move(plotX(0.12), box.y + 120);
    for (let i = 0; i < 8; i++) {
      await page.keyboard.down('Control');
      await page.mouse.wheel(0, -240);
      await page.keyboard.up('Control');
      await frames(page);
    }
    s = await stats();
    check(
      s.view.endNs - s.view.startNs < (before.endNs - before.startNs) / 4,
      `Ctrl+wheel zooms in (window ${Math.round(before.endNs - before.startNs)} -> ${Math.round(s.view.endNs - s.view.startNs)} ns)`,
    );

    // Pan by dragging.
    const zoomed = s.view;
    await page.mouse.move(plotX(0.5), box.y + 200);
    await page.mouse.down();
    await page.mouse.move(plotX(0.3), box.y + 200, { steps: 5 });
    await page.mouse.up();
    await frames(page, 3);
    s = await stats();
    check(
      s.view.startNs > zoomed.startNs && Math.abs(s.view.endNs - s.view.startNs - (zoomed.endNs - zoomed.startNs)) < 1,
      'dragging pans without changing the zoom',
    );

    // Select a packet: find the SDMA lane's row and click a packet on it.
    await page.keyboard.press('0');
    await frames(page, 2);
    await page.locator('#filter').fill('engine/host');
    await page.locator('#filter').press('Enter');
    await frames(page, 3);
    await page.evaluate(() => document.querySelector('canvas').focus());
    await page.keyboard.press('f');
    // Zoom onto the first engine/host copy: step to the first packet with the keyboard.
    // Rows: GPU 0 group, Kernels, SDMA engine 2, ...
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press(']');
    await frames(page, 3);
    s = await stats();
    let title = await page.locator('.details h2').textContent();
    check(
      s.view.selected >= 0 && /packet|Doorbell|Kernel/.test(title ?? ''),
      `keyboard: arrows pick a lane, ] selects its first event (${title})`,
    );
    const wide = s.view.endNs - s.view.startNs;
    await page.keyboard.press('f');
    await frames(page, 4);
    s = await stats();
    check(
      s.view.endNs - s.view.startNs < wide / 3,
      `F zooms to the selection and its related events (${Math.round(wide)} -> ${Math.round(s.view.endNs - s.view.startNs)} ns)`,
    );
    await page.keyboard.press(']');
    await frames(page, 3);
    title = await page.locator('.details h2').textContent();
    const chain = await page
      .locator('.details .chain')
      .textContent()
      .catch(() => '');
    check(/packet/.test(title ?? ''), `a packet is selected (${title})`);
    check(
      /Doorbell at/.test(chain ?? '') && /packets?:/.test(chain ?? '') && /Completion at/.test(chain ?? ''),
      'details link doorbell -> packets -> completion',
    );
    const factNames = await page.locator('.details dl dt').allTextContents();
    const inOrder = ['Doorbell rung', 'Queued (doorbell seen by the engine)', 'Start', 'End'].map((k) =>
      factNames.indexOf(k),
    );
    check(
      inOrder.every((at, i) => at >= 0 && (i === 0 || at > inOrder[i - 1])),
      `the packet's times read in the order they happen, queued said as seen by the engine (${factNames.join(', ')})`,
    );
    await page.mouse.move(0, 0);
    await frames(page, 2);
    if (extraShots) await page.screenshot({ path: join(outDir, 'timeline-selected.png') });
    await page.keyboard.press('Escape');
    await frames(page);
    check((await stats()).view.selected === -1, 'Escape clears the selection');
    const hint = await page.locator('.details .hint').textContent();
    check(
      hint ===
        'Click an event to see its facts and related events. Drag to pan, Ctrl+wheel or pinch to zoom, Shift+drag to measure.',
      `with nothing selected the details pane says how to use the panel (${hint})`,
    );

    // Inferred boxes: the simulator draws engine/device as a real AMD GPU shows it, its
    // doorbell and packet not reported by the hardware, on the Unknown engine lane.
    const legend = page.locator('.legend-entry[data-legend="inferred"]');
    check(
      (await legend.isVisible()) && (await legend.textContent()) === 'inferred: not reported by the hardware',
      'the legend has its entry for inferred boxes (the timeline has some)',
    );
    check((await legend.locator('.swatch.legend-inferred').count()) === 1, 'the legend entry shows the hatched swatch');
    await page.locator('#filter').fill('engine/device');
    await page.locator('#filter').press('Enter');
    await frames(page, 3);
    await page.evaluate(() => document.querySelector('canvas').focus());
    await page.keyboard.press('0');
    const live = page.locator('.toolbar .visually-hidden');
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowUp');
    let rowLabel = '';
    for (let i = 0; i < 12 && rowLabel !== 'Unknown engine'; i++) {
      await page.keyboard.press('ArrowDown');
      rowLabel = (await live.textContent()) ?? '';
    }
    check(rowLabel === 'Unknown engine', `the unknown engine's events have their own lane ("${rowLabel}")`);
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await page.keyboard.press('f');
    await frames(page, 4);
    title = await page.locator('.details h2').textContent();
    check(title === 'SDMA packet · copy+signal · inferred', `the inferred packet is selected (${title})`);
    const facts = Object.fromEntries(
      await page
        .locator('.details dl .fact')
        .evaluateAll((nodes) =>
          nodes.map((n) => [n.querySelector('dt').textContent, n.querySelector('dd').textContent]),
        ),
    );
    check(
      /^not reported by the hardware; rocSHMEM writes the SDMA packets inside the put call/.test(
        facts.Inferred ?? '',
      ) && /\(simulated: drawn as a real AMD GPU run shows it\)$/.test(facts.Inferred ?? ''),
      `its details say "Inferred" and why (${facts.Inferred})`,
    );
    check(facts.Where === 'GPU 0 · Unknown engine', `it sits on the Unknown engine lane (${facts.Where})`);
    const hatched = await page.evaluate(() => {
      // The inferred packet's box: stripes of its colour over a faint fill, so many colours along a row.
      const c = document.querySelector('canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const colours = new Set();
      for (let i = 0; i < d.length; i += 4) colours.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
      return colours.size;
    });
    check(hatched > 8, `the inferred box is drawn (${hatched} distinct colours)`);
    if (extraShots) await page.screenshot({ path: join(outDir, 'timeline-inferred.png') });
    await page.keyboard.press('Escape');
    await page.locator('#filter').fill('');
    await page.locator('#filter').press('Enter');
    await frames(page, 2);

    // Measure with Shift+drag.
    await page.keyboard.press('0');
    await page.locator('#filter').fill('');
    await page.locator('#filter').press('Enter');
    await frames(page, 3);
    await page.keyboard.down('Shift');
    await page.mouse.move(plotX(0.05), box.y + 200);
    await page.mouse.down();
    await page.mouse.move(plotX(0.45), box.y + 200, { steps: 6 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.waitForTimeout(200);
    await frames(page, 2);
    const measured = await page.evaluate(() => {
      const c = document.querySelector('canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, Math.round(28 * 1.5)).data;
      let blue = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 2] > 150 && d[i] < 60) blue++;
      return blue;
    });
    check(measured > 200, 'Shift+drag measures: the ruler shows the measured duration, bytes and bandwidth');
    if (extraShots) await page.screenshot({ path: join(outDir, 'timeline-measure.png') });
    await page.keyboard.press('Escape');

    // The docs view: the first iteration, every CU lane shown, a packet selected with its doorbell.
    await page.getByRole('button', { name: 'CU lanes' }).click();
    await page.keyboard.press('0');
    await frames(page, 2);
    await page.mouse.move(plotX(0.3), box.y + 120);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -240);
    await page.keyboard.up('Control');
    await frames(page, 2);
    await page.evaluate(() => document.querySelector('canvas').focus());
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await frames(page, 3);
    check((await stats()).view.lanesDrawn > 60, 'the CU lanes expand under the occupancy strip');
    await page.mouse.move(box.x + box.width - 40, box.y + box.height - 40);
    await frames(page, 2);

    // Themes, switched live as VS Code does.
    for (const theme of ['dark', 'light', 'high-contrast']) {
      await page.evaluate((t) => window.__preview.setTheme(t), theme);
      await frames(page, 3);
      const bg = await page.evaluate(() =>
        Array.from(document.querySelector('canvas').getContext('2d').getImageData(400, 300, 1, 1).data.slice(0, 3)),
      );
      console.log(`  ${theme}: canvas background ${bg.join(',')}`);
      check(
        theme === 'dark' ? bg[0] < 80 : theme === 'light' ? bg[0] > 180 : bg.every((c) => c < 20),
        `the canvas redraws in the ${theme} theme's colours`,
      );
      const shot = await page.screenshot({
        path: theme === 'dark' || extraShots ? join(outDir, `timeline-${theme}.png`) : undefined,
      });
      check(shot.length > 10_000, `screenshot in the ${theme} theme`);
    }
    await page.evaluate(() => window.__preview.setTheme('dark'));
    // Spans and the path chips solid and 3:1 on the background in each of VS Code's own themes
    // (the selection cleared first: it is drawn in the focus colour, a blue or orange of its own).
    await page.evaluate(() => document.querySelector('canvas').focus());
    await page.keyboard.press('Escape');
    await checkSeriesContrast(page, check, 'timeline');

    // Filter syntax errors are shown, not thrown.
    await page.locator('#filter').fill('bogus:1');
    await page.locator('#filter').press('Enter');
    check(
      (await page.locator('.filter-error').textContent())?.includes('unknown field'),
      'a bad filter says what is wrong',
    );
    await page.locator('#filter').fill('');
    await page.locator('#filter').press('Enter');
    // The engine answers the filter (and the page reports it) before the count of reports below starts.
    await frames(page, 3);

    // Invalid host messages are reported, never drawn.
    const n0 = (await posted()).length;
    await page.evaluate(() =>
      window.postMessage({ type: 'timeline', meta: {}, columns: { count: 3, kind: [0, 1, 2] } }, '*'),
    );
    await page.evaluate(() =>
      window.postMessage(
        {
          type: 'timeline',
          meta: {
            key: 'k',
            runId: 'r',
            title: 't',
            simulated: false,
            nodeLabel: 'n',
            vendor: 'amd',
            sizeBytes: 1,
            gpuCus: [],
          },
          columns: {
            count: 2,
            kind: new Uint8Array(2),
            op: new Uint8Array(2),
            path: new Uint8Array(2),
            gpu: new Uint16Array(2),
            lane: new Uint32Array(2),
            id: new Int32Array(2),
            ref: new Int32Array(2),
            startNs: new Float64Array(2),
            endNs: new Float64Array(2),
            queuedNs: new Float64Array(2),
            bytes: new Float64Array(1),
          },
        },
        '*',
      ),
    );
    await frames(page);
    const reported = (await posted()).slice(n0);
    check(
      reported.length === 2 && reported.every((m) => m.type === 'webview-error'),
      'malformed timelines (wrong types, columns of different lengths) are rejected and reported',
    );

    await page.getByRole('button', { name: 'Export trace…' }).click();
    check((await posted()).at(-1)?.type === 'export-trace', 'Export trace posts export-trace to the host');

    check(
      (await page.evaluate(() => window.__preview.state()))?.key === DEMO_META.key,
      'the panel keeps its timeline key in webview state (restore after reload)',
    );
  });
}

runMain(main);
