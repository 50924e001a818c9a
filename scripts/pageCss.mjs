// A panel's stylesheet as shipped: the styles every panel shares (webview/shared/*.css) first,
// then the page's own, in one file, so the page's CSP needs to allow one stylesheet only.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const shared = join(dirname(fileURLToPath(import.meta.url)), '..', 'webview', 'shared', 'simulatedBadge.css');

export function pageCss(source, destination) {
  writeFileSync(destination, `${readFileSync(shared, 'utf8')}\n${readFileSync(source, 'utf8')}`);
}
