import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { activeApi, finishedView, invocations, readRunFile, spyOnWindow } from './support';

const ARGS = ['-b', '1M', '-e', '4M', '-f', '4', '-n', '2', '-w', '1', '--repeats', '3'];

/** Runs "Run Collective Sweep" on the simulated node with sdmaLens.collective.mode set to `mode` (undefined: unset). */
async function collectiveWithMode(mode: string | undefined): Promise<{ run: Run | undefined; args: string[] }> {
  const config = vscode.workspace.getConfiguration('sdmaLens');
  await config.update('collective.mode', mode, vscode.ConfigurationTarget.Workspace);
  try {
    const before = invocations().filter((i) => i.args[0] === 'collective').length;
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runCollective', {
      backend: 'sim',
      args: ARGS,
    });
    const calls = invocations()
      .filter((i) => i.args[0] === 'collective')
      .slice(before);
    return { run, args: calls[0]?.args ?? [] };
  } finally {
    await config.update('collective.mode', undefined, vscode.ConfigurationTarget.Workspace);
  }
}

suite('a simulated collective sweep in each rank mode, chosen by sdmaLens.collective.mode', () => {
  for (const mode of ['single-process', 'rank-per-process'] as const) {
    test(`${mode}: the helper is asked for --mode ${mode}, and the saved run and its panel say so`, async () => {
      const api = await activeApi();
      const { run, args } = await collectiveWithMode(mode);
      assert.ok(run, 'the command returns the run');
      assert.equal(run.end?.status, 'ok', run.end?.message);
      const at = args.indexOf('--mode');
      assert.ok(at > 0, `the helper got --mode (${args.join(' ')})`);
      assert.equal(args[at + 1], mode);

      // The saved file, read back as written: every variant record carries the mode.
      const saved = readRunFile(run.header.id).filter((l) => l.type === 'collective-variant');
      assert.ok(saved.length > 0, 'the run has its variant records');
      for (const v of saved) assert.equal(v.mode, mode, `${String(v.variant)} was run ${String(v.mode)}`);
      for (const p of readRunFile(run.header.id).filter((l) => l.type === 'collective'))
        assert.ok(p.cusUsed && typeof p.cusUsed === 'object', 'every point says the CUs it used');

      const panel = api.collectivePanel(run.header.id);
      assert.ok(panel, 'the collective panel shows the run');
      const view = await finishedView('the page to receive the finished collective run', panel, 'collective-view');
      assert.equal(view.mode, mode);
      assert.equal(view.launcher, mode === 'rank-per-process' ? 'helper' : undefined);
      panel.dispose();
    });
  }

  test('unset, the setting runs rank-per-process', async () => {
    const api = await activeApi();
    const { run, args } = await collectiveWithMode(undefined);
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    assert.equal(args[args.indexOf('--mode') + 1], 'rank-per-process');
    api.collectivePanel(run.header.id)?.dispose();
  });

  test('a value that is not a mode is refused with a message naming the setting, and nothing runs', async () => {
    const errors = spyOnWindow('showErrorMessage');
    try {
      const { run, args } = await collectiveWithMode('--gpus=0');
      assert.equal(run, undefined);
      assert.deepEqual(args, [], 'no helper started');
      assert.ok(
        errors.calls.some((c) =>
          /sdmaLens\.collective\.mode: must be one of rank-per-process, single-process/.test(String(c[0])),
        ),
        `the error names the setting (${errors.calls.map((c) => String(c[0])).join(' | ')})`,
      );
    } finally {
      errors.restore();
    }
  });
});
