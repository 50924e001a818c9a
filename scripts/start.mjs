// `npm start`: the main job on the embedded default, the simulated MI350X node.
// With a desktop VS Code on PATH it opens the extension on the sample HIP workspace;
// otherwise it runs a transfer sweep through the CLI and says how to open the result.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { must, prepare, root } from './prepare.mjs';

prepare();

const sample = join(root, 'examples', 'hip-sample');
const code = process.env.CI ? { status: 1 } : spawnSync('code', ['--version'], { encoding: 'utf8' });
const desktop = code.status === 0 && !process.env.VSCODE_IPC_HOOK_CLI;
if (desktop) {
  console.log('> opening VS Code with SDMA Lens on examples/hip-sample');
  console.log('  then run "SDMA Lens: Run Transfer Sweep" from the command palette (Ctrl+Shift+P)');
  must('code', ['--new-window', `--extensionDevelopmentPath=${root}`, sample]);
} else {
  console.log('> no desktop VS Code on PATH: running a simulated transfer sweep with the CLI\n');
  must(process.execPath, ['dist/cli.js', 'sweep', '--backend', 'sim', '--runs-dir', join(sample, '.sdma-lens', 'runs')]);
  console.log(`\nTo see it in VS Code: open ${sample} with SDMA Lens installed (or run \`code --extensionDevelopmentPath=${root} ${sample}\`),`);
  console.log('then run "SDMA Lens: Open Run" from the command palette.');
}
