import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // The webview runs in a browser: no Node built-ins, no host code.
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'vscode', '../src/extension/*', '../../src/extension/*'], message: 'webview code runs in the browser.' }] }],
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
