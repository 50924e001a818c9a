import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { activeApi, waitFor } from './support';

suite('Open Run opens each kind of run where it is drawn', () => {
  test('a collective run reopens in the collective panel, not the sweep panel', async () => {
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runCollective', { backend: 'sim', args: ['-b', '1M', '-e', '4M', '-f', '4', '-n', '2', '-w', '1'] });
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    assert.equal(run.header.command, 'collective');
    const live = await waitFor('the collective panel of the new run', () => api.collectivePanel(run.header.id));
    live.dispose();
    assert.equal(api.collectivePanel(run.header.id), undefined);

    await vscode.commands.executeCommand('sdmaLens.openRun', run.header.id);
    const again = await waitFor('Open Run to show the collective panel', () => api.collectivePanel(run.header.id));
    assert.equal(again.panel.viewType, 'sdmaLens.collective');
    assert.equal(api.sweepPanel(run.header.id), undefined, 'no sweep panel for a collective run');
    const view = await waitFor('the reopened page to receive the run', () => (again.lastDelivered?.type === 'collective-view' ? again.lastDelivered.view : undefined));
    assert.ok(view.simulated, 'labelled simulated');
    again.dispose();
  });
});
