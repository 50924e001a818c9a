// The layer rules of src/core/layers.json put to use: which layer a file belongs to, the
// browser-safe globs, the checks of every import of src/ and webview/ (allowed by the rules, no
// cycle between folders), and the two texts written from the rules: the layer table of
// docs/ARCHITECTURE.md and the include list of webview/tsconfig.json.
//   node scripts/layers.mjs          rewrite both from the rules
//   node scripts/layers.mjs --check  exit 1 if either differs (test/unit/layers.test.ts checks the same)
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const RULES_FILE = 'src/core/layers.json';
export const DOC_FILE = 'docs/ARCHITECTURE.md';
export const WEBVIEW_TSCONFIG = 'webview/tsconfig.json';
const BEGIN = '<!-- layers:begin (written by `node scripts/layers.mjs` from src/core/layers.json; edit that file) -->';
const END = '<!-- layers:end -->';

/** Every core folder (`src/core/**`) or every browser-safe one (`browser-safe`). */
const ALL_CORE = 'src/core/**';
const BROWSER_SAFE = 'browser-safe';

export function loadLayers(root = ROOT) {
  return JSON.parse(readFileSync(join(root, RULES_FILE), 'utf8')).layers;
}

const posix = (p) => p.split(sep).join('/');

/** The layer a repository path (posix, from the root) belongs to, or undefined for a file outside src/ and webview/ or in a folder the rules do not name. */
export function layerOf(layers, file) {
  const folders = new Set(layers.map((l) => l.folder));
  if (file.startsWith('src/core/')) {
    const rest = file.slice('src/core/'.length);
    if (!rest.includes('/')) return 'src/core';
    const folder = `src/core/${rest.split('/')[0]}`;
    return folders.has(folder) ? folder : undefined;
  }
  const top = file.startsWith('src/') ? file.split('/').slice(0, 2).join('/') : file.split('/')[0];
  return folders.has(top) ? top : undefined;
}

/** The folders a layer may import, the aliases expanded. */
export function allowedOf(layers, layer) {
  const l = layers.find((x) => x.folder === layer);
  const out = new Set();
  for (const m of l?.mayImport ?? []) {
    if (m === ALL_CORE)
      for (const x of layers) if (x.folder === 'src/core' || x.folder.startsWith('src/core/')) out.add(x.folder);
    if (m === BROWSER_SAFE) for (const x of layers) if (x.browserSafe) out.add(x.folder);
    if (m !== ALL_CORE && m !== BROWSER_SAFE) out.add(m);
  }
  return out;
}

/** The browser-safe code as globs from the repository root: the core's root files and each browser-safe folder, whole. */
export function browserSafeGlobs(layers) {
  const safe = layers.filter((l) => l.browserSafe);
  const globs = safe.filter((l) => l.folder === 'src/core').map(() => 'src/core/*.ts');
  const folders = safe.filter((l) => l.folder !== 'src/core').map((l) => l.folder.slice('src/core/'.length));
  if (folders.length > 0) globs.push(`src/core/{${folders.join(',')}}/**/*.ts`);
  return globs;
}

/** webview/tsconfig.json's include list: the webview's own files, then the browser-safe core, one entry a folder. */
export function webviewIncludes(layers) {
  return [
    './**/*.ts',
    ...layers
      .filter((l) => l.browserSafe)
      .map((l) => (l.folder === 'src/core' ? '../src/core/*.ts' : `../${l.folder}/**/*.ts`)),
  ];
}

const folderCell = (folder) => (folder === 'src/core' ? '`src/core/` (its root files)' : `\`${folder}/\``);
const importName = (m) =>
  m === ALL_CORE
    ? 'core'
    : m === BROWSER_SAFE
      ? 'the browser-safe core'
      : m === 'src/core'
        ? 'root'
        : m.slice('src/core/'.length);

/** The layer table of docs/ARCHITECTURE.md, markers included. */
export function docsTable(layers) {
  const rows = layers.map(
    (l) =>
      `| ${folderCell(l.folder)} | ${l.line} | ${l.mayImport.length > 0 ? l.mayImport.map(importName).join(', ') : 'nothing of ours'} | ${l.browserSafe ? 'yes' : ''} |`,
  );
  return [BEGIN, '| folder | one line | may import | browser-safe |', '|---|---|---|---|', ...rows, END].join('\n');
}

/** The document with its table rewritten from the rules (unchanged when it already matches). */
export function withDocsTable(doc, layers) {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${DOC_FILE} has no layer table markers (${BEGIN} ... ${END})`);
  return doc.slice(0, a) + docsTable(layers) + doc.slice(b + END.length);
}

/** webview/tsconfig.json's text with its include list rewritten from the rules, the rest as it is. */
export function withWebviewIncludes(text, layers) {
  const list = webviewIncludes(layers)
    .map((p) => `    ${JSON.stringify(p)}`)
    .join(',\n');
  const made = text.replace(/"include": \[[^\]]*\]/, `"include": [\n${list}\n  ]`);
  if (made === text && !text.includes('"include": [')) throw new Error(`${WEBVIEW_TSCONFIG} has no include list`);
  return made;
}

function sourceFiles(root, dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function resolveSpecifier(root, from, spec) {
  const base = posix(relative(root, resolve(root, dirname(from), spec)));
  for (const candidate of [`${base}.ts`, base, `${base}/index.ts`]) {
    try {
      readFileSync(join(root, candidate));
      return candidate;
    } catch {
      // not this one
    }
  }
  return base;
}

/** Every import of src/ and webview/ (static, type-only, export-from, dynamic): from file, specifier, the file it names (relative ones). */
export function importsOf(root = ROOT) {
  const out = [];
  for (const file of [...sourceFiles(root, 'src'), ...sourceFiles(root, 'webview')]) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles)
      out.push({ file, spec, target: spec.startsWith('.') ? resolveSpecifier(root, file, spec) : undefined });
  }
  return out;
}

const NODE_ONLY = (spec) => spec.startsWith('node:') || spec === 'execa' || spec === 'vscode';

/** What breaks the rules: imports they do not allow, and cycles between folders. One sentence each. */
export function checkLayers(root = ROOT, layers = loadLayers(root)) {
  const violations = [];
  const edges = new Map();
  for (const { file, spec, target } of importsOf(root)) {
    const from = layerOf(layers, file);
    if (!from) {
      violations.push(`${file}: its folder is not in ${RULES_FILE}`);
      continue;
    }
    const fromLayer = layers.find((l) => l.folder === from);
    if (target === undefined) {
      if (spec === 'vscode' && from.startsWith('src/core'))
        violations.push(`${file} imports vscode: src/core is editor-free`);
      else if ((fromLayer.browserSafe || from === 'webview') && NODE_ONLY(spec))
        violations.push(`${file} imports ${spec}: ${from} runs in the browser`);
      continue;
    }
    const to = layerOf(layers, target);
    if (!to) {
      if (!target.startsWith('src/') && !target.startsWith('webview/') && target.endsWith('.json')) continue; // data, e.g. native/src/limits.json, package.json
      violations.push(`${file} imports ${spec}: ${target} is in no layer of ${RULES_FILE}`);
      continue;
    }
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
    if (!allowedOf(layers, from).has(to)) violations.push(`${file} imports ${spec}: ${from} may not import ${to}`);
  }
  return { violations: [...new Set(violations)], cycles: cyclesOf(edges) };
}

/** The folder cycles of an import graph: each strongly connected set of more than one folder, as a path around it. */
export function cyclesOf(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const set = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) cycles.push(ringOf(edges, new Set(set), v));
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** One shortest ring through `start` inside a strongly connected set, as `a -> b -> a`, and how many folders the set holds. */
function ringOf(edges, set, start) {
  const back = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!set.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let u = back.get(v); u !== undefined; u = back.get(u)) path.push(u);
        const ring = [...path.reverse(), start].join(' -> ');
        return set.size > 2
          ? `${ring} (one ring of ${set.size} folders that reach each other: ${[...set].join(', ')})`
          : ring;
      }
      if (!back.has(w)) {
        back.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...set].join(', ');
}

/** The rules themselves: every named folder exists in the rules, and the may-import graph has no cycle. */
export function checkRules(layers) {
  const problems = [];
  const folders = new Set(layers.map((l) => l.folder));
  const edges = new Map();
  for (const l of layers) {
    for (const m of l.mayImport)
      if (m !== ALL_CORE && m !== BROWSER_SAFE && !folders.has(m))
        problems.push(`${l.folder} may import ${m}, which is no layer`);
    edges.set(l.folder, allowedOf(layers, l.folder));
    edges.get(l.folder).delete(l.folder);
  }
  return [...problems, ...cyclesOf(edges).map((c) => `the rules allow a cycle: ${c}`)];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const layers = loadLayers();
  const check = process.argv.includes('--check');
  const stale = [];
  for (const [file, make] of [
    [DOC_FILE, (t) => withDocsTable(t, layers)],
    [WEBVIEW_TSCONFIG, (t) => withWebviewIncludes(t, layers)],
  ]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const made = make(text);
    if (made === text) continue;
    if (check) stale.push(file);
    else writeFileSync(join(ROOT, file), made);
  }
  const { violations, cycles } = checkLayers();
  for (const line of [...checkRules(layers), ...violations, ...cycles.map((c) => `folder cycle: ${c}`)])
    console.log(line);
  if (stale.length > 0)
    console.log(`not written from ${RULES_FILE}: ${stale.join(', ')} (run node scripts/layers.mjs)`);
  if (stale.length > 0 || violations.length > 0 || cycles.length > 0) process.exit(1);
}
