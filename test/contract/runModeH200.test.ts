/**
 * The run mode on real hardware: what `sdma-probe run --backend cuda` printed for
 * examples/fused-a2a-cuda on 2x H200 (bench/device/run-h200-runmode.sh, kept in
 * test/fixtures/runmode/). Every line validates, the order is the documented one, and the
 * per-kernel summary the lenses show comes out of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { CopyOp, Dispatch } from '../../src/core/protocol';
import { applyRecord, newRun } from '../../src/core/run';
import { summarizeProfile, summariesBySite } from '../../src/core/profile/profileSummary';
import { detectKernels } from '../../src/core/kernels/detect';
import { expectRunOrder, recordedRecords } from './run';

const MiB = 1024 * 1024;

const load = (name: string) => recordedRecords('test', 'fixtures', 'runmode', name);

describe('run mode on 2x H200 (recorded)', () => {
  const rs = load('runmode-fused-a2a.ndjson');

  it('every line validates and comes in the documented order; the program ran and passed its check', () => {
    expectRunOrder(rs);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'run', backend: 'cuda', simulated: false });
    expect(rs.find((r) => r.type === 'topology')).toMatchObject({ node: { vendor: 'nvidia', simulated: false } });
    expect(rs.filter((r) => r.type === 'warning')).toEqual([]);
    const exit = rs.find((r) => r.type === 'program' && r.event === 'exit');
    expect(exit).toMatchObject({ exitCode: 0, signal: null });
  });

  it('folds into a Run and a per-kernel summary', () => {
    const run = newRun({
      type: 'run',
      format: 'sdma-lens-run',
      version: 1,
      id: 'h200-runmode',
      command: 'run',
      createdAt: '2026-11-30T02:05:41Z',
      target: { kind: 'local' },
      helper: { path: 'sdma-probe', args: [] },
    });
    for (const r of rs) applyRecord(run, r);
    expect(run.program?.start?.argv).toEqual(['./fused_a2a', '8', '5']);
    expect(run.program?.exit?.exitCode).toBe(0);
    const summary = summarizeProfile(run.dispatches, run.copies);
    expect(summary.simulated).toBe(false);

    const fused = summary.kernels.find((k) => k.name.includes('fusedComputeA2a'))!;
    // 5 steps x 2 GPUs, 2 x 32 blocks each, one per SM.
    expect(fused).toMatchObject({ launches: 10, gpus: [0, 1], cusSeen: 64, sources: ['cupti'] });
    expect(fused.avgNs).toBeGreaterThan(0);
    expect(fused.totalNs).toBeCloseTo(fused.avgNs * 10, 3);
    // Each launch puts 8 MiB into each GPU's receive buffer (itself included): all of it cu/device.
    expect(fused.bytesByPath['cu/device']).toBe(10 * 2 * 8 * MiB);
    expect(fused.bytesByPath['engine/host']).toBe(0);

    const compute = summary.kernels.find((k) => k.name.includes('computeKernel'))!;
    expect(compute).toMatchObject({ launches: 2, cusSeen: 132 });

    // Host-started copies: inputs, the peer gather (PtoP) and the checks' downloads.
    const engineHost = summary.copyPaths.find((p) => p.path === 'engine/host')!;
    expect(engineHost.bytes).toBeGreaterThanOrEqual(2 * 16 * MiB + 2 * 16 * MiB + 2 * 16 * MiB);
    const ptop = run.copies.filter((c: CopyOp) => c.label === 'PtoP');
    expect(ptop.map((c) => [c.srcGpu, c.dstGpu]).sort()).toEqual([
      [0, 1],
      [1, 0],
    ]);
    // GPU 0's five launches put 8 MiB each into GPU 1; the gather copied 16 MiB the same way.
    expect(summary.bytesByRoute['0->1']).toBe(5 * 8 * MiB + 16 * MiB);

    // The device trace's spans sit inside the launches CUPTI timed (clock alignment).
    const device = run.copies.filter((c) => c.source === 'device-trace');
    expect(device).toHaveLength(20);
    const launches = run.dispatches.filter((d: Dispatch) => d.name.includes('fusedComputeA2a'));
    for (const c of device) {
      const inside = launches.some(
        (d) => d.gpu === c.srcGpu && c.startNs >= d.startNs - 5000 && c.endNs <= d.endNs + 5000,
      );
      expect(inside).toBe(true);
    }
  });

  it("maps the printed names onto the example's kernels", () => {
    const source = readFileSync(join(inject('repoRoot'), 'examples', 'fused-a2a-cuda', 'fused_a2a.cu'), 'utf8');
    const sites = detectKernels(source);
    const summary = summarizeProfile(
      rs.filter((r): r is Dispatch => r.type === 'dispatch'),
      rs.filter((r): r is CopyOp => r.type === 'copy'),
    );
    const { bySite, unplaced } = summariesBySite(summary.kernels, sites);
    expect(unplaced).toEqual([]);
    expect(bySite.map((s) => s.site.name).sort()).toEqual(['computeKernel', 'fusedComputeA2a']);
  });

  it('cancel on the H200 node: SIGTERM reached the program, done cancelled', () => {
    const cancel = load('runmode-cancel.ndjson');
    expectRunOrder(cancel);
    expect(cancel.find((r) => r.type === 'program' && r.event === 'exit')).toMatchObject({
      signal: 'SIGTERM',
      exitCode: null,
    });
    expect(cancel.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
  });
});

describe('run mode on 1x H200 with the final trace channel (recorded after the 2-GPU run)', () => {
  it('every line validates, in the documented order; the launches carry the traced SM count', () => {
    for (const file of ['h200x1/runmode-fused-a2a.ndjson', 'h200x1/runmode-cancel.ndjson']) expectRunOrder(load(file));
    const rs = load('h200x1/runmode-fused-a2a.ndjson');
    const dispatches = rs.filter((r): r is Dispatch => r.type === 'dispatch');
    const copies = rs.filter((r): r is CopyOp => r.type === 'copy');
    const fused = dispatches.filter((d) => d.name.includes('fusedComputeA2a'));
    expect(fused).toHaveLength(5);
    for (const d of fused) expect(d.cusSeen).toBe(32);
    // With one GPU every step sends its 8 MiB to itself, marked by the device-side trace.
    const traced = copies.filter((c) => c.source === 'device-trace');
    expect(traced).toHaveLength(5);
    for (const c of traced)
      expect(c).toMatchObject({ mover: 'cu', initiator: 'device', srcGpu: 0, dstGpu: 0, bytes: 8 * MiB });
    const summary = summarizeProfile(dispatches, copies);
    expect(summary.kernels.find((k) => k.name.includes('fusedComputeA2a'))?.bytesByPath['cu/device']).toBe(5 * 8 * MiB);
  });
});
