import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { RunsNode } from '../../../src/extension/runsView';
import { SMALL_SWEEP, activeApi, runsFolder, spyOnWindow } from './support';

suite('Delete Run in a runs folder that holds more than runs', () => {
  test('a folder that is not a run is neither listed nor deleted; a run keeps the file the user put in it', async () => {
    const api = await activeApi();
    const notRun = path.join(runsFolder(), 'not-a-run');
    mkdirSync(notRun, { recursive: true });
    writeFileSync(path.join(notRun, 'notes.txt'), 'mine\n');
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    api.sweepPanel(run.header.id)?.panel.dispose();
    const runDir = path.join(runsFolder(), run.header.id);
    writeFileSync(path.join(runDir, 'notes.txt'), 'mine too\n');

    const listed: string[] = [];
    const stack: RunsNode[] = [...(await api.runsView.getChildren())];
    while (stack.length > 0) {
      const node = stack.shift()!;
      if (node.kind === 'run') listed.push(node.summary.id);
      else stack.push(...(await api.runsView.getChildren(node)));
    }
    assert.ok(listed.includes(run.header.id), 'the run is listed');
    assert.ok(!listed.includes('not-a-run'), 'a folder without a run.ndjson is not listed');

    // Every question is answered "Delete" (never shown); the folder that is not a run is never asked about.
    const errors = spyOnWindow('showErrorMessage');
    const window = vscode.window as unknown as { showWarningMessage: (...a: unknown[]) => Promise<unknown> };
    const original = window.showWarningMessage;
    const warnings = { calls: [] as unknown[][] };
    window.showWarningMessage = async (...args: unknown[]) => {
      warnings.calls.push(args);
      return 'Delete';
    };
    try {
      await vscode.commands.executeCommand('sdmaLens.runs.delete', 'not-a-run');
      assert.equal(warnings.calls.length, 0, 'no confirmation for a folder that is not a run');
      assert.match(String(errors.calls[0]?.[0] ?? ''), /not an SDMA Lens run/);
      assert.equal(readFileSync(path.join(notRun, 'notes.txt'), 'utf8'), 'mine\n');

      await vscode.commands.executeCommand('sdmaLens.runs.delete', run.header.id);
      assert.ok(!existsSync(path.join(runDir, 'run.ndjson')), 'the run file is gone');
      assert.deepEqual(readdirSync(runDir), ['notes.txt']);
      assert.ok(
        warnings.calls.some((c) => /files SDMA Lens did not write \(notes\.txt\)/.test(String(c[0]))),
        'the user is told what was kept',
      );
    } finally {
      window.showWarningMessage = original;
      errors.restore();
      rmSync(notRun, { recursive: true, force: true });
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});
