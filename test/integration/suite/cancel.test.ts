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

suite('cancel during a sweep', () => {
  test('stops the helper and keeps what was measured', async () => {
    await activeApi();
    const before = sweepInvocations().length;
    const info = spyOnWindow('showInformationMessage');
    const source = new vscode.CancellationTokenSource();
    try {
      // 100 ms per work unit: the sweep would take seconds, so the cancel lands in the middle.
      const pending = vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
        options: { ...SMALL_SWEEP, simDelayMs: 100 },
        cancellation: source.token,
      });
      const helper = await waitFor('the helper to start', () => sweepInvocations()[before]);
      await new Promise((ok) => setTimeout(ok, 1200));
      assert.equal(processGone(helper.pid), false, 'the helper is running when cancelled');
      source.cancel();
      const run = await pending;
      assert.ok(run);
      assert.equal(run.end?.status, 'cancelled', run.end?.message);
      assert.ok(run.samples.length > 0 && run.samples.length < 24, `partial run (${run.samples.length} samples)`);

      await waitFor('the helper process to be gone', () => processGone(helper.pid), 5000);
      assert.deepEqual(processGroupMembers(helper.pid), [], 'nothing of the helper process group is left');

      const lines = readRunFile(run.header.id);
      assert.equal(lines.filter((l) => l.type === 'sample').length, run.samples.length, 'every sample seen was saved');
      assert.equal(lines.at(-1)!.status, 'cancelled');
      const said = info.calls.map((c) => String(c[0]));
      assert.ok(
        said.some(
          (m) => m.includes('transfer sweep was cancelled') && m.includes(`${run.samples.length} samples were kept`),
        ),
        `messages: ${said.join(' | ')}`,
      );
    } finally {
      info.restore();
      source.dispose();
    }
  });

  test('"SDMA Lens: Cancel Run" stops a running sweep the same way', async () => {
    await activeApi();
    const before = sweepInvocations().length;
    const pending = vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
      options: { ...SMALL_SWEEP, simDelayMs: 100 },
    });
    const helper = await waitFor('the helper to start', () => sweepInvocations()[before]);
    await new Promise((ok) => setTimeout(ok, 800));
    assert.equal(await vscode.commands.executeCommand<number>('sdmaLens.cancelRun'), 1, 'one run was cancelled');
    const run = await pending;
    assert.equal(run?.end?.status, 'cancelled', run?.end?.message);
    await waitFor('the helper process to be gone', () => processGone(helper.pid), 5000);
    assert.deepEqual(processGroupMembers(helper.pid), []);
    assert.equal(await vscode.commands.executeCommand<number>('sdmaLens.cancelRun'), 0, 'nothing left to cancel');
  });
});
