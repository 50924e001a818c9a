/**
 * `sdma-probe overlap` on the simulated node: every copy measured alone once and its figure on
 * each beside record, the CU arithmetic and what the copy kept, what moved the bytes, where the
 * clocks came from, the memory-bound triad beside the compute-bound GEMM and FMA, a list of copy
 * sizes, and the flags' refusals (docs/PROTOCOL.md, the `overlap` record).
 */
import { describe, expect, it } from 'vitest';
import type { HelperRecord, OverlapPoint } from '../../src/core/protocol';
import { helper, records } from './run';

/** The overlap record as the helper writes it, the fields the compute and copy figures added included. */
type Overlap = Omit<OverlapPoint, 'compute'> & {
  compute: 'gemm' | 'fma' | 'triad';
  bound: 'compute' | 'memory';
  computeGbps: number | null;
  copyAloneGbps: number | null;
  bandwidthKept: number | null;
  totalCus: number;
  cusUsed: number | null;
  cuArithmetic: number | null;
  mechanism: string | null;
  telemetry: 'nvml' | 'amd-smi' | 'model' | 'none';
};

const overlapOf = (rs: HelperRecord[]) => rs.filter((r) => r.type === 'overlap') as unknown as Overlap[];
const progressOf = (rs: HelperRecord[]) =>
  rs.flatMap((r) => (r.type === 'progress' ? [r as Extract<HelperRecord, { type: 'progress' }>] : []));
const MiB = 1 << 20;

describe('overlap on the simulated node: the default run', () => {
  const run = helper(['overlap', '--backend', 'sim', '--phase-ms', '100']);
  const rs = records(run);
  const points = overlapOf(rs);

  it('runs gemm, fma and triad, each alone, beside every path and alone again', () => {
    expect(run.status).toBe(0);
    for (const compute of ['gemm', 'fma', 'triad'] as const) {
      const mine = points.filter((p) => p.compute === compute);
      expect(mine.map((p) => `${p.phase} ${p.path}${p.cus ? ` ${p.cus}` : ''}`)).toEqual([
        'alone-before alone',
        'beside cu/host 8',
        'beside cu/host 16',
        'beside cu/host 32',
        'beside engine/host',
        'beside engine/device',
        'alone-after alone',
      ]);
      expect(mine.every((p) => p.bound === (compute === 'triad' ? 'memory' : 'compute'))).toBe(true);
    }
  });

  it('progress counts every phase, the copies alone first', () => {
    const progress = progressOf(rs);
    // 5 copies alone, then 3 computes x (5 beside + 2 alone).
    expect(progress.at(-1)).toMatchObject({ done: 26, total: 26 });
    expect(progress.slice(0, 5).every((p) => p.message?.startsWith('copy-alone '))).toBe(true);
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: 26 }, (_, i) => i + 1));
  });

  it('every record: the CUs of the GPU, the model as telemetry; alone records leave the copy fields null', () => {
    for (const p of points) {
      expect(p.totalCus).toBe(256);
      expect(p.telemetry).toBe('model');
      expect(p.simulated).toBe(true);
      expect(p.computeGbps === null).toBe(p.compute !== 'triad');
      if (p.path !== 'alone') continue;
      expect(p).toMatchObject({
        copySizeBytes: 0,
        keptFraction: null,
        copyGbps: null,
        copyAloneGbps: null,
        bandwidthKept: null,
        cusUsed: null,
        cuArithmetic: null,
        mechanism: null,
      });
    }
  });

  it('beside records: the copy alone, what it kept, the CUs it held and the arithmetic', () => {
    const beside = points.filter((p) => p.phase === 'beside');
    expect(beside.length).toBe(15);
    for (const p of beside) {
      const used = p.path === 'cu/host' ? p.cus! : p.path === 'engine/device' ? 1 : 0;
      expect(p.cusUsed).toBe(used);
      expect(p.cuArithmetic).toBeCloseTo((256 - used) / 256, 5);
      expect(p.copyAloneGbps).toBeGreaterThan(0);
      expect(p.bandwidthKept).toBeCloseTo(p.copyGbps! / p.copyAloneGbps!, 4);
      expect(p.mechanism).toBeTruthy();
    }
    // One copy alone per path and CU count, the same beside every compute.
    const alone = (p: Overlap) => `${p.path} ${p.cus ?? 0}`;
    for (const key of new Set(beside.map(alone))) {
      expect(new Set(beside.filter((p) => alone(p) === key).map((p) => p.copyAloneGbps)).size).toBe(1);
    }
    const mechanism = (path: string) => beside.find((p) => p.path === path)!.mechanism;
    expect(mechanism('cu/host')).toBe('load/store kernel on 8 CUs (highest-priority stream)');
    expect(mechanism('engine/host')).toBe('hipMemcpyPeerAsync (SDMA), started by the host');
    expect(mechanism('engine/device')).toBe('rocSHMEM put from a kernel in PE processes (GPU-initiated SDMA)');
  });

  it('the triad reports its bytes per second: 12 bytes and 2 flops per element', () => {
    for (const p of points.filter((x) => x.compute === 'triad')) {
      expect(p.computeGbps! / (p.computeTflops * 1e3)).toBeCloseTo(6, 4);
    }
    const alone = points.find((p) => p.compute === 'triad' && p.phase === 'alone-before')!;
    expect(alone.computeGbps).toBeGreaterThan(5000);
    expect(alone.computeLabel).toMatch(/^STREAM triad fp32, 3 x 1 GiB, 2048x256/);
  });

  it('beside a peer copy the GEMM keeps about the CU arithmetic, the triad (a third of the CUs saturate HBM) more', () => {
    for (const cus of [8, 16, 32]) {
      const at = (compute: string) => points.find((p) => p.compute === compute && p.cus === cus)!;
      expect(Math.abs(at('gemm').keptFraction! - at('gemm').cuArithmetic!)).toBeLessThan(0.06);
      expect(at('fma').keptFraction!).toBeCloseTo(at('fma').cuArithmetic!, 1);
      expect(at('triad').keptFraction!).toBeGreaterThan(at('triad').cuArithmetic!);
    }
  });
});

describe('overlap on the simulated node: one GPU, a list of sizes, the triad', () => {
  const run = helper([
    'overlap',
    '--backend',
    'sim',
    '--phase-ms',
    '50',
    '--src',
    '0',
    '--dst',
    '0',
    '--size',
    '64M,256M',
    '--compute',
    'gemm,triad',
  ]);
  const rs = records(run);
  const points = overlapOf(rs);

  it('runs every copy at each size and says engine/device cannot run for each compute and size', () => {
    expect(run.status).toBe(0);
    const unsupported = rs.find((r) => r.type === 'path-unsupported');
    expect(unsupported).toMatchObject({ mover: 'engine', initiator: 'device', src: 0, dst: 0, points: 4 });
    for (const compute of ['gemm', 'triad']) {
      const beside = points.filter((p) => p.compute === compute && p.phase === 'beside');
      expect(beside.map((p) => [p.copySizeBytes, p.path, p.cus ?? 0])).toEqual([
        [64 * MiB, 'cu/host', 8],
        [64 * MiB, 'cu/host', 16],
        [64 * MiB, 'cu/host', 32],
        [64 * MiB, 'engine/host', 0],
        [256 * MiB, 'cu/host', 8],
        [256 * MiB, 'cu/host', 16],
        [256 * MiB, 'cu/host', 32],
        [256 * MiB, 'engine/host', 0],
      ]);
    }
    // 8 copies alone, then 2 computes x (8 beside + 2 alone).
    expect(progressOf(rs).at(-1)).toMatchObject({ done: 28, total: 28 });
  });

  it('a GPU-local copy reads and writes HBM: the triad keeps less than the CU arithmetic, the copy less than alone', () => {
    const engine = points.find((p) => p.compute === 'triad' && p.path === 'engine/host')!;
    expect(engine.mechanism).toBe('hipMemcpyAsync device-to-device NoCU (SDMA), started by the host');
    expect(engine.cuArithmetic).toBe(1);
    // One SDMA engine moves about 60 GB/s, 120 GB/s of HBM: a few percent of the triad's.
    for (const p of points.filter((x) => x.compute === 'triad' && x.phase === 'beside')) {
      expect(p.keptFraction!).toBeLessThan(p.cuArithmetic! - (p.path === 'cu/host' ? 0.02 : 0));
      expect(p.bandwidthKept!).toBeLessThan(p.path === 'cu/host' ? 0.95 : 1);
    }
    const heavy = points.find((p) => p.compute === 'triad' && p.cus === 32 && p.copySizeBytes === 256 * MiB)!;
    expect(heavy.keptFraction!).toBeLessThan(heavy.cuArithmetic! - 0.15);
    // The GEMM, compute-bound, keeps about the CUs it was left.
    for (const p of points.filter((x) => x.compute === 'gemm' && x.phase === 'beside')) {
      expect(Math.abs(p.keptFraction! - p.cuArithmetic!)).toBeLessThan(0.06);
    }
  });
});

describe('overlap on the simulated node: what moved the bytes to and from host', () => {
  it.each([
    ['host', '0', 'hipMemcpyAsync host-to-device (SDMA), started by the host'],
    ['0', 'host', 'hipMemcpyAsync device-to-host (SDMA), started by the host'],
  ])('--src %s --dst %s', (src, dst, mechanism) => {
    const r = helper([
      'overlap',
      '--backend',
      'sim',
      '--phase-ms',
      '50',
      '--compute',
      'triad',
      '--src',
      src,
      '--dst',
      dst,
    ]);
    expect(r.status).toBe(0);
    const points = overlapOf(records(r));
    expect(points.find((p) => p.path === 'engine/host')!.mechanism).toBe(mechanism);
    expect(points.find((p) => p.path === 'cu/host' && p.cus === 32)!.cusUsed).toBe(32);
  });
});

describe('overlap flags', () => {
  it.each([
    [['--compute', 'gemv'], /--compute: 'gemv' is not gemm, fma or triad/],
    [['--size', '64M,x'], /--size/],
    [['--size', '8'], /--size: 8 bytes is below one 16-byte copy vector/],
  ])('%j is a usage error, exit 2', (flags, message) => {
    const r = helper(['overlap', '--backend', 'sim', ...flags]);
    expect(r.status).toBe(2);
    expect(records(r).find((x) => x.type === 'error')).toMatchObject({
      code: 'usage',
      message: expect.stringMatching(message),
    });
  });
});
