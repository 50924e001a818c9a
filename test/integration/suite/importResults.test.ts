import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { ComparePanel } from '../../../src/extension/commands/compareRuns';
import { EXTENSION_ID, activeApi, waitFor } from './support';

suite("Import Results and Compare Runs on other tools' outputs", () => {
  test('a TransferBench and an nccl-tests output become runs that open in their panels, and two imports compare', async () => {
    const api = await activeApi();
    const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const fixture = (...p: string[]) => path.join(root, 'test', 'fixtures', 'imports', ...p);
    const runs = await vscode.commands.executeCommand<Run[]>('sdmaLens.importResults', {
      paths: [
        fixture('transferbench', 'h200x1-1M.txt'),
        fixture('transferbench', 'h200x1-1M.csv'),
        fixture('nccl-tests', 'alltoall-g1.txt'),
      ],
    });
    assert.equal(runs.length, 3);
    const [text, csv, nccl] = runs as [Run, Run, Run];
    assert.equal(text.header.source?.tool, 'TransferBench');
    assert.ok(text.samples.length > 0, 'samples imported');
    assert.equal(nccl.header.command, 'collective');
    assert.equal(nccl.collectives?.length, 14);
    const sweepPanel = await waitFor('the imported sweep in its panel', () => api.sweepPanel(text.header.id));
    sweepPanel.panel.dispose();
    const collectivePanel = await waitFor('the imported collective run in its panel', () =>
      api.collectivePanel(nccl.header.id),
    );
    collectivePanel.dispose();
    api.sweepPanel(csv.header.id)?.panel.dispose();
    // Two runs of the same TransferBench config (text, then CSV): every transfer in common; summaries only, so no verdict beyond noise.
    const panel = await vscode.commands.executeCommand<ComparePanel | undefined>('sdmaLens.compareRuns', {
      a: text.header.id,
      b: csv.header.id,
    });
    assert.ok(panel, 'the command returns the panel');
    const view = await waitFor('the compare page to receive its view', () =>
      panel.lastDelivered?.type === 'compare-view' ? panel.lastDelivered.view : undefined,
    );
    assert.equal(view.summary.common, text.samples.length, 'every sample of the text output has its CSV twin');
    for (const g of view.groups) {
      for (const p of g.points) {
        assert.equal(p.state, 'unknown noise', p.label);
        assert.ok(p.ratio !== undefined && p.ratio > 0.5 && p.ratio < 2, `${p.label}: ratio ${p.ratio}`);
      }
    }
    panel.panel.dispose();
  });
});
