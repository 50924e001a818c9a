import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { SuggestResult } from '../../../src/extension/commands/suggestSettings';
import { SMALL_SWEEP, activeApi, waitFor } from './support';

function workspaceFile(name: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder');
  return path.join(folder.uri.fsPath, name);
}

suite('advice: Suggest Settings and knob diagnostics', () => {
  let run: Run;

  suiteSetup(async () => {
    await activeApi();
    const sweep = { ...SMALL_SWEEP, sizes: [4096, 65536, 262144, 1 << 20, 4 << 20, 64 << 20], cus: [8, 64], iters: 8 };
    const result = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: sweep });
    assert.ok(result && result.end?.status === 'ok', 'the sweep ran');
    run = result;
  });

  test('the panel receives the advice with the crossovers', async () => {
    const api = await activeApi();
    const panel = api.sweepPanel(run.header.id);
    assert.ok(panel);
    const advice = await waitFor('advice in the panel', () => {
      const m = panel.lastDelivered;
      return m?.type === 'sweep' && m.advice ? m.advice : undefined;
    });
    assert.equal(advice.simulated, true);
    assert.ok(advice.crossovers.some((c) => c.initiator === 'device' && c.kind === 'crossover'));
    assert.ok(advice.recommendations.some((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD' && r.value !== undefined));
  });

  test('advises on the pair it is given (the one the panel shows), and on the default pair for anything else', async () => {
    const pairs = [...new Map(run.samples.map((x) => [`${x.src}:${x.dst}`, { src: x.src, dst: x.dst }])).values()];
    const last = pairs.at(-1)!;
    const given = await vscode.commands.executeCommand<SuggestResult | undefined>('sdmaLens.suggestSettings', {
      runId: run.header.id,
      pair: last,
      apply: { target: 'clipboard', knobs: [] },
    });
    assert.deepEqual(given?.advice.pair, last);
    const junk = await vscode.commands.executeCommand<SuggestResult | undefined>('sdmaLens.suggestSettings', {
      runId: run.header.id,
      pair: { src: 'x', dst: 1e9 },
      apply: { target: 'clipboard', knobs: [] },
    });
    const plain = await vscode.commands.executeCommand<SuggestResult | undefined>('sdmaLens.suggestSettings', {
      runId: run.header.id,
      apply: { target: 'clipboard', knobs: [] },
    });
    assert.deepEqual(junk?.advice.pair, plain?.advice.pair);
  });

  test('writes the chosen settings into a .env file as an unsaved edit to review', async () => {
    const file = workspaceFile('.env.sdma-lens-test');
    rmSync(file, { force: true });
    try {
      const result = await vscode.commands.executeCommand<SuggestResult | undefined>('sdmaLens.suggestSettings', {
        runId: run.header.id,
        apply: {
          target: 'dotenv',
          file: '.env.sdma-lens-test',
          knobs: ['NCCL_GIN_ENABLE', 'NCCL_GIN_ANVIL_SDMA_THRESHOLD'],
        },
      });
      assert.equal(result?.applied, 'dotenv');
      const doc = await waitFor('the edited document', () =>
        vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file),
      );
      assert.match(doc.getText(), /^NCCL_GIN_ENABLE=1$/m);
      assert.match(doc.getText(), /^NCCL_GIN_ANVIL_SDMA_THRESHOLD=\d+$/m);
      // The run is simulated: the file says so above the values.
      assert.ok(
        doc
          .getText()
          .startsWith(
            `# SDMA Lens: these values come from run ${run.header.id} on the simulated MI350X node, not from a measurement; measure on the real node before relying on them.\nNCCL_GIN_`,
          ),
        doc.getText(),
      );
      assert.ok(doc.isDirty || doc.isUntitled, 'left for the user to review');
      assert.equal(existsSync(file), false, 'nothing is written before the user saves');
      // The user saves after reviewing: then it is on disk.
      if (await doc.save()) assert.match(readFileSync(file, 'utf8'), /^NCCL_GIN_ENABLE=1$/m);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      rmSync(file, { force: true });
    }
  });

  test('writes into a cppdbg configuration as `environment` entries, keeping the rest, and flags a knob there', async () => {
    const config = vscode.workspace.getConfiguration('sdmaLens');
    await config.update('advice.rcclVersion', '2.31.0', vscode.ConfigurationTarget.Workspace);
    const file = workspaceFile(path.join('.vscode', 'launch.json'));
    const original = [
      '{',
      "  // the project's own",
      '  "version": "0.2.0",',
      '  "configurations": [',
      '    {',
      '      "name": "(gdb) train",',
      '      "type": "cppdbg",',
      '      "request": "launch",',
      '      "program": "${workspaceFolder}/train",',
      '      "environment": [',
      '        { "name": "LD_LIBRARY_PATH", "value": "/opt/rocm/lib" }, // ROCm first',
      '        { "name": "NCCL_GIN_TYPE", "value": "5" },',
      '      ],',
      '    },',
      '    { "name": "(lldb) bench", "type": "lldb", "request": "launch", "program": "${workspaceFolder}/bench" },',
      '  ],',
      '}',
      '',
    ].join('\n');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, original);
    try {
      const result = await vscode.commands.executeCommand<SuggestResult | undefined>('sdmaLens.suggestSettings', {
        runId: run.header.id,
        apply: { target: 'launch', entry: '(gdb) train', knobs: ['NCCL_GIN_ENABLE'] },
      });
      assert.equal(result?.applied, 'launch');
      const doc = await waitFor('the edited launch.json', () =>
        vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file && d.isDirty),
      );
      const text = doc.getText();
      const expected = original
        .replace(
          '        { "name": "NCCL_GIN_TYPE", "value": "5" },\n',
          '        { "name": "NCCL_GIN_TYPE", "value": "5" },\n        { "name": "NCCL_GIN_ENABLE", "value": "1" },\n',
        )
        .replace(
          '      "environment": [\n',
          `      // SDMA Lens: these values come from run ${run.header.id} on the simulated MI350X node, not from a measurement; measure on the real node before relying on them.\n      "environment": [\n`,
        );
      assert.equal(
        text,
        expected,
        'one entry added to the list and a JSONC comment saying the values are simulated; every other byte as it was (no `env`, which cppdbg ignores)',
      );
      assert.equal(readFileSync(file, 'utf8'), original, 'nothing is written before the user saves');
      // The knob already in the list is checked too, the squiggle on its value.
      const diagnostic = await waitFor('a knob diagnostic in launch.json', () =>
        vscode.languages.getDiagnostics(doc.uri).find((d) => d.source === 'SDMA Lens' && d.code === 'NCCL_GIN_TYPE'),
      );
      assert.equal(doc.getText(diagnostic.range), '5');
      assert.match(diagnostic.message, /selects EFA GDA .* Anvil SDMA is 7/);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await config.update('advice.rcclVersion', undefined, vscode.ConfigurationTarget.Workspace);
      rmSync(file, { force: true });
    }
  });

  test('flags NCCL_GIN_TYPE=5 on RCCL 2.31 and fixes it to 7', async () => {
    const config = vscode.workspace.getConfiguration('sdmaLens');
    await config.update('advice.rcclVersion', '2.31.0', vscode.ConfigurationTarget.Workspace);
    const file = workspaceFile('gin.env');
    writeFileSync(file, 'NCCL_GIN_ENABLE=1\nNCCL_GIN_TYPE=5\n');
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const diagnostic = await waitFor('a knob diagnostic', () =>
        vscode.languages.getDiagnostics(doc.uri).find((d) => d.source === 'SDMA Lens'),
      );
      assert.match(diagnostic.message, /selects EFA GDA .* not the copy engines: Anvil SDMA is 7/);
      assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        doc.uri,
        diagnostic.range,
      );
      const fix = actions.find((a) => a.title === 'Set NCCL_GIN_TYPE=7');
      assert.ok(fix?.edit, `quick fixes: ${actions.map((a) => a.title).join(', ')}`);
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      assert.match(doc.getText(), /^NCCL_GIN_TYPE=7$/m);
      await waitFor(
        'the diagnostic to clear',
        () => !vscode.languages.getDiagnostics(doc.uri).some((d) => d.source === 'SDMA Lens'),
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await config.update('advice.rcclVersion', undefined, vscode.ConfigurationTarget.Workspace);
      rmSync(file, { force: true });
    }
  });
});
