/**
 * Copy endpoints on any GPU count (docs/PROTOCOL.md, "Endpoints"): host <-> GPU and GPU-local
 * copies, --pairs, path-unsupported records and the simulated node's --sim-gpus, against the
 * real binary. Every line is validated by src/core/protocol.ts (records()).
 */
import { describe, expect, it } from 'vitest';
import type { ErrorRecord, HelperRecord, MatrixCell, Sample } from '../../src/core/protocol';
import { PATHS, pathName } from '../../src/core/protocol';
import { helper, records } from './run';

const HOST = -1;
const KiB = 1024;
const GiB = 1024 * 1024 * KiB;
const small = ['--sizes', '4K,1G', '--cus', '8,256', '--iters', '3', '--warmup', '0'];

const samplesOf = (rs: HelperRecord[]) => rs.filter((r): r is Sample => r.type === 'sample');
const unsupportedOf = (rs: HelperRecord[]) =>
  rs.filter((r): r is Extract<HelperRecord, { type: 'path-unsupported' }> => r.type === 'path-unsupported');
const errorOf = (rs: HelperRecord[]) => rs.find((r): r is ErrorRecord => r.type === 'error');
const pairOf = (r: { src: number; dst: number }) => `${r.src}:${r.dst}`;

function gbps(samples: Sample[], path: string, src: number, dst: number, size: number, cus?: number): number {
  const s = samples.find(
    (x) =>
      pathName(x.mover, x.initiator) === path &&
      x.src === src &&
      x.dst === dst &&
      x.sizeBytes === size &&
      (cus === undefined || x.cus === cus),
  );
  if (!s) throw new Error(`no sample ${path} ${src}:${dst} ${size} ${cus}`);
  return s.gbps;
}

describe('a simulated one-GPU node (--sim-gpus 1)', () => {
  it('info describes it: one GPU, the host with its NUMA nodes, PCIe links both ways', () => {
    const r = helper(['info', '--backend', 'sim', '--sim-gpus', '1']);
    expect(r.status).toBe(0);
    const rs = records(r);
    const topology = rs.find((x) => x.type === 'topology');
    if (topology?.type !== 'topology') throw new Error('no topology');
    expect(topology.gpus.map((g) => g.index)).toEqual([0]);
    expect(topology.gpus[0]).toMatchObject({ numaNode: 0 });
    expect(topology.host).toEqual({ numaNodes: 2 });
    const pcie = topology.links.filter((l) => l.kind === 'pcie').map(pairOf);
    expect(pcie.sort()).toEqual(['-1:0', '0:-1']);
    expect(topology.links.some((l) => l.kind === 'xgmi')).toBe(false);
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  const r = helper(['sweep', '--backend', 'sim', '--sim-gpus', '1', ...small]);
  const rs = records(r);
  const samples = samplesOf(rs);

  it('the default sweep runs host -> GPU 0, GPU 0 -> host and GPU 0 -> GPU 0, one pass each', () => {
    expect(r.status).toBe(0);
    const order = [...new Set(samples.map(pairOf))];
    expect(order).toEqual(['-1:0', '0:-1', '0:0']);
    for (const pair of order) {
      const paths = new Set(samples.filter((s) => pairOf(s) === pair).map((s) => pathName(s.mover, s.initiator)));
      expect([...paths].sort()).toEqual(['cu/device', 'cu/host', 'engine/host']);
    }
  });

  it('reports engine/device unsupported once per pair, with its reason and the points it stands for', () => {
    const unsupported = unsupportedOf(rs);
    expect(unsupported.map(pairOf)).toEqual(['-1:0', '0:-1', '0:0']);
    for (const u of unsupported) {
      expect(pathName(u.mover, u.initiator)).toBe('engine/device');
      expect(u.reason).toMatch(/engine\/device needs two GPUs/);
      expect(u.points).toBe(2); // two sizes, no CU counts on an engine path
    }
  });

  it('progress counts the unsupported points as done; done.samples counts only real samples', () => {
    const progress = rs.filter((x) => x.type === 'progress');
    const last = progress.at(-1);
    expect(last).toMatchObject({ done: 36, total: 36 }); // 3 pairs x 2 sizes x (2 + 2 + 1 + 1)
    for (let i = 1; i < progress.length; i++) {
      const [a, b] = [progress[i - 1], progress[i]];
      if (a?.type === 'progress' && b?.type === 'progress') expect(b.done).toBeGreaterThan(a.done);
    }
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok', samples: samples.length });
    expect(samples.length).toBe(30);
  });

  it('host <-> GPU copies move at PCIe Gen5 x16 speeds, GPU-local CU copies at HBM speed', () => {
    for (const [src, dst] of [
      [HOST, 0],
      [0, HOST],
    ] as const) {
      const engine = gbps(samples, 'engine/host', src, dst, GiB);
      expect(engine).toBeGreaterThan(50);
      expect(engine).toBeLessThan(56);
      const cus = gbps(samples, 'cu/host', src, dst, GiB, 256);
      expect(cus).toBeLessThan(engine);
      expect(cus).toBeGreaterThan(40);
      for (const s of samples.filter((x) => x.src === src && x.dst === dst)) expect(s.gbps).toBeLessThan(64);
    }
    expect(gbps(samples, 'cu/host', 0, 0, GiB, 256)).toBeGreaterThan(2000);
    expect(gbps(samples, 'cu/host', 0, 0, GiB, 256)).toBeLessThan(4000); // a copy reads and writes: under 8 TB/s / 2
    // Small copies still favour the CUs over a host-started engine copy.
    expect(gbps(samples, 'cu/host', HOST, 0, 4 * KiB, 8)).toBeGreaterThan(
      gbps(samples, 'engine/host', HOST, 0, 4 * KiB),
    );
  });

  it('--src host --dst 0 runs only that pair', () => {
    const one = records(
      helper(['sweep', '--backend', 'sim', '--sim-gpus', '1', '--src', 'host', '--dst', '0', ...small]),
    );
    expect(new Set(samplesOf(one).map(pairOf))).toEqual(new Set(['-1:0']));
    expect(unsupportedOf(one).map(pairOf)).toEqual(['-1:0']);
  });

  it('a timeline between host and GPU puts its packets on a PCIe engine of the GPU, and names the pair', () => {
    const t = records(
      helper([
        'sweep',
        '--backend',
        'sim',
        '--sim-gpus',
        '1',
        '--sizes',
        '1M',
        '--iters',
        '2',
        '--timeline-size',
        '1M',
        '--timeline-cus',
        '8',
      ]),
    );
    const timeline = t.find((x) => x.type === 'timeline');
    if (timeline?.type !== 'timeline' || !('events' in timeline)) throw new Error('no inline timeline');
    expect([timeline.src, timeline.dst]).toEqual([HOST, 0]);
    expect(new Set(timeline.events.map((e) => e.path))).toEqual(new Set(['cu/host', 'cu/device', 'engine/host']));
    expect(new Set(timeline.events.map((e) => e.gpu))).toEqual(new Set([0]));
    const packetLanes = new Set(timeline.events.filter((e) => e.kind === 'packet').map((e) => e.lane));
    expect(packetLanes).toEqual(new Set([0])); // engine 0: the host -> GPU PCIe SDMA engine
  });
});

describe('--pairs on the simulated 8-GPU node', () => {
  it('runs each listed pair in order, GPU-local and host pairs beside GPU pairs', () => {
    const r = helper(['sweep', '--backend', 'sim', '--pairs', '0:1,host:3,5:5', '--paths', 'all', ...small]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expect([...new Set(samplesOf(rs).map(pairOf))]).toEqual(['0:1', '-1:3', '5:5']);
    expect(unsupportedOf(rs).map(pairOf)).toEqual(['-1:3', '5:5']);
    expect(samplesOf(rs).some((s) => pairOf(s) === '0:1' && s.mover === 'engine' && s.initiator === 'device')).toBe(
      true,
    );
  });

  it('the default on 8 GPUs stays GPU 0 -> GPU 1', () => {
    const rs = records(helper(['sweep', '--backend', 'sim', ...small]));
    expect(new Set(samplesOf(rs).map(pairOf))).toEqual(new Set(['0:1']));
    expect(unsupportedOf(rs)).toEqual([]);
  });
});

describe('bad endpoints are usage errors that say what to fix (exit 2)', () => {
  it.each([
    [['--sim-gpus', '1', '--dst', '9'], /--dst: GPU 9 is out of range \(this node has 1 GPU: 0\)/],
    [
      ['--sim-gpus', '1', '--pairs', '0:9'],
      /--pairs: GPU 9 is out of range \(this node has 1 GPU: 0\), in GPU 0 -> GPU 9/,
    ],
    [['--pairs', 'host:host'], /'host:host' copies host memory to host memory; one end of a copy must be a GPU/],
    [['--src', 'host', '--dst', 'host'], /--src and --dst are both host/],
    [['--src', 'cpu'], /--src: 'cpu' is not an endpoint \(a GPU index such as 0, or host/],
    [['--pairs', '0-1'], /--pairs: '0-1' is not a pair SRC:DST/],
    [['--pairs', '0:1,0:1'], /GPU 0 -> GPU 1 is listed twice/],
    [['--pairs', '0:1', '--src', '0'], /--pairs cannot be combined with --src\/--dst/],
    [['--sim-gpus', '9'], /--sim-gpus: '9' is out of range \(1\.\.8\)/],
    [['--sim-gpus', '0'], /--sim-gpus: '0' is out of range \(1\.\.8\)/],
  ])('sweep %j', (extra, message) => {
    const r = helper(['sweep', '--backend', 'sim', ...extra]);
    expect(r.status).toBe(2);
    const rs = records(r);
    expect(errorOf(rs)).toMatchObject({ code: 'usage', message: expect.stringMatching(message) });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error', samples: 0 });
  });

  it('--sim-gpus with a hardware backend is refused before anything opens', () => {
    const r = helper(['info', '--backend', 'cuda', '--sim-gpus', '2']);
    expect(r.status).toBe(2);
    expect(errorOf(records(r))?.message).toMatch(
      /--sim-gpus sets the simulated node's GPU count; --backend cuda measures/,
    );
  });
});

describe('--fault corrupt-after is caught on every endpoint pair and path', () => {
  const cases = [HOST + ':0', '0:' + HOST, '0:0', '0:1'].flatMap((pair) =>
    PATHS.filter((p) => p !== 'engine/device' || pair === '0:1').map(
      (path) => [pair.replace('-1', 'host'), path] as const,
    ),
  );
  it.each(cases)('%s %s: the damaged copy is an error validation, exit 4', (pair, path) => {
    const r = helper([
      'sweep',
      '--backend',
      'sim',
      '--sim-gpus',
      '2',
      '--pairs',
      pair,
      '--paths',
      path,
      '--sizes',
      '4K,64K',
      '--cus',
      '8',
      '--iters',
      '2',
      '--fault',
      'corrupt-after=1',
    ]);
    expect(r.status).toBe(4);
    const rs = records(r);
    expect(samplesOf(rs)).toHaveLength(1);
    expect(errorOf(rs)).toMatchObject({ code: 'validation' });
    expect(errorOf(rs)?.message).toContain(
      pair.startsWith('host')
        ? 'host -> GPU 0'
        : pair === '0:host'
          ? 'GPU 0 -> host'
          : pair === '0:0'
            ? 'GPU 0 -> GPU 0'
            : 'GPU 0 -> GPU 1',
    );
  });
});

describe('matrix with host in --gpus', () => {
  const r = helper(['matrix', '--backend', 'sim', '--sim-gpus', '2', '--gpus', 'host,0,1', '--iters', '3']);
  const rs = records(r);
  const cells = rs.filter((x): x is MatrixCell => x.type === 'matrix-cell');

  it('has a host row and column: every ordered pair of distinct endpoints, never host -> host', () => {
    expect(r.status).toBe(0);
    const expected = ['-1:0', '-1:1', '0:-1', '0:1', '1:-1', '1:0'];
    for (const path of ['cu/host', 'cu/device', 'engine/host']) {
      expect(cells.filter((c) => pathName(c.mover, c.initiator) === path).map(pairOf)).toEqual(expected);
    }
    expect(cells.filter((c) => pathName(c.mover, c.initiator) === 'engine/device').map(pairOf)).toEqual(['0:1', '1:0']);
    expect(unsupportedOf(rs).map(pairOf)).toEqual(['-1:0', '-1:1', '0:-1', '1:-1']);
    for (const u of unsupportedOf(rs)) expect(u.points).toBe(1);
    expect(rs.filter((x) => x.type === 'progress').at(-1)).toMatchObject({ done: 24, total: 24 });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok', samples: 20 });
  });

  it('host cells run at PCIe speed, GPU cells at xGMI speed', () => {
    const cell = (path: string, pair: string) =>
      cells.find((c) => pathName(c.mover, c.initiator) === path && pairOf(c) === pair)!;
    expect(cell('engine/host', '-1:0').gbps).toBeLessThan(56);
    expect(cell('engine/host', '0:1').gbps).toBeGreaterThan(56);
  });

  it('defaults to host,0 on a one-GPU node', () => {
    const one = records(helper(['matrix', '--backend', 'sim', '--sim-gpus', '1', '--iters', '2']));
    expect(new Set(one.filter((x): x is MatrixCell => x.type === 'matrix-cell').map(pairOf))).toEqual(
      new Set(['-1:0', '0:-1']),
    );
  });

  it('refuses host with --concurrent, and a GPU the node lacks', () => {
    const concurrent = helper(['matrix', '--backend', 'sim', '--gpus', 'host,0,1', '--concurrent']);
    expect(concurrent.status).toBe(2);
    expect(errorOf(records(concurrent))?.message).toMatch(/--concurrent: host cannot be in --gpus/);
    const missing = helper(['matrix', '--backend', 'sim', '--sim-gpus', '1', '--gpus', 'host,3']);
    expect(missing.status).toBe(2);
    expect(errorOf(records(missing))?.message).toMatch(/--gpus: GPU 3 is out of range \(this node has 1 GPU: 0\)/);
  });
});

describe('overlap and collective on one GPU', () => {
  it('overlap defaults to host -> GPU 0 and reports engine/device unsupported', () => {
    const r = helper(['overlap', '--backend', 'sim', '--sim-gpus', '1', '--phase-ms', '50']);
    expect(r.status).toBe(0);
    const rs = records(r);
    const unsupported = unsupportedOf(rs);
    expect(unsupported).toHaveLength(1);
    // One point per compute (gemm, fma, triad) at the one size.
    expect(unsupported[0]).toMatchObject({ mover: 'engine', initiator: 'device', src: HOST, dst: 0, points: 3 });
    const paths = new Set(rs.flatMap((x) => (x.type === 'overlap' ? [x.path] : [])));
    expect(paths).toEqual(new Set(['alone', 'cu/host', 'engine/host']));
    const engine = rs.find((x) => x.type === 'overlap' && x.path === 'engine/host');
    if (engine?.type !== 'overlap') throw new Error('no engine/host overlap');
    expect(engine.copyGbps).toBeLessThan(56); // over PCIe, not xGMI
  });

  it('overlap --src 0 --dst 5 on one GPU is a usage error naming the endpoint', () => {
    const r = helper(['overlap', '--backend', 'sim', '--sim-gpus', '1', '--src', '0', '--dst', '5']);
    expect(r.status).toBe(2);
    expect(errorOf(records(r))?.message).toMatch(/--dst: GPU 5 is out of range \(this node has 1 GPU: 0\)/);
  });

  it('collective in one process: error too-few-gpus with a hint, exit 1 (not a usage error)', () => {
    const r = helper(['collective', '--backend', 'sim', '--sim-gpus', '1', '--mode', 'single-process']);
    expect(r.status).toBe(1);
    const e = errorOf(records(r));
    expect(e).toMatchObject({ code: 'too-few-gpus' });
    expect(e?.hint).toMatch(/two or more GPUs .*one rank: --mode rank-per-process/);
  });
});

describe('a GPU backend on a machine without its GPU', () => {
  const info = helper(['info', '--backend', 'cuda']);
  const rs = records(info);
  const hello = rs[0];
  const topology = rs.find((x) => x.type === 'topology');
  // Applies where the cuda backend is built and this machine has no NVIDIA GPU; skipped otherwise.
  const applies =
    hello?.type === 'hello' &&
    hello.backendsBuilt.includes('cuda') &&
    (topology?.type !== 'topology' || topology.gpus.length === 0);

  it.skipIf(!applies)(
    'info answers a topology without GPUs and a no-gpu warning; sweep answers error no-gpu, exit 1',
    () => {
      expect(info.status).toBe(0);
      expect(topology).toMatchObject({ gpus: [], node: { simulated: false } });
      expect(rs.find((x) => x.type === 'warning')).toMatchObject({ code: 'no-gpu' });
      const sweep = helper(['sweep', '--backend', 'cuda']);
      expect(sweep.status).toBe(1);
      expect(errorOf(records(sweep))).toMatchObject({ code: 'no-gpu' });
    },
  );
});
