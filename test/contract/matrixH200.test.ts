/**
 * The matrix on real hardware: what `sdma-probe matrix --backend cuda` printed on 2x H200
 * (bench/device/run-h200-matrix.sh, kept in bench/results/h200x2-matrix-2026-11-30/). Every
 * line validates, every ordered pair of every path was measured and checked, and the view
 * model the panel draws judges no pair weak from two pairs a path (too few to judge).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PATHS } from '../../src/core/protocol';
import { applyRecord, newRun, runHeader } from '../../src/core/run';
import { recordedRecords } from './run';
import { matrixPageView } from '../../src/core/matrix/matrixView';

const folder = () => join(inject('repoRoot'), 'bench', 'results', 'h200x2-matrix-2026-11-30');

const load = (file = 'matrix.ndjson') => recordedRecords('bench', 'results', 'h200x2-matrix-2026-11-30', file);

describe('matrix on 2x H200 (recorded)', () => {
  const records = load();
  const cells = records.filter((r) => r.type === 'matrix-cell');

  it('every line validates; a real node, every path x ordered pair measured once and validated', () => {
    expect(records[0]).toMatchObject({ type: 'hello', command: 'matrix', backend: 'cuda', simulated: false });
    expect(records.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    expect(records.filter((r) => r.type === 'error')).toEqual([]);
    const seen = new Set(cells.map((c) => `${c.mover}/${c.initiator} ${c.src}->${c.dst}`));
    expect(seen.size).toBe(cells.length);
    expect(cells.length).toBe(PATHS.length * 2);
    for (const c of cells) {
      expect(c.validated).toBe(true);
      expect(c.sizeBytes).toBe(256 * 1024 * 1024);
      expect(c.gbps).toBeCloseTo(c.sizeBytes / c.medianNs, 2); // printed to 6 significant digits
    }
    // The proxy-initiated path says so in every cell.
    expect(
      cells.filter((c) => c.mover === 'engine' && c.initiator === 'device').every((c) => c.label === 'proxy-initiated'),
    ).toBe(true);
  });

  it("the panel's view calls no pair weak: two pairs a path are too few to judge", () => {
    const run = newRun(
      runHeader('h200-matrix', 'matrix', 'sdma-probe', ['matrix', '--backend', 'cuda', '--size', '256M']),
    );
    for (const r of records) applyRecord(run, r);
    const view = matrixPageView(run);
    expect(view.simulated).toBe(false);
    expect(view.paths.map((p) => p.path).sort()).toEqual([...PATHS].sort());
    for (const p of view.paths) {
      expect(p.measured).toBe(2);
      expect(p.weakest).toEqual([]);
      expect(p.weakestText).toBe(
        'No pair stands out: 2 measured pairs are too few to judge (at least 3 of a kind: between GPUs, host to GPU, GPU to host).',
      );
    }
  });

  it('the summary committed beside it was made from these cells', () => {
    const summary = JSON.parse(readFileSync(join(folder(), 'summary.json'), 'utf8')) as {
      matrix: { path: string; minGbps: number; cells: number }[];
    };
    for (const row of summary.matrix) {
      const mine = cells.filter((c) => `${c.mover}/${c.initiator}` === row.path);
      expect(row.cells).toBe(mine.length);
      expect(row.minGbps).toBeCloseTo(Math.min(...mine.map((c) => c.gbps)), 3);
    }
  });

  it('all pairs at once: every pair measured under load, its total consistent with its cells, none faster than alone by more than noise', () => {
    const conc = load('matrix-concurrent.ndjson');
    expect(conc.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    const concCells = conc.filter((r) => r.type === 'matrix-cell');
    const totals = conc.filter((r) => r.type === 'matrix-total');
    expect(concCells.every((c) => c.concurrent === true && c.validated)).toBe(true);
    expect(totals.map((t) => `${t.mover}/${t.initiator}`).sort()).toEqual(['cu/host', 'engine/host']);
    for (const t of totals) {
      const mine = concCells.filter((c) => c.mover === t.mover && c.initiator === t.initiator);
      expect(t.pairs).toBe(mine.length);
      expect(t.gbps).toBeCloseTo(t.bytes / t.seconds / 1e9, 1);
      // The aggregate spans first start to last end, so it cannot beat the cells' sum.
      expect(t.gbps).toBeLessThanOrEqual(mine.reduce((sum, c) => sum + c.gbps, 0) * 1.001);
      for (const c of mine) {
        const alone = cells.find(
          (a) => a.mover === c.mover && a.initiator === c.initiator && a.src === c.src && a.dst === c.dst,
        )!;
        expect(c.gbps).toBeLessThan(alone.gbps * 1.02);
      }
    }
    const run = newRun(
      runHeader('h200-matrix-concurrent', 'matrix', 'sdma-probe', [
        'matrix',
        '--backend',
        'cuda',
        '--size',
        '256M',
        '--paths',
        'cu/host,engine/host',
        '--concurrent',
      ]),
    );
    for (const r of conc) applyRecord(run, r);
    for (const p of matrixPageView(run).paths)
      expect(p.totalText).toMatch(/^All 2 pairs at once: [\d.]+ GB\/s in total/);
  });

  it('all pairs at once on the device-initiated paths: a clear unsupported error per cell, the host paths still measured', () => {
    const all = load('concurrent-all.ndjson');
    const errors = all.filter((r) => r.type === 'error' && r.cell);
    expect(errors.length).toBe(4);
    expect(
      errors.every(
        (e) =>
          e.type === 'error' && e.code === 'unsupported' && e.cell!.initiator === 'device' && (e.hint ?? '').length > 0,
      ),
    ).toBe(true);
    expect(all.filter((r) => r.type === 'matrix-total')).toHaveLength(2);
    expect(all.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});
