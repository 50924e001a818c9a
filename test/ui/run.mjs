#!/usr/bin/env node
// `npm run test:ui`: SDMA Lens as a user meets it, in the real VS Code of
// scripts/vscode/provision.mjs (its server, headless Chromium): open the sample workspace, run
// the sweep from the command palette, wait for the chart, check what the panel shows in a dark
// and a light theme, cancel a sweep with the notification's Cancel button, and see a crash
// reported. Fails on any Content Security Policy violation.
//
//   --out DIR     screenshots (default .vscode-test/artifacts/ui)
//   --docs        also write docs/images/vscode-sweep.png (the README's screenshot)
//   --json FILE   also write {passed, failed, seconds} for scripts/test.mjs
// Functions passed to evaluate() run in the browser, hence the browser globals.
/* global document, getComputedStyle, requestAnimationFrame */
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBrowser, provision, serverVersion } from '../../scripts/vscode/provision.mjs';
import { openBrowser, startServer, workbenchUrl } from '../../scripts/vscode/server.mjs';
import {
  assert,
  openSampleWorkspace,
  runCommand,
  runSweepFromPalette,
  until,
} from '../../scripts/vscode/workbench.mjs';
import { args, root, runChecks, sampleWorkspace, valueOf } from '../support/workbenchScript.mjs';

const outDir = valueOf('--out') ?? join(root, '.vscode-test', 'artifacts', 'ui');

/** The helper wrapper: logs "PID ARGS", adds the flags in extra-args to a sweep, execs the real helper. */
function helperWrapper(dir) {
  const probe = join(root, 'native', 'build', 'sdma-probe');
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  const script = join(dir, 'sdma-probe');
  writeFileSync(join(dir, 'extra-args'), '');
  writeFileSync(
    script,
    `#!/bin/sh\necho "$$ $*" >> '${join(dir, 'invocations.log')}'\n` +
      `if [ "$1" = sweep ]; then exec '${probe}' "$@" $(cat '${join(dir, 'extra-args')}'); fi\nexec '${probe}' "$@"\n`,
  );
  chmodSync(script, 0o755);
  return {
    script,
    extra: (text) => writeFileSync(join(dir, 'extra-args'), text),
    sweeps: () =>
      (existsSync(join(dir, 'invocations.log')) ? readFileSync(join(dir, 'invocations.log'), 'utf8') : '')
        .split('\n')
        .filter((l) => l.split(' ')[1] === 'sweep')
        .map((l) => Number(l.split(' ')[0])),
  };
}

function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function groupMembers(pgid) {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[2]) === pgid && fields[0] !== 'Z';
      } catch {
        return false;
      }
    });
}

async function panelFrame(page, runCount) {
  return until('the sweep panel', async () => {
    const found = [];
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const has = await frame
        .locator('.simulated-badge')
        .count()
        .catch(() => 0);
      if (has > 0) found.push(frame);
    }
    return found.length >= runCount ? found.at(-1) : undefined;
  });
}

/**
 * A notification's row in the Notification Center. Toasts only pop up in a focused window,
 * which a headless browser never is; the center lists every notification, with its buttons.
 */
async function notification(page, text, timeoutMs = 30_000) {
  let opened = 0;
  return until(
    `a notification "${text}"`,
    async () => {
      // One frame first: the center's list renders a notification added since the last read then.
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => ok())));
      const rows = page.locator('.notifications-center .monaco-list-row');
      // Reading the rows' text (a layout) also lets a list that waits for a frame render.
      const texts = await rows.allTextContents();
      if (texts.some((t) => t.includes(text))) return rows.filter({ hasText: text }).first();
      const visible = (await page.locator('.notifications-center.visible').count()) > 0;
      // Reopened now and then: a center opened just before the notification arrived may miss it.
      if (visible && Date.now() - opened > 3000) {
        await page.keyboard.press('Escape');
        await page.waitForTimeout(200);
      }
      if (!visible || Date.now() - opened > 3000) {
        await runCommand(page, 'Notifications: Show Notifications');
        opened = Date.now();
        await page.waitForTimeout(500);
      }
      return undefined;
    },
    timeoutMs,
  );
}

async function main() {
  return runChecks({ name: 'ui', outDir, tmpPrefix: 'sdma-lens-ui-' }, async ({ check, tmp, held }) => {
    if (process.env.SDMA_LENS_PREPARED !== '1') (await import('../../scripts/prepare.mjs')).prepare();
    const { node, serverMain } = provision();
    checkBrowser();
    mkdirSync(outDir, { recursive: true });
    const workspace = sampleWorkspace(tmp);
    const helperDir = join(tmp, 'helper');
    mkdirSync(helperDir);
    const helper = helperWrapper(helperDir);
    const csp = [];
    const server = await startServer({
      node,
      serverMain,
      settings: {
        'workbench.colorTheme': 'Default Dark Modern',
        'workbench.preferredDarkColorTheme': 'Default Dark Modern',
        'workbench.preferredLightColorTheme': 'Default Light Modern',
        'window.autoDetectColorScheme': false,
        'sdmaLens.helperPath': helper.script,
        'sdmaLens.defaultBackend': 'sim',
      },
      log: (l) => console.log(l),
    });
    held.server = server;
    console.log(`> UI tests in VS Code ${serverVersion(serverMain)} (server) + headless Chromium`);
    held.browser = await openBrowser({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    const { page } = held.browser;
    // Console messages of every frame, webviews included, arrive here.
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy|Refused to (load|execute|apply|connect|frame|evaluate)/i.test(m.text()))
        csp.push(m.text());
    });

    await check('the sample workspace opens with the extension', async () => {
      await openSampleWorkspace(
        page,
        workbenchUrl(server.origin, { folder: workspace, extensionDevelopmentPath: root }),
      );
    });

    const showRunsView = async () => {
      // With one view in the container its header is hidden; the side bar's title names both.
      const title = page.locator('.part.sidebar .title-label', { hasText: 'SDMA Lens' }).first();
      if (await title.isVisible().catch(() => false)) return;
      // Clicking the activity bar item of a view already shown would hide the side bar.
      await page.locator('.activitybar .action-item a[aria-label^="SDMA Lens"]').first().click();
      await title.waitFor({ state: 'visible', timeout: 10_000 });
    };

    await check(
      'the SDMA Lens view opens on its welcome with the first actions, and its walkthrough opens (screenshots)',
      async () => {
        await showRunsView();
        // The trusted welcome: while VS Code resolves the workspace's trust at start-up it may show the
        // Restricted Mode one for a moment, which also begins "No runs yet".
        const welcome = page.locator('.welcome-view-content', { hasText: 'No runs yet. A transfer sweep' }).first();
        await welcome.waitFor({ state: 'visible', timeout: 10_000 });
        for (const action of ['Run Transfer Sweep', 'Select Target', 'Import Results']) {
          assert(
            (await welcome.locator('.monaco-button, a', { hasText: action }).count()) > 0,
            `the welcome lacks "${action}"`,
          );
        }
        await page.screenshot({ path: join(outDir, 'runs-view-welcome.png') });
        await welcome.locator('a', { hasText: 'Open the walkthrough' }).first().click();
        await page
          .locator('.gettingStartedContainer', { hasText: 'Get started with SDMA Lens' })
          .first()
          .waitFor({ state: 'visible', timeout: 15_000 });
        for (const step of ['Choose where runs go', 'Run a transfer sweep', 'Read the advice', 'Profile a kernel']) {
          assert(
            (await page.locator('.gettingStartedContainer', { hasText: step }).count()) > 0,
            `the walkthrough lacks the step "${step}"`,
          );
        }
        await page.waitForTimeout(500);
        await page.screenshot({ path: join(outDir, 'walkthrough.png') });
        await runCommand(page, 'View: Close All Editors');
      },
    );

    let frame;
    await check("Run Transfer Sweep from the Runs view's welcome draws the chart", async () => {
      await showRunsView();
      const button = page.locator('.welcome-view-content .monaco-button', { hasText: 'Run Transfer Sweep' }).first();
      await button.click();
      const run = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Run sweep' }).first();
      await run.waitFor({ state: 'visible', timeout: 15_000 });
      await run.click({ timeout: 5000 });
      frame = await panelFrame(page, 1);
      await frame.locator('.data-table tbody tr').first().waitFor({ timeout: 30_000 });
      await until('the finished run', async () => (await frame.locator('.data-table tbody tr').count()) === 13);
    });

    await check('the panel shows the series, the SIMULATED badge and the table', async () => {
      const legend = await frame.locator('.legend-item').allTextContents();
      for (const path of ['cu/host', 'cu/device', 'engine/host', 'engine/device'])
        assert(
          legend.some((t) => t.includes(path)),
          `legend lacks ${path}: ${legend.join(' | ')}`,
        );
      const badge = frame.locator('.simulated-badge');
      assert(await badge.isVisible(), 'the SIMULATED badge is hidden');
      assert((await badge.textContent())?.trim() === 'SIMULATED', 'badge text');
      const headers = await frame.locator('.data-table thead th').allTextContents();
      assert(
        headers.some((h) => /^cu\/host · 64 CUs$/.test(h)),
        `table columns: ${headers.join(' | ')}`,
      );
      // Something was drawn: the canvas holds more than one colour.
      const colours = await frame
        .locator('canvas')
        .first()
        .evaluate((c) => {
          const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          const seen = new Set();
          for (let i = 0; i < data.length && seen.size < 50; i += 4 * 97)
            seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
          return seen.size;
        });
      assert(colours > 5, `the chart canvas looks empty (${colours} colours)`);
    });

    const editor = page.locator('.part.editor');
    const shot = async (theme) => {
      await page.mouse.move(0, 0);
      const file = join(outDir, `vscode-sweep-${theme}.png`);
      await editor.screenshot({ path: file });
      return file;
    };
    let darkShot;
    await check(
      'the Runs view lists the sweep with its SIMULATED mark, and opens it from the tree (screenshot)',
      async () => {
        await showRunsView();
        const row = page.locator('.pane-body .monaco-list-row', { hasText: 'SIMULATED' }).first();
        await row.waitFor({ state: 'visible', timeout: 15_000 });
        assert(
          (await page.locator('.pane-body .monaco-list-row', { hasText: 'Transfer sweeps' }).count()) > 0,
          'no "Transfer sweeps" group',
        );
        await page.screenshot({ path: join(outDir, 'runs-view.png') });
        await runCommand(page, 'View: Close All Editors');
        await until(
          'the sweep panel to close',
          async () => {
            for (const f of page.frames())
              if (
                f !== page.mainFrame() &&
                (await f
                  .locator('.simulated-badge')
                  .count()
                  .catch(() => 0)) > 0
              )
                return undefined;
            return true;
          },
          10_000,
        );
        await row.click();
        frame = await panelFrame(page, 1);
        await until(
          "the reopened run's table",
          async () => (await frame.locator('.data-table tbody tr').count()) === 13,
        );
        // The checks below start from the Explorer, as a user of the palette would.
        await runCommand(page, 'View: Show Explorer');
        await page.locator('.explorer-folders-view').first().waitFor({ state: 'visible', timeout: 10_000 });
      },
    );

    await check('a run.ndjson double-clicked in the Explorer opens in its sweep panel', async () => {
      await runCommand(page, 'View: Close All Editors');
      const explorer = page.locator('.explorer-folders-view');
      const row = (text) => explorer.locator('.monaco-list-row', { hasText: text }).first();
      // The Explorer compacts single-child folders (.sdma-lens/runs/<id> can be one row): open
      // whatever row on the way is still closed until the run file shows.
      await until(
        'run.ndjson in the Explorer',
        async () => {
          if (
            await row('run.ndjson')
              .isVisible()
              .catch(() => false)
          )
            return true;
          for (const text of ['.sdma-lens', 'runs', /\d{4}-\d{2}-\d{2}T/]) {
            const r = row(text);
            if ((await r.isVisible().catch(() => false)) && (await r.getAttribute('aria-expanded')) === 'false') {
              await r.click();
              return undefined;
            }
          }
          return undefined;
        },
        15_000,
      );
      await row('run.ndjson').waitFor({ state: 'visible', timeout: 10_000 });
      await row('run.ndjson').dblclick();
      frame = await panelFrame(page, 1);
      await until(
        "the run's table in the editor",
        async () => (await frame.locator('.data-table tbody tr').count()) === 13,
      );
      // The editor is titled as the run's panel is ("Sweep <time> <backend>"), not by the file name.
      const tabs = await page.locator('.tabs-container .tab').allTextContents();
      assert(tabs.length === 1 && /Sweep/.test(tabs[0] ?? ''), `editor tabs: ${tabs.join(' | ')}`);
      await page.screenshot({ path: join(outDir, 'run-file-editor.png') });
    });

    await check('dark theme: the panel follows it (screenshot)', async () => {
      const kind = await frame.evaluate(() => document.body.className);
      assert(/vscode-dark/.test(kind), `webview body class: ${kind}`);
      await shot('dark');
      // The whole window, for the README: the panel in VS Code, next to the sample workspace.
      darkShot = join(outDir, 'vscode-window-dark.png');
      await page.screenshot({ path: darkShot });
      if (args.includes('--docs')) {
        cpSync(darkShot, join(root, 'docs', 'images', 'vscode-sweep.png'));
        console.log('  wrote docs/images/vscode-sweep.png');
      }
    });
    await check('light theme: the panel redraws in it (screenshot)', async () => {
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      await until('the webview to turn light', async () =>
        /vscode-light/.test(await frame.evaluate(() => document.body.className)),
      );
      const background = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = background.match(/\d+/g).map(Number);
      assert(r + g + b > 600, `light background expected, got ${background}`);
      await page.waitForTimeout(300);
      await shot('light');
      await runCommand(page, 'Preferences: Toggle between Light/Dark Themes');
      await until('the webview to turn dark again', async () =>
        /vscode-dark/.test(await frame.evaluate(() => document.body.className)),
      );
    });

    await check(
      '"SDMA Lens: Cancel Run" is not offered while nothing runs (context key sdmaLens.runInProgress)',
      async () => {
        await page.evaluate(() => document.activeElement?.blur());
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 5000 });
        const listed = (label) => page.locator('.quick-input-list .monaco-list-row', { hasText: label }).count();
        // A command that always applies is listed: an empty list below is the context key, not a slow palette.
        await input.fill('>SDMA Lens: Show Log');
        await until(
          '"SDMA Lens: Show Log" in the palette',
          async () => (await listed('SDMA Lens: Show Log')) > 0,
          5000,
        );
        await input.fill('>SDMA Lens: Cancel Run');
        await page.waitForTimeout(1500);
        const rows = await listed('SDMA Lens: Cancel Run');
        await page.screenshot({ path: join(outDir, 'palette-no-cancel-run.png') });
        await page.keyboard.press('Escape');
        assert(rows === 0, `Cancel Run is listed ${rows} time(s) with no run in progress`);
      },
    );

    await check(
      'Cancel (the notification\'s button, or "SDMA Lens: Cancel Run") stops the helper and keeps the samples',
      async () => {
        helper.extra('--sim-delay-ms 150');
        const before = helper.sweeps().length;
        await runSweepFromPalette(page);
        const pid = await until('the helper to start', () => helper.sweeps()[before]);
        // A headless window is never focused, and the Notification Center does not always list
        // a progress notification there in time; the palette command cancels the same way.
        const progress = await notification(page, 'SDMA Lens: transfer sweep', 15_000).catch(() => undefined);
        if (progress) {
          // Some samples first, so there is something to keep.
          await until('progress in the notification', async () =>
            /: \d+\/\d+ \(simulated\)/.test((await progress.textContent()) ?? ''),
          );
          assert(alive(pid), 'the helper runs before Cancel');
          await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
          console.log("    (cancelled with the notification's Cancel button)");
        } else {
          await page.screenshot({ path: join(outDir, 'notification-missing.png') });
          assert(alive(pid), 'the helper runs before Cancel');
          await runCommand(page, 'SDMA Lens: Cancel Run');
          console.log('    (the progress notification was not listed; cancelled with "SDMA Lens: Cancel Run")');
        }
        const info = await notification(page, 'transfer sweep was cancelled', 15_000);
        const text = (await info.locator('.notification-list-item-message').textContent()) ?? '';
        assert(
          /SDMA Lens: the transfer sweep was cancelled; [1-9]\d* samples were kept in the run\./.test(text),
          `notification: ${text}`,
        );
        await until('the helper process to be gone', () => !alive(pid), 5000);
        assert(groupMembers(pid).length === 0, 'processes of the helper group are left');
      },
    );

    await check('a helper crash is reported in a notification', async () => {
      helper.extra('--fault crash-after=3');
      await runSweepFromPalette(page);
      const error = await notification(page, 'the transfer sweep crashed');
      const text = (await error.locator('.notification-list-item-message').textContent()) ?? '';
      assert(/^SDMA Lens: the transfer sweep crashed: ./.test(text), `notification: ${text}`);
      assert((await error.locator('.monaco-button', { hasText: 'Show Log' }).count()) === 1, 'Show Log is offered');
      helper.extra('');
    });

    await check('no Content Security Policy violation in any frame', async () => {
      assert(csp.length === 0, csp.join('\n'));
    });

    console.log(`  screenshots: ${outDir}`);
  });
}

process.exit(await main());
