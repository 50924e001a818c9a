/** `sdma-probe matrix` and `sdma-lens matrix` against the real binary (docs/MATRIX.md). */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main } from '../../src/cli/main';
import type { ErrorRecord, MatrixCell } from '../../src/core/protocol';
import { PATHS, parseLine, pathName } from '../../src/core/protocol';
import { helper, records } from './run';

const cellsOf = (rs: ReturnType<typeof records>) => rs.filter((r): r is MatrixCell => r.type === 'matrix-cell');

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
    expect(cells.filter((c) => c.mover === 'engine' && c.initiator === 'host').every((c) => c.cus === 0 && c.engines === 1)).toBe(true);
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

describe('sdma-probe matrix refuses what it cannot measure', () => {
  it.each([
    [['--gpus', '0,8'], /--gpus: GPU 8 is out of range \(this node has 8 GPUs: 0\.\.7\)/],
    [['--gpus', '2'], /names one GPU; a matrix needs two or more/],
    [['--gpus', '1,1'], /GPU 1 is listed twice/],
    [['--gpus', '0,x'], /'x' is not a GPU index/],
    [['--cus', '8,16'], /matrix takes one CU count/],
    [['--cus', '300'], /CU count 300 is out of range/],
    [['--src', '1'], /--src is not a flag of matrix/],
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
    const r = helper(['matrix', '--backend', 'sim', '--gpus', '0,1,2', '--paths', 'engine/host', '--iters', '2', '--fault', 'corrupt-after=2']);
    expect(r.status).toBe(4);
    const rs = records(r);
    const failed = rs.filter((x): x is ErrorRecord => x.type === 'error' && x.cell !== undefined);
    expect(failed).toEqual([expect.objectContaining({ code: 'validation', cell: { mover: 'engine', initiator: 'host', src: 1, dst: 0 } })]);
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
    expect(lines.at(-1)).toMatchObject({ kind: 'record', record: { type: 'done', status: 'cancelled', samples: kept.length } });
  });
});

describe('sdma-lens matrix', () => {
  let dir: string;
  let out = '';
  const realOut = process.stdout.write.bind(process.stdout);
  const realErr = process.stderr.write.bind(process.stderr);
  async function cli(...args: string[]): Promise<number> {
    out = '';
    process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      return await main([...args, '--runs-dir', dir, '--helper', inject('helperPath')]);
    } finally {
      process.stdout.write = realOut;
      process.stderr.write = realErr;
    }
  }
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sdma-cli-matrix-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a grid per path and names the weakest pair', async () => {
    expect(await cli('matrix', '--backend', 'sim', '--gpus', '0,1,2,3', '--paths', 'cu/host,engine/host', '--iters', '3')).toBe(0);
    expect(out).toMatch(/SIMULATED/);
    expect(out).toMatch(/^# cu\/host · 64 CUs$/m);
    expect(out).toMatch(/^# engine\/host$/m);
    expect(out).toMatch(/^\s+3\s+[\d.]+\*?\s+[\d.]+\*?\s+[\d.]+\*?\s+-$/m);
    expect(out.match(/^# Weakest pair: GPU \d -> GPU \d, [\d.]+ GB\/s/gm)).toHaveLength(2);
  });

  it('--json gives the grids, and bad --gpus is a usage error (exit 2)', async () => {
    expect(await cli('matrix', '--backend', 'sim', '--gpus', '0,1', '--paths', 'engine/device', '--size', '64M', '--iters', '2', '--json')).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ status: 'ok', simulated: true, sizeBytes: 64 << 20 });
    expect(result.paths[0].rows.flat().map((c: { state: string }) => c.state)).toEqual(['self', 'measured', 'measured', 'self']);
    expect(await cli('matrix', '--backend', 'sim', '--gpus', '5')).toBe(2);
  });
});
