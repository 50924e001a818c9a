/** `sdma-probe matrix` and `sdma-lens matrix` against the real binary (docs/MATRIX.md). */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ErrorRecord, MatrixCell, MatrixTotal } from '../../src/core/protocol';
import { PATHS, parseLine, pathName } from '../../src/core/protocol';
import { runCli } from '../support/cli';
import { helper, records } from './run';

const cellsOf = (rs: ReturnType<typeof records>) => rs.filter((r): r is MatrixCell => r.type === 'matrix-cell');
const totalsOf = (rs: ReturnType<typeof records>) => rs.filter((r): r is MatrixTotal => r.type === 'matrix-total');
const key = (c: MatrixCell) => `${pathName(c.mover, c.initiator)} ${c.src}>${c.dst}`;

describe('sdma-probe matrix on the simulated 8-GPU node', () => {
  const r = helper(['matrix', '--backend', 'sim', '--iters', '3']);
  const rs = records(r);
  const cells = cellsOf(rs);

  it('measures every ordered pair src != dst once per path, at 256 MiB by default', () => {
    expect(r.status).toBe(0);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'matrix', simulated: true });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok', samples: 4 * 56 });
    for (const path of PATHS) {
      const pairs = cells.filter((c) => pathName(c.mover, c.initiator) === path).map((c) => `${c.src}>${c.dst}`);
      expect(new Set(pairs).size).toBe(56);
      expect(pairs.some((p) => p === '3>3')).toBe(false);
    }
    expect(new Set(cells.map((c) => c.sizeBytes))).toEqual(new Set([256 << 20]));
    expect(cells.every((c) => c.validated && c.iters === 3)).toBe(true);
  });

  it('runs the pairs path by path, one at a time, with progress after each cell', () => {
    const order = cells.map((c) => pathName(c.mover, c.initiator));
    expect(order.slice(0, 56).every((p) => p === order[0])).toBe(true);
    const progress = rs.filter((x) => x.type === 'progress');
    expect(progress).toHaveLength(224);
    expect(progress.at(-1)).toMatchObject({ done: 224, total: 224 });
  });

  it('cu/* cells use 64 CUs by default; engine cells one engine and no CUs (engine/host)', () => {
    expect(cells.filter((c) => c.mover === 'cu').every((c) => c.cus === 64 && c.engines === 0)).toBe(true);
    expect(
      cells.filter((c) => c.mover === 'engine' && c.initiator === 'host').every((c) => c.cus === 0 && c.engines === 1),
    ).toBe(true);
  });

  it('numbers are plausible for one xGMI link (76.8 GB/s per direction) and gbps is size / median', () => {
    for (const c of cells) {
      expect(c.gbps).toBeGreaterThan(40);
      expect(c.gbps).toBeLessThan(76.8);
      expect(c.gbps).toBeCloseTo(c.sizeBytes / c.medianNs, 2);
      expect(c.minNs).toBeLessThanOrEqual(c.medianNs);
      expect(c.medianNs).toBeLessThanOrEqual(c.maxNs);
    }
  });

  it('the same seed gives the same cells; another seed other ones', () => {
    const again = cellsOf(records(helper(['matrix', '--backend', 'sim', '--iters', '3'])));
    expect(again).toEqual(cells);
    const other = cellsOf(records(helper(['matrix', '--backend', 'sim', '--iters', '3', '--seed', '2'])));
    expect(other.map((c) => c.gbps)).not.toEqual(cells.map((c) => c.gbps));
  });
});

describe('sdma-probe matrix --concurrent on the simulated 8-GPU node (all pairs at once)', () => {
  const base = ['matrix', '--backend', 'sim', '--iters', '5', '--size', '64M'];
  const serial = cellsOf(records(helper(base)));
  const r = helper([...base, '--concurrent']);
  const rs = records(r);
  const cells = cellsOf(rs);
  const totals = totalsOf(rs);
  const serialAt = new Map(serial.map((c) => [key(c), c]));

  it('measures every pair of every path, marked concurrent, with one total per path after its cells', () => {
    expect(r.status).toBe(0);
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok', samples: 4 * 56 });
    expect(cells.every((c) => c.concurrent === true && c.validated)).toBe(true);
    expect(new Set(cells.map(key)).size).toBe(224);
    expect(totals.map((t) => pathName(t.mover, t.initiator))).toEqual([...PATHS]);
    const types = rs.map((x) => x.type);
    // Per path: its 56 cells, its total, then one progress record.
    const perPath = types
      .slice(2, -1)
      .join(' ')
      .split(' progress')
      .filter(Boolean)
      .map((t) => t.trim().split(' '));
    expect(perPath).toHaveLength(4);
    for (const p of perPath) expect(p).toEqual([...Array<string>(56).fill('matrix-cell'), 'matrix-total']);
    expect(rs.filter((x) => x.type === 'progress').map((x) => (x.type === 'progress' ? x.done : 0))).toEqual([
      56, 112, 168, 224,
    ]);
  });

  it('a shared resource lowers each pair: the 400 GB/s fabric of a GPU sending to 7 peers at 61 GB/s each', () => {
    // engine/host alone: 61 GB/s per pair; 7 at once want 427 GB/s of a GPU's 400 (docs/SIMULATOR.md).
    for (const c of cells.filter((x) => pathName(x.mover, x.initiator) === 'engine/host')) {
      const alone = serialAt.get(key(c))!;
      expect(c.gbps).toBeLessThan(alone.gbps * 0.96);
      expect(c.gbps).toBeGreaterThan(alone.gbps * 0.9);
    }
  });

  it('nothing shared, nothing changes: 4 GPUs (3 peers each) give exactly the cells measured alone', () => {
    const few = [
      'matrix',
      '--backend',
      'sim',
      '--iters',
      '5',
      '--size',
      '64M',
      '--gpus',
      '0,1,2,3',
      '--paths',
      'engine/host,cu/host',
    ];
    const alone = cellsOf(records(helper(few)));
    const together = cellsOf(records(helper([...few, '--concurrent'])));
    expect(together.map(({ concurrent: _c, ...rest }) => rest)).toEqual(alone);
  });

  it("16 CUs per pair: 112 of a GPU's 256 CUs and 386 GB/s fit, so cu/host keeps its serial figure (TransferBench's a2a point)", () => {
    const args = ['matrix', '--backend', 'sim', '--iters', '5', '--size', '64M', '--paths', 'cu/host', '--cus', '16'];
    const alone = cellsOf(records(helper(args)));
    const together = cellsOf(records(helper([...args, '--concurrent'])));
    expect(together.map((c) => c.gbps)).toEqual(alone.map((c) => c.gbps));
    const sends = totalsOf(records(helper([...args, '--concurrent'])))[0]!.gpus.map((g) => g.sendGbps);
    // 7 x 55.08 GB/s = 386 GB/s noise-free, a few percent less with the model's slow-side noise.
    for (const s of sends) expect(s).toBeGreaterThan(370);
  });

  it('the totals agree with the cells: per-GPU sums of rows and columns, aggregate = bytes / seconds', () => {
    for (const t of totals) {
      const path = pathName(t.mover, t.initiator);
      const mine = cells.filter((c) => pathName(c.mover, c.initiator) === path);
      expect(t.pairs).toBe(56);
      expect(t.bytes).toBe(56 * (64 << 20) * t.iters);
      expect(t.gbps).toBeCloseTo(t.bytes / t.seconds / 1e9, 1);
      for (const g of t.gpus) {
        expect(g.sendGbps).toBeCloseTo(
          mine.filter((c) => c.src === g.gpu).reduce((s, c) => s + c.gbps, 0),
          2,
        );
        expect(g.receiveGbps).toBeCloseTo(
          mine.filter((c) => c.dst === g.gpu).reduce((s, c) => s + c.gbps, 0),
          2,
        );
        expect(g.sendGbps).toBeLessThanOrEqual(400 * 1.0001);
      }
      // Each iteration lasts until its slowest pair ends, so the aggregate stays under the cells' sum.
      const cellSum = t.gpus.reduce((s, g) => s + g.sendGbps, 0);
      expect(t.gbps).toBeLessThanOrEqual(cellSum);
      expect(t.gbps).toBeGreaterThan(cellSum * 0.6);
    }
  });

  it('the same seed gives the same concurrent matrix', () => {
    expect(records(helper([...base, '--concurrent'])).filter((x) => x.type !== 'hello' && x.type !== 'done')).toEqual(
      rs.filter((x) => x.type !== 'hello' && x.type !== 'done'),
    );
  });

  it('a pair that moves wrong bytes fails alone; its path gets no total, the other paths do', () => {
    const bad = helper([
      'matrix',
      '--backend',
      'sim',
      '--gpus',
      '0,1,2',
      '--paths',
      'engine/host,cu/host',
      '--iters',
      '2',
      '--concurrent',
      '--fault',
      'corrupt-after=2',
    ]);
    expect(bad.status).toBe(4);
    const brs = records(bad);
    const failed = brs.filter((x): x is ErrorRecord => x.type === 'error' && x.cell !== undefined);
    expect(failed).toEqual([
      expect.objectContaining({ code: 'validation', cell: { mover: 'engine', initiator: 'host', src: 1, dst: 0 } }),
    ]);
    expect(failed[0]!.message).toMatch(/all pairs at once/);
    expect(cellsOf(brs)).toHaveLength(11);
    expect(totalsOf(brs).map((t) => pathName(t.mover, t.initiator))).toEqual(['cu/host']);
    expect(brs.at(-1)).toMatchObject({ type: 'done', status: 'error', samples: 11 });
  });

  it('SIGTERM: done cancelled, exit 143, the paths measured so far kept whole', async () => {
    const child = spawn(inject('helperPath'), [
      'matrix',
      '--backend',
      'sim',
      '--iters',
      '2',
      '--size',
      '64M',
      '--concurrent',
      '--sim-delay-ms',
      '400',
    ]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"type":"matrix-total"')) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(143);
    const lines = out.trim().split('\n').map(parseLine);
    expect(lines.every((l) => l.kind === 'record')).toBe(true);
    const kept = lines.flatMap((l) => (l.kind === 'record' && l.record.type === 'matrix-cell' ? [l.record] : []));
    expect(kept.length % 56).toBe(0);
    expect(kept.length).toBeGreaterThanOrEqual(56);
    expect(kept.length).toBeLessThan(224);
    expect(lines.at(-1)).toMatchObject({
      kind: 'record',
      record: { type: 'done', status: 'cancelled', samples: kept.length },
    });
  });
});

describe('sdma-probe matrix refuses what it cannot measure', () => {
  it.each([
    [['--gpus', '0,8'], /--gpus: GPU 8 is out of range \(this node has 8 GPUs: 0\.\.7\)/],
    [['--gpus', '2'], /names one endpoint; a matrix needs two or more/],
    [['--gpus', '1,1'], /GPU 1 is listed twice/],
    [['--gpus', '0,x'], /'x' is not a GPU index/],
    [['--cus', '8,16'], /matrix takes one CU count/],
    [['--cus', '300'], /CU count 300 is out of range/],
    [['--src', '1'], /--src is not a flag of matrix/],
    [['--concurrent=maybe'], /--concurrent: 'maybe' is not on or off/],
  ])('%j: exit 2 with a usage error that says what to fix', (extra, message) => {
    const r = helper(['matrix', '--backend', 'sim', ...extra]);
    expect(r.status).toBe(2);
    const rs = records(r);
    const error = rs.find((x) => x.type === 'error') as ErrorRecord;
    expect(error.code).toBe('usage');
    expect(error.message).toMatch(message);
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error', samples: 0 });
  });

  it('a cell that fails gets its own error record; the other cells are still measured', () => {
    const r = helper([
      'matrix',
      '--backend',
      'sim',
      '--gpus',
      '0,1,2',
      '--paths',
      'engine/host',
      '--iters',
      '2',
      '--fault',
      'corrupt-after=2',
    ]);
    expect(r.status).toBe(4);
    const rs = records(r);
    const failed = rs.filter((x): x is ErrorRecord => x.type === 'error' && x.cell !== undefined);
    expect(failed).toEqual([
      expect.objectContaining({ code: 'validation', cell: { mover: 'engine', initiator: 'host', src: 1, dst: 0 } }),
    ]);
    expect(failed[0]!.hint).toMatch(/rerun/);
    expect(cellsOf(rs).map((c) => `${c.src}>${c.dst}`)).toEqual(['0>1', '0>2', '1>2', '2>0', '2>1']);
    expect(rs.find((x) => x.type === 'error' && x.code === 'cells-failed')).toBeDefined();
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error', samples: 5 });
  });

  it('SIGTERM: done cancelled, exit 143, every cell measured so far kept', async () => {
    const child = spawn(inject('helperPath'), ['matrix', '--backend', 'sim', '--iters', '2', '--sim-delay-ms', '100']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if ((out.match(/"type":"matrix-cell"/g) ?? []).length >= 3) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(143);
    const lines = out.trim().split('\n').map(parseLine);
    expect(lines.every((l) => l.kind === 'record')).toBe(true);
    const kept = lines.filter((l) => l.kind === 'record' && l.record.type === 'matrix-cell');
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(kept.length).toBeLessThan(224);
    expect(lines.at(-1)).toMatchObject({
      kind: 'record',
      record: { type: 'done', status: 'cancelled', samples: kept.length },
    });
  });
});

describe('sdma-lens matrix', () => {
  let dir: string;
  let out = '';
  async function cli(...args: string[]): Promise<number> {
    let code: number;
    ({ code, out } = await runCli([...args, '--runs-dir', dir, '--helper', inject('helperPath')]));
    return code;
  }
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sdma-cli-matrix-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints a grid per path and says whether a pair stands out (the simulated node's pairs differ by noise only: none)", async () => {
    expect(
      await cli('matrix', '--backend', 'sim', '--gpus', '0,1,2,3', '--paths', 'cu/host,engine/host', '--iters', '3'),
    ).toBe(0);
    expect(out).toMatch(/SIMULATED/);
    expect(out).toMatch(/^# cu\/host · 64 CUs$/m);
    expect(out).toMatch(/^# engine\/host$/m);
    expect(out).toMatch(/^\s+3\s+[\d.]+\*?\s+[\d.]+\*?\s+[\d.]+\*?\s+-$/m);
    expect(
      out.match(
        /^# No pair stands out: the slowest, GPU \d → GPU \d at [\d.]+ GB\/s, is \d\.\d% below the median [\d.]+ \(weak: /gm,
      ),
    ).toHaveLength(2);
    expect(out).not.toMatch(/\d\*/);
  });

  it("--concurrent prints the grids, each GPU's send and receive, and the path's total", async () => {
    expect(
      await cli(
        'matrix',
        '--backend',
        'sim',
        '--paths',
        'engine/host',
        '--size',
        '64M',
        '--iters',
        '3',
        '--concurrent',
      ),
    ).toBe(0);
    expect(out).toMatch(/all pairs of a path at once/);
    expect(out).toMatch(/SIMULATED/);
    expect(out).toMatch(/^#\s+GPU\s+send\s+receive\s+GB\/s, sums of the row and column while all pairs ran$/m);
    expect(out.match(/^\s+\d\s+3\d\d\.\d+\s+3\d\d\.\d+$/gm)).toHaveLength(8);
    expect(out).toMatch(/^# All 56 pairs at once: [\d.]+ GB\/s in total/m);
    expect(out).toMatch(/^# No pair stands out: the slowest, GPU \d → GPU \d/m);
    expect(
      await cli(
        'matrix',
        '--backend',
        'sim',
        '--gpus',
        '0,1,2',
        '--paths',
        'cu/host',
        '--size',
        '16M',
        '--iters',
        '2',
        '--concurrent',
        '--json',
      ),
    ).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ concurrent: true, simulated: true });
    expect(result.paths[0].gpuTotals).toHaveLength(3);
    expect(result.paths[0].total.pairs).toBe(6);
  });

  it('--json gives the grids, and bad --gpus is a usage error (exit 2)', async () => {
    expect(
      await cli(
        'matrix',
        '--backend',
        'sim',
        '--gpus',
        '0,1',
        '--paths',
        'engine/device',
        '--size',
        '64M',
        '--iters',
        '2',
        '--json',
      ),
    ).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ status: 'ok', simulated: true, sizeBytes: 64 << 20 });
    expect(result.paths[0].rows.flat().map((c: { state: string }) => c.state)).toEqual([
      'self',
      'measured',
      'measured',
      'self',
    ]);
    expect(await cli('matrix', '--backend', 'sim', '--gpus', '5')).toBe(2);
  });
});
