// The table buttons every run panel shares (webview/shared/tableActions.ts), checked the same
// way on each page: labelled and in order, each export posting only its format (by mouse and
// by keyboard), Copy table putting the page's own Markdown on the clipboard, and a refused
// clipboard handing the copy to the host. The caller says which heading and how many rows the
// table must have, from the view it sent (never from the page).
/* global window, navigator */

/**
 * @param {{ page: import('playwright-core').Page, check: (ok: boolean, what: string) => void, posted: () => Promise<any[]> }} ctx
 * @param {{ heading: string, rows: number, what: string }} expected
 */
export async function checkTableActions({ page, check, posted }, { heading, rows, what }) {
  const names = await page.locator('.table-actions button').allTextContents();
  check(
    names.join(' | ') === 'Copy table | Export CSV… | Export Markdown…',
    `${what}: the table has Copy table and both exports (${names.join(', ')})`,
  );
  const before = (await posted()).length;
  await page.getByRole('button', { name: 'Export the table to a CSV file' }).click();
  await page.getByRole('button', { name: 'Export the table to a Markdown file' }).focus();
  await page.keyboard.press('Enter');
  await page.evaluate(() => {
    window.__copied = [];
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async (text) => void window.__copied.push(text) },
    });
  });
  const copy = page.getByRole('button', { name: 'Copy the table to the clipboard as Markdown' });
  await copy.click();
  await page.waitForFunction(() => window.__copied.length === 1);
  const markdown = (await page.evaluate(() => window.__copied[0])).split('\n');
  const tableLines = markdown.filter((l) => l.startsWith('|'));
  const cellsPerLine = new Set(tableLines.map((l) => l.replace(/\\\|/g, '').split('|').length));
  check(markdown[0] === `## ${heading}`, `${what}: Copy table starts with the heading "${heading}" (${markdown[0]})`);
  check(
    tableLines.length === 2 + rows && cellsPerLine.size === 1,
    `${what}: Copy table holds the header, the rule and ${rows} rows, each as wide as the header (${tableLines.length - 2} rows, widths ${[...cellsPerLine].join(', ')})`,
  );
  await page.evaluate(() =>
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: {
        writeText: async () => {
          throw new Error('not allowed');
        },
      },
    }),
  );
  await copy.click();
  await page.waitForFunction((n) => window.__preview.posted.length > n, before + 2);
  const sent = (await posted()).slice(before);
  check(
    JSON.stringify(sent) ===
      JSON.stringify([
        { type: 'export-table', format: 'csv' },
        { type: 'export-table', format: 'markdown' },
        { type: 'copy-table' },
      ]),
    `${what}: Export CSV… and Export Markdown… (by keyboard) post export-table with their format; a refused clipboard asks the host to copy (${JSON.stringify(sent)})`,
  );
}
