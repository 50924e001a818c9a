import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { FleetResult } from '../../../src/core/fleetRun/fleetRun';
import type { FleetView } from '../../../src/core/fleet/fleetView';
import { activeApi, runsFolder, spyOnWindow, waitFor } from './support';

/**
 * "SDMA Lens: Run Fleet Sweep" against the real Slurm cluster test/integration/runTests.mjs
 * starts (test/slurm/cluster.sh: three slurmd nodes n1..n3 in network namespaces); without one
 * (not root, no Slurm) the suite is skipped, never passed.
 */
suite('Fleet', function () {
  suiteSetup(function () {
    if (!process.env.SLURM_CONF) this.skip();
  });

  const queue = () => execFileSync('squeue', ['--noheader'], { encoding: 'utf8' }).trim();

  test("Run Fleet Sweep on 3 nodes with a matrix, one made weak: each node's sweep and matrix runs of their own, the weak node and its engine pairs named, the fleet panel opened, the allocation given back", async () => {
    const infos = spyOnWindow('showInformationMessage');
    try {
      const result = await vscode.commands.executeCommand<FleetResult | undefined>('sdmaLens.runFleet', {
        nodes: 3,
        options: {
          backend: 'sim',
          sizes: [65536, 1 << 20, 16 << 20, 256 << 20],
          cus: [1, 64],
          iters: 5,
          simWeak: 'engine=0.6@n2',
        },
        matrix: {
          gpus: [0, 1, 2],
          paths: ['cu/host', 'engine/host'],
          sizeBytes: 16 << 20,
          iters: 3,
          simWeak: 'engine=0.6@n2',
        },
      });
      assert.ok(result, 'the command returns the fleet');
      assert.equal(result.index.status, 'ok');
      assert.deepEqual(
        result.index.nodes.map((n) => n.node),
        ['n1', 'n2', 'n3'],
      );
      for (const n of result.index.nodes) {
        assert.deepEqual(
          n.runs.map((r) => r.command),
          ['sweep', 'matrix'],
        );
        for (const r of n.runs) {
          const header = JSON.parse(readFileSync(join(runsFolder(), r.runId, 'run.ndjson'), 'utf8').split('\n')[0]!);
          assert.equal(header.fleet.node, n.node);
        }
      }
      const fleetFile = join(runsFolder(), '..', 'fleets', result.index.id, 'fleet.json');
      assert.ok(existsSync(fleetFile), `the fleet index is saved beside the runs (${fleetFile})`);
      assert.match(
        infos.calls.map((c) => String(c[0])).join('\n'),
        /outlier nodes: n2; nodes that did not finish: none/,
      );
      // Given back means gone: the command returned after Slurm stopped listing the job.
      assert.equal(result.index.slurm.released?.gone, true, JSON.stringify(result.index.slurm.released));
      assert.equal(queue(), '', 'no job left in the queue');
      const api = await activeApi();
      const panel = await waitFor('the fleet panel', () => api.fleetPanel(result.index.id));
      assert.equal(panel.panel.viewType, 'sdmaLens.fleet');
      // The page got the fleet and, once drawn, asked for its first figure with an outlier: n2's
      // (the page itself is checked in test/webview/fleet.mjs).
      const figure = await waitFor('the fleet page to ask for a figure', () =>
        panel.lastDelivered?.type === 'figure-values' ? panel.lastDelivered.figure : undefined,
      );
      assert.deepEqual(
        figure.values.filter((c) => c.outlier).map((c) => c.node),
        ['n2'],
        figure.key,
      );
      const view = await vscode.commands.executeCommand<FleetView | undefined>('sdmaLens.openFleet', result.index.id);
      assert.ok(view);
      assert.deepEqual([...new Set(view.outliers.map((o) => o.node))], ['n2']);
      // n2's pairs: its engine/host matrix cells, every ordered pair of the 3 GPUs; its CU cells are not outliers.
      assert.equal(view.outliers.filter((o) => o.figure.startsWith('cell engine/host ')).length, 6);
      assert.equal(view.outliers.filter((o) => o.figure.startsWith('cell cu/host ')).length, 0);
      panel.dispose();
    } finally {
      infos.restore();
    }
  });

  test('a partition setting that could be read as an option is refused by name before Slurm is asked', async () => {
    const config = vscode.workspace.getConfiguration('sdmaLens');
    await config.update('fleet.partition', '--uid=0', vscode.ConfigurationTarget.Workspace);
    const errors = spyOnWindow('showErrorMessage');
    try {
      const result = await vscode.commands.executeCommand<FleetResult | undefined>('sdmaLens.runFleet', {
        nodes: 2,
        options: { backend: 'sim', sizes: [65536], cus: [8], iters: 3 },
      });
      assert.equal(result, undefined);
      assert.match(String(errors.calls[0]?.[0]), /sdmaLens\.fleet\.partition.*not a Slurm name/);
      assert.equal(queue(), '', 'nothing was queued');
    } finally {
      errors.restore();
      await config.update('fleet.partition', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
