/**
 * The fleet's judgement (src/core/fleet): the median/MAD rule on its own (properties that must
 * hold for any fleet), then the fleet view on real data: the 2x H200 sweep as the runs of a
 * fleet whose nodes differ by a percent of noise, one node's copy engines made 30% slower.
 * Also the threshold files and the Slurm argument arrays (no value can become an option).
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeRuns } from '../../src/core/fleet/fleetView';
import { fleetView } from '../../src/core/fleet/fleetView';
import { fleetTable } from '../../src/core/fleet/fleetTable';
import { CROSSOVER_MIN_DEVIATION, judge, median, MIN_DEVIATION } from '../../src/core/outliers';
import { allocationArgs, allocationJobId, checkSlurmName, stepArgs } from '../../src/core/fleetRun/slurm';
import { parseThresholds } from '../../src/core/fleet/thresholds';
import { benchRun } from '../support/benchRuns';
import { asNode, fleetIndexOf } from '../support/fleets';

describe('median/MAD outliers', () => {
  it('never flags a node of a fleet whose values all lie within ±2% of one value', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.array(fc.double({ min: -0.02, max: 0.02, noNaN: true }), { minLength: 3, maxLength: 200 }),
        (centre, offsets) => {
          const j = judge(offsets.map((o) => centre * (1 + o)));
          expect(j.outlier.some(Boolean)).toBe(false);
        },
      ),
    );
  });

  it('flags a node 20% or more below a tight fleet of 4 or more, and only it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.array(fc.double({ min: -0.01, max: 0.01, noNaN: true }), { minLength: 4, maxLength: 200 }),
        fc.double({ min: 0.05, max: 0.8, noNaN: true }),
        fc.nat(),
        (centre, offsets, weak, at) => {
          const values = offsets.map((o) => centre * (1 + o));
          const i = at % (values.length + 1);
          values.splice(i, 0, centre * weak);
          const j = judge(values);
          expect(j.outlier.map((o, k) => (o ? k : -1)).filter((k) => k >= 0)).toEqual([i]);
          expect(j.z[i]).toBeLessThan(-3.5);
        },
      ),
    );
  });

  it('judges nothing with fewer than 3 nodes, and identical nodes give no division by zero', () => {
    expect(judge([10, 1]).outlier).toEqual([false, false]);
    expect(judge([10, 1]).judged).toBe(false);
    const same = judge([5, 5, 5, 5]);
    expect(same.z.every((z) => z === 0)).toBe(true);
    expect(same.outlier.some(Boolean)).toBe(false);
    // A crossover, placed between sizes a factor 2 apart, needs to be more than CROSSOVER_MIN_DEVIATION off.
    expect(judge([4.5, 4.52, 4.55, 4.6, 4.22], CROSSOVER_MIN_DEVIATION).outlier[4]).toBe(false);
    expect(judge([4.5, 4.52, 4.55, 4.6, 4.22]).outlier[4]).toBe(true);
    expect(judge([4.5, 4.52, 4.55, 4.6, 2.2], CROSSOVER_MIN_DEVIATION).outlier[4]).toBe(true);
    // The spread floor: one node 3% off identical others is not an outlier (under MIN_DEVIATION), 6% off is.
    expect(judge([100, 100, 100, 97]).outlier[3]).toBe(false);
    expect(judge([100, 100, 100, 100 * (1 - MIN_DEVIATION - 0.01)]).outlier[3]).toBe(true);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});

describe('fleet view on the real 2x H200 sweep', () => {
  const base = benchRun('sweep');
  const names = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
  // A percent of node-to-node noise, deterministic; h4's copy engines at 70%.
  const noise = [1.004, 0.993, 1.009, 0.998, 1.006, 0.991];
  const runs = new Map<string, NodeRuns>(
    names.map((n, i) => [n, { sweep: asNode(base, n, noise[i]!, n === 'h4' ? 0.7 : 1) }]),
  );
  const view = fleetView(fleetIndexOf(names), runs);

  it('names the weak node on its engine figures, and no other node or figure', () => {
    expect(view.outliers.length).toBeGreaterThan(0);
    expect(new Set(view.outliers.map((o) => o.node))).toEqual(new Set(['h4']));
    const engineFigures = view.figures.filter((f) => f.kind === 'peak' && f.key.startsWith('peak engine/'));
    expect(engineFigures.length).toBeGreaterThan(0);
    for (const f of engineFigures) {
      const h4 = f.cells.find((c) => c.node === 'h4')!;
      expect(h4.outlier).toBe(true);
      // The median of six: the mean of the 3rd and 4th noise factors (0.993, 1.004); h4 sits at 0.7 x 0.998 of the base.
      expect(h4.deviation).toBeCloseTo((0.7 * noise[3]!) / ((0.993 + 1.004) / 2) - 1, 6);
    }
    for (const f of view.figures.filter((x) => x.key.startsWith('peak cu/')))
      expect(f.cells.some((c) => c.outlier)).toBe(false);
    expect(view.outliers[0]!.text).toMatch(/^h4: engine\/\S+ .* GB\/s, \d+% below the fleet median/);
  });

  it('groups every node by the settings its advice writes, and counts passes and failures of thresholds', () => {
    const groups = view.advice.map((g) => g.nodes);
    expect(groups.flat().sort()).toEqual([...names].sort());
    const t = fleetView(fleetIndexOf(names), runs, { maxBelowMedian: 0.2 });
    expect(t.nodes.filter((n) => n.failures.length > 0).map((n) => n.node)).toEqual(['h4']);
    expect(t.thresholds).toEqual({ failed: 1, passed: 5 });
    const strict = fleetView(fleetIndexOf(names), runs, { minGbps: { 'engine/device': 1e6 } });
    expect(strict.thresholds?.failed).toBe(names.length);
  });

  it('keeps a node that failed in the view, says so, and prints a table that names the weak node', () => {
    const partial = new Map(runs);
    partial.set('h6', {});
    const v = fleetView(fleetIndexOf(names, { h6: 'crashed' }), partial);
    expect(v.nodes.find((n) => n.node === 'h6')?.status).toBe('missing');
    expect(v.notes.join(' ')).toMatch(/1 of 6 nodes did not finish: h6/);
    const text = fleetTable(v);
    expect(text).toMatch(/^h4 +ok +\d+/m);
    expect(text).toMatch(/# {3}h4: engine\//);
  });
});

describe('threshold files', () => {
  it('reads the three keys and refuses unknown keys, unknown paths and values out of range, naming them', () => {
    expect(
      parseThresholds('{"minGbps":{"engine/host":40},"matrixMinGbps":{"cu/device":10},"maxBelowMedian":0.1}'),
    ).toEqual({ minGbps: { 'engine/host': 40 }, matrixMinGbps: { 'cu/device': 10 }, maxBelowMedian: 0.1 });
    expect(() => parseThresholds('{"minGbsp":{}}', 't.json')).toThrow(/t\.json: .*accepted: minGbps/);
    expect(() => parseThresholds('{"minGbps":{"engine/hots":1}}')).toThrow(/minGbps/);
    expect(() => parseThresholds('{"maxBelowMedian":2}')).toThrow(/maxBelowMedian/);
    expect(() => parseThresholds('{"minGbps":{}}')).toThrow(/at least one path/);
    expect(() => parseThresholds('not json')).toThrow(/not JSON/);
  });
});

describe('Slurm argument arrays', () => {
  it('never lets a name become an option, and asks for whole nodes, one task each', () => {
    expect(allocationArgs({ nodes: 4, partition: 'gpu' })).toEqual([
      '--no-shell',
      '--job-name=sdma-lens-fleet',
      '--exclusive',
      '--ntasks-per-node=1',
      '--nodes=4',
      '--partition=gpu',
    ]);
    for (const bad of ['-w', '--uid=0', 'a b', 'x;rm', '$(id)', ''])
      expect(() => checkSlurmName('partition', bad)).toThrow(/not a Slurm name/);
    expect(checkSlurmName('node list', 'n[1-4],n7')).toBe('n[1-4],n7');
    expect(() => allocationArgs({})).toThrow(/how many nodes/);
    expect(() => allocationArgs({ nodes: 0 })).toThrow(/1\.\.100000/);
    expect(() => stepArgs('12;x', 'n1', 's')).toThrow(/job id/);
    expect(stepArgs('12', 'n1', 's').at(-1)).toBe('--');
  });

  it('reads the job id salloc names, granted or still queued', () => {
    expect(allocationJobId('salloc: Granted job allocation 42\n')).toEqual({ job: '42', granted: true });
    expect(
      allocationJobId('salloc: Pending job allocation 43\nsalloc: job 43 queued and waiting for resources\n'),
    ).toEqual({ job: '43', granted: false });
    expect(allocationJobId('salloc: error: invalid partition\n')).toEqual({ job: undefined, granted: false });
  });
});
