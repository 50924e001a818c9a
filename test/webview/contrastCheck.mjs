// The series-contrast check of every panel's browser test: the page switched live through
// VS Code's built-in themes (their real variables, the translucent and the missing orange
// included: themes.mjs VSCODE_THEMES), each series read back as drawn and held to 3:1
// against the panel's background (test/support/seriesContrast.mjs, as the real VS Code's
// test/ui/themes.mjs does). The page is left in `restore`, with nothing focused.
/* global window, document */
import { MIN_CONTRAST, failuresOf, measure, pageSpec, readPanel, readSpec } from '../support/seriesContrast.mjs';
import { frames } from './timelineHarness.mjs';
import { VSCODE_THEMES } from './themes.mjs';

export async function checkSeriesContrast(page, check, pageName, restore = 'dark') {
  const spec = pageSpec(pageName);
  // Nothing focused: a focus outline (a matrix cell's, a timeline lane's) is drawn in the focus colour.
  await page.evaluate(() => document.activeElement?.blur());
  for (const theme of Object.keys(VSCODE_THEMES)) {
    await page.evaluate((t) => window.__preview.setTheme(t), theme);
    await frames(page, 3);
    const reading = await page.evaluate(readPanel, readSpec(spec));
    const rows = measure(spec, reading);
    const failures = failuresOf(pageName, rows, reading);
    const seen = rows.filter((r) => r.contrast !== undefined).map((r) => `${r.series} ${r.contrast.toFixed(1)}`);
    check(
      failures.length === 0,
      `${theme}: every series stands ${MIN_CONTRAST}:1 on the background (${failures.length ? failures.join('; ') : seen.join(', ')})`,
    );
  }
  await page.evaluate((t) => window.__preview.setTheme(t), restore);
  await frames(page, 3);
}
