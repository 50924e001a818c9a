import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import type { ComparePanel } from '../../../src/extension/commands/compareRuns';
import { SMALL_SWEEP, activeApi, spyOnWindow, waitFor } from './support';

/** Enough repetitions (5 or more) for a spread to judge. */
const SWEEP = { ...SMALL_SWEEP, iters: 10 };

async function sweep(seed: number): Promise<Run> {
  const api = await activeApi();
  const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
    options: { ...SWEEP, seed },
  });
  assert.equal(run?.end?.status, 'ok', run?.end?.message);
  api.sweepPanel(run.header.id)?.panel.dispose();
  return run;
}

const viewOf = (panel: ComparePanel) =>
  waitFor('the compare page to receive its view', () =>
    panel.lastDelivered?.type === 'compare-view' ? panel.lastDelivered.view : undefined,
  );

suite('Compare Runs', () => {
  test('two sweeps named by id: a compare panel whose page receives every common point', async () => {
    const a = await sweep(1);
    const b = await sweep(2);
    const panel = await vscode.commands.executeCommand<ComparePanel | undefined>('sdmaLens.compareRuns', {
      a: a.header.id,
      b: b.header.id,
    });
    assert.ok(panel, 'the command returns the panel');
    assert.equal(panel.panel.viewType, 'sdmaLens.compare');
    const view = await viewOf(panel);
    assert.equal(view.kind, 'sweep');
    assert.equal(view.a.id, a.header.id);
    assert.equal(view.b.id, b.header.id);
    assert.equal(view.summary.common, a.samples.length, 'the same sweep options: every point in common');
    assert.equal(view.summary.unknownNoise, 0, '10 repetitions: every point has a spread');
    assert.ok(view.a.simulated && view.b.simulated);
    const again = await vscode.commands.executeCommand<ComparePanel | undefined>('sdmaLens.compareRuns', {
      a: a.header.id,
      b: b.header.id,
    });
    assert.equal(again, panel, 'the same two runs reveal the same panel');
    panel.dispose();
  });

  test('a run against itself is the same everywhere', async () => {
    const a = await sweep(3);
    const panel = await vscode.commands.executeCommand<ComparePanel | undefined>('sdmaLens.compareRuns', {
      a: a.header.id,
      b: a.header.id,
    });
    assert.ok(panel);
    const view = await viewOf(panel);
    assert.equal(view.summary.same, view.summary.common);
    assert.equal(view.summary.geomeanRatio, 1);
    panel.dispose();
  });

  test('picked: A from every comparable run, then B among runs of its command only', async () => {
    const a = await sweep(4);
    const b = await sweep(5);
    const matrix = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runMatrix', {
      options: { backend: 'sim', gpus: [0, 1], paths: ['engine/host'], sizeBytes: 16 << 20, iters: 5 },
    });
    assert.equal(matrix?.end?.status, 'ok', matrix?.end?.message);
    (await activeApi()).matrixPanel(matrix.header.id)?.panel.dispose();
    const window = vscode.window as unknown as {
      showQuickPick: (items: unknown, options?: unknown) => Promise<unknown>;
    };
    const original = window.showQuickPick;
    const offered: { id: string; label: string }[][] = [];
    window.showQuickPick = async (items: unknown) => {
      const list = (await items) as { id: string; label: string }[];
      offered.push(list);
      return list.find((i) => i.id === (offered.length === 1 ? a.header.id : b.header.id));
    };
    let panel: ComparePanel | undefined;
    try {
      panel = await vscode.commands.executeCommand<ComparePanel | undefined>('sdmaLens.compareRuns');
    } finally {
      window.showQuickPick = original;
    }
    assert.equal(offered.length, 2, 'two picks: A, then B');
    assert.ok(
      offered[0]!.some((i) => i.id === matrix.header.id),
      'A may be any comparable run',
    );
    assert.ok(
      offered[1]!.every((i) => i.label.startsWith('sweep ') && i.id !== a.header.id),
      'B: other sweeps only',
    );
    assert.ok(panel);
    const view = await viewOf(panel);
    assert.deepEqual([view.a.id, view.b.id], [a.header.id, b.header.id]);
    panel.dispose();
  });

  test('a sweep and a matrix: an error that says why, and no panel', async () => {
    const a = await sweep(6);
    const matrix = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runMatrix', {
      options: { backend: 'sim', gpus: [0, 1], paths: ['engine/host'], sizeBytes: 16 << 20, iters: 5 },
    });
    assert.ok(matrix);
    (await activeApi()).matrixPanel(matrix.header.id)?.panel.dispose();
    const errors = spyOnWindow('showErrorMessage');
    let panel: ComparePanel | undefined;
    try {
      panel = await vscode.commands.executeCommand<ComparePanel | undefined>('sdmaLens.compareRuns', {
        a: a.header.id,
        b: matrix.header.id,
      });
    } finally {
      errors.restore();
    }
    assert.equal(panel, undefined);
    assert.match(
      String(errors.calls[0]?.[0]),
      /is a sweep \(\d+ samples\) and run B \(.*\) a matrix \(2 cells\): runs of different kinds have no point in common/,
    );
  });

  test('an argument that is not a run id is refused by name', async () => {
    const errors = spyOnWindow('showErrorMessage');
    try {
      assert.equal(
        await vscode.commands.executeCommand('sdmaLens.compareRuns', { a: '../outside', b: 'x' }),
        undefined,
      );
    } finally {
      errors.restore();
    }
    assert.match(String(errors.calls[0]?.[0]), /a must be a run id/);
  });
});
