// Driving the served VS Code's workbench in headless Chromium (Playwright pages): the pieces
// the UI tests, the package check and `npm start -- --check` share. Functions passed to
// evaluate() run in the browser, hence the browser globals.
/* global document */

/** Polls `probe` until it returns something truthy; throws `makeError(message)` after `timeoutMs`. */
export async function until(what, probe, timeoutMs = 30_000, makeError = (message) => new Error(message)) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw makeError(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/**
 * Runs a command from the palette (F1). Retried: the palette lists what is registered when it
 * opens, and right after start-up a command whose `when` clause waits on the workspace's trust
 * state, or whose extension is still activating, may not be there yet.
 */
export async function runCommand(page, label) {
  for (let attempt = 1; ; attempt++) {
    try {
      // F1 typed into a webview that is still loading is lost: the workbench takes the focus first.
      await page.evaluate(() => document.activeElement?.blur());
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(`>${label}`);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
      await row.waitFor({ state: 'visible', timeout: 5000 });
      await row.click();
      return;
    } catch (err) {
      if (attempt === 4)
        throw new Error(`"${label}" is not in the command palette: ${String(err?.message ?? err).split('\n')[0]}`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1000);
    }
  }
}

/** A list of named checks: each prints ✔ or ✘ with its time; `results` feeds the --json report. */
export function checkList() {
  const results = [];
  async function check(name, fn) {
    const t0 = performance.now();
    try {
      await fn();
      results.push({ name, ok: true });
      console.log(`  ✔ ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (err) {
      results.push({ name, ok: false });
      console.log(
        `  ✘ ${name}\n      ${String(err?.message ?? err)
          .split('\n')
          .join('\n      ')}`,
      );
      throw err;
    }
  }
  return { results, check };
}

export function assert(ok, message) {
  if (!ok) throw new Error(message);
}

/** Loads the workbench at `url` and waits for the Explorer to list the sample's peer_copy.hip. */
export async function openSampleWorkspace(page, url) {
  await page.goto(url);
  await page.bringToFront();
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page
    .locator('.explorer-folders-view .monaco-list-row', { hasText: 'peer_copy.hip' })
    .waitFor({ timeout: 60_000 });
}

/** Clicks the Explorer's empty space: keyboard focus on a tree, never on a webview. */
export async function focusExplorer(page) {
  const box = await page.locator('.explorer-folders-view').boundingBox();
  if (box) await page.mouse.click(box.x + box.width / 2, box.y + box.height - 20);
}

/** "SDMA Lens: Run Transfer Sweep" from the palette, then its quick pick's "Run sweep" (the settings' sweep). */
export async function runSweepFromPalette(page) {
  for (let attempt = 1; ; attempt++) {
    // When the palette closes, VS Code gives the focus back to where it was; a webview taking
    // it back can close the next quick pick, so the focus goes to the Explorer first.
    await focusExplorer(page);
    await runCommand(page, 'SDMA Lens: Run Transfer Sweep');
    const run = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Run sweep' }).first();
    try {
      await run.waitFor({ state: 'visible', timeout: 15_000 });
      await run.click({ timeout: 5000 });
      // The pick is taken once its widget is gone: a key pressed before then (an Escape that
      // closes the notifications) would still reach the quick pick and step back from the run.
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
      return;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
}
