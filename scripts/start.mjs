// `npm start`: the main job on the embedded default, the simulated MI350X node.
// With a desktop VS Code on PATH it opens the extension on the sample HIP workspace. Without
// one, it starts a real VS Code (the server of scripts/vscode/provision.mjs, installed on first
// use) on 127.0.0.1 with the extension and the sample, and prints the URL to open; Ctrl+C
// stops it and everything it started. Only when that VS Code cannot be installed does it run
// a transfer sweep through the CLI instead, and say why.
//
//   SDMA_LENS_PORT=N   the port (default: 8732, else a free one)
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { must, prepare, root } from './prepare.mjs';

prepare();

const sample = join(root, 'examples', 'hip-sample');
const code = process.env.CI ? { status: 1 } : spawnSync('code', ['--version'], { encoding: 'utf8' });
const desktop = code.status === 0 && !process.env.VSCODE_IPC_HOOK_CLI;

function portFree(port) {
  return new Promise((ok) => {
    const s = createServer();
    s.once('error', () => ok(false));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });
}

function cliSweep(reason) {
  console.log(`> ${reason}.`);
  console.log(`To see the sweep above in VS Code: open ${sample} with SDMA Lens installed (or run \`code --extensionDevelopmentPath=${root} ${sample}\`),`);
  console.log('then run "SDMA Lens: Open Run" from the command palette.');
}

async function serveVSCode() {
  const { ProvisionError, provision, serverVersion } = await import('./vscode/provision.mjs');
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
  console.log(`\n> VS Code ${serverVersion(installed.serverMain)} with SDMA Lens (under development) on examples/hip-sample. Open in a browser:\n\n  ${url}\n`);
  console.log('  then "SDMA Lens: Open Run" (F1) shows the sweep above, and "SDMA Lens: Run Transfer Sweep" runs another.');
  console.log(`  From another machine: ssh -L ${server.port}:127.0.0.1:${server.port} this-host, then open the same URL.`);
  console.log('  Ctrl+C stops it.');
}

// The main job first, so there is a run to look at: a transfer sweep on the simulated node,
// saved where the sample workspace's "SDMA Lens: Open Run" finds it.
console.log('> a transfer sweep on the simulated MI350X node (CLI)\n');
must(process.execPath, ['dist/cli.js', 'sweep', '--backend', 'sim', '--runs-dir', join(sample, '.sdma-lens', 'runs')]);
console.log('');

if (desktop) {
  console.log('> opening VS Code with SDMA Lens on examples/hip-sample');
  console.log('  "SDMA Lens: Open Run" shows the sweep above;');
  console.log('  then run "SDMA Lens: Run Transfer Sweep" from the command palette (Ctrl+Shift+P)');
  must('code', ['--new-window', `--extensionDevelopmentPath=${root}`, sample]);
} else {
  console.log('> no desktop VS Code on PATH: starting VS Code in the browser');
  await serveVSCode();
}
