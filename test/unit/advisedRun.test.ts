/**
 * The run as advised (`openAdvisedRun`): a refined sweep is read back with the points of its
 * finished rounds, so the panel after Refine Crossover, the panel restored after a reload
 * (the serializer opens its run here), Open Run and `sdma-lens advise` give the same advice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adviseFromRun } from '../../src/core/advice/advice';
import { adviceView } from '../../src/core/advice/adviceView';
import { adviceFor } from '../../src/core/advice/fronts';
import type { Sample } from '../../src/core/protocol';
import { openAdvisedRun, refinementStore } from '../../src/core/runs/refinements';
import { RunStore } from '../../src/core/runs/runStore';
import { sweepView } from '../../src/core/sweep/sweepView';
import { runCli } from '../support/cli';
import { header, hello } from '../support/records';

const KiB = 1024;
const ID = '2026-11-30T00-00-00-000Z-sweep-sim-grid';
const lines = readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8').trim().split('\n');
const end = (status: string) => ({
  type: 'run-end',
  status,
  exitCode: 0,
  signal: null,
  message: '',
  endedAt: '2026-11-30T00:00:02.000Z',
});

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-advised-'));
  store = new RunStore(dir);
  // The simulator sweep as saved, under an id of the runs folder.
  const w = store.create({
    ...header(ID),
    helper: { path: 'sdma-probe', args: ['sweep', '--backend', 'sim', '--cus', '8,64'] },
  });
  for (const l of lines.slice(1)) w.appendLine(l);
  w.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A refinement round of the sweep: `samples`, then how it ended. */
function saveRound(id: string, samples: Sample[], status = 'ok', refines = ID) {
  const w = refinementStore(store, ID).create({ ...header(id), refines });
  for (const r of [
    hello,
    ...samples,
    { type: 'done', status: 'ok', samples: samples.length, elapsedMs: 1 },
    end(status),
  ])
    w.appendValue(r);
  w.close();
}

/** The device-initiated pair of the grid at 8 CUs measured again at 192 KiB, where the engine already leads (as at 256 KiB). */
async function roundAt192KiB(): Promise<Sample[]> {
  const grid = await store.open(ID);
  const at256 = grid.samples.filter(
    (s) => s.initiator === 'device' && s.sizeBytes === 256 * KiB && (s.mover === 'engine' || s.cus === 8),
  );
  expect(at256).toHaveLength(2);
  return at256.map((s) => ({ ...s, sizeBytes: 192 * KiB }));
}

const deviceFrom = (run: Parameters<typeof adviseFromRun>[0]) =>
  adviseFromRun(run, { loadStoreCus: 8 }).focus.find((c) => c.initiator === 'device')?.fromBytes;

describe('the run as advised', () => {
  it("is a sweep with its finished rounds' points: the advice follows the refined crossover, the plain run's does not", async () => {
    saveRound('2026-11-30T00-00-01-000Z-sweep-sim-refine-1', await roundAt192KiB());
    const advised = await openAdvisedRun(store, ID);
    expect(advised.refinedSamples.map((s) => s.sizeBytes)).toEqual([192 * KiB, 192 * KiB]);
    expect(deviceFrom(advised)).toBe(192 * KiB);
    expect(deviceFrom(await store.open(ID))).toBe(256 * KiB);
    // The panel's view rings the refined points.
    expect(sweepView(advised).series.flatMap((s) => s.points.filter((p) => p.refined).map((p) => p.sizeBytes))).toEqual(
      [192 * KiB, 192 * KiB],
    );
  });

  it('is what `sdma-lens advise` advises on: the same advice as the panel builds from it', async () => {
    saveRound('2026-11-30T00-00-01-000Z-sweep-sim-refine-1', await roundAt192KiB());
    const cli = await runCli(['advise', ID, '--runs-dir', dir, '--cus', '8', '--json']);
    expect(cli.code, cli.err).toBe(0);
    const printed = JSON.parse(cli.out) as {
      focus: { initiator: string; fromBytes?: number }[];
      recommendations: unknown[];
    };
    expect(printed.focus.find((c) => c.initiator === 'device')?.fromBytes).toBe(192 * KiB);
    // The panel's settings and values are the CLI's (each front names the user's options its own way).
    const advice = adviseFromRun(await openAdvisedRun(store, ID), { loadStoreCus: 8 });
    const panel = adviceView(advice);
    const said = printed.recommendations as { knob: string; value?: string; evidence: string }[];
    expect(panel.recommendations.map((r) => [r.knob, r.value])).toEqual(said.map((r) => [r.knob, r.value]));
    expect(adviceFor(advice, 'cli').recommendations.map((r) => r.evidence)).toEqual(said.map((r) => r.evidence));
  });

  it('leaves out rounds that did not finish or refine another run, and opens any other run as saved', async () => {
    saveRound('2026-11-30T00-00-01-000Z-sweep-sim-refine-1', await roundAt192KiB(), 'cancelled');
    saveRound('2026-11-30T00-00-02-000Z-sweep-sim-refine-2', await roundAt192KiB(), 'ok', 'another-sweep');
    const advised = await openAdvisedRun(store, ID);
    expect(advised.refinedSamples).toEqual([]);
    expect(deviceFrom(advised)).toBe(256 * KiB);
    const w = store.create({ ...header('2026-11-30T00-00-03-000Z-matrix-sim-aaaa'), command: 'matrix' });
    w.appendValue(end('ok'));
    w.close();
    expect((await openAdvisedRun(store, '2026-11-30T00-00-03-000Z-matrix-sim-aaaa')).refinedSamples).toEqual([]);
  });
});
