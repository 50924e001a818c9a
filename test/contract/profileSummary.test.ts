/** src/core/profile/runMode.ts on hand-made records: attribution of copies to launches, paths, routes, sites. */
import { describe, expect, it } from 'vitest';
import type { CopyOp, Dispatch } from '../../src/core/protocol';
import { summarizeProfile, summariesBySite } from '../../src/core/profile/profileSummary';
import { detectKernels } from '../../src/core/kernels/detect';

const dispatch = (
  name: string,
  gpu: number,
  startNs: number,
  endNs: number,
  extra: Partial<Dispatch> = {},
): Dispatch => ({
  type: 'dispatch',
  name,
  gpu,
  startNs,
  endNs,
  grid: [8, 1, 1],
  block: [256, 1, 1],
  source: 'cupti',
  ...extra,
});
const copy = (
  mover: CopyOp['mover'],
  initiator: CopyOp['initiator'],
  srcGpu: number,
  dstGpu: number,
  bytes: number,
  startNs: number,
  endNs: number,
): CopyOp => ({
  type: 'copy',
  mover,
  initiator,
  srcGpu,
  dstGpu,
  bytes,
  startNs,
  endNs,
  source: initiator === 'device' ? 'device-trace' : 'cupti',
});

describe('summarizeProfile', () => {
  it('per kernel: launches, times, GPUs, CUs seen, device-started bytes inside its launches', () => {
    const ds = [
      dispatch('void a2a<float>(float*)', 0, 0, 100, { cusSeen: 8 }),
      dispatch('void a2a<float>(float*)', 1, 50, 250, { cusSeen: 16 }),
      dispatch('scale(float*)', 0, 300, 310),
    ];
    const cs = [
      copy('cu', 'device', 0, 1, 1000, 10, 90), // inside launch 1 (GPU 0)
      copy('cu', 'device', 1, 0, 2000, 60, 240), // inside launch 2 (GPU 1)
      copy('engine', 'device', 2, 1, 500, 100, 200), // a get into GPU 1, during launch 2
      copy('engine', 'host', -1, 0, 4096, 400, 500), // host-started: no kernel
      copy('cu', 'device', 0, 1, 64, 1000, 1100), // outside every launch
    ];
    const s = summarizeProfile(ds, cs);
    expect(s.kernels.map((k) => k.name)).toEqual(['void a2a<float>(float*)', 'scale(float*)']);
    const a2a = s.kernels[0]!;
    expect(a2a).toMatchObject({
      launches: 2,
      gpus: [0, 1],
      totalNs: 300,
      avgNs: 150,
      minNs: 100,
      maxNs: 200,
      cusSeen: 16,
      sources: ['cupti'],
    });
    expect(a2a.bytesByPath).toEqual({ 'cu/host': 0, 'cu/device': 3000, 'engine/host': 0, 'engine/device': 500 });
    expect(s.kernels[1]!.cusSeen).toBeUndefined();
    expect(s.copiesOutsideKernels).toBe(2);
    expect(s.copyPaths.map((p) => p.path)).toEqual(['cu/device', 'engine/host', 'engine/device']);
    expect(s.copyPaths[1]).toMatchObject({ copies: 1, bytes: 4096, busyNs: 100, gbps: 40.96 });
    expect(s.bytesByRoute).toEqual({ '0->1': 1064, '1->0': 2000, '2->1': 500, '-1->0': 4096 });
    expect(s.spanNs).toBe(1100);
    expect(s.simulated).toBe(false);
  });

  it('empty input, and simulated records', () => {
    expect(summarizeProfile([], [])).toMatchObject({ kernels: [], copyPaths: [], spanNs: 0, simulated: false });
    expect(summarizeProfile([dispatch('k', 0, 0, 1, { source: 'sim' })], []).simulated).toBe(true);
  });
});

describe('summariesBySite', () => {
  it('places printed names on detected kernels; unknown names stay apart', () => {
    const sites = detectKernels(
      'namespace ns { __global__ void a2a(float* p) {} }\n__global__ void scale(float* p) {}\n',
    );
    const s = summarizeProfile(
      [dispatch('ns::a2a(float*)', 0, 0, 10), dispatch('_Z5scalePf', 0, 20, 30), dispatch('other(int)', 0, 40, 50)],
      [],
    );
    const { bySite, unplaced } = summariesBySite(s.kernels, sites);
    expect(bySite.map((b) => [b.site.qualifiedName, b.kernels.map((k) => k.name)]).sort()).toEqual([
      ['ns::a2a', ['ns::a2a(float*)']],
      ['scale', ['_Z5scalePf']],
    ]);
    expect(unplaced.map((k) => k.name)).toEqual(['other(int)']);
  });
});
