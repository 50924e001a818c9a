import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { activeApi, finishedView, invocations, readRunFile, waitFor } from './support';

suite('a simulated bandwidth matrix through the command', () => {
  test('runs every pair with progress, saves the run, opens the heat map panel; Open Run reopens it there', async () => {
    const api = await activeApi();
    const before = invocations().filter((i) => i.args[0] === 'matrix').length;
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runMatrix', {
      options: { backend: 'sim', gpus: [0, 1, 2], paths: ['cu/host', 'engine/host'], sizeBytes: 64 << 20, iters: 2 },
    });
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    assert.equal(run.header.command, 'matrix');
    assert.equal(run.matrixCells?.length, 2 * 3 * 2, '2 paths x 6 ordered pairs');
    assert.deepEqual(run.progress, { done: 12, total: 12 }, 'progress after every cell');

    const calls = invocations()
      .filter((i) => i.args[0] === 'matrix')
      .slice(before);
    assert.equal(calls.length, 1, 'one helper process');
    assert.deepEqual(calls[0]!.args.slice(calls[0]!.args.indexOf('--gpus'), calls[0]!.args.indexOf('--gpus') + 2), [
      '--gpus',
      '0,1,2',
    ]);
    const lines = readRunFile(run.header.id);
    assert.equal(lines.filter((l) => l.type === 'matrix-cell').length, 12);
    assert.equal(lines.at(-1)!.type, 'run-end');

    const panel = api.matrixPanel(run.header.id);
    assert.ok(panel, 'the matrix panel shows the run');
    assert.equal(panel.panel.viewType, 'sdmaLens.matrix');
    assert.match(
      panel.panel.title,
      /^Matrix \d\d:\d\d:\d\d sim$/,
      "the tab has the run's time and the backend it ran on, as the sweep's",
    );
    const view = await finishedView('the page to receive the finished matrix', panel, 'matrix-view');
    assert.equal(view.simulated, true);
    assert.deepEqual(
      view.paths.map((p) => p.path),
      ['cu/host', 'engine/host'],
    );
    assert.equal(view.paths[0]!.measured, 6);
    assert.match(view.paths[0]!.weakestText, /^No pair stands out: the slowest, GPU \d → GPU \d at [\d.]+ GB\/s/);

    panel.dispose();
    assert.equal(api.matrixPanel(run.header.id), undefined);
    const reopened = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.openRun', run.header.id);
    assert.equal(reopened?.matrixCells?.length, 12);
    const again = await waitFor('Open Run to show the matrix panel', () => api.matrixPanel(run.header.id));
    const reView = await waitFor('the reopened page to receive the matrix', () =>
      again.lastDelivered?.type === 'matrix-view' ? again.lastDelivered.view : undefined,
    );
    assert.deepEqual(reView.paths, view.paths, 'a reopened run shows what was seen live');
    again.dispose();
  });

  test('all pairs at once: the helper is asked for --concurrent, the panel gets per-GPU sums and the total', async () => {
    const api = await activeApi();
    const before = invocations().filter((i) => i.args[0] === 'matrix').length;
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runMatrix', {
      options: {
        backend: 'sim',
        gpus: [0, 1, 2, 3],
        paths: ['engine/host'],
        sizeBytes: 16 << 20,
        iters: 2,
        concurrent: true,
      },
    });
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    const calls = invocations()
      .filter((i) => i.args[0] === 'matrix')
      .slice(before);
    assert.ok(calls[0]!.args.includes('--concurrent'), 'the helper runs every pair at once');
    assert.equal(run.matrixCells?.length, 12);
    assert.ok(run.matrixCells!.every((c) => c.concurrent === true));
    assert.equal(run.matrixTotals?.length, 1);
    const panel = api.matrixPanel(run.header.id);
    assert.ok(panel, 'the matrix panel shows the run');
    const view = await finishedView('the page to receive the finished matrix', panel, 'matrix-view');
    assert.equal(view.concurrent, true);
    const path = view.paths[0]!;
    assert.equal(path.gpuTotals?.length, 4);
    assert.equal(path.total?.pairs, 12);
    assert.match(path.totalText ?? '', /^All 12 pairs at once: [\d.]+ GB\/s in total/);
    panel.dispose();
  });
});
