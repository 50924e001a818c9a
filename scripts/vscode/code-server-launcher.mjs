#!/usr/bin/env node
// Stands in for a desktop VS Code executable where none can be downloaded: accepts the
// arguments @vscode/test-electron's runTests passes (--extensionDevelopmentPath=,
// --extensionTestsPath=, --user-data-dir=, a workspace folder, ...), runs the tests in the real
// VS Code server of scripts/vscode/provision.mjs with its workbench in headless Chromium, and
// exits with the tests' exit code. Nothing is left running afterwards.
//
// Environment:
//   SDMA_LENS_KEEP_WORKSPACE_TRUST=1  ignore --disable-workspace-trust (which runTests always
//                                     passes), so an untrusted folder opens in Restricted Mode
//   SDMA_LENS_TEST_TIMEOUT_S          give up after this long (default 900)
//   SDMA_LENS_VSCODE_VERBOSE=1        also print the workbench's own log
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { format } from 'node:util';
import { ProvisionError, checkBrowser, provision, serverVersion } from './provision.mjs';
import { openBrowser, startServer, workbenchUrl } from './server.mjs';

function parse(argv) {
  const options = {
    folder: undefined,
    extensionDevelopmentPath: undefined,
    extensionTestsPath: undefined,
    userDataDir: undefined,
    trust: true,
  };
  for (const arg of argv) {
    const [flag, ...rest] = arg.split('=');
    const value = rest.join('=');
    if (flag === '--extensionDevelopmentPath') options.extensionDevelopmentPath ??= resolve(value);
    else if (flag === '--extensionTestsPath') options.extensionTestsPath = resolve(value);
    else if (flag === '--user-data-dir') options.userDataDir = resolve(value);
    else if (flag === '--disable-workspace-trust') options.trust = false;
    else if (!arg.startsWith('-') && options.folder === undefined) options.folder = resolve(arg);
    // Electron and desktop-only switches (--no-sandbox, --skip-welcome, ...) mean nothing here.
  }
  if (process.env.SDMA_LENS_KEEP_WORKSPACE_TRUST === '1') options.trust = true;
  return options;
}

/** User settings the caller wrote where a desktop VS Code would read them. */
function userSettings(userDataDir) {
  const file = userDataDir && join(userDataDir, 'User', 'settings.json');
  if (!file || !existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8'));
}

const log = (line) => console.log(line);
const verbose = process.env.SDMA_LENS_VSCODE_VERBOSE === '1';
const WORKBENCH_NOISE =
  /ENOTFOUND|open-vsx|^\s+at |^Creating a socket|^Resolv(ing|ed) connection token|^\[(Service Worker|AgentHost|AccountPolicyGate|reconnection-grace-time)|^Updating additional builtin/;
const options = parse(process.argv.slice(2));
if (!options.extensionDevelopmentPath) {
  console.error(
    'usage: code-server-launcher.mjs --extensionDevelopmentPath=DIR [--extensionTestsPath=MODULE] [--user-data-dir=DIR] [FOLDER]',
  );
  process.exit(2);
}

let server;
let browser;
let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    await browser?.close();
    await server?.stop();
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.log(`\n${signal}: stopping VS Code`);
    void cleanup().then(() => process.exit(130));
  });
}

async function main() {
  const { node, serverMain } = provision({ log });
  checkBrowser();
  server = await startServer({
    node,
    serverMain,
    trust: options.trust,
    settings: userSettings(options.userDataDir),
    log,
  });
  log(
    `  VS Code ${serverVersion(serverMain)} (server) + Chromium; workspace trust ${options.trust ? 'on' : 'off'}; folder ${options.folder ?? '(none)'}`,
  );
  browser = await openBrowser();
  const { page } = browser;

  let finish;
  const exited = new Promise((ok) => (finish = ok));
  await page.exposeFunction('codeAutomationExit', (code) => finish(typeof code === 'number' ? code : 1));
  await page.exposeFunction('codeAutomationLog', (level, args) => {
    // The extension host's console output arrives here (mocha's report included), with the
    // workbench's own log, which offline is mostly failed marketplace lookups.
    const text = format(...(Array.isArray(args) ? args : [args]));
    if (!verbose && (level === 'trace' || level === 'debug' || WORKBENCH_NOISE.test(text))) return;
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  });
  page.on('pageerror', (e) => console.error(`[workbench] ${e.message}`));

  const timeoutS = Number(process.env.SDMA_LENS_TEST_TIMEOUT_S ?? 900);
  const timer = setTimeout(() => {
    console.error(`no result after ${timeoutS} s; stopping`);
    finish(124);
  }, timeoutS * 1000);
  await page.goto(workbenchUrl(server.origin, options));
  const code = await exited;
  clearTimeout(timer);
  return code;
}

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (err) => {
    console.error(err instanceof ProvisionError ? `error: ${err.message}` : err instanceof Error ? err.stack : err);
    if (server?.output.length) console.error(`last server output:\n${server.output.slice(-15).join('\n')}`);
    await cleanup();
    process.exit(1);
  });
