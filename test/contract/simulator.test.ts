/**
 * The simulated MI350X node must tell the story the domain tells (docs/SIMULATOR.md): CU
 * copies win small messages, SDMA wins large ones against one CU (whose 16 waves of load/store
 * cannot fill the link), and the host-initiated crossover against one CU sits between 128 KiB and
 * 2 MiB. The seed's own claims (one wave enough for SDMA, the 128 KiB tie) are checked on the
 * model itself in native/tests/sim_seed_test.cpp.
 */
import { describe, expect, it } from 'vitest';
import type { PathName, Sample } from '../../src/core/protocol';
import { pathName } from '../../src/core/protocol';
import { helper, records } from './run';

const sizes = ['4K', '16K', '64K', '128K', '256K', '512K', '1M', '2M', '4M', '16M', '64M', '256M', '1G'];
const samples = records(
  helper([
    'sweep',
    '--backend',
    'sim',
    '--sizes',
    sizes.join(','),
    '--cus',
    '1,8,64,256',
    '--iters',
    '20',
    '--seed',
    '3',
  ]),
).filter((r): r is Sample => r.type === 'sample');

function gbps(path: PathName, size: number, cus?: number): number {
  const s = samples.find(
    (x) => pathName(x.mover, x.initiator) === path && x.sizeBytes === size && (cus === undefined || x.cus === cus),
  );
  if (!s) throw new Error(`no sample ${path} ${size} ${cus}`);
  return s.gbps;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** The smallest size from which `a` is faster than `b` at every larger size. */
function crossover(a: (size: number) => number, b: (size: number) => number): number | undefined {
  const all = [...new Set(samples.map((s) => s.sizeBytes))].sort((x, y) => x - y);
  let from: number | undefined;
  for (const size of all) {
    if (a(size) > b(size)) from ??= size;
    else from = undefined;
  }
  return from;
}

describe('simulated MI350X curves', () => {
  it('CU copies win small messages, for both initiators', () => {
    expect(gbps('cu/host', 4 * KiB, 8)).toBeGreaterThan(gbps('engine/host', 4 * KiB));
    expect(gbps('cu/device', 4 * KiB, 8)).toBeGreaterThan(gbps('engine/device', 4 * KiB));
  });

  it('SDMA with one engine beats a 1-CU copy at 1 GiB and at least matches 64 CUs', () => {
    expect(gbps('engine/host', GiB)).toBeGreaterThan(1.4 * gbps('cu/host', GiB, 1));
    expect(gbps('engine/host', GiB)).toBeGreaterThanOrEqual(gbps('cu/host', GiB, 64) * 0.99);
    expect(gbps('engine/device', GiB)).toBeGreaterThanOrEqual(gbps('cu/device', GiB, 64) * 0.99);
  });

  it('puts the host-initiated crossover against a 1-CU copy between 128 KiB and 2 MiB', () => {
    const at = crossover(
      (s) => gbps('engine/host', s),
      (s) => gbps('cu/host', s, 1),
    );
    expect(at).toBeDefined();
    expect(at!).toBeGreaterThanOrEqual(128 * KiB);
    expect(at!).toBeLessThanOrEqual(2 * MiB);
  });

  it('more CUs never make a copy much slower, and bandwidth rises with size', () => {
    for (const size of [64 * KiB, 16 * MiB, GiB]) {
      expect(gbps('cu/host', size, 8)).toBeGreaterThan(gbps('cu/host', size, 1) * 0.95);
      expect(gbps('cu/host', size, 64)).toBeGreaterThan(gbps('cu/host', size, 8) * 0.95);
    }
    expect(gbps('engine/host', 16 * MiB)).toBeGreaterThan(gbps('engine/host', 64 * KiB));
  });

  it('stays under the xGMI link (76.8 GB/s per direction) on every path', () => {
    for (const s of samples) expect(s.gbps).toBeLessThan(76.8);
  });

  it('has run-to-run noise: repetitions differ, but by a few percent, not wildly', () => {
    const big = samples.filter((s) => s.sizeBytes >= 16 * MiB);
    for (const s of big) {
      expect(s.stdevNs).toBeGreaterThan(0);
      expect(s.stdevNs! / s.meanNs).toBeLessThan(0.15);
    }
  });
});
