// Renders images/icon.svg to the 128x128 images/icon.png the package uses, with headless
// Chromium (run once after editing the SVG: node scripts/package/render-icon.mjs).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../vscode/provision.mjs';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'images');
const svg = readFileSync(join(here, 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(here, 'icon.png'), omitBackground: true });
  console.log(`wrote ${join(here, 'icon.png')}`);
} finally {
  await browser.close();
}
