/**
 * The matrix on real hardware: what `sdma-probe matrix --backend cuda` printed on 2x H200
 * (bench/device/run-h200-matrix.sh, kept in bench/results/h200x2-matrix-2026-11-30/). Every
 * line validates, every ordered pair of every path was measured and checked, and the view
 * model the panel draws names the weakest pair from those numbers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { HelperRecord } from '../../src/core/protocol';
import { PATHS, parseLine } from '../../src/core/protocol';
import { applyRecord, newRun, runHeader } from '../../src/core/run';
import { matrixPageView } from '../../src/core/matrixView';

const folder = () => join(inject('repoRoot'), 'bench', 'results', 'h200x2-matrix-2026-11-30');

function load(): HelperRecord[] {
  return readFileSync(join(folder(), 'matrix.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line, i) => {
      const r = parseLine(line);
      if (r.kind !== 'record') throw new Error(`matrix.ndjson:${i + 1}: ${r.kind === 'malformed' ? r.reason : r.type}`);
      return r.record;
    });
}

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
    expect(cells.filter((c) => c.mover === 'engine' && c.initiator === 'device').every((c) => c.label === 'proxy-initiated')).toBe(true);
  });

  it('the panel\'s view names the lowest cell of each path as its weakest pair', () => {
    const run = newRun(runHeader('h200-matrix', 'matrix', 'sdma-probe', ['matrix', '--backend', 'cuda', '--size', '256M']));
    for (const r of records) applyRecord(run, r);
    const view = matrixPageView(run);
    expect(view.simulated).toBe(false);
    expect(view.paths.map((p) => p.path).sort()).toEqual([...PATHS].sort());
    for (const p of view.paths) {
      const mine = cells.filter((c) => `${c.mover}/${c.initiator}` === p.path);
      const lowest = mine.reduce((a, b) => (b.gbps < a.gbps ? b : a));
      expect(p.measured).toBe(2);
      expect(p.weakest.map((w) => `${w.src}->${w.dst}`)).toContain(`${lowest.src}->${lowest.dst}`);
      expect(p.weakestText).toMatch(/^Weakest pairs?/);
    }
  });

  it('the summary committed beside it was made from these cells', () => {
    const summary = JSON.parse(readFileSync(join(folder(), 'summary.json'), 'utf8')) as { matrix: { path: string; minGbps: number; cells: number }[] };
    for (const row of summary.matrix) {
      const mine = cells.filter((c) => `${c.mover}/${c.initiator}` === row.path);
      expect(row.cells).toBe(mine.length);
      expect(row.minGbps).toBeCloseTo(Math.min(...mine.map((c) => c.gbps)), 3);
    }
  });
});
