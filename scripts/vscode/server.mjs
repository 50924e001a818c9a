// Starts the provisioned VS Code server (scripts/vscode/provision.mjs) and opens its workbench
// in headless Chromium. Used by the test launcher, the UI tests and `npm start`.
/* global fetch, AbortSignal */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URLSearchParams } from 'node:url';
import { killMentioning } from './processes.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './provision.mjs';

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function waitForHttp(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the VS Code server exited (${child.exitCode ?? child.signalCode}) before it answered`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`the VS Code server did not answer ${url} within ${timeoutMs / 1000} s`);
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Starts `server-main.js` in its own process group (its extension host, file watcher and agent
 * host are children that would outlive a plain kill), with every XDG folder and the user data
 * in a fresh temporary folder.
 *
 * trust: false disables Workspace Trust (everything trusted), true leaves it on so a new folder
 * opens in Restricted Mode. settings: the user settings.json. env: added to the server's
 * environment, which its extension host inherits. extensionsDir: a folder of installed
 * extensions (e.g. a VSIX installed there with the server's --install-extension) instead of
 * an empty one; it is left in place when the server stops.
 */
export async function startServer({
  node,
  serverMain,
  port,
  trust = false,
  settings = {},
  env = {},
  log = () => {},
  quiet = true,
  extensionsDir,
}) {
  const tmp = mkdtempSync(join(tmpdir(), 'sdma-lens-vscode-'));
  const dirs = Object.fromEntries(
    ['extensions', 'user-data', 'server-data', 'config', 'data', 'cache', 'state', 'runtime'].map((d) => [
      d,
      join(tmp, d),
    ]),
  );
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  const allSettings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'always',
    ...settings,
  };
  // The server keeps user settings under its user-data folder (the browser only caches them).
  // As in any remote window, machine-scoped settings (sdmaLens.helperPath) come from the
  // remote machine's settings instead, so they are written there too.
  for (const dir of [join(dirs['user-data'], 'User'), join(dirs['user-data'], 'Machine')]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(allSettings, null, 2));
  }

  port ??= await freePort();
  const args = [
    serverMain,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--disable-telemetry',
    '--enable-smoke-test-driver',
    '--reconnection-grace-time',
    '5',
    '--extensions-dir',
    extensionsDir ?? dirs.extensions,
    '--user-data-dir',
    dirs['user-data'],
    '--server-data-dir',
    dirs['server-data'],
  ];
  if (!trust) args.push('--disable-workspace-trust');
  const child = spawn(node, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...env,
      XDG_CONFIG_HOME: dirs.config,
      XDG_DATA_HOME: dirs.data,
      XDG_CACHE_HOME: dirs.cache,
      XDG_STATE_HOME: dirs.state,
      XDG_RUNTIME_DIR: dirs.runtime,
    },
  });
  const output = [];
  const keep = (chunk) => {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 200) output.shift();
      if (!quiet) log(`[server] ${line}`);
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    killGroup(child, 'SIGTERM');
    const gone = new Promise((ok) =>
      child.exitCode !== null || child.signalCode !== null ? ok() : child.once('exit', ok),
    );
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 3000);
    await gone;
    clearTimeout(timer);
    // Children of the group that ignored SIGTERM.
    killGroup(child, 'SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  };

  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${origin}/version`, child, 60_000);
  } catch (err) {
    await stop();
    throw new Error(`${err.message}\n${output.slice(-20).join('\n')}`);
  }
  log(`  VS Code server on ${origin} (process group ${child.pid})`);
  return { origin, port, pid: child.pid, child, stop, output, tmp };
}

/** The workbench URL for a folder, with the development extension (and tests) passed as smoke-test payload. */
export function workbenchUrl(origin, { folder, extensionDevelopmentPath, extensionTestsPath }) {
  const authority = new URL(origin).host;
  const remote = (p) => `vscode-remote://${authority}${p}`;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  const params = new URLSearchParams();
  if (folder) params.set('folder', folder);
  if (payload.length > 0) params.set('payload', JSON.stringify(payload));
  return `${origin}/?${params.toString()}`;
}

/** Headless Chromium with a fresh profile; `close()` also removes the profile. */
export async function openBrowser({ viewport = { width: 1400, height: 900 }, deviceScaleFactor = 1 } = {}) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'sdma-lens-vscode-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    deviceScaleFactor,
    locale: 'en-US',
    timezoneId: 'UTC',
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await Promise.race([context.close().catch(() => {}), new Promise((ok) => setTimeout(ok, 10_000))]);
      // Whatever of this Chromium outlived close() (its profile folder names it).
      for (let i = 0; i < 20 && killMentioning(profile) > 0; i++) await new Promise((ok) => setTimeout(ok, 100));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
