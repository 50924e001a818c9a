/**
 * Refinement with the real helper (simulator): a coarse sweep's crossovers placed within
 * ±10% by rounds of probes, each a run of its own saved in the sweep's folder; the runs
 * folder still lists the sweep once, reading it back brings the refined points, a spent
 * budget starts no round, and a round that fails stops the refinement and says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { adviseFromRun } from '../../src/core/advice/advice';
import type { Run } from '../../src/core/run';
import { openAdvisedRun, refinementStore } from '../../src/core/runs/refinements';
import { RunStore } from '../../src/core/runs/runStore';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { runHelperCommand } from '../../src/core/runtime/runFlow';
import type { Probe } from '../../src/core/sweep/refine';
import { placedRatio, refineCrossovers } from '../../src/core/sweep/refine';
import type { SweepOptions } from '../../src/core/sweep/sweepOptions';
import { sweepArgs } from '../../src/core/sweep/sweepOptions';
import { fixedHelper } from '../support/fixedHelper';

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-refine-'));
  store = new RunStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const GRID: SweepOptions = {
  backend: 'sim',
  sizes: [4096, 65536, 1 << 20, 16 << 20, 256 << 20],
  paths: ['cu/host', 'cu/device', 'engine/host', 'engine/device'],
  cus: [64],
  iters: 10,
  seed: 1,
  pairs: [],
};

async function sweep(
  options: SweepOptions,
  into: RunStore,
  extra: { idTag: string; refines?: string; fault?: string },
): Promise<Run> {
  const args = sweepArgs(options);
  if (extra.fault) args.push('--fault', extra.fault);
  const r = await runHelperCommand(
    {
      command: 'sweep',
      idTag: extra.idTag,
      backend: 'sim',
      ...(extra.refines ? { refines: extra.refines } : {}),
      args: () => args,
    },
    { target: new LocalTarget(), helpers: fixedHelper(inject('helperPath'), ['sim']), store: into },
  );
  if (r.kind !== 'ended') throw new Error(`the sweep did not run: ${r.kind}`);
  return r.run;
}

const probeRunner = (grid: Run, fault?: string) => (probe: Probe, round: number) =>
  sweep(
    { ...GRID, sizes: probe.sizes, paths: [...probe.paths], cus: [probe.cus], iters: probe.iters, pairs: [probe.pair] },
    refinementStore(store, grid.header.id),
    { idTag: `refine-${round}`, refines: grid.header.id, ...(fault ? { fault } : {}) },
  );

const cusOf = (run: Run) => Object.fromEntries(adviseFromRun(run).focus.map((c) => [c.initiator, c.cus]));

describe('refining a sweep with the real helper', () => {
  it('places both crossovers within ±10%, saves each round in the sweep, and reads back merged', async () => {
    const grid = await sweep(GRID, store, { idTag: 'grid' });
    const before = adviseFromRun(grid).focus;
    expect(before.map((c) => c.kind)).toEqual(['crossover', 'crossover']);
    const result = await refineCrossovers(
      grid,
      { tolerance: 0.1, budgetMs: 60_000, cus: cusOf(grid), iters: 10, maxIters: 160 },
      probeRunner(grid),
    );
    console.log(
      `refinement: ${result.rounds} rounds, ${result.samples.length} samples, ${result.elapsedMs} ms, stopped: ${result.stopped}`,
    );
    expect(result.stopped).toBe('placed');
    expect(result.crossovers.every((c) => c.placed)).toBe(true);
    for (const r of result.runs) expect(r.header.refines).toBe(grid.header.id);
    // The runs folder lists the sweep alone; its rounds live inside it.
    expect((await store.list()).map((s) => s.id)).toEqual([grid.header.id]);
    expect(await refinementStore(store, grid.header.id).list()).toHaveLength(result.runs.length);
    const merged = await openAdvisedRun(store, grid.header.id);
    expect(merged.refinedSamples.length).toBe(result.samples.length);
    for (const c of adviseFromRun(merged).focus) {
      const i = c.verdicts.findIndex((v) => v.sizeBytes === c.fromBytes);
      const [lo, hi] = [c.verdicts[i - 1]!.sizeBytes, c.fromBytes!];
      expect(hi / lo).toBeLessThanOrEqual(placedRatio(0.1));
    }
    // Deleting the sweep deletes its rounds.
    await store.delete(grid.header.id);
    expect(await refinementStore(store, grid.header.id).list()).toEqual([]);
  }, 120_000);

  it('a spent budget starts no round', async () => {
    const grid = await sweep(GRID, store, { idTag: 'grid' });
    const result = await refineCrossovers(
      grid,
      { tolerance: 0.1, budgetMs: 0, cus: cusOf(grid), iters: 10, maxIters: 160 },
      probeRunner(grid),
    );
    expect(result.stopped).toBe('budget');
    expect(result.rounds).toBe(0);
    expect(result.runs).toEqual([]);
  }, 60_000);

  it('a round that crashes stops the refinement, says why, and keeps the sweep as it was', async () => {
    const grid = await sweep(GRID, store, { idTag: 'grid' });
    const result = await refineCrossovers(
      grid,
      { tolerance: 0.1, budgetMs: 60_000, cus: cusOf(grid), iters: 10, maxIters: 160 },
      probeRunner(grid, 'crash-after=0'),
    );
    expect(result.stopped).toBe('failed');
    expect(result.failure).toMatch(/killed by SIGABRT/);
    expect(result.samples).toEqual([]);
    const merged = await openAdvisedRun(store, grid.header.id);
    expect(merged.refinedSamples).toEqual([]);
    expect(merged.samples).toHaveLength(grid.samples.length);
  }, 60_000);
});
