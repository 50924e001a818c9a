import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import {
  SMALL_SWEEP,
  activeApi,
  finishedView,
  processGone,
  readRunFile,
  spyOnWindow,
  sweepInvocations,
  waitFor,
} from './support';

suite('a simulated transfer sweep through the command', () => {
  test('shows progress, saves the run and feeds the panel', async () => {
    const api = await activeApi();
    const before = sweepInvocations().length;
    const progress = spyOnWindow('withProgress');
    const reports: { message?: string; increment?: number }[] = [];
    // Wraps the progress object the command receives to see what the notification shows.
    const window = vscode.window as unknown as Record<string, unknown>;
    const spied = window.withProgress as (
      o: vscode.ProgressOptions,
      task: (p: vscode.Progress<unknown>, t: vscode.CancellationToken) => unknown,
    ) => unknown;
    window.withProgress = (
      options: vscode.ProgressOptions,
      task: (p: vscode.Progress<unknown>, t: vscode.CancellationToken) => unknown,
    ) =>
      spied(options, (p, t) =>
        task(
          {
            report: (value: unknown) => {
              reports.push(value as { message?: string });
              p.report(value);
            },
          },
          t,
        ),
      );
    let run: Run | undefined;
    try {
      run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    } finally {
      window.withProgress = spied;
      progress.restore();
    }
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    assert.equal(run.hello?.simulated, true);
    // 4 sizes x (2 cu/* paths x 2 CU counts + 2 engine/* paths)
    assert.equal(run.samples.length, 4 * (2 * 2 + 2));

    const titles = progress.calls.map((c) => (c[0] as vscode.ProgressOptions).title);
    assert.ok(titles.includes('SDMA Lens: transfer sweep'), `progress notifications: ${titles.join(', ')}`);
    const notification = progress.calls.find(
      (c) => (c[0] as vscode.ProgressOptions).title === 'SDMA Lens: transfer sweep',
    )![0] as vscode.ProgressOptions;
    assert.equal(notification.location, vscode.ProgressLocation.Notification);
    assert.equal(notification.cancellable, true);
    assert.ok(reports.length > 0, 'progress was reported');
    assert.match(reports.at(-1)!.message ?? '', /^(\d+)\/\1 \(simulated\)$/);

    const lines = readRunFile(run.header.id);
    assert.equal(lines[0]!.type, 'run');
    assert.equal(lines.filter((l) => l.type === 'sample').length, run.samples.length);
    assert.deepEqual({ type: lines.at(-1)!.type, status: lines.at(-1)!.status }, { type: 'run-end', status: 'ok' });

    const invocation = sweepInvocations().slice(before);
    assert.equal(invocation.length, 1, 'one helper process');
    assert.ok(invocation[0]!.args.includes('--backend') && invocation[0]!.args.includes('sim'));
    await waitFor('the helper to exit', () => processGone(invocation[0]!.pid));

    const panel = api.sweepPanel(run.header.id);
    assert.ok(panel, 'a panel shows the run');
    assert.equal(panel.panel.viewType, 'sdmaLens.sweep');
    const delivered = await finishedView('the webview to receive the finished run', panel, 'sweep');
    assert.equal(delivered.runId, run.header.id);
    assert.equal(delivered.simulated, true);
    assert.equal(
      delivered.series.reduce((n, s) => n + s.points.length, 0),
      run.samples.length,
    );
  });
});

suite('a one-GPU node through the command', () => {
  test('sweeps host → GPU 0, GPU 0 → host and GPU 0 local, and the panel names each pair and the path that cannot exist', async () => {
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', {
      options: { ...SMALL_SWEEP, simGpus: 1 },
    });
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    assert.ok(run.header.helper.args.includes('--sim-gpus'), 'the helper was asked for a one-GPU node');
    assert.equal(run.topology?.gpus.length, 1);
    const pairs = new Set(run.samples.map((s) => `${s.src}:${s.dst}`));
    assert.deepEqual(
      [...pairs].sort(),
      ['-1:0', '0:-1', '0:0'],
      'the node default: host -> GPU 0, GPU 0 -> host, GPU 0 local',
    );
    // 3 pairs x 4 sizes x (2 cu/* paths x 2 CU counts + engine/host); engine/device cannot exist.
    assert.equal(run.samples.length, 3 * 4 * (2 * 2 + 1));
    assert.deepEqual((run.pathUnsupported ?? []).map((u) => `${u.mover}/${u.initiator} ${u.src}:${u.dst}`).sort(), [
      'engine/device -1:0',
      'engine/device 0:-1',
      'engine/device 0:0',
    ]);

    const panel = api.sweepPanel(run.header.id);
    assert.ok(panel, 'a panel shows the run');
    const view = await finishedView('the webview to receive the finished run', panel, 'sweep');
    assert.deepEqual(view.pairs.map((p) => p.label).sort(), ['GPU 0 local', 'GPU 0 → host', 'host → GPU 0'].sort());
    assert.equal(view.unsupported.length, 3);
    assert.ok(
      view.unsupported.every((u) => /two GPUs/.test(u.reason)),
      'each unsupported path says why',
    );
  });
});
