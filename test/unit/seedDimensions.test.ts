/**
 * The seed's dimensions (waves per CU, split, batch, rocSHMEM SDMA mode) through every view: a
 * series per value, matched on its whole key by refine, compare, the tables, the fleet's figures
 * and the advice; and a run saved before them (test/fixtures/runs/sim-sweep-seed1.ndjson) read,
 * compared and exported as before.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adviseFromRun } from '../../src/core/advice/advice';
import { compareRuns } from '../../src/core/compare/compare';
import { compareTableModel } from '../../src/core/compare/comparePanelTable';
import { comparePageView } from '../../src/core/compare/compareView';
import { sweepFigures } from '../../src/core/fleet/figures';
import type { Sample } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { readRunFile } from '../../src/core/runs/runStore';
import { DIMENSION_COLUMNS, isDefaultDims, pairSeriesKey } from '../../src/core/seriesKey';
import { crossoversOf, pointKey, probeOptions, withRefinements } from '../../src/core/sweep/refine';
import { seriesLabel, sweepTableModel } from '../../src/core/sweep/sweepPanelTable';
import { sweepTable } from '../../src/core/sweep/sweepTable';
import { seriesForCus, sweepView } from '../../src/core/sweep/sweepView';
import { parseHostMessage } from '../../src/core/sweep/sweepMessages';
import type { SweepView } from '../../src/core/sweep/sweepView';
import { SampleTable } from '../../src/core/sampleTable';

/** The view as the page receives it, through its schema. */
const parseSweepView = (view: SweepView) => {
  const m = parseHostMessage(JSON.parse(JSON.stringify({ type: 'sweep', view })));
  if (!m) throw new Error('the page refuses the view');
  return m.view;
};

const fixture = () => readRunFile(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'));

/** `run` with each sample of `pick` measured again as `over` (a little slower, so it is told apart). */
function withVariant(run: Run, pick: (s: Sample) => boolean, over: Partial<Sample>, id = 'with-variants'): Run {
  const variants = run.samples.filter(pick).map((s) => ({
    ...s,
    ...over,
    meanNs: s.meanNs * 1.5,
    gbps: s.gbps / 1.5,
    ...(s.timesNs ? { timesNs: s.timesNs.map((t) => t * 1.5) } : {}),
    ...(s.minNs !== undefined ? { minNs: s.minNs * 1.5 } : {}),
    ...(s.maxNs !== undefined ? { maxNs: s.maxNs * 1.5 } : {}),
    ...(s.medianNs !== undefined ? { medianNs: s.medianNs * 1.5 } : {}),
  }));
  return { ...run, header: { ...run.header, id }, samples: SampleTable.from([...run.samples, ...variants]) };
}

const oneWave = (run: Run) => withVariant(run, (s) => s.mover === 'cu', { wavesPerCu: 1, waveSize: 64 }, 'one-wave');
const fourEngines = (run: Run) =>
  withVariant(
    run,
    (s) => s.mover === 'engine' && s.initiator === 'host',
    { split: 4, splitOver: 'engines' },
    'four-engines',
  );

describe('a run saved before the dimensions', () => {
  it('reads as the default series: keys, labels and table columns as before', async () => {
    const run = await fixture();
    expect(run.samples.every(isDefaultDims)).toBe(true);
    const view = sweepView(run);
    const old = new Set(
      run.samples.map((s) => `${s.src}:${s.dst}#${s.mover}/${s.initiator}#${s.mover === 'cu' ? s.cus : ''}`),
    );
    expect(view.series).toHaveLength(old.size);
    for (const s of view.series) {
      expect(s.wavesPerCu ?? s.split ?? s.batch ?? s.shmemSdma).toBeUndefined();
      expect(seriesLabel(s)).toMatch(/^(cu\/(host|device) · (8|64) CUs|engine\/host|engine\/device( · 1 CU)?)$/);
    }
    const table = sweepTableModel(view);
    expect(table.columns.some((c) => /wave|engines ·|batch|rocSHMEM/.test(c))).toBe(false);
    expect(sweepTable(run)).not.toMatch(/wave/);
  });

  it('compares with itself point for point, every curve in both, the dimension columns at their defaults', async () => {
    const run = await fixture();
    const c = compareRuns(run, { ...run, header: { ...run.header, id: 'again' } });
    expect(c.points).toHaveLength(run.samples.length);
    expect(c.onlyInA).toEqual([]);
    expect(c.onlyInB).toEqual([]);
    expect(c.notes.some((n) => n.includes('only in'))).toBe(false);
    const table = compareTableModel(comparePageView(c));
    expect(table.columns.slice(1, 1 + DIMENSION_COLUMNS.length)).toEqual([...DIMENSION_COLUMNS]);
    for (const row of table.rows) {
      const dims = row.slice(1, 1 + DIMENSION_COLUMNS.length);
      const engineDevice = String(row[0]).startsWith('engine/device');
      expect(dims).toEqual([null, null, 1, null, 0, engineDevice ? 'forced' : null]);
    }
  });

  it('is advised as before, with or without wavesPerCu 0', async () => {
    const run = await fixture();
    const before = adviseFromRun(run, { loadStoreCus: 8 });
    expect(adviseFromRun(run, { loadStoreCus: 8, wavesPerCu: 0 })).toEqual(before);
    for (const c of before.focus) expect(c.wavesPerCu).toBeUndefined();
  });
});

describe('a series per dimension value', () => {
  it('draws each waves value as its own series at its CU count, with its words', async () => {
    const run = oneWave(await fixture());
    const view = sweepView(run);
    const keys = view.series.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    const at8 = seriesForCus(view, 8).map(seriesLabel);
    expect(at8).toEqual([
      'cu/host · 8 CUs · 1 wave/CU',
      'cu/host · 8 CUs',
      'cu/device · 8 CUs · 1 wave/CU',
      'cu/device · 8 CUs',
      'engine/host',
      'engine/device · 1 CU',
    ]);
    // The CU selector still lists the counts, once each.
    expect(view.cuCounts).toEqual([8, 64]);
    // The page's schema keeps the dimensions (the webview draws from what passes it).
    expect(parseSweepView(view).series.find((s) => s.wavesPerCu === 1)?.waveSize).toBe(64);
    expect(sweepTable(run)).toContain('8 CU · 1 wave/CU');
    expect(sweepTableModel(view).columns).toContain('cu/host · 8 CUs · 1 wave/CU GB/s');
  });

  it('splits engine/host by engines, and names them in the table', async () => {
    const view = sweepView(fourEngines(await fixture()));
    expect(view.series.filter((s) => s.path === 'engine/host').map(seriesLabel)).toEqual([
      'engine/host',
      'engine/host · 4 engines',
    ]);
  });

  it('refines a point of one series without touching the same size of another', async () => {
    const grid = oneWave(await fixture());
    const target = grid.samples.find((s) => s.mover === 'cu' && s.wavesPerCu === 1 && s.cus === 8)!;
    const round: Run = {
      ...grid,
      header: { ...grid.header, id: 'round' },
      samples: SampleTable.from([{ ...target, gbps: 1 }]),
    };
    const merged = withRefinements(grid, [round]);
    expect(merged.samples).toHaveLength(grid.samples.length);
    const same = merged.samples.filter((s) => pointKey(s, true) === pointKey(target, true));
    expect(same).toEqual([{ ...target, gbps: 1 }]);
    const plain = merged.samples.find(
      (s) =>
        s.mover === 'cu' &&
        s.initiator === target.initiator &&
        s.cus === 8 &&
        s.sizeBytes === target.sizeBytes &&
        s.wavesPerCu === undefined,
    );
    expect(plain?.gbps).not.toBe(1);
    expect(pairSeriesKey(plain!)).not.toBe(pairSeriesKey(target));
  });

  it('places crossovers between the default series, or at the chosen waves', async () => {
    const run = oneWave(await fixture());
    const plain = crossoversOf(run.samples.toArray(), { host: 8, device: 8 });
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((x) => x.crossover.wavesPerCu === undefined)).toBe(true);
    const chosen = crossoversOf(run.samples.toArray(), { host: 8, device: 8 }, { wavesPerCu: 1 });
    expect(chosen.map((x) => x.crossover.wavesPerCu)).toEqual(plain.map(() => 1));
  });

  it('probes a crossover compared at some waves at those waves', () => {
    const options = probeOptions(['sweep', '--backend', 'sim'], {
      initiator: 'host',
      pair: { src: 0, dst: 1 },
      paths: ['engine/host', 'cu/host'],
      cus: 8,
      wavesPerCu: 4,
      sizes: [65536],
      iters: 20,
    });
    expect(options.wavesPerCu).toEqual([4]);
  });

  it('compares on the whole key: the default curves matched, the others listed as in one run only', async () => {
    const a = await fixture();
    const b = oneWave(a);
    const c = compareRuns(a, b);
    expect(c.points).toHaveLength(a.samples.length);
    expect(c.onlyInA).toEqual([]);
    expect(c.onlyInB).toHaveLength(b.samples.length - a.samples.length);
    expect(c.onlyInB.every((p) => p.label.includes('1 wave/CU'))).toBe(true);
    const note = c.notes.find((n) => n.includes('only in B'));
    expect(note).toMatch(/^4 curves only in B: cu\/host · GPU 0 → GPU 1 · 8 CUs · 1 wave\/CU/);
    const table = compareTableModel(comparePageView(c));
    const waves = table.rows.filter((r) => r[1] === 1);
    expect(waves).toHaveLength(c.onlyInB.length);
    expect(waves.every((r) => r[2] === 64)).toBe(true);
  });

  it('keeps the fleet figures of the default series, and adds one per other series', async () => {
    const a = await fixture();
    const before = sweepFigures(a);
    const after = sweepFigures(oneWave(a));
    for (const f of before.filter((x) => x.kind === 'peak')) expect(after.find((x) => x.key === f.key)).toEqual(f);
    const added = after.filter((f) => f.kind === 'peak' && !before.some((x) => x.key === f.key));
    expect(added).toHaveLength(4);
    expect(added.every((f) => f.label.endsWith(', 1 wave/CU)'))).toBe(true);
  });

  it('advises at the default threads unless the user chose waves, and names the choice', async () => {
    const a = await fixture();
    const b = oneWave(a);
    const plain = adviseFromRun(a, { loadStoreCus: 8 });
    const byDefault = adviseFromRun(b, { loadStoreCus: 8 });
    expect(byDefault.focus).toEqual(plain.focus);
    const chosen = adviseFromRun(b, { loadStoreCus: 8, wavesPerCu: 1 });
    expect(chosen.focus.map((c) => c.wavesPerCu)).toEqual(chosen.focus.map(() => 1));
    expect(chosen.focus[0]!.explanation).toContain('on 8 CUs at 1 wave/CU');
    expect(chosen.notes.some((n) => n.includes('compared at 1 wave per CU, as asked'))).toBe(true);
    const missing = adviseFromRun(b, { loadStoreCus: 8, wavesPerCu: 2 });
    expect(missing.notes.some((n) => /No cu\/\w+ copy was measured at 2 waves per CU/.test(n))).toBe(true);
    // A run with the wave series only: compared on the nearest, said so.
    const only = { ...b, samples: SampleTable.from(b.samples.filter((s) => s.mover !== 'cu' || s.wavesPerCu === 1)) };
    const nearest = adviseFromRun(only, { loadStoreCus: 8 });
    expect(nearest.focus.every((c) => c.wavesPerCu === 1)).toBe(true);
    expect(nearest.notes.some((n) => n.includes('no cu/host series at the default 1024 threads per CU'))).toBe(true);
  });
});
