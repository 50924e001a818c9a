import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matrixArgs } from '../../src/core/matrix/matrixOptions';
import { parseMatrixHostMessage, parseMatrixWebviewMessage } from '../../src/core/matrix/matrixMessages';
import { matrixTable } from '../../src/core/matrix/matrixTable';
import { matrixPageView } from '../../src/core/matrix/matrixView';
import type { MatrixCell } from '../../src/core/protocol';
import { parseLine, validateRecord } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { applySavedValue, newRun, RunHeaderSchema } from '../../src/core/run';
import * as v from 'valibot';
import { formatGbps } from '../../src/core/units';
import { header } from '../support/records';

const fixture = readFileSync(join(__dirname, '../fixtures/runs/sim-matrix-seed1.ndjson'), 'utf8');
const concurrentFixture = readFileSync(join(__dirname, '../fixtures/runs/sim-matrix-concurrent-seed1.ndjson'), 'utf8');

function load(text: string): Run {
  const lines = text.split('\n').filter(Boolean);
  const run = newRun(v.parse(RunHeaderSchema, JSON.parse(lines[0]!)));
  for (const line of lines.slice(1)) applySavedValue(run, JSON.parse(line));
  return run;
}

/** A helper fixture whose every record line validates, folded into a run that saw no problem. */
function loadValid(text: string): Run {
  for (const line of text.split('\n').filter(Boolean).slice(1, -1)) expect(parseLine(line).kind).toBe('record');
  const run = load(text);
  expect(run.problems).toEqual([]);
  return run;
}

function cell(src: number, dst: number, gbps: number, over: Partial<MatrixCell> = {}): MatrixCell {
  const sizeBytes = 1 << 26;
  const medianNs = sizeBytes / gbps;
  return {
    type: 'matrix-cell',
    mover: 'engine',
    initiator: 'host',
    src,
    dst,
    sizeBytes,
    cus: 0,
    engines: 1,
    iters: 5,
    medianNs,
    meanNs: medianNs,
    minNs: medianNs,
    maxNs: medianNs,
    gbps,
    gbpsMean: gbps,
    validated: true,
    ...over,
  };
}

function runOf(cells: MatrixCell[], args = ['matrix', '--paths', 'engine/host', '--gpus', '0,1,2']): Run {
  const run = newRun({ ...header('m', args), command: 'matrix' });
  run.matrixCells = cells;
  return run;
}

describe('matrix records', () => {
  it('every line of the real helper fixture validates, and the run folds them', () => {
    const run = loadValid(fixture);
    expect(run.matrixCells).toHaveLength(23);
    expect(run.errors.filter((e) => e.cell)).toHaveLength(1);
  });
  it('rejects a cell with a negative bandwidth or an unknown mover', () => {
    expect(validateRecord({ ...cell(0, 1, 50), gbps: -1 }).kind).toBe('malformed');
    expect(validateRecord({ ...cell(0, 1, 50), mover: 'dma' }).kind).toBe('malformed');
    expect(
      validateRecord({
        type: 'error',
        code: 'x',
        message: 'm',
        cell: { mover: 'cu', initiator: 'host', src: -2, dst: 0 },
      }).kind,
    ).toBe('malformed');
    expect(
      validateRecord({
        type: 'error',
        code: 'x',
        message: 'm',
        cell: { mover: 'cu', initiator: 'host', src: -1, dst: 0 },
      }).kind,
    ).toBe('record');
  });
});

describe('the matrix view model', () => {
  it('lays the fixture out as 4 x 4 grids per path, sources in rows, the diagonal blank', () => {
    const view = matrixPageView(load(fixture));
    expect(view.simulated).toBe(true);
    expect(view.sizeBytes).toBe(64 << 20);
    expect(view.paths.map((p) => p.path)).toEqual(['cu/host', 'engine/host']);
    const [cu, engine] = view.paths;
    expect(cu!.gpus).toEqual([0, 1, 2, 3]);
    expect(cu!.label).toBe('cu/host · 64 CUs');
    expect(cu!.rows.map((r) => r.map((c) => c.state === 'self'))).toEqual(
      [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => i === j)),
    );
    expect(cu!.rows[2]![1]).toMatchObject({ src: 2, dst: 1, state: 'measured' });
    expect(cu!.measured).toBe(12);
    expect(engine!.measured).toBe(11);
    expect(engine!.failed).toBe(1);
    expect(engine!.rows[0]![3]).toMatchObject({ state: 'failed' });
    expect(engine!.rows[0]![3]!.error).toMatch(
      /^validation: the destination of engine\/host GPU 0 -> GPU 3 held wrong bytes/,
    );
  });
  it('min, median and max come from the measured cells; the lowest is not called weak when it is within the noise', () => {
    const run = load(fixture);
    const view = matrixPageView(run);
    const cu = view.paths[0]!;
    const values = run
      .matrixCells!.filter((c) => c.mover === 'cu')
      .map((c) => c.gbps)
      .sort((a, b) => a - b);
    expect(cu.stats).toEqual({ minGbps: values[0], medianGbps: (values[5]! + values[6]!) / 2, maxGbps: values[11] });
    const low = run.matrixCells!.find((c) => c.mover === 'cu' && c.gbps === values[0])!;
    // The simulated node's pairs differ by its seeded noise only (about 1%): no pair stands out.
    expect(cu.weakest).toEqual([]);
    expect(cu.rows.flat().some((c) => c.weakest)).toBe(false);
    expect(cu.weakestText).toMatch(
      new RegExp(
        `^No pair stands out: the slowest, GPU ${low.src} → GPU ${low.dst} at ${formatGbps(low.gbps)} GB/s, is \\d\\.\\d% below the median ${formatGbps(cu.stats!.medianGbps)} \\(weak: more than 5% below the median of its kind and a modified z-score below −3\\.5\\)\\.$`,
      ),
    );
    // Coloured by the share of the best cell: a few percent of noise stays near the top.
    const levels = cu.rows
      .flat()
      .filter((c) => c.state === 'measured')
      .map((c) => c.level!);
    expect(Math.max(...levels)).toBe(1);
    expect(Math.min(...levels)).toBeCloseTo(2 * (values[0]! / values[11]!) - 1, 9);
    expect(Math.min(...levels)).toBeGreaterThan(0.8);
  });
  it('a pair 0.7% from the median is not framed as weak: no pair stands out', () => {
    const p = matrixPageView(
      runOf([cell(0, 1, 57.2), cell(0, 2, 57), cell(1, 0, 56.6), cell(1, 2, 57.1), cell(2, 0, 56.9), cell(2, 1, 57)]),
    ).paths[0]!;
    expect(p.weakest).toEqual([]);
    expect(p.rows.flat().some((c) => c.weakest)).toBe(false);
    expect(p.weakestText).toBe(
      'No pair stands out: the slowest, GPU 1 → GPU 0 at 56.60 GB/s, is 0.7% below the median 57.00 (weak: more than 5% below the median of its kind and a modified z-score below −3.5).',
    );
  });
  it("a pair is weak only beyond the fleet's outlier rule (median/MAD, |z| > 3.5 and more than 5% off), and below the median", () => {
    // Far below the others: weak, with how far and its z-score.
    const p = matrixPageView(
      runOf([cell(0, 1, 60), cell(0, 2, 59.8), cell(1, 0, 41), cell(1, 2, 60.2), cell(2, 0, 59.9), cell(2, 1, 60.1)]),
    ).paths[0]!;
    expect(p.weakest).toEqual([{ src: 1, dst: 0, gbps: 41 }]);
    expect(p.rows[1]![0]!.weakest).toBe(true);
    expect(p.rows.flat().filter((c) => c.weakest)).toHaveLength(1);
    expect(p.weakestText).toBe(
      'Weak pair: GPU 1 → GPU 0, 41.00 GB/s, 31.6% below the median 59.95 (modified z-score −31.6).',
    );
    // Several, slowest first.
    const two = matrixPageView(
      runOf(
        [
          cell(0, 1, 60),
          cell(0, 2, 44),
          cell(1, 0, 41),
          cell(1, 2, 60.2),
          cell(2, 0, 59.9),
          cell(2, 1, 60.1),
          cell(0, 3, 60),
          cell(3, 0, 60.1),
        ],
        ['matrix', '--paths', 'engine/host', '--gpus', '0,1,2,3'],
      ),
    ).paths[0]!;
    expect(two.weakest.map((w) => [w.src, w.dst])).toEqual([
      [1, 0],
      [0, 2],
    ]);
    expect(two.weakestText).toBe(
      'Weak pairs: GPU 1 → GPU 0 (41.00 GB/s, 31.7% below the median 60.00), GPU 0 → GPU 2 (44.00 GB/s, 26.7% below the median 60.00).',
    );
    // Far out on the z-score but less than 5% off (a very tight node): not weak.
    const tight = matrixPageView(
      runOf([cell(0, 1, 60), cell(0, 2, 60), cell(1, 0, 58), cell(1, 2, 60), cell(2, 0, 60), cell(2, 1, 60)]),
    ).paths[0]!;
    expect(tight.weakest).toEqual([]);
    expect(tight.weakestText).toMatch(
      /^No pair stands out: the slowest, GPU 1 → GPU 0 at 58\.00 GB\/s, is 3\.3% below the median 60\.00/,
    );
    // Far above the others is not weak.
    expect(
      matrixPageView(
        runOf([cell(0, 1, 60), cell(0, 2, 59.8), cell(1, 0, 90), cell(1, 2, 60.2), cell(2, 0, 59.9), cell(2, 1, 60.1)]),
      ).paths[0]!.weakest,
    ).toEqual([]);
    // Too few pairs to judge (a 2-GPU node).
    expect(
      matrixPageView(runOf([cell(0, 1, 60), cell(1, 0, 30)], ['matrix', '--paths', 'engine/host', '--gpus', '0,1']))
        .paths[0]!.weakestText,
    ).toBe(
      'No pair stands out: 2 measured pairs are too few to judge (at least 3 of a kind: between GPUs, host to GPU, GPU to host).',
    );
  });
  it('host pairs are judged against host pairs: PCIe slower than the GPU links is not a weak pair', () => {
    const gpus = [0, 1, 2, 3];
    const cells = gpus.flatMap((s) => gpus.filter((d) => d !== s).map((d) => cell(s, d, 180 + s - d)));
    cells.push(...gpus.flatMap((g) => [cell(-1, g, 52 + g / 10), cell(g, -1, 51 + g / 10)]));
    const p = matrixPageView(runOf(cells, ['matrix', '--paths', 'engine/host', '--gpus', 'host,0,1,2,3'])).paths[0]!;
    expect(p.weakest).toEqual([]);
    // A host link that is slow among host links is.
    cells[cells.length - 1] = cell(3, -1, 20);
    const q = matrixPageView(runOf(cells, ['matrix', '--paths', 'engine/host', '--gpus', 'host,0,1,2,3'])).paths[0]!;
    expect(q.weakest).toEqual([{ src: 3, dst: -1, gbps: 20 }]);
    expect(q.weakestText).toMatch(/^Weak pair: GPU 3 → host, 20\.00 GB\/s, 60\.\d% below the median 51\.\d\d/);
  });
  it('marks cells not measured yet as missing, and says so when nothing was measured', () => {
    const p = matrixPageView(runOf([cell(0, 1, 60)])).paths[0]!;
    expect(p.missing).toBe(5);
    expect(p.rows[1]![0]!.state).toBe('missing');
    expect(matrixPageView(runOf([])).paths[0]!.weakestText).toBe('No cell measured yet.');
  });
  it('a link at half the best or less is at the bottom of the scale', () => {
    const p = matrixPageView(runOf([cell(0, 1, 60), cell(0, 2, 45), cell(1, 0, 30), cell(1, 2, 20)])).paths[0]!;
    expect(p.rows[0]![1]).toMatchObject({ level: 1 });
    expect(p.rows[0]![2]!.level).toBeCloseTo(0.5);
    expect(p.rows[1]![0]).toMatchObject({ level: 0 });
    expect(p.rows[1]![2]).toMatchObject({ level: 0, weakest: false });
  });
  it('the view passes the schema the page checks it with', () => {
    const view = JSON.parse(JSON.stringify(matrixPageView(load(fixture))));
    expect(parseMatrixHostMessage({ type: 'matrix-view', view })).toBeDefined();
    expect(
      parseMatrixHostMessage({
        type: 'matrix-view',
        view: { ...view, paths: [{ ...view.paths[0], rows: [[{ src: 0, dst: 0, state: 'odd', weakest: false }]] }] },
      }),
    ).toBeUndefined();
    expect(parseMatrixWebviewMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(parseMatrixWebviewMessage({ type: 'run', command: 'rm' })).toBeUndefined();
  });
});

describe('the matrix as text', () => {
  it('prints a grid per path, the failed cell and the SIMULATED line; no pair marked weak within the noise', () => {
    const text = matrixTable(load(fixture));
    expect(text).toContain('# SIMULATED');
    expect(text).toContain('# cu/host · 64 CUs');
    expect(text).toMatch(/^#\s+src\\dst\s+0\s+1\s+2\s+3$/m);
    expect(text).toMatch(/^\s+0\s+-\s+[\d.]+\*?\s+[\d.]+\*?\s+failed$/m);
    expect(text).not.toMatch(/\d\*/);
    expect(
      text.match(/^# No pair stands out: the slowest, GPU \d → GPU \d at [\d.]+ GB\/s, is \d\.\d% below the median/gm),
    ).toHaveLength(2);
    expect(text).not.toMatch(/Weakest/);
    expect(text).toContain('# failed GPU 0 → GPU 3: validation');
  });
});

describe('the concurrent matrix (all pairs at once)', () => {
  it('every line of the real helper fixture validates; cells say concurrent, one total per path', () => {
    const run = loadValid(concurrentFixture);
    expect(run.matrixCells).toHaveLength(112);
    expect(run.matrixCells!.every((c) => c.concurrent === true)).toBe(true);
    expect(run.matrixTotals!.map((t) => `${t.mover}/${t.initiator}`)).toEqual(['cu/host', 'engine/host']);
  });
  it('rejects a total without time or with a negative sum', () => {
    const total = load(concurrentFixture).matrixTotals![0]!;
    expect(validateRecord(total).kind).toBe('record');
    expect(validateRecord({ ...total, seconds: 0 }).kind).toBe('malformed');
    expect(validateRecord({ ...total, gpus: [{ gpu: 0, sendGbps: -1, receiveGbps: 1 }] }).kind).toBe('malformed');
  });
  it("per GPU: send is its row's sum, receive its column's, and the helper's sums agree", () => {
    const run = load(concurrentFixture);
    const view = matrixPageView(run);
    expect(view.concurrent).toBe(true);
    for (const p of view.paths) {
      expect(p.concurrent).toBe(true);
      const cells = run.matrixCells!.filter((c) => `${c.mover}/${c.initiator}` === p.path);
      const record = run.matrixTotals!.find((t) => `${t.mover}/${t.initiator}` === p.path)!;
      expect(p.gpuTotals!.map((g) => g.gpu)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      for (const g of p.gpuTotals!) {
        const send = cells.filter((c) => c.src === g.gpu).reduce((sum, c) => sum + c.gbps, 0);
        const receive = cells.filter((c) => c.dst === g.gpu).reduce((sum, c) => sum + c.gbps, 0);
        expect(g.sendGbps).toBeCloseTo(send, 9);
        expect(g.receiveGbps).toBeCloseTo(receive, 9);
        const helperSums = record.gpus.find((x) => x.gpu === g.gpu)!;
        expect(helperSums.sendGbps).toBeCloseTo(send, 2);
        expect(helperSums.receiveGbps).toBeCloseTo(receive, 2);
      }
      expect(p.total).toEqual({
        pairs: 56,
        bytes: record.bytes,
        seconds: record.seconds,
        gbps: record.gbps,
        cellSumGbps: p.gpuTotals!.reduce((sum, g) => sum + g.sendGbps, 0),
      });
      // The slowest pair of each iteration sets its window: the total is at most the cells' sum.
      expect(p.total!.gbps).toBeLessThanOrEqual(p.total!.cellSumGbps);
      expect(p.totalText).toMatch(/^All 56 pairs at once: [\d.]+ GB\/s in total .*the cells add up to [\d.]+ GB\/s\.$/);
      expect(p.weakestText).toMatch(/^No pair stands out/);
    }
    expect(parseMatrixHostMessage({ type: 'matrix-view', view: JSON.parse(JSON.stringify(view)) })).toBeDefined();
  });
  it('a failed pair: sums over the measured cells, and no total for the path', () => {
    const run = runOf(
      [
        cell(0, 1, 50, { concurrent: true }),
        cell(0, 2, 40, { concurrent: true }),
        cell(1, 0, 30, { concurrent: true }),
        cell(2, 0, 20, { concurrent: true }),
        cell(2, 1, 10, { concurrent: true }),
      ],
      ['matrix', '--paths', 'engine/host', '--gpus', '0,1,2', '--concurrent'],
    );
    run.errors.push({
      type: 'error',
      code: 'validation',
      message: 'wrong bytes',
      cell: { mover: 'engine', initiator: 'host', src: 1, dst: 2 },
    });
    const p = matrixPageView(run).paths[0]!;
    expect(p.gpuTotals).toEqual([
      { gpu: 0, sendGbps: 90, receiveGbps: 50 },
      { gpu: 1, sendGbps: 30, receiveGbps: 60 },
      { gpu: 2, sendGbps: 30, receiveGbps: 40 },
    ]);
    expect(p.total).toBeUndefined();
    expect(p.totalText).toBe('All pairs at once: 1 pair failed, so there is no total for the path.');
  });
  it('pairs measured alone get no sums: adding separate measurements would mean nothing', () => {
    const view = matrixPageView(load(fixture));
    expect(view.concurrent).toBe(false);
    expect(view.paths.every((p) => p.gpuTotals === undefined && p.total === undefined && !p.concurrent)).toBe(true);
  });
  it('the text form says all pairs at once and prints the sums and the total', () => {
    const run = load(concurrentFixture);
    const text = matrixTable(run);
    expect(text).toMatch(/all pairs of a path at once/);
    expect(text).toContain('# SIMULATED');
    const view = matrixPageView(run);
    const g3 = view.paths[1]!.gpuTotals![3]!;
    expect(text).toMatch(
      new RegExp(
        `^\\s+3\\s+${formatGbps(g3.sendGbps).replace('.', '\\.')}\\s+${formatGbps(g3.receiveGbps).replace('.', '\\.')}$`,
        'm',
      ),
    );
    expect(text.match(/^# All 56 pairs at once: /gm)).toHaveLength(2);
  });
  it('failed cells with one reason print as one line', () => {
    const run = runOf([], ['matrix', '--paths', 'engine/host', '--gpus', '0,1,2', '--concurrent']);
    for (const [src, dst] of [
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 2],
      [2, 0],
      [2, 1],
    ])
      run.errors.push({
        type: 'error',
        code: 'unsupported',
        message: 'not at once',
        cell: { mover: 'engine', initiator: 'host', src: src!, dst: dst! },
      });
    const text = matrixTable(run);
    expect(text).toContain('# failed 6 cells (GPU 0 → GPU 1, ...): unsupported: not at once');
    expect(text.match(/^# failed/gm)).toHaveLength(1);
  });
});

describe('matrix options', () => {
  it('become an argument array', () => {
    expect(
      matrixArgs({
        backend: 'sim',
        paths: ['cu/host'],
        sizeBytes: 256 << 20,
        iters: 20,
        seed: 1,
        cus: 32,
        gpus: [0, 1],
      }),
    ).toEqual([
      'matrix',
      '--backend',
      'sim',
      '--paths',
      'cu/host',
      '--size',
      '256M',
      '--iters',
      '20',
      '--seed',
      '1',
      '--cus',
      '32',
      '--gpus',
      '0,1',
    ]);
  });
  it('--concurrent only when asked', () => {
    expect(
      matrixArgs({ backend: 'sim', paths: ['engine/host'], sizeBytes: 1 << 20, iters: 3, seed: 1, concurrent: true }),
    ).toContain('--concurrent');
    expect(
      matrixArgs({ backend: 'sim', paths: ['engine/host'], sizeBytes: 1 << 20, iters: 3, seed: 1, concurrent: false }),
    ).not.toContain('--concurrent');
  });
  it.each([
    [{ concurrent: 'yes' }, /concurrent must be true or false/],
    [{ gpus: [3] }, /two or more/],
    [{ gpus: [1, 1] }, /twice/],
    [{ sizeBytes: 0 }, /size/],
    [{ paths: ['dma/host'] }, /unknown path/],
    [{ cus: 0 }, /CU count/],
  ])('refuse %j', (over, message) => {
    expect(() =>
      matrixArgs({ backend: 'sim', paths: ['cu/host'], sizeBytes: 1 << 20, iters: 3, seed: 1, ...(over as object) }),
    ).toThrow(message);
  });
});
