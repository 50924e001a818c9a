// The extension's message bundle, l10n/bundle.l10n.json: every vscode.l10n.t(...) message of
// src/extension, keyed by its English text (and its translator comment, where it has one), as
// @vscode/l10n-dev extracts it. A translation is the same keys in l10n/bundle.l10n.<locale>.json.
//
//   node scripts/l10n.mjs           writes the bundle from the sources
//   node scripts/l10n.mjs --check   exits 1, naming the keys, when the committed bundle lacks a
//                                   message of the sources (missing) or keeps one they no longer
//                                   have (stale); exits 0 when it is current
//
// The same as `npx @vscode/l10n-dev export --outDir ./l10n ./src/extension`, without npm, with the
// files in a fixed (sorted) order so the bundle's key order does not depend on the file system.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getL10nJson } from '@vscode/l10n-dev';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCE_DIR = join(root, 'src', 'extension');
export const BUNDLE_FILE = join(root, 'l10n', 'bundle.l10n.json');

/** The TypeScript files under `dir`, sorted by path. */
export function sourceFiles(dir = SOURCE_DIR) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .sort();
}

/** The bundle the sources under `dir` give now. */
export async function extractBundle(dir = SOURCE_DIR) {
  return getL10nJson(
    sourceFiles(dir).map((file) => ({ contents: readFileSync(file, 'utf8'), extension: extname(file) })),
  );
}

/** The bundle as the file holds it. */
export function bundleText(bundle) {
  return `${JSON.stringify(bundle, undefined, 2)}\n`;
}

/** What `committed` lacks of `extracted` (missing), keeps that it no longer has (stale), or holds differently (changed). */
export function bundleDiff(extracted, committed) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return {
    missing: Object.keys(extracted).filter((k) => !(k in committed)),
    stale: Object.keys(committed).filter((k) => !(k in extracted)),
    changed: Object.keys(extracted).filter((k) => k in committed && !same(extracted[k], committed[k])),
  };
}

async function main() {
  const extracted = await extractBundle();
  const shown = relative(root, BUNDLE_FILE);
  if (!process.argv.includes('--check')) {
    mkdirSync(dirname(BUNDLE_FILE), { recursive: true });
    writeFileSync(BUNDLE_FILE, bundleText(extracted));
    console.log(`wrote ${shown}: ${Object.keys(extracted).length} messages`);
    return;
  }
  let committed;
  try {
    committed = JSON.parse(readFileSync(BUNDLE_FILE, 'utf8'));
  } catch (err) {
    console.error(`${shown} could not be read: ${err.message}. Run: node scripts/l10n.mjs`);
    process.exit(1);
  }
  const { missing, stale, changed } = bundleDiff(extracted, committed);
  if (missing.length + stale.length + changed.length === 0) {
    console.log(`${shown} is current: ${Object.keys(extracted).length} messages`);
    return;
  }
  for (const k of missing) console.error(`missing: ${JSON.stringify(k)}`);
  for (const k of stale) console.error(`stale: ${JSON.stringify(k)}`);
  for (const k of changed) console.error(`changed: ${JSON.stringify(k)}`);
  console.error(
    `${shown} is out of date (${missing.length} missing, ${stale.length} stale, ${changed.length} changed). Run: node scripts/l10n.mjs`,
  );
  process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
