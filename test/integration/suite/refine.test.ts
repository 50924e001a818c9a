import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { Sample } from '../../../src/core/protocol';
import { activeApi, spyOnWindow, waitFor } from './support';

suite('Refine Crossover', () => {
  test('refines a saved sweep: rounds saved inside it, the panel shows the refined points, one message says what it placed', async () => {
    const api = await activeApi();
    const grid = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: { backend: 'sim', sizes: [4096, 65536, 1 << 20, 16 << 20, 256 << 20], cus: [64], iters: 10 } });
    assert.equal(grid?.end?.status, 'ok', grid?.end?.message);
    api.sweepPanel(grid.header.id)?.panel.dispose();
    const info = spyOnWindow('showInformationMessage');
    let refined: (Run & { refinedSamples?: Sample[] }) | undefined;
    try {
      refined = await vscode.commands.executeCommand<Run & { refinedSamples?: Sample[] }>('sdmaLens.refineCrossover', { runId: grid.header.id });
    } finally {
      info.restore();
    }
    assert.ok(refined, 'the command returns the refined sweep');
    assert.ok((refined.refinedSamples?.length ?? 0) > 0, 'rounds added samples');
    assert.match(info.calls.map((c) => String(c[0])).join(' | '), /SDMA Lens: refinement: 2 of 2 crossovers placed within ±10%/);
    const panel = await waitFor('the sweep panel with refined points', () => {
      const p = api.sweepPanel(grid.header.id);
      const m = p?.lastDelivered;
      return m?.type === 'sweep' && m.view.series.some((s) => s.points.some((x) => x.refined)) ? p : undefined;
    });
    panel.panel.dispose();
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
