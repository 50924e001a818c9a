#!/usr/bin/env node
// Browser checks of the timeline panel on a profiled program's run: the columns built from the
// run-mode records recorded on 2x H200 (test/fixtures/runmode/), delivered as the host delivers
// them, opened as the code lens opens them (filtered to one kernel), then the filter box
// switched to the other kernel. The kernel filter must hide the other kernel's launches.
// Then a run the real helper recorded from a stand-in trace.h program (sim backend): its
// device-span records on the per-CU lanes behind the "CU lanes" toggle, named, with bytes.
//
//   node test/webview/runTimeline.mjs
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { frames, probe, repo, withTimelinePage } from './timelineHarness.mjs';
import { runMain } from './report.mjs';

const FUSED = '(anonymous namespace)::fusedComputeA2a(float const*, float* const*, int, int, unsigned long)';

function recordedRun(support) {
  const run = support.newRun({
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'h200-runmode',
    command: 'run',
    createdAt: '2026-11-30T02:05:41Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: ['run', '--', './fused_a2a', '8', '5'] },
  });
  for (const line of readFileSync(join(repo, 'test/fixtures/runmode/runmode-fused-a2a.ndjson'), 'utf8').split('\n')) {
    if (!line) continue;
    const r = support.parseLine(line);
    if (r.kind !== 'record') throw new Error(`fixture line is not a record: ${line.slice(0, 80)}`);
    support.applyRecord(run, r.record);
  }
  return run;
}

/**
 * `sdma-probe run --backend sim` around a stand-in for a program built with trace.h: per GPU
 * (0 and 1), CUs 0..3 of XCC 0 and 1 run a `compute` scope (two blocks back to back each),
 * then each puts 64 KiB into the other GPU (`a2a`). Times are CLOCK_MONOTONIC (Node's hrtime).
 */
function spanRun(support, tmp) {
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  const base = Number(process.hrtime.bigint()) + 200_000_000;
  const lines = [];
  const dev = (gpu, label, xcc, cu, startUs, endUs, bytes, peer) =>
    lines.push(
      JSON.stringify({
        k: 'dev',
        pid: 1,
        gpu,
        label,
        cu,
        xcc,
        monoStartNs: base + startUs * 1000,
        monoEndNs: base + endUs * 1000,
        bytes,
        peer,
        mover: 'cu',
        pull: false,
      }),
    );
  for (const gpu of [0, 1]) {
    for (const xcc of [0, 1]) {
      for (let cu = 0; cu < 4; cu++) {
        dev(gpu, 'compute', xcc, cu, 10, 35, 0, -1);
        dev(gpu, 'compute', xcc, cu, 35, 60, 0, -1);
        dev(gpu, 'a2a', xcc, cu, 62 + cu, 90, 65536, 1 - gpu);
      }
    }
  }
  const file = join(tmp, 'dev-lines.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const args = [
    'run',
    '--backend',
    'sim',
    '--',
    '/bin/sh',
    '-c',
    'cat "$0" > "/dev/fd/${SDMA_LENS_TRACE_FD%%:*}"',
    file,
  ];
  const r = spawnSync(probe, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sdma-probe run exited ${r.status}: ${r.stderr}`);
  const run = support.newRun({
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'sim-spans',
    command: 'run',
    createdAt: new Date().toISOString(),
    target: { kind: 'local' },
    helper: { path: probe, args },
  });
  for (const line of r.stdout.split('\n')) {
    if (!line) continue;
    const parsed = support.parseLine(line);
    if (parsed.kind !== 'record') throw new Error(`helper line is not a record: ${line.slice(0, 80)}`);
    support.applyRecord(run, parsed.record);
  }
  return run;
}

/** Presses ArrowDown until the focused row announces `label`; false when no row does. */
async function focusRowNamed(page, label, most = 80) {
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('ArrowDown');
    if ((await page.locator('.visually-hidden[aria-live]').textContent()) === label) return true;
  }
  return false;
}

/** Posts the columns as the host does: one message, typed arrays (rebuilt in the page from plain arrays). */
async function deliverColumns(page, columns, meta) {
  const plain = Object.fromEntries(
    Object.entries(columns).map(([k, v]) => [
      k,
      ArrayBuffer.isView(v) ? { type: v.constructor.name, values: Array.from(v) } : v,
    ]),
  );
  await page.evaluate(
    ({ plain, meta }) => {
      const columns = Object.fromEntries(
        Object.entries(plain).map(([k, v]) => [
          k,
          v && typeof v === 'object' && 'type' in v && 'values' in v ? new window[v.type](v.values) : v,
        ]),
      );
      window.postMessage({ type: 'timeline', meta, columns }, '*');
    },
    { plain, meta },
  );
}

async function main() {
  await withTimelinePage(
    'runtimeline',
    { width: 1280, height: 820 },
    async ({ support, tmp, page, check, stats, posted }) => {
      const run = recordedRun(support);
      const { columns } = support.profileTimeline(run);
      const filter = support.kernelFilter([FUSED]);
      const meta = support.profileTimelineMeta(run, `h200-runmode/run-mode?filter=${encodeURIComponent(filter)}`, {
        filter,
        kernel: 'fusedComputeA2a',
      });
      const kernels = run.dispatches.length;
      const fusedLaunches = run.dispatches.filter((d) => d.name === FUSED).length;

      await deliverColumns(page, columns, meta);
      await page.waitForFunction(
        () => window.__timelineStats.firstFrameAt > 0 && window.__timelineStats.rawKernels.length > 0,
        undefined,
        { timeout: 10_000 },
      );
      await frames(page, 3);
      let s = await stats();
      check(s.events === columns.count, `${columns.count} events (${kernels} launches) arrived with their names`);
      check(
        (await page.locator('#filter').inputValue()) === filter,
        "the panel opens with the lens's kernel filter in the filter box",
      );
      check(
        (await posted()).some((m) => m.type === 'filter-applied' && m.filter === filter && m.kept > fusedLaunches),
        'the page reports the filter it applies to the host',
      );
      check(
        s.rawKernels.length === 1 && s.rawKernels[0] === FUSED,
        `only fusedComputeA2a launches are drawn (drawn: ${s.rawKernels.join(' | ')})`,
      );
      check((await page.locator('.simulated-badge').isVisible()) === false, 'no SIMULATED badge on hardware records');
      check(
        (await page.locator('.legend').isVisible()) === false,
        "no legend for inferred boxes: a run's records are the profiler's, all observed",
      );
      check((await page.locator('h1').textContent())?.includes('kernel fusedComputeA2a'), 'the title names the kernel');

      // Keyboard: the Kernels lane of GPU 0, its first launch the filter keeps.
      await page.evaluate(() => document.querySelector('canvas').focus());
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press(']');
      await frames(page, 3);
      let title = await page.locator('.details h2').textContent();
      check(title === `Kernel · ${FUSED}`, `the details name the selected launch (${title})`);
      const facts = await page.locator('.details dl').textContent();
      check(/SMs seen64 \(device trace\)/.test(facts ?? ''), 'the details give the SMs the device trace saw');

      // The other kernel, typed into the box: the fused launches go, computeKernel's stay.
      await page.locator('#filter').fill('kernel:computeKernel');
      await page.locator('#filter').press('Enter');
      await frames(page, 2);
      // Same window as before (the fused launches, wide enough to be drawn one by one).
      await page
        .waitForFunction(
          () => !window.__timelineStats.rawKernels.some((n) => n.includes('fusedComputeA2a')),
          undefined,
          { timeout: 10_000 },
        )
        .catch(() => {});
      s = await stats();
      check(s.kept > 0 && s.kept < columns.count, `kernel:computeKernel keeps ${s.kept} of ${columns.count} events`);
      check(
        !s.rawKernels.some((n) => n.includes('fusedComputeA2a')),
        `fusedComputeA2a launches are hidden (drawn: ${s.rawKernels.join(' | ') || 'no launch one by one'})`,
      );
      // Control: with no filter, the same window draws them.
      await page.locator('#filter').fill('');
      await page.locator('#filter').press('Enter');
      const shown = await page
        .waitForFunction(
          () => window.__timelineStats.rawKernels.some((n) => n.includes('fusedComputeA2a')),
          undefined,
          { timeout: 10_000 },
        )
        .then(
          () => true,
          () => false,
        );
      check(shown, 'without the filter the same window draws the fusedComputeA2a launches');
      await page.locator('#filter').fill('kernel:computeKernel');
      await page.locator('#filter').press('Enter');
      await page.evaluate(() => document.querySelector('canvas').focus());
      await page.keyboard.press('Escape');
      await page.keyboard.press(']');
      await frames(page, 3);
      title = await page.locator('.details h2').textContent();
      check(
        /Kernel · .*computeKernel/.test(title ?? ''),
        `stepping through the Kernels lane skips hidden launches (${title})`,
      );

      await page.locator('#filter').fill('kernel:"unclosed');
      await page.locator('#filter').press('Enter');
      check(
        (await page.locator('.filter-error').textContent())?.includes('quote is not closed'),
        'an unclosed quote says what is wrong',
      );

      check(
        (await page.evaluate(() => window.__preview.state()))?.key === meta.key,
        'the panel keeps the key naming the run and the filter (restore after reload)',
      );

      // Which CUs ran what, and when: a run with device-span records.
      const spans = spanRun(support, tmp);
      const spanTimeline = support.profileTimeline(spans).columns;
      const spanMeta = support.profileTimelineMeta(spans, 'sim-spans/run-mode');
      const spanIndex = support.buildIndex(spanTimeline, spanMeta);
      const cuLanes = spanIndex.lanes.filter((l) => l.category === 'cu');
      check(
        spans.deviceSpans?.count === 32 && cuLanes.length === 16,
        `the helper sent ${spans.deviceSpans?.count} spans on ${cuLanes.length} CU lanes (16 CUs x a merged compute span and a put)`,
      );
      await deliverColumns(page, spanTimeline, spanMeta);
      await page.waitForFunction(
        (n) => window.__timelineStats.events === n && window.__timelineStats.firstFrameAt > 0,
        spanTimeline.count,
        { timeout: 10_000 },
      );
      await frames(page, 3);
      check(await page.locator('.simulated-badge').isVisible(), "the sim backend's run carries the SIMULATED badge");
      const collapsedRows = (await stats()).view.lanesDrawn;
      await page.getByRole('button', { name: 'CU lanes' }).click();
      await frames(page, 3);
      const expandedRows = (await stats()).view.lanesDrawn;
      check(
        expandedRows - collapsedRows === cuLanes.length,
        `the CU lanes toggle shows one lane per busy CU (${collapsedRows} -> ${expandedRows} rows)`,
      );
      await page.evaluate(() => document.querySelector('canvas').focus());
      await page.keyboard.press('Escape');
      check(await focusRowNamed(page, 'XCC 1 CU 2'), 'GPU 0 has a lane for CU 2 of XCC 1 (XCC x 1024 + CU)');
      await page.keyboard.press(']');
      await frames(page, 2);
      title = await page.locator('.details h2').textContent();
      let spanFacts = await page.locator('.details dl').textContent();
      check(
        title === 'XCC 1 CU 2 busy · cu/host' &&
          /Labelcompute/.test(spanFacts ?? '') &&
          /Duration50\.0 µs/.test(spanFacts ?? ''),
        `its first span is the compute scope, two blocks merged (${title}; ${spanFacts})`,
      );
      await page.keyboard.press(']');
      await frames(page, 2);
      title = await page.locator('.details h2').textContent();
      spanFacts = await page.locator('.details dl').textContent();
      check(
        title === 'XCC 1 CU 2 busy · cu/device' &&
          /Labela2a/.test(spanFacts ?? '') &&
          /Bytes64 KiB/.test(spanFacts ?? ''),
        `then its put into GPU 1, with its bytes (${title}; ${spanFacts})`,
      );
      // The kernel filter keeps the spans during the kept launches, as the core computes it.
      await page.locator('#filter').fill('kernel:compute');
      await page.locator('#filter').press('Enter');
      const expectKept = support
        .filterMask(spanTimeline, support.parseFilter('kernel:compute'))
        .reduce((n, x) => n + x, 0);
      const keptCu = [...support.filterMask(spanTimeline, support.parseFilter('kernel:compute'))].filter(
        (x, e) => x && spanTimeline.kind[e] === 1,
      ).length;
      await page
        .waitForFunction((n) => window.__timelineStats.kept === n, expectKept, { timeout: 10_000 })
        .catch(() => {});
      check(
        (await stats()).kept === expectKept && keptCu === 16,
        `kernel:compute keeps ${expectKept} events, the 16 compute spans among them (page: ${(await stats()).kept})`,
      );
    },
  );
}

runMain(main);
