import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import {
  SMALL_SWEEP,
  activeApi,
  processGone,
  processGroupMembers,
  readRunFile,
  spyOnWindow,
  sweepInvocations,
  waitFor,
} from './support';

suite('a helper that crashes halfway', () => {
  test('shows a clear error and keeps the partial run', async () => {
    const api = await activeApi();
    const before = sweepInvocations().length;
    const errors = spyOnWindow('showErrorMessage');
    let run: Run | undefined;
    try {
      // The helper's own fault injection: it aborts after its third sample.
      run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
        options: { ...SMALL_SWEEP, fault: 'crash-after=3' },
      });
    } finally {
      errors.restore();
    }
    assert.ok(run, 'the command returns what it saw');
    assert.equal(run.end?.status, 'crashed');
    assert.equal(run.samples.length, 3);
    assert.ok(run.end.signal || run.end.exitCode !== 0, 'the end says how the helper died');

    const said = errors.calls.map((c) => String(c[0]));
    assert.equal(said.length, 1, `one error notification: ${said.join(' | ')}`);
    assert.match(said[0]!, /^SDMA Lens: the transfer sweep crashed: .+/);
    assert.ok(said[0]!.includes(run.end.message), 'the notification says what the run file says');
    assert.ok(errors.calls[0]!.includes('Show Log'), 'the notification offers the log');

    const lines = readRunFile(run.header.id);
    assert.equal(lines.filter((l) => l.type === 'sample').length, 3, 'the three samples are on disk');
    assert.equal(lines.at(-1)!.type, 'run-end');
    assert.equal(lines.at(-1)!.status, 'crashed');

    const helper = sweepInvocations()[before];
    assert.ok(helper && helper.args.includes('--fault'));
    await waitFor('the helper process to be gone', () => processGone(helper.pid), 5000);
    assert.deepEqual(processGroupMembers(helper.pid), []);

    const panel = api.sweepPanel(run.header.id);
    const view = await waitFor('the panel to show the partial run', () =>
      panel?.lastDelivered?.type === 'sweep' && panel.lastDelivered.view.status === 'crashed'
        ? panel.lastDelivered.view
        : undefined,
    );
    assert.equal(
      view.series.reduce((n, s) => n + s.points.length, 0),
      3,
    );
  });
});

suite('a helper that hangs', () => {
  test('is stopped by sdmaLens.run.stallTimeoutSeconds: one error that says so, the samples kept, no process left', async () => {
    await activeApi();
    const config = vscode.workspace.getConfiguration('sdmaLens');
    const before = sweepInvocations().length;
    const errors = spyOnWindow('showErrorMessage');
    let run: Run | undefined;
    try {
      await config.update('run.stallTimeoutSeconds', 10, vscode.ConfigurationTarget.Workspace);
      // The helper's own fault injection: after its second sample it sleeps until killed, printing nothing.
      run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
        options: { ...SMALL_SWEEP, fault: 'hang-after=2' },
      });
    } finally {
      errors.restore();
      await config.update('run.stallTimeoutSeconds', undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.ok(run, 'the command returns what it saw');
    assert.equal(run.end?.status, 'error');
    assert.match(run.end.message, /printed nothing for 10 s, the stall limit, and was stopped; 2 samples kept/);
    const said = errors.calls.map((c) => String(c[0]));
    assert.equal(said.length, 1, `one error notification: ${said.join(' | ')}`);
    assert.ok(said[0]!.includes(run.end.message), 'the notification says what the run file says');
    assert.equal(
      readRunFile(run.header.id).filter((l) => l.type === 'sample').length,
      2,
      'the two samples are on disk',
    );
    const helper = sweepInvocations()[before];
    assert.ok(helper);
    await waitFor('the helper process to be gone', () => processGone(helper.pid), 5000);
  });

  test('a stall limit out of range is a setting error, and nothing runs', async () => {
    await activeApi();
    const config = vscode.workspace.getConfiguration('sdmaLens');
    const before = sweepInvocations().length;
    const errors = spyOnWindow('showErrorMessage');
    let run: Run | undefined;
    try {
      await config.update('run.stallTimeoutSeconds', 5, vscode.ConfigurationTarget.Workspace);
      run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    } finally {
      errors.restore();
      await config.update('run.stallTimeoutSeconds', undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal(run, undefined, 'nothing ran');
    assert.match(
      errors.calls.map((c) => String(c[0])).join(' | '),
      /Setting sdmaLens\.run\.stallTimeoutSeconds: must be 0 \(no limit\) or a whole number of seconds in 10\.\.86400 \(got 5\)/,
    );
    assert.equal(sweepInvocations().length, before, 'the helper was not started');
  });
});
