// `npm start`: the main job on the embedded default, the simulated MI350X node.
// First it checks the system prerequisites (scripts/check/prerequisites.mjs) and stops with
// the apt command when something is missing. Then it installs the locked dependencies if
// needed, builds, and runs a transfer sweep through the CLI into the sample workspace.
// With a desktop VS Code on PATH it opens the extension on the sample HIP workspace. Without
// one, it starts a real VS Code (the server of scripts/vscode/provision.mjs, installed on first
// use) on 127.0.0.1 with the extension and the sample, and prints the URL to open; Ctrl+C
// stops it and everything it started.
//
//   npm start -- --check [--out DIR]
//     does all of the above with the served VS Code (never the desktop one), opens it in
//     headless Chromium, checks that the extension activated, runs "SDMA Lens: Open Run" on
//     the new sweep, checks the sweep panel's chart, writes a screenshot
//     (DIR/start-check.png, default .vscode-test/artifacts), stops everything it started and
//     exits 0; otherwise it exits 1 naming the step that failed.
//
//   SDMA_LENS_PORT=N   the port (default: 8732, else a free one)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { checkPrerequisites } from './check/prerequisites.mjs';
import { buildBundles, buildNative, installDependencies, must, root } from './prepare.mjs';
import { ProvisionError, isProvisioned, provision, serverVersion } from './vscode/provision.mjs';

const args = process.argv.slice(2);
const checkMode = args.includes('--check');
for (const a of args) {
  if (!['--check', '--out'].includes(a) && args[args.indexOf(a) - 1] !== '--out') {
    console.error(`unknown argument ${a}\nusage: npm start [-- --check [--out DIR]]`);
    process.exit(2);
  }
}
if (args.includes('--out') && !checkMode) {
  console.error('--out goes with --check: npm start -- --check --out DIR');
  process.exit(2);
}
const outDir = args.includes('--out')
  ? resolve(process.env.INIT_CWD ?? process.cwd(), args[args.indexOf('--out') + 1] ?? '.')
  : join(root, '.vscode-test', 'artifacts');

const started = performance.now();
const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(1);
const timings = [];
let current;
// A step that fails exits on its own (its error printed); this names which one it was.
process.on('exit', (status) => {
  if (status !== 0 && current)
    console.error(`npm start${checkMode ? ' -- --check' : ''}: failed at "${current}" (exit ${status})`);
});
/** Runs one step, prints and keeps how long it took. */
async function step(name, fn) {
  const t0 = performance.now();
  current = name;
  try {
    const value = await fn();
    current = undefined;
    timings.push({ name, s: (performance.now() - t0) / 1000 });
    console.log(`  [${name}: ${seconds(t0)} s]`);
    return value;
  } catch (err) {
    timings.push({ name: `${name} (failed)`, s: (performance.now() - t0) / 1000 });
    throw err;
  }
}

const sample = join(root, 'examples', 'hip-sample');
const runsDir = join(sample, '.sdma-lens', 'runs');
const code = process.env.CI || checkMode ? { status: 1 } : spawnSync('code', ['--version'], { encoding: 'utf8' });
const desktop = code.status === 0 && !process.env.VSCODE_IPC_HOOK_CLI;
// The served VS Code runs on linux-x64 only (provision.mjs says so elsewhere).
const serverInstall = !desktop && !isProvisioned() && process.platform === 'linux' && process.arch === 'x64';

await step('prerequisites', () => {
  const problem = checkPrerequisites(checkMode ? 'check' : 'start', { serverInstall });
  if (problem) {
    console.error(`\n${problem}\n\nThen run npm start${checkMode ? ' -- --check' : ''} again.`);
    process.exit(1);
  }
  console.log(
    `> system prerequisites are there${serverInstall ? " (with the VS Code server's build tools and headers)" : ''}`,
  );
});
await step('dependencies', () => {
  if (!installDependencies()) console.log('> dependencies already installed (node_modules)');
});
await step('bundles', buildBundles);
await step('native helper', buildNative);

function runFolders() {
  return existsSync(runsDir) ? readdirSync(runsDir) : [];
}

// The main job first, so there is a run to look at: a transfer sweep on the simulated node,
// saved where the sample workspace's "SDMA Lens: Open Run" finds it.
const runId = await step('sweep (CLI)', () => {
  console.log('> a transfer sweep on the simulated MI350X node (CLI)\n');
  const before = new Set(runFolders());
  must(process.execPath, ['dist/cli.js', 'sweep', '--backend', 'sim', '--runs-dir', runsDir]);
  console.log('');
  const made = runFolders().filter((d) => !before.has(d));
  return made.length === 1 ? made[0] : undefined;
});

function portFree(port) {
  return new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(false));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });
}

function cliSweep(reason) {
  console.log(`> ${reason}.`);
  console.log(
    `To see the sweep above in VS Code: open ${sample} with SDMA Lens installed (or run \`code --extensionDevelopmentPath=${root} ${sample}\`),`,
  );
  console.log('then run "SDMA Lens: Open Run" from the command palette.');
}

async function serveVSCode() {
  let installed;
  try {
    installed = provision();
  } catch (err) {
    if (!(err instanceof ProvisionError)) throw err;
    cliSweep(`no desktop VS Code on PATH, and the VS Code server could not be installed (${err.message})`);
    return;
  }
  const { startServer, workbenchUrl } = await import('./vscode/server.mjs');
  const wanted = Number(process.env.SDMA_LENS_PORT ?? 8732);
  const port = (await portFree(wanted)) ? wanted : undefined;
  const server = await startServer({ ...installed, port, log: (line) => console.log(line) });
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping VS Code (process group ${server.pid})`);
    await server.stop();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop(signal));
  server.child.once('exit', (status, signal) => {
    if (stopping) return;
    console.error(`the VS Code server stopped (${status ?? signal}):\n${server.output.slice(-15).join('\n')}`);
    process.exit(1);
  });
  const url = workbenchUrl(server.origin, { folder: sample, extensionDevelopmentPath: root });
  console.log(
    `\n> VS Code ${serverVersion(installed.serverMain)} with SDMA Lens (under development) on examples/hip-sample. Open in a browser:\n\n  ${url}\n`,
  );
  console.log(
    '  then "SDMA Lens: Open Run" (F1) shows the sweep above, and "SDMA Lens: Run Transfer Sweep" runs another.',
  );
  console.log(
    `  From another machine: ssh -L ${server.port}:127.0.0.1:${server.port} this-host, then open the same URL.`,
  );
  console.log('  Ctrl+C stops it.');
}

if (checkMode) {
  const { runCheck } = await import('./check/startCheck.mjs');
  const ok = await runCheck({ root, sample, runId, outDir, step, timings, started });
  process.exit(ok ? 0 : 1);
} else if (desktop) {
  console.log('> opening VS Code with SDMA Lens on examples/hip-sample');
  console.log('  "SDMA Lens: Open Run" shows the sweep above;');
  console.log('  then run "SDMA Lens: Run Transfer Sweep" from the command palette (Ctrl+Shift+P)');
  must('code', ['--new-window', `--extensionDevelopmentPath=${root}`, sample]);
} else {
  console.log('> no desktop VS Code on PATH: starting VS Code in the browser');
  await serveVSCode();
}
