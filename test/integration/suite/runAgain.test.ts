import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { SMALL_SWEEP, activeApi } from './support';

suite('Run Again', () => {
  test('repeats the last run with the same choices, as a new run', async () => {
    const api = await activeApi();
    const first = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
      options: { ...SMALL_SWEEP, iters: 4 },
    });
    assert.equal(first?.end?.status, 'ok', first?.end?.message);
    const again = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runAgain');
    assert.equal(again?.end?.status, 'ok', again?.end?.message);
    assert.notEqual(again.header.id, first.header.id, 'a run of its own');
    // The same helper arguments, but for where each run's own timeline file goes.
    const own = (args: string[]) =>
      args.map((a, i) => (args[i - 1] === '--timeline-out' ? '<run folder>/timeline.sdmatl' : a));
    assert.deepEqual(own(again.header.helper.args), own(first.header.helper.args), 'the same helper arguments');
    for (const r of [first, again]) api.sweepPanel(r.header.id)?.panel.dispose();
  });
});
