#!/usr/bin/env node
// The collective panel in headless Chromium under its real CSP: a simulated collective run
// from the real helper, drawn with chart.js (one canvas per operation, a line per variant and
// form, off-path points ringed, tooltips), then an invalid message, a theme switch and
// "Copy as exports"; then an overlap run (hand-made records in the helper's shape, simulated
// and measured): the table per compute kind against the CU arithmetic, the claim lines above
// it, the SIMULATED badge on the section, a hostile mechanism shown as text.
//
//   node test/webview/collective.mjs            checks
//   node test/webview/collective.mjs --out DIR  checks + screenshots in DIR
//
// Exits 1 on any console error, page error, failed request, CSP violation or failed check.
/* global window, document, Node */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { pageCss } from '../../scripts/pageCss.mjs';
import { checkSeriesContrast } from './contrastCheck.mjs';
import { frames, probe, repo, withPage } from './timelineHarness.mjs';
import { runMain } from './report.mjs';
import { checkTableActions } from './tableActionsCheck.mjs';

const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = outIndex >= 0 ? resolve(repo, args[outIndex + 1]) : undefined;
const HELPER_ARGS = ['collective', '--backend', 'sim'];

function runText() {
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: 'collective-demo',
    command: 'collective',
    createdAt: '2026-11-30T00:00:00Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: HELPER_ARGS },
  };
  const out = execFileSync(probe, HELPER_ARGS, { encoding: 'utf8' });
  const end = {
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-11-30T00:00:01Z',
  };
  return `${JSON.stringify(header)}\n${out.trimEnd()}\n${JSON.stringify(end)}\n`;
}

/** The collective page and its support module, built as scripts/build.mjs builds them. */
async function setup(tmp, assets) {
  await esbuild.build({
    entryPoints: { collective: join(repo, 'webview/collective/main.ts') },
    outdir: assets,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
  });
  pageCss(join(repo, 'webview/collective/collective.css'), join(assets, 'collective.css'));
  const supportFile = join(tmp, 'collectiveSupport.mjs');
  await esbuild.build({
    entryPoints: [join(repo, 'test/webview/collectiveSupport.ts')],
    outfile: supportFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const support = await import(pathToFileURL(supportFile).href);
  // The support module has the panels' HTML shell and CSP (not the timeline's, which also allows a worker).
  return { support, pages: { index: { script: 'collective.js', style: 'collective.css', title: 'Collectives' } } };
}

async function main() {
  await withPage('collective', { width: 1100, height: 1000 }, setup, async ({ support, page, check, posted }) => {
    const message = support.collectiveMessage(runText());
    const { curves } = message.view;
    const ops = [...new Set(curves.map((c) => c.op))];
    const offPath = curves.reduce((n, c) => n + c.points.filter((p) => p.offPath).length, 0);

    check((await posted())[0]?.type === 'ready', 'the panel posts {type: "ready"} first');

    await page.evaluate((m) => window.postMessage(m, '*'), message);
    await page.waitForSelector('figure canvas');
    await frames(page, 3);
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('figure canvas')].map((c) => {
        const ctx = c.getContext('2d');
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let inked = 0;
        for (let i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) inked++;
        return { label: c.getAttribute('aria-label'), width: c.width, height: c.height, inked };
      }),
    );
    check(
      ops.length > 0 && drawn.length === ops.length,
      `one chart.js canvas per operation (${drawn.length} for ${ops.join(', ')})`,
    );
    check(
      drawn.every((d) => d.width > 200 && d.height > 100 && d.inked > 500),
      `every chart is drawn (${drawn.map((d) => `${d.width}x${d.height}, ${d.inked} inked`).join('; ')})`,
    );
    check(
      drawn.every((d) => curves.filter((c) => d.label?.startsWith(c.op)).every((c) => d.label.includes(c.variant))),
      `each chart names its curves (${drawn.map((d) => d.label).join(' | ')})`,
    );
    check(
      curves.some((c) => c.inPlace) ? (await page.locator('text=dashed: in-place').count()) > 0 : true,
      'the key says solid is out-of-place and dashed in-place',
    );
    const labels = new Set(curves.map((c) => `${c.variant}${c.inPlace ? ' in-place' : ''}`));
    const key = await page.locator('ul.curve-key li').allTextContents();
    check(
      key.length === labels.size &&
        key.every((k) => labels.has(k)) &&
        (await page.locator('ul.curve-key li svg line').count()) === labels.size,
      `the curve key draws each curve's line and marker (${key.join(', ')})`,
    );
    check(
      (await page.locator('text=A red ring marks a point').count()) === 1,
      `off-path points are explained (${offPath} in this run)`,
    );
    check(
      (await page.locator('.simulated-badge').isVisible()) === true,
      'the SIMULATED badge shows for simulated data',
    );
    // The paths the points report are explained, and no size says its unit twice ("8 MiB bytes").
    const transports = await page
      .locator('dl.transports dt')
      .evaluateAll((dts) => dts.map((dt) => `${dt.textContent}: ${dt.nextElementSibling?.textContent ?? ''}`));
    const paths = [...new Set(curves.flatMap((c) => c.points.map((p) => p.transport)).filter((t) => t !== null))];
    check(
      paths.length > 0 && paths.every((t) => transports.some((k) => k.startsWith(`${t}: `))),
      `the panel explains each path its points report (${transports.join(' | ')})`,
    );
    check(
      transports.some((k) => /^kernel: the library.s kernels moved the bytes on the SMs\/CUs/.test(k)) &&
        transports.some((k) => /^sdma: the SDMA copy engines move the bytes/.test(k)),
      "kernel is the library's kernels on the CUs, sdma the SDMA copy engines",
    );
    const pathTitles = await page
      .locator('details table tbody td.path[title]')
      .evaluateAll((tds) => [...new Set(tds.map((td) => `${td.textContent}: ${td.getAttribute('title')}`))]);
    check(
      pathTitles.length === paths.length,
      `each path in the points table has its meaning as a tooltip (${pathTitles.length} paths)`,
    );
    const pageText = await page.evaluate(
      () =>
        `${document.body.innerText}\n${[...document.querySelectorAll('[title],[aria-label]')].map((e) => `${e.getAttribute('title') ?? ''} ${e.getAttribute('aria-label') ?? ''}`).join('\n')}`,
    );
    const doubled = pageText.match(/\d (?:B|KiB|MiB|GiB|TiB) (?:bytes|B|KiB|MiB|GiB)\b.{0,30}/);
    check(doubled === null, `no size says its unit twice${doubled ? ` ("${doubled[0]}")` : ''}`);

    // A tooltip: hover a canvas at the middle of its plot.
    const box = await page.locator('figure canvas').first().boundingBox();
    await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.45);
    await frames(page, 2);
    const afterHover = await page.evaluate(() => {
      const c = document.querySelector('figure canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let inked = 0;
      for (let i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) inked++;
      return inked;
    });
    check(
      afterHover > drawn[0].inked,
      `hovering a chart draws its tooltip (${drawn[0].inked} -> ${afterHover} inked samples)`,
    );

    const table = await page.locator('details table thead th').allTextContents();
    check(
      table.includes('time µs') && table.includes('busbw GB/s'),
      `the points table names its units (${table.join(', ')})`,
    );
    // The CUs each point used: the count and where it came from, "—" where the run did not say.
    const cusCells = await page.locator('details table tbody td.cus').allTextContents();
    const points = curves.flatMap((c) => c.points);
    check(
      table.includes('CUs used') &&
        cusCells.length === points.length &&
        cusCells.every((t, i) =>
          points[i].cusUsed && points[i].cusUsed.count !== null
            ? t ===
              `${points[i].cusUsed.count} (${points[i].cusUsed.source === 'zero-cta' ? 'zero-CTA' : points[i].cusUsed.source})`
            : t === '\u2014',
        ),
      `the points table has a CUs column, count and source per point (${[...new Set(cusCells)].join(', ')})`,
    );
    // How the ranks ran, in the header; the variants asked for, refused ones with their reasons.
    const headerText = await page.locator('header').innerText();
    check(
      headerText.includes(`mode ${message.view.mode}`),
      `the header names the run's mode (${headerText.replace(/\s+/g, ' ')})`,
    );
    const variantRows = await page.locator('table.variants tbody tr').count();
    check(
      variantRows === message.view.variants.length,
      `the variant table has one row per variant record (${variantRows})`,
    );
    const refused = message.view.variants.filter((v) => !v.supported);
    const refusedRows = await page.locator('table.variants tbody tr.refused').allInnerTexts();
    check(
      refusedRows.length === refused.length &&
        refused.every((v, i) => v.reason === undefined || refusedRows[i].includes(v.reason)),
      `each refused variant shows its reason (${refused.length} refused)`,
    );

    const before = (await posted()).length;
    await page.evaluate(() => window.postMessage({ type: 'collective-view', view: { runId: 1 } }, '*'));
    await frames(page, 2);
    const reported = (await posted()).slice(before);
    check(
      reported.length === 1 && reported[0].type === 'webview-error',
      'an invalid host message is reported as webview-error, not drawn',
    );
    check((await page.locator('figure canvas').count()) === ops.length, 'the charts drawn before stay');

    await page.evaluate(() => window.__preview.setTheme('light'));
    await frames(page, 3);
    check((await page.locator('figure canvas').count()) === ops.length, 'a theme switch redraws the charts');
    // Every curve and swatch solid and 3:1 on the background in each of VS Code's own themes.
    await checkSeriesContrast(page, check, 'collective', 'light');

    await checkTableActions(
      { page, check, posted },
      {
        what: 'collective',
        heading: `SDMA Lens collectives ${message.view.runId}`,
        rows: curves.reduce((n, c) => n + c.points.length, 0),
      },
    );
    if (message.view.exports) {
      await page.getByRole('button', { name: 'Copy as exports' }).click();
      check((await posted()).at(-1)?.type === 'copy-exports', 'Copy as exports posts copy-exports to the host');
    }
    check(
      (await page.evaluate(() => window.__preview.state()))?.runId === 'collective-demo',
      'the panel keeps its run id in webview state (restore after reload)',
    );

    if (outDir) {
      mkdirSync(outDir, { recursive: true });
      await page.screenshot({ path: join(outDir, 'collective-light.png'), fullPage: true });
      console.log(`  wrote ${join(outDir, 'collective-light.png')}`);
    }

    await checkOverlap({ support, page, check, posted });
  });
}

const OVERLAP_COLUMNS = [
  'copy path',
  'size',
  'CUs used / total',
  'CU arithmetic',
  'compute kept',
  '',
  'copy GB/s alone \u2192 beside',
  'bandwidth kept',
  'decided by',
  'SM MHz / W',
  'mechanism',
];
const DECIDED_PREFIX = { cus: 'CUs', power: 'power', memory: 'memory bandwidth', other: 'other', unknown: '\u2014' };

/** The overlap section of a hand-made overlap run: its table, claim lines, badge and the mechanism as text. */
async function checkOverlap({ support, page, check, posted }) {
  const message = support.collectiveMessage(support.overlapRunText({ id: 'overlap-demo', simulated: true }));
  const { overlap } = message.view;
  await page.evaluate((m) => window.postMessage(m, '*'), message);
  await page.waitForSelector('table.overlap-table');
  await frames(page, 2);
  const computes = [...new Set(overlap.rows.map((r) => r.compute))];
  const captions = await page.locator('section.overlap h3').allTextContents();
  check(
    computes.length === 3 &&
      captions.length === 3 &&
      computes.every((c, i) =>
        captions[i].startsWith(`${c.toUpperCase()} (${c === 'triad' ? 'memory' : 'compute'}-bound)`),
      ),
    `overlap: one table per compute kind, each named with its bound (${captions.join(' | ')})`,
  );
  const heads = await page.locator('table.overlap-table').first().locator('thead th').allTextContents();
  check(
    JSON.stringify(heads) === JSON.stringify(OVERLAP_COLUMNS),
    `overlap: the table's columns (${heads.join(', ')})`,
  );
  const rows = await page.locator('table.overlap-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => {
      const cell = (c) => tr.querySelector(`td.${c}`);
      return {
        cus: cell('cus').textContent,
        arithmetic: cell('arithmetic').textContent,
        kept: cell('kept').textContent,
        copy: cell('copy').textContent,
        bandwidth: cell('bandwidth').textContent,
        decided: cell('decided').textContent,
        why: cell('decided').getAttribute('title'),
        mechanism: cell('mechanism').textContent,
        isolated: cell('mechanism').firstElementChild?.localName === 'bdi',
        marks: tr.querySelectorAll('.bar .mark').length,
      };
    }),
  );
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  check(
    rows.length === overlap.rows.length &&
      overlap.rows.every((r, i) => {
        const shown = rows[i];
        return (
          shown.cus === `${r.cusUsed} / ${r.totalCus}` &&
          shown.arithmetic === pct(r.cuArithmetic) &&
          shown.kept === pct(r.keptFraction) &&
          shown.bandwidth === pct(r.bandwidthKept) &&
          shown.copy.includes('\u2192') &&
          shown.decided.startsWith(DECIDED_PREFIX[r.decidedBy]) &&
          shown.why === r.why &&
          shown.mechanism === r.mechanism &&
          shown.isolated &&
          shown.marks === 1
        );
      }),
    `overlap: a row per copy with CUs used / total, the arithmetic (marked on its bar), kept, the copy alone -> beside, bandwidth kept, decided by (the figures on hover) and the mechanism in an isolate (${rows.length} rows)`,
  );
  const decided = new Set(overlap.rows.map((r) => r.decidedBy));
  check(
    ['cus', 'power', 'memory', 'other'].every((d) => decided.has(d)),
    `overlap: the run reaches every class of decided by (${[...decided].join(', ')})`,
  );
  const claims = await page.locator('section.overlap ul.claims li').allTextContents();
  check(
    claims.length === overlap.claims.length &&
      claims.every((c, i) => c === overlap.claims[i].text) &&
      claims.some((c) => c.startsWith('GEMM (compute-bound), 256 MiB:') && c.endsWith('the arithmetic holds.')) &&
      claims.some(
        (c) => c.startsWith('TRIAD (memory-bound), 256 MiB:') && c.includes('memory bandwidth decides, not CUs.'),
      ),
    `overlap: the claim lines above the tables (${claims.length})`,
  );
  const claimsFirst = await page.evaluate(() => {
    const list = document.querySelector('section.overlap ul.claims');
    const table = document.querySelector('section.overlap table.overlap-table');
    return Boolean(list && table && list.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  check(claimsFirst, 'overlap: the claim lines stand above the tables');
  check(
    (await page.locator('header .simulated-badge').isVisible()) &&
      (await page.locator('section.overlap h2 .simulated-badge').isVisible()),
    'overlap: a simulated run carries the SIMULATED badge in the header and on the overlap section',
  );
  await checkTableActions(
    { page, check, posted },
    { what: 'overlap', heading: `SDMA Lens overlap ${message.view.runId}`, rows: overlap.rows.length },
  );
  if (outDir) {
    await page.screenshot({ path: join(outDir, 'overlap-light.png'), fullPage: true });
    console.log(`  wrote ${join(outDir, 'overlap-light.png')}`);
  }

  // Measured, with markup in a mechanism: no badge, and the markup is text.
  const measured = support.collectiveMessage(
    support
      .overlapRunText({ id: 'overlap-measured' })
      .replace('started by the host', 'started by the host <img src=x onerror=\\"window.__pwned=1\\">'),
  );
  await page.evaluate((m) => window.postMessage(m, '*'), measured);
  await page.waitForFunction(() => document.querySelector('header h1')?.textContent?.includes('SIMULATED') === false);
  await frames(page, 2);
  check((await page.locator('.simulated-badge').count()) === 0, 'overlap: a measured run carries no SIMULATED badge');
  const hostile = await page
    .locator('table.overlap-table td.mechanism')
    .evaluateAll((tds) => tds.map((td) => td.textContent).filter((t) => t.includes('<img')));
  check(
    hostile.length > 0 &&
      (await page.locator('section.overlap img').count()) === 0 &&
      (await page.evaluate(() => window.__pwned)) === undefined,
    `overlap: markup in a mechanism is shown as text (${hostile.length} cells)`,
  );
}

runMain(main);
