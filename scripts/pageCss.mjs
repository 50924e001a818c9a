// A panel's stylesheet as shipped: the styles every panel shares (webview/shared/*.css) first,
// then the page's own, in one file, so the page's CSP needs to allow one stylesheet only.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sharedDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'webview', 'shared');

export function pageCss(source, destination) {
  const shared = readdirSync(sharedDir)
    .filter((f) => f.endsWith('.css'))
    .sort()
    .map((f) => readFileSync(join(sharedDir, f), 'utf8'));
  writeFileSync(destination, [...shared, readFileSync(source, 'utf8')].join('\n'));
}
