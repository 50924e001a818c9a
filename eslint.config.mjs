import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The core files and folders the webview may import (keep in step with webview/tsconfig.json). */
const BROWSER_SAFE_CORE = [
  'src/core/{protocol,fastCheck,endpoints,units,run,limits,text}.ts',
  'src/core/{sweep,advice,matrix,collective,timeline,kernels,profile,compare,tables}/**/*.ts',
  // The fleet's judgement and its page; the fleet's runner, store and Slurm tools beside them are Node code.
  'src/core/fleet/{figures,fleetIndex,fleetView,outliers,thresholds,fleetPage,fleetMessages,fleetPanelTable}.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'native/**', 'node_modules/**', '.vscode-test/**', '.sdma-lens/**', 'coverage/**'] },
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
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core must not depend on VS Code; adapt it in src/extension.' }] }] },
  },
  {
    // The core's browser-safe part: the root files and feature folders the webview may import
    // (webview/tsconfig.json lists the same). They run in a page, so nothing of Node or of the
    // core's process, run-folder or page-shell layers.
    files: BROWSER_SAFE_CORE,
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core must not depend on VS Code.' }, { name: 'execa', message: 'browser-safe core code starts no processes.' }],
        patterns: [{ group: ['node:*', '**/runtime/*', '**/runs/*', '**/pages/*', '**/ssh/*'], message: 'this folder is imported by the webview: keep it free of Node and of the core\'s runtime, runs, pages and ssh folders.' }],
      }],
    },
  },
  {
    // The webview runs in a browser: no Node built-ins, no host code, and of the core only its browser-safe part.
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:*', 'vscode', '**/src/extension/*', '**/src/cli/*'], message: 'webview code runs in the browser.' },
          { regex: 'src/core/(?!(protocol|fastCheck|endpoints|units|run|limits|text)$|(sweep|advice|matrix|collective|timeline|kernels|profile|compare|tables)/|fleet/(figures|fleetIndex|fleetView|outliers|thresholds|fleetPage|fleetMessages|fleetPanelTable)$)', message: 'the webview may import only the browser-safe core: protocol, fastCheck, endpoints, units, run, the sweep, advice, matrix, collective, timeline, kernels, profile, compare and tables folders, and the fleet\'s judgement and page files.' },
        ],
      }],
    },
  },
  {
    // Shipped extension code logs through the LogOutputChannel.
    files: ['src/extension/**/*.ts', 'src/core/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['scripts/**/*.mjs', 'test/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', performance: 'readonly' } },
  },
);
