import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { timelineKey } from '../../../src/extension/commands/showTimeline';
import { SMALL_SWEEP, activeApi, runsFolder, waitFor } from './support';

const activeCustomEditor = () => {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom ? input : undefined;
};

suite('run files open where they are drawn', () => {
  test('a run.ndjson opens in its sweep panel, and the .sdmatl beside it in the timeline panel', async () => {
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
      options: { ...SMALL_SWEEP, timelineSizeBytes: 1 << 20 },
    });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    api.sweepPanel(run.header.id)?.panel.dispose();
    const dir = path.join(runsFolder(), run.header.id);

    // As a double-click in the Explorer opens it: the default editor for the file.
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(path.join(dir, 'run.ndjson')));
    const runEditor = await waitFor('the run editor', () => activeCustomEditor());
    assert.equal(runEditor.viewType, 'sdmaLens.runFile');
    const panel = await waitFor('the sweep panel in that editor', () => api.sweepPanel(run.header.id));
    await waitFor('the page to receive the run', () =>
      panel.lastDelivered?.type === 'sweep' ? panel.lastDelivered : undefined,
    );
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    const file = path.join(dir, 'timeline.sdmatl');
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file));
    const tlEditor = await waitFor('the timeline editor', () => activeCustomEditor());
    assert.equal(tlEditor.viewType, 'sdmaLens.timelineFile');
    const timeline = await waitFor('the timeline panel of that file', () =>
      api.timelinePanel(timelineKey(run.header.id, { kind: 'file', file })),
    );
    assert.ok(timeline);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('a run.ndjson that is not a run says so in its editor, and the text editor still opens it', async () => {
    await activeApi();
    const dir = path.join(runsFolder(), '..', 'not-a-run');
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(dir));
    const uri = vscode.Uri.file(path.join(dir, 'run.ndjson'));
    await vscode.workspace.fs.writeFile(uri, Buffer.from('hello\n'));
    try {
      await vscode.commands.executeCommand('vscode.open', uri);
      const editor = await waitFor('the run editor', () => activeCustomEditor());
      assert.equal(editor.viewType, 'sdmaLens.runFile');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await vscode.commands.executeCommand('vscode.openWith', uri, 'default');
      assert.equal(vscode.window.activeTextEditor?.document.getText(), 'hello\n');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      await vscode.workspace.fs.delete(vscode.Uri.file(dir), { recursive: true });
    }
  });
});
