import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { RunsNode } from '../../../src/extension/runsView';
import { SMALL_SWEEP, activeApi, waitFor } from './support';

suite('the Runs view', () => {
  test('lists a new sweep under its kind with its status and SIMULATED mark; its item opens the run; Delete from the view removes it', async () => {
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    api.sweepPanel(run.header.id)?.panel.dispose();
    const find = async (): Promise<Extract<RunsNode, { kind: 'run' }> | undefined> => {
      const stack = [...(await api.runsView.getChildren())];
      while (stack.length > 0) {
        const node = stack.shift()!;
        if (node.kind === 'run' && node.summary.id === run.header.id) return node;
        stack.push(...(await api.runsView.getChildren(node)));
      }
      return undefined;
    };
    const groups = await api.runsView.getChildren();
    assert.ok(
      groups.some((g) => g.kind === 'group' && g.command === 'sweep'),
      'a "Transfer sweeps" group',
    );
    const node = await waitFor('the run in the view', find);
    const item = api.runsView.getTreeItem(node);
    assert.match(String(item.description), /^ok · SIMULATED/);
    assert.deepEqual(item.command?.arguments, [run.header.id]);
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const panel = await waitFor('the run opened from its item', () => api.sweepPanel(run.header.id));
    panel.panel.dispose();
    // Delete asks first (a modal); answering it from here stands for the user's "Delete".
    const window = vscode.window as unknown as { showWarningMessage: (...a: unknown[]) => Promise<unknown> };
    const original = window.showWarningMessage;
    window.showWarningMessage = async () => 'Delete';
    try {
      await vscode.commands.executeCommand('sdmaLens.runs.delete', node);
    } finally {
      window.showWarningMessage = original;
    }
    await waitFor('the run gone from the view', async () => ((await find()) === undefined ? true : undefined));
  });
});
