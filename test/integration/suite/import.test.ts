import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { EXTENSION_ID, activeApi, lensTitles, timelineFromLens, waitFor, withSourceFile } from './support';

const SOURCE = `#include <hip/hip_runtime.h>
// Kernels named in the rocpd format fixture (test/fixtures/rocpd).
__global__ void fusedComputeA2a(const float* in, float* const* out, int self, int peers, size_t bytes) {}
__global__ void computeKernel(float* p, int n) {}
__global__ void neverLaunched(int* p) { *p = 0; }
`;

suite('Import rocprofv3 Profile', () => {
  test('a rocpd database becomes a run, with the facts above the kernels it launched', async () => {
    await activeApi();
    const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    await withSourceFile('import_sample.hip', SOURCE, async (doc) => {
      const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.importProfile', {
        path: path.join(root, 'test', 'fixtures', 'rocpd', 'fixture.db'),
      });
      assert.equal(run?.end?.status, 'ok', run?.end?.message);
      assert.equal(run?.header.command, 'import');
      assert.equal(run?.hello?.simulated, false);
      assert.equal(run?.dispatches.length, 4);
      assert.deepEqual(
        run?.copies.map((c) => c.bytes),
        [8388608, 16777216, 4096],
      );

      const lenses = await waitFor('the imported facts', async () => {
        const t = await lensTitles(doc);
        return t.some((x) => / avg x 3 launches/.test(x)) && t.some((x) => / avg x 1 launch/.test(x)) ? t : undefined;
      });
      // Only the two kernels the profile launched get facts.
      assert.equal(lenses.filter((x) => /avg x/.test(x)).length, 2, lenses.join(' | '));

      // Its summary lens opens the imported launches on a timeline, filtered to that kernel.
      const { meta, panel, applied } = await timelineFromLens(doc, / avg x 3 launches/, run!.header.id);
      assert.equal(meta.simulated, false);
      assert.match(meta.title, /imported fixture\.db/);
      assert.ok(applied.kept >= 3, `kept ${applied.kept}`);
      panel.panel.dispose();
    });
  });

  test('a file that is no profile: an error message, and the run keeps what happened', async () => {
    await activeApi();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const file = path.join(folder, 'not-a-profile.db');
    writeFileSync(file, 'plain text\n');
    try {
      const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.importProfile', { path: file });
      assert.equal(run?.end?.status, 'error');
      assert.match(run?.end?.message ?? '', /could not be read as an SQLite database/);
    } finally {
      rmSync(file, { force: true });
    }
  });
});
