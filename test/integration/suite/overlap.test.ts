import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { Run } from '../../../src/core/run';
import { activeApi, finishedView, invocations, readRunFile } from './support';

const ARGS = ['--compute', 'gemm,triad', '--paths', 'cu/host,engine/host', '--cus', '64', '--size', '64M,256M'];
ARGS.push('--phase-ms', '50', '--src', '0', '--dst', '0');

suite('a simulated compute overlap, GEMM and triad against the CU arithmetic', () => {
  test('the helper runs what was asked; the saved run, its panel and its advice set each copy beside the arithmetic', async () => {
    const api = await activeApi();
    const before = invocations().filter((i) => i.args[0] === 'overlap').length;
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runOverlap', {
      backend: 'sim',
      args: ARGS,
    });
    assert.ok(run, 'the command returns the run');
    assert.equal(run.end?.status, 'ok', run.end?.message);
    const args = invocations()
      .filter((i) => i.args[0] === 'overlap')
      .slice(before)[0]?.args;
    assert.ok(args?.includes('gemm,triad'), `the helper got --compute (${args?.join(' ')})`);

    // The saved file as written: every beside record carries the arithmetic and what moved the bytes.
    const beside = readRunFile(run.header.id).filter((l) => l.type === 'overlap' && l.phase === 'beside');
    assert.equal(beside.length, 2 * 2 * 2, 'gemm and triad beside two copies at two sizes');
    for (const r of beside) {
      assert.equal(typeof r.cuArithmetic, 'number');
      assert.equal(typeof r.bandwidthKept, 'number');
      assert.equal(typeof r.mechanism, 'string');
      assert.equal(r.telemetry, 'model');
    }

    const panel = api.collectivePanel(run.header.id);
    assert.ok(panel, 'the collective panel shows the overlap run');
    const view = await finishedView('the page to receive the finished overlap run', panel, 'collective-view');
    assert.deepEqual(view.overlap.sizes, [64 * 1024 * 1024, 256 * 1024 * 1024]);
    const gemm = view.overlap.rows.find(
      (r) => r.compute === 'gemm' && r.path === 'cu/host' && r.copySizeBytes === 256 << 20,
    );
    assert.ok(gemm, 'a GEMM row beside the CU copy');
    assert.equal(gemm.cuArithmetic, 0.75);
    const triad = view.overlap.rows.find((r) => r.compute === 'triad' && r.path === 'cu/host');
    assert.equal(triad?.bound, 'memory');
    assert.ok(view.overlap.claims.length >= 2, 'a claim per compute kind and size');
    assert.ok(view.overlap.claims.every((c) => c.arithmeticRatio !== null));
    assert.ok(
      view.cuBudget.some((l) => /^TRIAD \(memory-bound, simulated\)/.test(l)),
      view.cuBudget.join('\n'),
    );
    panel.dispose();
  });
});
