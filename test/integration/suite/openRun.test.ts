import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { SMALL_SWEEP, activeApi, spyOnWindow, waitFor } from './support';

suite('Open Run opens each kind of run where it is drawn', () => {
  test('a collective run reopens in the collective panel, not the sweep panel', async () => {
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runCollective', {
      backend: 'sim',
      args: ['-b', '1M', '-e', '4M', '-f', '4', '-n', '2', '-w', '1'],
    });
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    assert.equal(run.header.command, 'collective');
    const live = await waitFor('the collective panel of the new run', () => api.collectivePanel(run.header.id));
    live.dispose();
    assert.equal(api.collectivePanel(run.header.id), undefined);

    await vscode.commands.executeCommand('sdmaLens.openRun', run.header.id);
    const again = await waitFor('Open Run to show the collective panel', () => api.collectivePanel(run.header.id));
    assert.equal(again.panel.viewType, 'sdmaLens.collective');
    assert.match(
      again.panel.title,
      /^Collectives \d\d:\d\d:\d\d sim$/,
      "the tab has the run's time and the backend it ran on, as the sweep's",
    );
    assert.equal(api.sweepPanel(run.header.id), undefined, 'no sweep panel for a collective run');
    const view = await waitFor('the reopened page to receive the run', () =>
      again.lastDelivered?.type === 'collective-view' ? again.lastDelivered.view : undefined,
    );
    assert.ok(view.simulated, 'labelled simulated');
    again.dispose();
  });

  test('a run with unusable helper lines says so in the picker and when opened', async () => {
    const api = await activeApi();
    // One torn line from the helper; the run itself ends ok.
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
      options: { ...SMALL_SWEEP, fault: 'garbage-after=2' },
    });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    api.sweepPanel(run.header.id)?.panel.dispose();
    const window = vscode.window as unknown as {
      showQuickPick: (items: unknown, options?: unknown) => Promise<unknown>;
    };
    const original = window.showQuickPick;
    let offered: { description?: string; detail?: string; summary: { id: string } }[] = [];
    window.showQuickPick = async (items: unknown) => {
      offered = (await items) as typeof offered;
      return offered.find((i) => i.summary.id === run.header.id);
    };
    const warnings = spyOnWindow('showWarningMessage');
    try {
      await vscode.commands.executeCommand('sdmaLens.openRun');
    } finally {
      window.showQuickPick = original;
      warnings.restore();
    }
    const mine = offered.find((i) => i.summary.id === run.header.id);
    assert.ok(mine, 'the run is offered');
    assert.match(mine.description ?? '', /^ok · 1 problem$/);
    assert.match(mine.detail ?? '', /first problem: skipped a malformed line from the helper/);
    assert.match(
      warnings.calls.map((c) => String(c[0])).join(' | '),
      new RegExp(`run ${run.header.id} has 1 line the helper wrote that could not be used`),
    );
    const panel = await waitFor('the sweep panel of the picked run', () => api.sweepPanel(run.header.id));
    panel.panel.dispose();
  });
});
