// The VS Code half of `npm start -- --check`: the served VS Code (scripts/vscode/server.mjs)
// with the extension under development on the sample workspace, in headless Chromium, as a
// user would meet it: the extension activates, "SDMA Lens: Open Run" opens the sweep that
// `npm start` just ran, the sweep panel draws its chart. Then a screenshot, and everything it
// started is stopped and checked gone.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MARKER_VARIABLE, leftoverProcesses, newMarker } from '../vscode/processes.mjs';
import { ProvisionError, checkBrowser, provision, serverVersion } from '../vscode/provision.mjs';
import { runCommand as paletteCommand, until as waitUntil } from '../vscode/workbench.mjs';

class StepError extends Error {}

// The shared workbench drivers, failing with a StepError so the check names the step.
const until = (what, probe, timeoutMs) => waitUntil(what, probe, timeoutMs, (message) => new StepError(message));
async function runCommand(page, label) {
  try {
    await paletteCommand(page, label);
  } catch (err) {
    throw new StepError(err.message);
  }
}

async function sweepFrame(page) {
  return until(
    'the sweep panel with its chart',
    async () => {
      for (const frame of page.frames()) {
        if (frame === page.mainFrame()) continue;
        const badge = await frame
          .locator('.simulated-badge')
          .count()
          .catch(() => 0);
        const canvas = await frame
          .locator('canvas')
          .count()
          .catch(() => 0);
        if (badge > 0 && canvas > 0) return frame;
      }
      return undefined;
    },
    60_000,
  );
}

/**
 * Runs the check; returns true when every step passed. `step(name, fn)` times each step
 * (scripts/start.mjs), `started` is when `npm start` began.
 */
export async function runCheck({ root, sample, runId, outDir, step, timings, started }) {
  const marker = newMarker();
  let server;
  let browser;
  let failedStep;
  let activatedAt;
  const failure = join(outDir, 'start-check-failure.png');
  const shotFile = join(outDir, 'start-check.png');
  const checked = async (name, fn) => {
    try {
      return await step(name, fn);
    } catch (err) {
      failedStep = name;
      throw err;
    }
  };
  try {
    if (!runId) {
      failedStep = 'sweep (CLI)';
      throw new StepError(
        'the CLI sweep did not leave exactly one new run folder in examples/hip-sample/.sdma-lens/runs',
      );
    }
    const installed = await checked('VS Code server (install if needed)', () => {
      const r = provision();
      checkBrowser();
      return r;
    });
    // Inherited by the server, its extension host, the helper and Chromium: how leftovers are found.
    process.env[MARKER_VARIABLE] = marker;
    const { openBrowser, startServer, workbenchUrl } = await import('../vscode/server.mjs');
    server = await checked('VS Code server (start)', () =>
      startServer({ ...installed, log: (line) => console.log(line) }),
    );
    console.log(
      `> VS Code ${serverVersion(installed.serverMain)} (server) in headless Chromium, SDMA Lens under development on examples/hip-sample`,
    );
    browser = await checked('Chromium (start)', () => openBrowser());
    const { page } = browser;
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await checked('workbench + extension activated', async () => {
      await page.goto(workbenchUrl(server.origin, { folder: sample, extensionDevelopmentPath: root }));
      await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
      // The extension's status bar item (src/extension/targets.ts) exists once it activated.
      await until(
        'the SDMA Lens status bar item (the extension activating)',
        async () => (await page.locator('.statusbar-item', { hasText: 'SDMA:' }).count()) > 0,
        90_000,
      );
      console.log(
        `  status bar: "${(await page.locator('.statusbar-item', { hasText: 'SDMA:' }).first().textContent())?.trim()}"`,
      );
    });

    await checked('Open Run -> sweep panel with its chart', async () => {
      await runCommand(page, 'SDMA Lens: Open Run');
      // The run's quick pick: each item's detail is the run id.
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15_000 });
      await input.fill(runId);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: runId }).first();
      await row.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => {
        throw new StepError(`"SDMA Lens: Open Run" does not list the run ${runId}`);
      });
      await row.click();
      const frame = await sweepFrame(page);
      const badge = ((await frame.locator('.simulated-badge').first().textContent()) ?? '').trim();
      if (badge !== 'SIMULATED') throw new StepError(`the panel's badge says "${badge}", not SIMULATED`);
      // Something was drawn: the chart's canvas holds more than a few colours.
      const colours = await until(
        'the chart to be drawn',
        async () => {
          const n = await frame
            .locator('canvas')
            .first()
            .evaluate((c) => {
              const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
              const seen = new Set();
              for (let i = 0; i < data.length && seen.size < 50; i += 4 * 97)
                seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
              return seen.size;
            });
          return n > 5 ? n : undefined;
        },
        30_000,
      );
      const rows = await frame.locator('.data-table tbody tr').count();
      console.log(`  sweep panel: SIMULATED badge, chart with ${colours}+ colours, ${rows} table rows`);
      activatedAt = (performance.now() - started) / 1000;
    });

    await checked('screenshot', async () => {
      mkdirSync(outDir, { recursive: true });
      await page.mouse.move(0, 0);
      await page.screenshot({ path: shotFile });
      console.log(`  ${shotFile}`);
      if (errors.length > 0)
        console.log(`  (the workbench reported ${errors.length} page error(s); the first: ${errors[0]})`);
    });
  } catch (err) {
    failedStep ??= 'setup';
    const text =
      err instanceof StepError || err instanceof ProvisionError
        ? err.message
        : err instanceof Error
          ? err.stack
          : String(err);
    console.error(`\nnpm start -- --check failed at "${failedStep}": ${text}`);
    if (server?.output.length) console.error(`last VS Code server output:\n  ${server.output.slice(-10).join('\n  ')}`);
    if (browser) {
      mkdirSync(outDir, { recursive: true });
      await browser.page.screenshot({ path: failure }).then(
        () => console.error(`screenshot of the window: ${failure}`),
        () => {},
      );
    }
  }
  const left = await step('stop everything', async () => {
    await browser?.close();
    await server?.stop();
    delete process.env[MARKER_VARIABLE];
    return leftoverProcesses(marker, 5000);
  });
  if (left.length > 0) {
    console.error(`still running after the stop (started by this check):\n  ${left.join('\n  ')}`);
    failedStep ??= 'stop everything';
  } else {
    console.log('> nothing this check started is still running');
  }

  const total = (performance.now() - started) / 1000;
  console.log('\nsteps:');
  for (const t of timings) console.log(`  ${t.s.toFixed(1).padStart(7)} s  ${t.name}`);
  console.log(`  ${total.toFixed(1).padStart(7)} s  total`);
  if (activatedAt !== undefined)
    console.log(`  ${activatedAt.toFixed(1).padStart(7)} s  from the start to "extension activated + panel open"`);
  if (failedStep) {
    console.error(`\nnpm start -- --check: FAILED at "${failedStep}"`);
    return false;
  }
  console.log('\nnpm start -- --check: ok');
  return true;
}
