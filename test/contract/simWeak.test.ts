/**
 * --sim-weak against the real helper (docs/SIMULATOR.md, "A weak node"): one node of a
 * simulated fleet made measurably weak, picked by its host name, and topology.node.hostname,
 * by which a fleet run tells its nodes apart. Every line the helper prints is validated
 * against the protocol schema (`records`).
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { LIMITS, isSimWeakSpec } from '../../src/core/limits';
import type { HelperRecord, MatrixCell, Sample } from '../../src/core/protocol';
import { pathName } from '../../src/core/protocol';
import { helper, records } from './run';

/** The helper's gethostname(), as Node reads it (uname's nodename), and its short form. */
const fullHost = hostname();
const here = fullHost.split('.')[0]!;

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
// The two largest sizes of the default list: there the transfer, not the fixed cost, is the time.
const sweep = [
  'sweep',
  '--backend',
  'sim',
  '--sizes',
  '256M,1G',
  '--paths',
  'engine/host,cu/host',
  '--cus',
  '64',
  '--iters',
  '8',
  '--seed',
  '7',
];

function run(args: string[]) {
  const r = helper(args);
  return { status: r.status, stderr: r.stderr, rs: records(r) };
}

function ok(args: string[]): HelperRecord[] {
  const r = run(args);
  expect(r.status, r.stderr).toBe(0);
  return r.rs;
}

const samplesOf = (rs: HelperRecord[]) => rs.filter((x): x is Sample => x.type === 'sample');
const warningsOf = (rs: HelperRecord[], code: string) => rs.filter((x) => x.type === 'warning' && x.code === code);

function sample(rs: HelperRecord[], path: string, size: number, src = 0, dst = 1): Sample {
  const s = samplesOf(rs).find(
    (x) => pathName(x.mover, x.initiator) === path && x.sizeBytes === size && x.src === src && x.dst === dst,
  );
  if (!s) throw new Error(`no ${path} sample at ${size} B, ${src} -> ${dst}`);
  return s;
}

/**
 * A weakness multiplies only the transfer's rate: with the same seed every iteration draws
 * the same noise, so iteration i takes F_i + T_i / f instead of F_i + T_i, and the bandwidth
 * ratio (F + T) / (F + T / f), of a sample's mean time or a matrix cell's median, lies in
 * [f, f x (1 + F / T)] for f <= 1. F / T is largest for engine/host at 256 MiB: F = 13.1 us +
 * 2 packets x 0.2 us = 13.5 us against T = 268435456 B / 61 GB/s = 4.40 ms (5.05 ms at PCIe's
 * 53.1 GB/s), 0.31 %; the fixed part's 5 % jitter (x 1.16 at three sigma) makes 0.36 %. 0.6 %
 * covers it, far from the 50 % a factor of 0.5 makes. The low side allows 1e-6 for the
 * helper's whole-nanosecond times.
 */
function expectScaled(weak: Sample | MatrixCell, base: Sample | MatrixCell, factor: number) {
  // From the times, not the GB/s fields, which carry 6 significant digits.
  const time = (x: Sample | MatrixCell) => (x.type === 'sample' ? x.meanNs : x.medianNs);
  const ratio = time(base) / time(weak);
  expect(ratio, `${pathName(weak.mover, weak.initiator)} ${weak.sizeBytes} B`).toBeGreaterThanOrEqual(
    factor * (1 - 1e-6),
  );
  expect(ratio, `${pathName(weak.mover, weak.initiator)} ${weak.sizeBytes} B`).toBeLessThanOrEqual(factor * 1.006);
}

/** What a run measured and described (all but hello's pid and done's elapsed time), for identity checks. */
function measured(rs: HelperRecord[]) {
  return rs.filter(
    (x) => x.type === 'sample' || x.type === 'matrix-cell' || x.type === 'matrix-total' || x.type === 'topology',
  );
}

describe('--sim-weak WHAT=FACTOR[@HOST]', () => {
  const base = ok(sweep);

  it('engine=0.5 halves engine/host at the largest sizes and leaves cu/host as it was', () => {
    expect(warningsOf(base, 'sim-weak')).toHaveLength(0);
    const weak = ok([...sweep, '--sim-weak', 'engine=0.5']);
    for (const size of [256 * MiB, GiB]) {
      expectScaled(sample(weak, 'engine/host', size), sample(base, 'engine/host', size), 0.5);
      expect(sample(weak, 'cu/host', size)).toEqual(sample(base, 'cu/host', size));
    }
    // The run says so itself: one warning naming what, the factor and the host.
    const warnings = warningsOf(weak, 'sim-weak');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ message: expect.stringContaining(`host ${here}`) });
    expect(warnings[0]).toMatchObject({ message: expect.stringMatching(/engine copies .* at 0\.5x/) });
    expect(warnings[0]).not.toMatchObject({ message: expect.stringContaining('CU copies') });
  });

  it(`@${here} (this machine's short host name) applies; another host's spec changes nothing and says nothing`, () => {
    const mine = ok([...sweep, '--sim-weak', `engine=0.5@${here}`]);
    expectScaled(sample(mine, 'engine/host', GiB), sample(base, 'engine/host', GiB), 0.5);
    expect(warningsOf(mine, 'sim-weak')).toHaveLength(1);
    for (const other of [`${here}x`, 'not-this-host', `x${here}`]) {
      const rs = ok([
        ...sweep,
        '--sim-weak',
        `engine=0.5@${other}`,
        '--sim-weak',
        `cu=0.25@${other},link=0.5@${other}`,
      ]);
      expect(measured(rs), other).toEqual(measured(base));
      expect(
        rs.filter((x) => x.type === 'warning'),
        other,
      ).toEqual([]);
    }
  });

  it('a comma list and repeated flags combine; factors of one WHAT multiply', () => {
    const list = ok([...sweep, '--sim-weak', `engine=0.5@${here},link=0.5@${here},pcie=0.5@elsewhere`]);
    // engine/host between GPUs is an engine copy over a link: 0.5 x 0.5; cu/host only the link.
    for (const size of [256 * MiB, GiB]) {
      expectScaled(sample(list, 'engine/host', size), sample(base, 'engine/host', size), 0.25);
      expectScaled(sample(list, 'cu/host', size), sample(base, 'cu/host', size), 0.5);
    }
    const listWarnings = warningsOf(list, 'sim-weak');
    expect(listWarnings).toHaveLength(1);
    expect(listWarnings[0]).toMatchObject({
      message: expect.stringMatching(/engine copies .* at 0\.5x.*GPU <-> GPU copies .* at 0\.5x/),
    });
    expect(listWarnings[0]).not.toMatchObject({ message: expect.stringContaining('PCIe') });

    const repeated = ok([...sweep, '--sim-weak', 'engine=0.5', '--sim-weak=engine=0.5']);
    expectScaled(sample(repeated, 'engine/host', GiB), sample(base, 'engine/host', GiB), 0.25);
    expect(sample(repeated, 'cu/host', GiB)).toEqual(sample(base, 'cu/host', GiB));
    expect(warningsOf(repeated, 'sim-weak')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('at 0.25x') }),
    ]);
  });

  it('pcie weakens host <-> GPU copies and not GPU <-> GPU ones; link the other way round', () => {
    const pairs = [...sweep, '--pairs', 'host:0,0:host,0:1'];
    const plain = ok(pairs);
    const pcie = ok([...pairs, '--sim-weak', 'pcie=0.5']);
    const link = ok([...pairs, '--sim-weak', 'link=0.5']);
    for (const path of ['engine/host', 'cu/host']) {
      for (const [src, dst] of [
        [-1, 0],
        [0, -1],
      ] as const) {
        expectScaled(sample(pcie, path, GiB, src, dst), sample(plain, path, GiB, src, dst), 0.5);
        expect(sample(link, path, GiB, src, dst)).toEqual(sample(plain, path, GiB, src, dst));
      }
      expect(sample(pcie, path, GiB)).toEqual(sample(plain, path, GiB));
      expectScaled(sample(link, path, GiB), sample(plain, path, GiB), 0.5);
    }
  });

  it('matrix takes it too, alone and with --concurrent', () => {
    for (const extra of [[], ['--concurrent']]) {
      const matrix = [
        'matrix',
        '--backend',
        'sim',
        '--sim-gpus',
        '3',
        '--size',
        '1G',
        '--paths',
        'engine/host',
        '--iters',
        '5',
        ...extra,
      ];
      const cells = (rs: HelperRecord[]) => rs.filter((x): x is MatrixCell => x.type === 'matrix-cell');
      const plain = cells(ok(matrix));
      const weakRun = ok([...matrix, '--sim-weak', `link=0.5@${here}`]);
      const weak = cells(weakRun);
      expect(weak).toHaveLength(6);
      expect(warningsOf(weakRun, 'sim-weak')).toHaveLength(1);
      weak.forEach((cell, i) => expectScaled(cell, plain[i]!, 0.5));
    }
  });

  it(`accepts every WHAT of limits.json and factors up to ${LIMITS.simWeakFactorMax}`, () => {
    const quick = ['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'cu/host', '--cus', '8', '--iters', '1'];
    for (const what of LIMITS.simWeakKinds) {
      const rs = ok([...quick, '--sim-weak', `${what}=${LIMITS.simWeakFactorMax}`]);
      expect(warningsOf(rs, 'sim-weak'), what).toHaveLength(1);
    }
    expect(LIMITS.simWeakKinds).toEqual(['engine', 'cu', 'link', 'pcie']);
  });

  it('a malformed spec is a usage error (exit 2) naming the accepted form', () => {
    const quick = ['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'cu/host', '--iters', '1'];
    const bad = [
      'engine',
      'engine=',
      'engine=0',
      `engine=${LIMITS.simWeakFactorMax}.01`,
      'engine=-0.5',
      'engine=1e-1',
      'engine=half',
      'gpu=0.5',
      'engine=0.5@',
      `engine=0.5@${here}.example.org`,
      'engine=0.5,',
      'engine=0.5@a@b',
    ];
    for (const spec of bad) {
      const r = run([...quick, `--sim-weak=${spec}`]);
      expect(r.status, spec).toBe(2);
      const error = r.rs.find((x) => x.type === 'error');
      expect(error, spec).toMatchObject({ code: 'usage', message: expect.stringContaining('WHAT=FACTOR[@HOST]') });
      expect(error, spec).toMatchObject({ message: expect.stringMatching(/^--sim-weak: '[^']*' /) });
      expect(
        r.rs.some((x) => x.type === 'sample' || x.type === 'topology'),
        spec,
      ).toBe(false);
    }
  });

  it('a spec the extension lets through (isSimWeakSpec) is one the helper takes; one it refuses, the helper refuses too', () => {
    const quick = ['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'cu/host', '--cus', '8', '--iters', '1'];
    const label63 = 'n'.repeat(63);
    const specs = [
      'engine=0.5',
      `cu=4@${here}`,
      'link=0.25@n2,pcie=1.5@node-03',
      `engine=0.5@${label63}`,
      'pcie=0.123456789012345678',
      'engine=0',
      'engine=4.5',
      'gpu=0.5',
      'engine=0.5@n2.cluster',
      `engine=0.5@${label63}n`,
      'engine=0.5,',
      'engine=0.5@',
      'engine=-1',
    ];
    for (const spec of specs) {
      const helperTakes = run([...quick, '--sim-weak', spec]).status === 0;
      expect(helperTakes, spec).toBe(isSimWeakSpec(spec));
    }
  });

  it('shapes only the simulated node: --backend hip and cuda are usage errors, whatever this helper has built', () => {
    // The flags are checked before a backend is opened, so the answer is the same on a helper
    // without the GPU backend as on one with it.
    for (const backend of ['hip', 'cuda']) {
      for (const sub of [['sweep'], ['matrix']]) {
        const r = run([...sub, '--backend', backend, '--sim-weak', 'engine=0.5']);
        expect(r.status, `${sub[0]} ${backend}`).toBe(2);
        expect(r.rs.find((x) => x.type === 'error')).toMatchObject({
          code: 'usage',
          message: expect.stringContaining(`--sim-weak shapes only the simulated node; --backend ${backend}`),
        });
      }
    }
  });

  it('collective and overlap refuse it (their model is not the pair model): exit 2', () => {
    for (const sub of ['collective', 'overlap']) {
      const r = run([sub, '--backend', 'sim', '--sim-weak', 'engine=0.5']);
      expect(r.status, sub).toBe(2);
      expect(r.rs.find((x) => x.type === 'error')).toMatchObject({
        code: 'usage',
        message: `--sim-weak is not a flag of ${sub}`,
      });
    }
  });
});

describe('topology.node.hostname', () => {
  it('the simulator names the machine it ran on, in full as gethostname() returns it', () => {
    for (const args of [
      ['info', '--backend', 'sim'],
      ['sweep', '--backend', 'sim', '--sizes', '4K', '--paths', 'cu/host', '--cus', '8', '--iters', '1'],
    ]) {
      const topology = ok(args).find((x) => x.type === 'topology');
      expect(topology, args[0]).toMatchObject({ node: { hostname: fullHost, simulated: true } });
    }
  });

  const built = run(['info', '--backend', 'sim']).rs.find((x) => x.type === 'hello');
  const gpuBackends = built?.type === 'hello' ? built.backendsBuilt.filter((b) => b === 'hip' || b === 'cuda') : [];
  it.skipIf(gpuBackends.length === 0)(
    `a GPU backend built here (${gpuBackends.join(', ') || 'none'}) names it too, with or without a GPU`,
    () => {
      for (const backend of gpuBackends) {
        const topology = run(['info', '--backend', backend]).rs.find((x) => x.type === 'topology');
        expect(topology, backend).toMatchObject({ node: { hostname: fullHost, simulated: false } });
      }
    },
  );
});
