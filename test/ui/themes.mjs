#!/usr/bin/env node
// `npm run test:ui:themes`: every panel's series colours in every built-in colour theme, in the
// real VS Code of scripts/vscode/provision.mjs (its server, headless Chromium). Simulated runs
// are saved into the sample workspace first (the CLI on the sim backend: two sweeps, one with a
// timeline, a matrix, a collective sweep, a fleet of six nodes with one weak); the workbench
// then opens each panel (sweep, timeline, matrix, collective, compare, fleet) and, theme by
// theme (picked as a user does, "Preferences: Color Theme", which sets `workbench.colorTheme`),
// reads the colour each series is drawn in from the canvas pixels (composited over the panel's
// background, as the user sees them) and the colour of each swatch and chip from the page's
// computed styles (test/support/seriesContrast.mjs). Every series must stand at least 3:1
// against the panel's background (WCAG 2.2, 1.4.11 non-text contrast).
//
//   --out DIR     theme-contrast.md (the table), theme-variables.json (each theme's chart
//                 variables as the webviews received them) and a screenshot of each panel in
//                 each theme (default .vscode-test/artifacts/ui-themes)
//   --json FILE   also write {passed, failed, seconds} for scripts/test.mjs
// Functions passed to evaluate() run in the browser, hence the browser globals.
/* global document */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBrowser, provision, serverVersion } from '../../scripts/vscode/provision.mjs';
import { openBrowser, startServer, workbenchUrl } from '../../scripts/vscode/server.mjs';
import { assert, openSampleWorkspace, runCommand, until } from '../../scripts/vscode/workbench.mjs';
import {
  MIN_CONTRAST,
  contrastTable,
  failuresOf,
  hex,
  measure,
  pageSpec,
  readPanel,
  readSpec,
} from '../support/seriesContrast.mjs';
import { root, runChecks, sampleWorkspace, valueOf } from '../support/workbenchScript.mjs';

const outDir = valueOf('--out') ?? join(root, '.vscode-test', 'artifacts', 'ui-themes');

/**
 * The themes VS Code ships (extensions/theme-defaults): the classic (+), Modern and 2026 light
 * and dark ones and both High Contrast themes; `id` is the `workbench.colorTheme` value
 * ("Default Light+" and the like are older names VS Code maps to these), `label` what the
 * Color Theme picker lists.
 */
const THEMES = [
  { id: 'Light+', label: 'Light+' },
  { id: 'Light Modern', label: 'Light Modern' },
  { id: 'Light 2026', label: 'Light 2026' },
  { id: 'Dark+', label: 'Dark+' },
  { id: 'Dark Modern', label: 'Dark Modern' },
  { id: 'Dark 2026', label: 'Dark 2026' },
  { id: 'Default High Contrast', label: 'Dark High Contrast' },
  { id: 'Default High Contrast Light', label: 'Light High Contrast' },
];

/** The CLI on the sim backend, in the workspace: returns the id of the run it saved. */
function cli(workspace, args) {
  const runs = join(workspace, '.sdma-lens', 'runs');
  const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
  execFileSync(
    process.execPath,
    [
      join(root, 'dist', 'cli.js'),
      ...args,
      '--backend',
      'sim',
      '--helper',
      join(root, 'native', 'build', 'sdma-probe'),
    ],
    { cwd: workspace, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const added = readdirSync(runs).filter((d) => !before.has(d));
  if (added.length !== 1) throw new Error(`sdma-lens ${args.join(' ')} saved ${added.length} runs`);
  return added[0];
}

/** The simulated runs the panels show, saved as the CLI saves them, and a fleet index over six node sweeps. */
function seedRuns(workspace) {
  const sizes = ['--sizes', '4K,16K,64K,256K,1M,4M,16M,64M,256M,1G'];
  const runs = {
    sweep: cli(workspace, ['sweep', ...sizes, '--timeline-size', '1M', '--seed', '1']),
    sweepB: cli(workspace, ['sweep', ...sizes, '--seed', '2']),
    matrix: cli(workspace, ['matrix', '--sim-gpus', '4']),
    collective: cli(workspace, ['collective']),
  };
  const nodes = ['node01', 'node02', 'node03', 'node04', 'node05', 'node06'];
  const nodeRuns = nodes.map((node, i) =>
    cli(workspace, [
      'sweep',
      '--sizes',
      '1M,64M,256M',
      '--seed',
      String(10 + i),
      ...(node === 'node04' ? ['--sim-weak', 'engine=0.5'] : []),
    ]),
  );
  const fleet = {
    format: 'sdma-lens-fleet',
    version: 1,
    id: 'theme-fleet',
    createdAt: '2026-12-03T00:00:00Z',
    via: { kind: 'local' },
    slurm: { job: '7', ownAllocation: true },
    commands: ['sweep'],
    args: {},
    status: 'ok',
    nodes: nodes.map((node, i) => ({ node, runs: [{ command: 'sweep', runId: nodeRuns[i], status: 'ok' }] })),
  };
  const dir = join(workspace, '.sdma-lens', 'fleets', fleet.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet, null, 2));
  return { ...runs, fleet: fleet.id };
}

/** Picks the row holding `text` in the quick pick titled `title` (the run id is each run's detail). */
async function pick(page, title, text) {
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: title })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  const input = page.locator('.quick-input-widget input');
  await input.fill(text, { timeout: 10_000 });
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
}

/**
 * Runs `command` and picks `text` from its quick pick. A webview that takes the focus as it
 * finishes loading closes a quick pick opened just before (VS Code hides it on focus loss), so
 * a pick that vanished is asked for again, at most three times.
 */
async function commandPick(page, command, title, text) {
  await commandPicks(page, command, [[title, text]]);
}

/** commandPick for a command that asks more than once (Compare Runs: A, then B): the whole sequence is asked for again. */
async function commandPicks(page, command, picks) {
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, command);
    try {
      for (const [title, text] of picks) await pick(page, title, text);
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
      await page.keyboard.press('Escape');
    }
  }
}

/** Picks a colour theme as a user does: "Preferences: Color Theme", then its label. */
async function setTheme(page, label) {
  await runCommand(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget input');
  await input.fill(label);
  const exact = new RegExp('^' + label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: exact }) })
    .first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The SDMA Lens page holding `marker` (a hidden panel has no page: VS Code drops it and reloads it when shown). */
async function panelFrame(page, marker, timeoutMs = 30_000) {
  return until(
    `the panel with ${marker}`,
    async () => {
      for (const frame of page.frames()) {
        if (frame === page.mainFrame()) continue;
        const n = await frame
          .locator(marker)
          .count()
          .catch(() => 0);
        if (n > 0) return frame;
      }
      return undefined;
    },
    timeoutMs,
  );
}

async function main() {
  return runChecks({ name: 'ui-themes', outDir, tmpPrefix: 'sdma-lens-ui-themes-' }, async ({ check, tmp, held }) => {
    if (process.env.SDMA_LENS_PREPARED !== '1') (await import('../../scripts/prepare.mjs')).prepare();
    const { node, serverMain } = provision();
    checkBrowser();
    mkdirSync(join(outDir, 'panels'), { recursive: true });
    const workspace = sampleWorkspace(tmp);
    const runs = seedRuns(workspace);
    const csp = [];
    const settings = {
      'workbench.colorTheme': 'Dark Modern',
      'window.autoDetectColorScheme': false,
      'sdmaLens.helperPath': join(root, 'native', 'build', 'sdma-probe'),
      'sdmaLens.defaultBackend': 'sim',
    };
    const server = await startServer({ node, serverMain, settings, log: (l) => console.log(l) });
    held.server = server;
    console.log(`> theme contrast in VS Code ${serverVersion(serverMain)} (server) + headless Chromium`);
    held.browser = await openBrowser({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    const { page } = held.browser;
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy|Refused to (load|execute|apply|connect|frame|evaluate)/i.test(m.text()))
        csp.push(m.text());
    });

    await check('the sample workspace opens with the saved simulated runs', async () => {
      await openSampleWorkspace(
        page,
        workbenchUrl(server.origin, { folder: workspace, extensionDevelopmentPath: root }),
      );
    });

    /** Each panel's editor tab, in the order opened. */
    const tabs = [];
    const opened = async (pageName) => {
      const spec = pageSpec(pageName);
      await panelFrame(page, spec.marker);
      const label = (await page.locator('.tabs-container .tab.active .label-name').first().textContent())?.trim() ?? '';
      tabs.push({ page: pageName, label });
    };
    await check(
      'every panel opens on a simulated run (sweep, timeline, matrix, collective, compare, fleet)',
      async () => {
        await commandPick(page, 'SDMA Lens: Open Run', 'SDMA Lens', runs.sweep);
        await opened('sweep');
        // With the sweep panel active, Show Timeline opens that run's own timeline.
        await runCommand(page, 'SDMA Lens: Show Timeline');
        await opened('timeline');
        await commandPick(page, 'SDMA Lens: Open Run', 'SDMA Lens', runs.matrix);
        await opened('matrix');
        await commandPick(page, 'SDMA Lens: Open Run', 'SDMA Lens', runs.collective);
        await opened('collective');
        await commandPicks(page, 'SDMA Lens: Compare Runs', [
          ['(1/2)', runs.sweep],
          ['(2/2)', runs.sweepB],
        ]);
        await opened('compare');
        await commandPick(page, 'SDMA Lens: Open Fleet', 'fleet', runs.fleet);
        await opened('fleet');
        assert(
          new Set(tabs.map((t) => t.label)).size === tabs.length,
          `panel tabs: ${tabs.map((t) => t.label).join(' | ')}`,
        );
      },
    );

    const results = [];
    const variables = {};
    for (const { id: theme, label: themeLabel } of THEMES) {
      await check(`${theme}: every series stands at least ${MIN_CONTRAST}:1 against the panel background`, async () => {
        await setTheme(page, themeLabel);
        const failures = [];
        for (const { page: pageName, label } of tabs) {
          const spec = pageSpec(pageName);
          await page
            .locator('.tabs-container .tab', { has: page.locator('.label-name', { hasText: label }) })
            .first()
            .click();
          const frame = await panelFrame(page, spec.marker);
          let seen = '';
          await until(
            `${pageName} in ${theme}`,
            async () =>
              (seen = await frame.evaluate(() => document.body.dataset.vscodeThemeId ?? '').catch(() => '')) === theme,
            30_000,
            (m) => new Error(`${m} (the page's theme id is "${seen}")`),
          );
          // The page redraws a frame after the theme's variables change; a little longer for chart.js and the timeline's worker.
          await page.waitForTimeout(700);
          const reading = await frame.evaluate(readPanel, readSpec(spec));
          variables[theme] ??= { kind: reading.kind, name: reading.themeName, ...reading.variables };
          await page.mouse.move(0, 0);
          await page.locator('.part.editor').screenshot({
            path: join(
              outDir,
              'panels',
              `${theme.replace(/\+/g, ' plus').replace(/[^A-Za-z0-9]+/g, '-')}-${pageName}.png`,
            ),
          });
          const rows = measure(spec, reading);
          for (const row of rows) results.push({ theme, page: pageName, background: hex(reading.background), ...row });
          failures.push(...failuresOf(pageName, rows, reading));
        }
        assert(failures.length === 0, failures.join('\n'));
      }).catch(() => {});
    }

    const file = join(outDir, 'theme-contrast.md');
    writeFileSync(
      file,
      `# Series contrast in VS Code ${serverVersion(serverMain)}'s built-in themes\n\nWritten by \`node test/ui/themes.mjs\` (npm run test:ui:themes).\n\n${contrastTable(
        results,
        THEMES.map((t) => t.id),
      )}`,
    );
    writeFileSync(join(outDir, 'theme-variables.json'), `${JSON.stringify(variables, null, 2)}\n`);
    console.log(`  contrast table: ${file}`);

    await check('no Content Security Policy violation in any frame', async () => {
      assert(csp.length === 0, csp.join('\n'));
    });
  });
}

process.exit(await main());
