#!/usr/bin/env node
// Browser checks of the timeline panel on a profiled program's run: the columns built from the
// run-mode records recorded on 2x H200 (test/fixtures/runmode/), delivered as the host delivers
// them, opened as the code lens opens them (filtered to one kernel), then the filter box
// switched to the other kernel. The kernel filter must hide the other kernel's launches.
//
//   node test/webview/runTimeline.mjs
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPage, frames, launch, loadSupport, repo, startServer } from './timelineHarness.mjs';
import { report, runMain } from './report.mjs';

const FUSED = '(anonymous namespace)::fusedComputeA2a(float const*, float* const*, int, int, unsigned long)';

function recordedRun(support) {
  const run = support.newRun({ type: 'run', format: 'sdma-lens-run', version: 1, id: 'h200-runmode', command: 'run', createdAt: '2026-11-30T02:05:41Z', target: { kind: 'local' }, helper: { path: 'sdma-probe', args: ['run', '--', './fused_a2a', '8', '5'] } });
  for (const line of readFileSync(join(repo, 'test/fixtures/runmode/runmode-fused-a2a.ndjson'), 'utf8').split('\n')) {
    if (!line) continue;
    const r = support.parseLine(line);
    if (r.kind !== 'record') throw new Error(`fixture line is not a record: ${line.slice(0, 80)}`);
    support.applyRecord(run, r.record);
  }
  return run;
}

/** Posts the columns as the host does: one message, typed arrays (rebuilt in the page from plain arrays). */
async function deliverColumns(page, columns, meta) {
  const plain = Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, ArrayBuffer.isView(v) ? { type: v.constructor.name, values: Array.from(v) } : v]));
  await page.evaluate(
    ({ plain, meta }) => {
      const columns = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, v && typeof v === 'object' && 'type' in v && 'values' in v ? new window[v.type](v.values) : v]));
      window.postMessage({ type: 'timeline', meta, columns }, '*');
    },
    { plain, meta },
  );
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'sdma-lens-runtimeline-'));
  const assets = join(tmp, 'assets');
  let server;
  let browser;
  const failures = [];
  const check = (ok, what) => {
    console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
    if (!ok) failures.push(`check failed: ${what}`);
  };
  try {
    const support = await loadSupport(tmp);
    await buildPage(assets);
    const run = recordedRun(support);
    const { columns } = support.runModeTimeline(run);
    const filter = support.kernelFilter([FUSED]);
    const meta = support.runModeTimelineMeta(run, `h200-runmode/run-mode?filter=${encodeURIComponent(filter)}`, { filter, kernel: 'fusedComputeA2a' });
    const kernels = run.dispatches.length;
    const fusedLaunches = run.dispatches.filter((d) => d.name === FUSED).length;

    const served = await startServer(support, assets, { index: { script: 'timeline.js' } });
    server = served.server;
    const b = await launch({ width: 1280, height: 820 });
    browser = b;
    const { page } = b;
    const stats = () => page.evaluate(() => window.__timelineStats);
    const posted = () => page.evaluate(() => window.__preview.posted);
    await page.goto(`${served.origin}/index.html?theme=dark`);
    await page.waitForFunction(() => window.__preview.posted.some((m) => m.type === 'ready'));

    await deliverColumns(page, columns, meta);
    await page.waitForFunction(() => window.__timelineStats.firstFrameAt > 0 && window.__timelineStats.rawKernels.length > 0, undefined, { timeout: 10_000 });
    await frames(page, 3);
    let s = await stats();
    check(s.events === columns.count, `${columns.count} events (${kernels} launches) arrived with their names`);
    check((await page.locator('#filter').inputValue()) === filter, 'the panel opens with the lens\'s kernel filter in the filter box');
    check((await posted()).some((m) => m.type === 'filter-applied' && m.filter === filter && m.kept > fusedLaunches), 'the page reports the filter it applies to the host');
    check(s.rawKernels.length === 1 && s.rawKernels[0] === FUSED, `only fusedComputeA2a launches are drawn (drawn: ${s.rawKernels.join(' | ')})`);
    check((await page.locator('.simulated-badge').isVisible()) === false, 'no SIMULATED badge on hardware records');
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
    await page.waitForFunction(() => !window.__timelineStats.rawKernels.some((n) => n.includes('fusedComputeA2a')), undefined, { timeout: 10_000 }).catch(() => {});
    s = await stats();
    check(s.kept > 0 && s.kept < columns.count, `kernel:computeKernel keeps ${s.kept} of ${columns.count} events`);
    check(!s.rawKernels.some((n) => n.includes('fusedComputeA2a')), `fusedComputeA2a launches are hidden (drawn: ${s.rawKernels.join(' | ') || 'no launch one by one'})`);
    // Control: with no filter, the same window draws them.
    await page.locator('#filter').fill('');
    await page.locator('#filter').press('Enter');
    const shown = await page.waitForFunction(() => window.__timelineStats.rawKernels.some((n) => n.includes('fusedComputeA2a')), undefined, { timeout: 10_000 }).then(() => true, () => false);
    check(shown, 'without the filter the same window draws the fusedComputeA2a launches');
    await page.locator('#filter').fill('kernel:computeKernel');
    await page.locator('#filter').press('Enter');
    await page.evaluate(() => document.querySelector('canvas').focus());
    await page.keyboard.press('Escape');
    await page.keyboard.press(']');
    await frames(page, 3);
    title = await page.locator('.details h2').textContent();
    check(/Kernel · .*computeKernel/.test(title ?? ''), `stepping through the Kernels lane skips hidden launches (${title})`);

    await page.locator('#filter').fill('kernel:"unclosed');
    await page.locator('#filter').press('Enter');
    check((await page.locator('.filter-error').textContent())?.includes('quote is not closed'), 'an unclosed quote says what is wrong');

    check((await page.evaluate(() => window.__preview.state()))?.key === meta.key, 'the panel keeps the key naming the run and the filter (restore after reload)');
    for (const v of await page.evaluate(() => window.__preview.cspViolations)) failures.push(`CSP violation: ${v}`);
    failures.push(...b.failures);
    await b.close();
    browser = undefined;
  } finally {
    if (browser?.close) await browser.close();
    server?.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  report(failures);
}

runMain(main);
