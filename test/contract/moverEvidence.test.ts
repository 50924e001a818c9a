/**
 * Mover evidence against the real helper (sim backend): every sample and matrix cell carries the
 * simulator's evidence; `--fault mislabel-after=N` gives a sample whose evidence contradicts its
 * label, then the error mover-mismatch and exit 4; the extension's session and run store keep
 * that sample and the error, a reopened run is the same, and the views flag it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MatrixCell, Sample } from '../../src/core/protocol';
import { pathName } from '../../src/core/protocol';
import { RunStore } from '../../src/core/runs/runStore';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { runSession } from '../../src/core/runtime/session';
import { sweepTable } from '../../src/core/sweep/sweepTable';
import { contradictingPoints, sweepView } from '../../src/core/sweep/sweepView';
import { matrixPageView } from '../../src/core/matrix/matrixView';
import { header } from '../support/records';
import { runCli } from '../support/cli';
import { helper, records } from './run';

const SWEEP = ['sweep', '--backend', 'sim', '--sizes', '1M,2M', '--paths', 'cu/host,engine/host', '--cus', '8'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-mover-evidence-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the helper prints mover evidence', () => {
  it("sweep: every sample carries the simulator's evidence, matching its label", () => {
    const run = helper(SWEEP);
    expect(run.status).toBe(0);
    const samples = records(run).filter((r): r is Sample => r.type === 'sample');
    expect(samples).toHaveLength(4);
    for (const s of samples)
      expect(s.moverEvidence).toMatchObject({ source: 'simulated', observed: s.mover, verdict: 'matches' });
  });

  it('sweep --fault mislabel-after=1: a contradicting sample, then mover-mismatch, then done error, exit 4', () => {
    const run = helper([...SWEEP, '--fault', 'mislabel-after=1']);
    expect(run.status).toBe(4);
    const rs = records(run).filter((r) => r.type !== 'progress');
    const i = rs.findIndex((r) => r.type === 'sample' && r.moverEvidence?.verdict === 'contradicts');
    expect(i).toBeGreaterThan(0);
    const flagged = rs[i] as Sample;
    expect(flagged).toMatchObject({ mover: 'engine', moverEvidence: { source: 'simulated', observed: 'cu' } });
    expect(rs[i + 1]).toMatchObject({ type: 'error', code: 'mover-mismatch' });
    expect(rs[i + 2]).toMatchObject({ type: 'done', status: 'error' });
    // Before it, every sample's evidence matches.
    for (const r of rs.slice(0, i)) if (r.type === 'sample') expect(r.moverEvidence?.verdict).toBe('matches');
  });

  it('matrix --fault mislabel-after=0: each engine cell contradicts, each followed by its own mover-mismatch with the cell, exit 4', () => {
    const run = helper([
      'matrix',
      '--backend',
      'sim',
      '--size',
      '1M',
      '--sim-gpus',
      '2',
      '--fault',
      'mislabel-after=0',
    ]);
    expect(run.status).toBe(4);
    const rs = records(run).filter((r) => r.type !== 'progress');
    const cells = rs.filter((r): r is MatrixCell => r.type === 'matrix-cell');
    expect(cells.length).toBeGreaterThan(0);
    for (const c of cells) {
      expect(c.moverEvidence?.source).toBe('simulated');
      expect(c.moverEvidence?.verdict).toBe(c.mover === 'engine' ? 'contradicts' : 'matches');
      if (c.mover !== 'engine') continue;
      const next = rs[rs.indexOf(c) + 1];
      expect(next).toMatchObject({
        type: 'error',
        code: 'mover-mismatch',
        cell: { mover: c.mover, initiator: c.initiator, src: c.src, dst: c.dst },
      });
    }
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});

describe('the extension keeps the contradicting sample and the error', () => {
  it('through the session and the run store, live and reopened, with the views flagging it', async () => {
    const store = new RunStore(join(dir, 'session'));
    const args = [...SWEEP, '--fault', 'mislabel-after=1'];
    const live = await runSession({
      target: new LocalTarget(),
      store,
      header: { ...header('mislabel'), helper: { path: inject('helperPath'), args } },
    });
    const reopened = await store.open('mislabel');
    for (const run of [live, reopened]) {
      expect(run.problems).toEqual([]);
      const flagged = run.samples.filter((s) => s.moverEvidence?.verdict === 'contradicts');
      expect(flagged).toHaveLength(1);
      expect(pathName(flagged[0]!.mover, flagged[0]!.initiator)).toBe('engine/host');
      expect(run.errors.map((e) => e.code)).toEqual(['mover-mismatch']);
      expect(run.end).toMatchObject({ status: 'error', exitCode: 4 });
      expect(run.end?.message).toMatch(/^mover mismatch: engine\/host 1M, GPU 0 -> GPU 1: labelled engine/);
      const view = sweepView(run);
      expect(contradictingPoints(view)).toHaveLength(1);
      expect(sweepTable(run)).toMatch(/✗ contradicts/);
    }
  });

  it('the CLI prints the flagged sample and says the run ended with a mover mismatch (exit 1, as any failed run)', async () => {
    const { code, out, err } = await runCli([
      ...SWEEP,
      '--fault',
      'mislabel-after=1',
      '--runs-dir',
      join(dir, 'cli'),
      '--helper',
      inject('helperPath'),
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(/^\s+1 MiB\s+[\d.]+ ✗\s+✗ contradicts$/m);
    expect(err).toMatch(/the run failed: mover mismatch: .*\(exit code 4\)/);
  });

  it('a matrix run keeps every cell, the contradicting ones flagged and out of the stats', async () => {
    const store = new RunStore(join(dir, 'matrix'));
    const args = ['matrix', '--backend', 'sim', '--size', '1M', '--sim-gpus', '2', '--fault', 'mislabel-after=0'];
    const run = await runSession({
      target: new LocalTarget(),
      store,
      header: { ...header('mislabel-matrix'), command: 'matrix', helper: { path: inject('helperPath'), args } },
    });
    expect(run.problems).toEqual([]);
    expect(run.end).toMatchObject({ status: 'error', exitCode: 4 });
    const view = matrixPageView(run);
    const engine = view.paths.find((p) => p.path === 'engine/host')!;
    expect(engine.contradicts).toBe(engine.measured);
    expect(engine.stats).toBeUndefined();
    const cu = view.paths.find((p) => p.path === 'cu/host')!;
    expect(cu.contradicts).toBeUndefined();
    expect(cu.evidenceText).toMatch(/^\d+ simulated$/);
  });
});
