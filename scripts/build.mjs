// Bundles the three programs: the extension host (Node, CommonJS, `vscode` external), the
// CLI (Node, CommonJS), and the webview (browser, ESM). `--watch` rebuilds on change;
// `--production` minifies and drops source maps (the package's build, scripts/package.mjs);
// `--outdir DIR` writes somewhere else than dist/ (the package stages its files apart, so the
// working tree keeps its development build with maps).
import * as esbuild from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
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
 * The CLI's commands are two bundles that dist/cli.js requires when a command runs
 * (src/cli/commandTable.ts): dist/cli-sweep.js, the sweep alone (the command whose start is
 * measured: the smallest file and code cache), and dist/cli-commands.js
 * (src/cli/bundles/commands.ts), every other command with the code they share once, each
 * command's module a lazy initializer there so a command evaluates only its own code. `--help`
 * and `--version` compile only the small entry bundle. The entry's `import('./bundles/NAME')`
 * becomes a call of requireBundle (src/cli/requireBundle.ts), which requires the file with V8's
 * code cache.
 */
const CLI_BUNDLES = ['sweep', 'commands'];
const cliBundles = {
  name: 'cli-bundles',
  setup(build) {
    build.onResolve({ filter: /^\.\/bundles\/[a-z]+$/ }, (args) => {
      const name = args.path.slice('./bundles/'.length);
      if (!CLI_BUNDLES.includes(name)) throw new Error(`${name} is not in CLI_BUNDLES (scripts/build.mjs)`);
      return { path: name, namespace: 'cli-bundle', pluginData: { resolveDir: args.resolveDir } };
    });
    build.onLoad({ filter: /.*/, namespace: 'cli-bundle' }, (args) => ({
      contents: `module.exports = require('./requireBundle').requireBundle(${JSON.stringify(`cli-${args.path}.js`)});`,
      resolveDir: args.pluginData.resolveDir,
      loader: 'js',
    }));
  },
};

/**
 * Builtins the commands use only at a call, never at load, that cost a few ms to load:
 * `import { randomBytes } from 'node:crypto'` in a command bundle resolves to a module whose
 * functions require the builtin at their first call. So a run that never calls one never loads
 * it: the local sweep calls no function of node:crypto nor of node:fs/promises (whose load also
 * brings its streams, watchers and readline). The module is ESM with a plain function per
 * export, so the bundle calls them directly (no CommonJS interop object copying every name at
 * load); only functions named in lower case are there, plus the values named here (each given
 * by an expression that does not load the builtin), and importing anything else fails the build.
 */
const LAZY_BUILTINS = {
  'node:crypto': {},
  // The same object as node:fs's (checked at each build).
  'node:fs/promises': { constants: "require('node:fs').constants" },
};
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onResolve({ filter: /^node:/, namespace: 'lazy-builtin' }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /^node:/ }, (args) =>
      Object.hasOwn(LAZY_BUILTINS, args.path) ? { path: args.path, namespace: 'lazy-builtin' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, async (args) => {
      const builtin = await import(args.path);
      const values = LAZY_BUILTINS[args.path];
      for (const [name, expr] of Object.entries(values))
        if (new Function('require', `return ${expr};`)(createRequire(import.meta.url)) !== builtin[name])
          throw new Error(`${args.path}: ${expr} is not its ${name} (scripts/build.mjs, LAZY_BUILTINS)`);
      const names = Object.keys(builtin).filter(
        (n) => /^[a-z][A-Za-z0-9]*$/.test(n) && typeof builtin[n] === 'function',
      );
      return {
        contents: `import { createRequire } from 'node:module';
let loaded;
const load = () => (loaded ??= createRequire(__filename)(${JSON.stringify(args.path)}));
${names.map((n) => `export function ${n}(...args) { return load().${n}(...args); }`).join('\n')}
${Object.entries(values)
  .map(([n, expr]) => `export const ${n} = ${expr};`)
  .join('\n')}
`,
        loader: 'js',
        resolveDir: '.',
      };
    });
  },
};

/**
 * The knob catalog (src/core/advice/knobCatalog.json, 40 KB) as `JSON.parse` of its text, run
 * at the first read of one of its fields, rather than an object literal run at load: V8 parses
 * JSON faster than it runs a literal that size, the literal's code would fill the code cache,
 * and a start that advises nothing never parses it (the sweep reads it while the helper
 * measures: src/cli/commands/sweep.ts). Its schema check runs in the tests (knobs.ts).
 */
const jsonAsParse = {
  name: 'json-as-parse',
  setup(build) {
    build.onLoad({ filter: /[\\/]knobCatalog\.json$/ }, async (args) => {
      const data = JSON.parse(await readFile(args.path, 'utf8'));
      return {
        contents: `let parsed;
const data = () => (parsed ??= JSON.parse(${JSON.stringify(JSON.stringify(data))}));
for (const key of ${JSON.stringify(Object.keys(data))})
  Object.defineProperty(module.exports, key, { enumerable: true, get: () => data()[key] });
`,
        loader: 'js',
      };
    });
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

/**
 * The CLI's bundles are read, compiled (or their code cache loaded) and run at every start,
 * and what they hold in memory costs page faults: in every build their text loses its blanks
 * and comments and its syntax is made shorter. Names stay (a stack trace still names the
 * function; the source map, in a development build, gives the line); `--production` shortens
 * them too.
 */
const cliMinify = { minifyWhitespace: true, minifySyntax: true };

const builds = [
  {
    ...common,
    // The engine process of a host-held timeline and the fleet's reader threads are bundles of
    // their own (src/core/runs/timelineEngineProcess.ts, src/core/fleetRun/fleetReaderThread.ts).
    entryPoints: {
      extension: 'src/extension/extension.ts',
      timelineEngine: 'src/core/runs/timelineEngineProcess.ts',
      fleetReader: 'src/core/fleetRun/fleetReaderThread.ts',
    },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [lazyExeca, jsonAsParse],
  },
  {
    ...common,
    ...cliMinify,
    entryPoints: { cli: 'src/cli/bin.ts' },
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [cliBundles],
  },
  {
    ...common,
    ...cliMinify,
    entryPoints: Object.fromEntries(CLI_BUNDLES.map((name) => [`cli-${name}`, `src/cli/bundles/${name}.ts`])),
    outdir: dist,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Every `import()` a require: the bundles run as vm scripts (src/cli/requireBundle.ts).
    supported: { 'dynamic-import': false },
    plugins: [lazyExeca, lazyBuiltins, jsonAsParse],
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
// The bundles of earlier builds, one a command, now in cli-commands.js (CLI_BUNDLES).
for (const name of ['matrix', 'collective', 'import', 'fleet', 'saved', 'compare'])
  for (const suffix of ['.js', '.js.map', '.js.LEGAL.txt']) rmSync(join(dist, `cli-${name}${suffix}`), { force: true });
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
