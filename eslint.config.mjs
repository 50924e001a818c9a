import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The import rules of the layers, built from the one rule set (src/core/layers.json): each core
 * folder may import only the folders it names, browser-safe folders nothing of Node, and the
 * webview only the browser-safe core. test/unit/layers.test.ts checks the same rules on every
 * import, with cycles between folders; these give the same answer in the editor.
 */
const LAYERS = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'src/core/layers.json'), 'utf8'),
).layers;
const CORE = LAYERS.filter((l) => l.folder === 'src/core' || l.folder.startsWith('src/core/'));
const SAFE = CORE.filter((l) => l.browserSafe);
const sub = (folder) => folder.slice('src/core/'.length);
const alt = (names) => `(?:${names.join('|')})`;
const listed = (names) => (names.length > 0 ? names.join(', ') : 'nothing of ours');

/** The restriction of one core layer: the core folders (and the root) it may not import, and Node when it is browser-safe. */
function coreLayerRule(layer) {
  const allowed = new Set(layer.mayImport);
  const isRoot = layer.folder === 'src/core';
  const barred = CORE.filter((l) => l.folder !== 'src/core' && l.folder !== layer.folder && !allowed.has(l.folder)).map(
    (l) => sub(l.folder),
  );
  const message = `${layer.folder} may import ${listed(layer.mayImport.map((m) => (m === 'src/core' ? 'the core root' : sub(m))))} (src/core/layers.json).`;
  const patterns = [];
  if (barred.length > 0) patterns.push({ regex: `^${isRoot ? '\\./' : '\\.\\./'}${alt(barred)}/`, message });
  if (!isRoot && !allowed.has('src/core')) patterns.push({ regex: '^\\.\\./[^/]+$', message });
  const paths = [{ name: 'vscode', message: 'src/core must not depend on VS Code; adapt it in src/extension.' }];
  if (layer.browserSafe) {
    paths.push({ name: 'execa', message: 'browser-safe core code starts no processes.' });
    patterns.push({ group: ['node:*'], message: `${layer.folder} is browser-safe (the webview imports it): no Node.` });
  }
  return {
    files: [isRoot ? 'src/core/*.ts' : `${layer.folder}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
  };
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'native/**',
      'node_modules/**',
      '.vscode-test/**',
      '.sdma-lens/**',
      'coverage/**',
      'bench/peers/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The core is editor-free: it must run in the CLI, tests and benchmarks without VS Code.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'src/core must not depend on VS Code; adapt it in src/extension.' }] },
      ],
    },
  },
  // Each core folder imports only what src/core/layers.json lets it.
  ...CORE.map(coreLayerRule),
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/cli/*', '**/webview/*'],
              message: 'src/extension may import the core only (src/core/layers.json).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/extension/*', '**/webview/*', 'vscode'],
              message: 'src/cli may import the core only (src/core/layers.json).',
            },
          ],
        },
      ],
    },
  },
  {
    // The webview runs in a browser: no Node built-ins, no host code, and of the core only its browser-safe part.
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'vscode', '**/src/extension/*', '**/src/cli/*'],
              message: 'webview code runs in the browser.',
            },
            {
              regex: `src/core/(?!${SAFE.some((l) => l.folder === 'src/core') ? '[^/]+$|' : ''}${alt(SAFE.filter((l) => l.folder !== 'src/core').map((l) => sub(l.folder)))}/)`,
              message: `the webview may import only the browser-safe core (src/core/layers.json): ${SAFE.map((l) => (l.folder === 'src/core' ? 'the root files' : sub(l.folder))).join(', ')}.`,
            },
          ],
        },
      ],
    },
  },
  {
    // Shipped extension code logs through the LogOutputChannel.
    files: ['src/extension/**/*.ts', 'src/core/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['scripts/**/*.mjs', 'test/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        performance: 'readonly',
      },
    },
  },
);
