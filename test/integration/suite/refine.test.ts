import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { Sample } from '../../../src/core/protocol';
import { activeApi, spyOnWindow, waitFor } from './support';

suite('Refine Crossover', () => {
  test('refines a saved sweep: rounds saved inside it, the panel shows the refined points (also once restored after a reload), one message says what it placed', async () => {
    const api = await activeApi();
    const grid = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
      options: { backend: 'sim', sizes: [4096, 65536, 1 << 20, 16 << 20, 256 << 20], cus: [64], iters: 10 },
    });
    assert.equal(grid?.end?.status, 'ok', grid?.end?.message);
    // The advice on the grid alone, as the panel of the finished sweep got it.
    const unrefined = await waitFor('the finished sweep in its panel', () => {
      const m = api.sweepPanel(grid.header.id)?.lastDelivered;
      return m?.type === 'sweep' && m.view.status === 'ok' && m.advice ? m.advice : undefined;
    });
    api.sweepPanel(grid.header.id)?.panel.dispose();
    const info = spyOnWindow('showInformationMessage');
    let refined: (Run & { refinedSamples?: Sample[] }) | undefined;
    try {
      refined = await vscode.commands.executeCommand<Run & { refinedSamples?: Sample[] }>('sdmaLens.refineCrossover', {
        runId: grid.header.id,
      });
    } finally {
      info.restore();
    }
    assert.ok(refined, 'the command returns the refined sweep');
    assert.ok((refined.refinedSamples?.length ?? 0) > 0, 'rounds added samples');
    assert.match(
      info.calls.map((c) => String(c[0])).join(' | '),
      /SDMA Lens: refinement: 2 of 2 crossovers placed within ±10%/,
    );
    const panel = await waitFor('the sweep panel with refined points', () => {
      const p = api.sweepPanel(grid.header.id);
      const m = p?.lastDelivered;
      return m?.type === 'sweep' && m.view.series.some((s) => s.points.some((x) => x.refined)) ? p : undefined;
    });
    const live = panel.lastDelivered;
    assert.ok(live?.type === 'sweep' && live.advice, 'the refined panel has advice');
    assert.notDeepEqual(live.advice.crossovers, unrefined.crossovers, 'the refined points moved the crossovers');
    panel.panel.dispose();
    // After a window reload VS Code restores the panel from the run id its page kept: the
    // restored panel advises on the refined points, exactly as the live one did.
    const restored = vscode.window.createWebviewPanel('sdmaLens.sweep', 'restored sweep', vscode.ViewColumn.Active, {
      enableScripts: true,
    });
    await api.restoreSweepPanel(restored, { runId: grid.header.id });
    const revived = await waitFor('the restored sweep with refined points', () => {
      const m = api.sweepPanel(grid.header.id)?.lastDelivered;
      return m?.type === 'sweep' && m.advice && m.view.series.some((s) => s.points.some((x) => x.refined))
        ? m
        : undefined;
    });
    assert.deepEqual(revived.advice, live.advice);
    restored.dispose();
    // Open Run brings the refined points back too.
    await vscode.commands.executeCommand('sdmaLens.openRun', grid.header.id);
    const reopened = await waitFor('the reopened sweep', () => {
      const m = api.sweepPanel(grid.header.id)?.lastDelivered;
      return m?.type === 'sweep' && m.view.series.some((s) => s.points.some((x) => x.refined)) ? m : undefined;
    });
    assert.ok(reopened);
    api.sweepPanel(grid.header.id)?.panel.dispose();
  });
});
