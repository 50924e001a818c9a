import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { activeApi, waitFor } from './support';

const SOURCE = `#include <hip/hip_runtime.h>
// A kernel whose name the simulator's run mode reports, so the lens can show its facts.
__global__ void __launch_bounds__(256) fusedComputeA2a(const float* in, float* const* out, int n, int peers, size_t bytes) {}
__global__ void notProfiled(int* p) { *p = 0; }
`;

suite('code lenses above kernels and the Profile run', () => {
  test('Profile lenses on every kernel; after a run, the facts above the kernel it ran, and a hover', async () => {
    await activeApi();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const file = path.join(folder, 'lens_sample.hip');
    writeFileSync(file, SOURCE);
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const titles = async () => ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri)) ?? []).map((l) => l.command?.title ?? '');
      const before = await waitFor('the Profile lenses', async () => {
        const t = await titles();
        return t.filter((x) => x.includes('Profile')).length === 2 ? t : undefined;
      });
      assert.equal(before.length, 2, `lenses: ${before.join(' | ')}`);

      const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.profileKernel', {
        uri: doc.uri.toString(),
        kernel: 'fusedComputeA2a',
        program: { program: '/bin/sh', args: ['-c', 'echo profiled program ran'], cwd: folder, env: {} },
        simDispatches: 4,
      });
      assert.equal(run?.end?.status, 'ok', run?.end?.message);
      assert.equal(run?.program?.exit?.exitCode, 0);
      assert.equal(run?.hello?.simulated, true);

      const after = await waitFor('the summary lens', async () => {
        const t = await titles();
        return t.find((x) => / avg x 4 launches/.test(x));
      });
      assert.match(after, /^[\d.]+ (ns|us|ms|s) avg x 4 launches/);
      const offset = doc.getText().indexOf('fusedComputeA2a');
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, doc.positionAt(offset + 3));
      const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
      assert.match(text, /4 launches/, `hovers: ${text}`);
      // Only the kernel that ran gets facts.
      assert.equal((await titles()).filter((x) => /avg x/.test(x)).length, 1);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      rmSync(file, { force: true });
    }
  });
});
