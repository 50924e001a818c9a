#!/usr/bin/env node
// Browser check of a host-held timeline (the path of a timeline of HOST_HELD_EVENTS or more,
// forced here on a small one): this Node process plays the extension host with the shipped
// engine process (dist/timelineEngine.js, `npm run build` first) and the panel's relay; the page
// under its real CSP gets no columns, only word that the host holds them, and asks every query
// of the host. Checks that it draws, zooms (new level-of-detail answers) and answers a
// details query, and that a malformed query is refused with an error, not a crash.
//
//   node test/webview/timelineHostHeld.mjs
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document */
import { DEMO_META, frames, holdOnHost, makeTimeline, paintedColours, withTimelinePage } from './timelineHarness.mjs';
import { runMain } from './report.mjs';

async function main() {
  await withTimelinePage('timeline-host-held', { width: 1280, height: 820 }, async (ctx) => {
    const { support, tmp, page, check, stats, posted } = ctx;
    const file = makeTimeline(tmp, { sizes: '512M', cus: 64, iters: 2 });
    // Two reader threads beside the engine, whatever this machine's processors: the shared passes run for real.
    const { engine, figures, flushed } = await holdOnHost(page, support, { file, meta: DEMO_META, readers: 2 });
    try {
      await page.waitForFunction(
        () => window.__timelineStats.firstFrameAt > 0 || !document.querySelector('.loading')?.hidden,
        undefined,
        { timeout: 30_000, polling: 50 },
      );
      await page.waitForFunction(() => window.__timelineStats.firstFrameAt > 0, undefined, { timeout: 30_000 });
      check(
        (await stats()).firstLodStage === 'overview',
        "the first frame's level of detail came from the engine's overview of the file, before its index",
      );
      await page.waitForFunction(() => window.__timelineStats.readyAt > 0, undefined, { timeout: 30_000 });
      await frames(page, 3);
      let s = await stats();
      check(s.stage === 'ready' && s.builtMs > 0, `then the engine built its index (${s.builtMs.toFixed(0)} ms)`);
      check(
        !(await page.locator('.summary').first().textContent()).includes('indexing'),
        'the summary no longer says the index is being built',
      );
      check(s.hostHeld, 'the page knows the events are held by the host');
      check(s.events === figures.count && s.events > 0, `${s.events} events, counted from the file's header`);
      check(figures.readers === 2, `two reader threads shared the overview's passes (${figures.readers})`);
      check(Number.isFinite(figures.readMs), `the engine read the file itself (${figures.readMs.toFixed(0)} ms)`);
      const sent = await posted();
      check(
        sent.some((m) => m.type === 'engine-query' && m.query.type === 'lod'),
        'the page asks the host for its level of detail',
      );
      check(
        sent.filter((m) => m.type === 'timeline-shown').length === 1,
        'the page tells the host once that the timeline is drawn',
      );
      const summary = await page.evaluate(() => document.body.textContent);
      check(/held by the extension host/.test(summary ?? ''), 'the summary says the extension host holds the events');
      const painted = await paintedColours(page);
      check(painted > 8, `the plot is drawn from the host's answers (${painted} distinct colours sampled)`);

      // Zoom in with Ctrl+wheel: new level-of-detail answers come from the host.
      const before = s.view;
      const lodsBefore = s.lodMs.length;
      const box = await page.locator('canvas').boundingBox();
      await page.mouse.move(box.x + 190 + (box.width - 190) * 0.12, box.y + 120);
      for (let i = 0; i < 8; i++) {
        await page.keyboard.down('Control');
        await page.mouse.wheel(0, -240);
        await page.keyboard.up('Control');
        await frames(page);
      }
      await page.waitForFunction((n) => window.__timelineStats.lodMs.length > n, lodsBefore, { timeout: 10_000 });
      s = await stats();
      check(
        s.view.endNs - s.view.startNs < (before.endNs - before.startNs) / 4,
        `Ctrl+wheel zooms in (window ${Math.round(before.endNs - before.startNs)} -> ${Math.round(s.view.endNs - s.view.startNs)} ns)`,
      );
      check(s.lodMs.length > lodsBefore, `the zoom got new level-of-detail answers from the host (${s.lodMs.length})`);

      // A details query: pick a lane with the keyboard and select its first event.
      await page.keyboard.press('f');
      await frames(page, 3);
      await page.evaluate(() => document.querySelector('canvas').focus());
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press(']');
      await frames(page, 3);
      s = await stats();
      const title = await page.locator('.details h2').textContent();
      check(
        s.view.selected >= 0 && /packet|Doorbell|Kernel/.test(title ?? ''),
        `a step and a details query answered by the host (${title})`,
      );
      const facts = await page.locator('.details dl dt').allTextContents();
      check(
        facts.includes('Start') || facts.includes('Rung at'),
        `the details pane lists the event's facts (${facts.join(', ')})`,
      );

      // A malformed query is refused by the relay with an error answer; the engine keeps serving.
      const errorsBefore = (await posted()).filter((m) => m.type === 'webview-error').length;
      check(
        engine.query({ type: 'lod', id: 1, request: { startNs: 0, endNs: 1, buckets: 1e12, lanes: [] } }) === false,
        'a hostile query is refused',
      );
      await flushed();
      await page.waitForFunction(
        (n) => window.__preview.posted.filter((m) => m.type === 'webview-error').length > n,
        errorsBefore,
        { timeout: 5_000 },
      );
      const error = (await posted()).filter((m) => m.type === 'webview-error').at(-1);
      check(/refused/.test(error?.message ?? ''), `the page reports the refusal (${error?.message})`);
      check(engine.ready, 'the engine still serves after a refused query');
      await page.keyboard.press(']');
      await frames(page, 3);
      check((await stats()).view.selected !== s.view.selected, 'the next step is answered after the refusal');
      check(figures.problems.length === 0, `the relay had no problem (${figures.problems.join('; ')})`);
    } finally {
      engine.dispose();
    }

    // Another timeline, the engine alone (no reader threads): it bins the page's first view while it surveys the file.
    const alone = await holdOnHost(page, support, {
      file,
      meta: { ...DEMO_META, key: 'demo/alone.sdmatl' },
      readers: 0,
    });
    try {
      await page.waitForFunction(
        () => window.__timelineStats.firstFrameAt > 0 && window.__timelineStats.readyAt > 0,
        undefined,
        { timeout: 30_000 },
      );
      const s = await stats();
      check(
        s.firstLodSource === 'pushed',
        `alone, the engine binned the page's first view while it surveyed the file and pushed it with the index (${s.firstLodSource})`,
      );
      check(alone.figures.readers === 0, 'no reader thread shared its passes');
      check(alone.figures.problems.length === 0, `the relay had no problem (${alone.figures.problems.join('; ')})`);
    } finally {
      alone.engine.dispose();
    }
  });
}

runMain(main);
