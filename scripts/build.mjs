// Bundles the three programs: the extension host (Node, CommonJS, `vscode` external), the
// CLI (Node, CommonJS), and the webview (browser, ESM). `--watch` rebuilds on change;
// `--production` minifies and drops source maps (the package's build, scripts/package.mjs);
// `--outdir DIR` writes somewhere else than dist/ (the package stages its files apart, so the
// working tree keeps its development build with maps).
import * as esbuild from 'esbuild';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTimelineWebview } from '../webview/timeline/build.mjs';
import { pageCss } from './pageCss.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outIndex = process.argv.indexOf('--outdir');
const dist = outIndex > 0 ? process.argv[outIndex + 1] : 'dist';
if (!dist || dist.startsWith('--')) throw new Error('--outdir needs a folder');
const webviewDir = join(dist, 'webview');

/**
 * execa (and its twenty-odd dependencies, about a third of each Node bundle) is a bundle of its
 * own, dist/execa.js, that the extension and the CLI require at their first spawn through it:
 * the source's `import('execa')` resolves to a one-line module that requires it. So loading
 * the extension or starting the CLI does not compile it, and a run that never needs it (the
 * CLI's local sweep) never loads it.
 */
const EXECA_BUNDLE = './execa.js';
const lazyExeca = {
  name: 'lazy-execa',
  setup(build) {
    build.onResolve({ filter: /^execa$/ }, () => ({ path: 'execa', namespace: 'lazy-execa' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-execa' }, () => ({
      contents: `module.exports = require(${JSON.stringify(EXECA_BUNDLE)});`,
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\/execa\.js$/, namespace: 'lazy-execa' }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

/**
 * The CLI's commands (src/cli/commandTable.ts) are a bundle of their own, dist/cli-commands.js,
 * that dist/cli.js requires when a command runs: `--help` and `--version` compile only the
 * small entry bundle.
 */
const COMMANDS_BUNDLE = './cli-commands.js';
const lazyCommands = {
  name: 'lazy-commands',
  setup(build) {
    build.onResolve({ filter: /^\.\/commandTable$/ }, () => ({ path: 'commandTable', namespace: 'lazy-commands' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-commands' }, () => ({
      contents: `module.exports = require(${JSON.stringify(COMMANDS_BUNDLE)});`,
      loader: 'js',
    }));
    build.onResolve({ filter: /^\.\/cli-commands\.js$/, namespace: 'lazy-commands' }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

const common = {
  bundle: true,
  // ESM entry points first: UMD builds (jsonc-parser's) hide their requires from the bundler.
  mainFields: ['module', 'main'],
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'info',
  legalComments: 'linked',
};

const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension/extension.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [lazyExeca],
  },
  {
    ...common,
    entryPoints: { cli: 'src/cli/bin.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [lazyCommands],
  },
  {
    ...common,
    entryPoints: { 'cli-commands': 'src/cli/commandTable.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [lazyExeca],
  },
  {
    ...common,
    // execa as CommonJS, for the two bundles above (lazyExeca).
    stdin: { contents: "export * from 'execa';", resolveDir: '.', loader: 'js' },
    outfile: join(dist, 'execa.js'),
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: { sweep: 'webview/sweep/main.ts' },
    outdir: webviewDir,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  },
  {
    ...common,
    entryPoints: { matrix: 'webview/matrix/main.ts' },
    outdir: webviewDir,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  },
  {
    ...common,
    entryPoints: { collective: 'webview/collective/main.ts' },
    outdir: webviewDir,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  },
  {
    ...common,
    entryPoints: { compare: 'webview/compare/main.ts' },
    outdir: webviewDir,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  },
  {
    ...common,
    entryPoints: { fleet: 'webview/fleet/main.ts' },
    outdir: webviewDir,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  },
];

mkdirSync(webviewDir, { recursive: true });
for (const page of ['sweep', 'collective', 'matrix', 'compare', 'fleet'])
  pageCss(`webview/${page}/${page}.css`, join(webviewDir, `${page}.css`));

// The timeline page embeds its worker's code (a two-step build, webview/timeline/build.mjs);
// under --watch it is built once at start.
await buildTimelineWebview({ outdir: webviewDir, production });

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
