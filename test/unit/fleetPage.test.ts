/**
 * The fleet panel's core (src/core/fleet/fleetPage.ts, fleetMessages.ts, fleetPanelTable.ts) on
 * the real 2x H200 sweep as the runs of a fleet whose nodes differ by a percent of noise, one
 * node's copy engines at 70% (as test/unit/fleet.test.ts builds it): the condensed page view
 * (outliers first, no per-node values, its size linear in the nodes), a figure's values on
 * request, the bounds of every list, both message schemas, and the nodes table.
 */
import { describe, expect, it } from 'vitest';
import { FLEET_LIMITS, parseFleetHostMessage, parseFleetWebviewMessage } from '../../src/core/fleet/fleetMessages';
import { figureValues, fleetPageView } from '../../src/core/fleet/fleetPage';
import { fleetTableModel } from '../../src/core/fleet/fleetPanelTable';
import type { FleetView, NodeRuns } from '../../src/core/fleet/fleetView';
import { fleetView } from '../../src/core/fleet/fleetView';
import { judge } from '../../src/core/outliers';
import type { FleetIndex } from '../../src/core/fleet/fleetIndex';
import { tableCsv, tableMarkdown } from '../../src/core/tables/tableText';
import { benchRun } from '../support/benchRuns';
import { asNode, fleetIndexOf } from '../support/fleets';

const base = benchRun('sweep');
const WEAK = 'h4';
/** A deterministic percent of noise per node; the weak node's copy engines at 70%. */
function fleetOf(count: number, thresholds?: Parameters<typeof fleetView>[2]): { index: FleetIndex; view: FleetView } {
  const names = Array.from({ length: count }, (_, i) => `h${i + 1}`);
  const runs = new Map<string, NodeRuns>(
    names.map((n, i) => [n, { sweep: asNode(base, n, 1 + 0.009 * Math.sin(i * 2.7), n === WEAK ? 0.7 : 1) }]),
  );
  const index = fleetIndexOf(names);
  return { index, view: fleetView(index, runs, thresholds) };
}

const six = fleetOf(6);
const page = fleetPageView(six.view, { index: six.index, problems: ['h9: run sweep-h9 could not be read: gone'] });

describe('fleetPageView', () => {
  it('is a view the page accepts, the weak node and its figures first', () => {
    expect(parseFleetHostMessage({ type: 'fleet-view', view: page })).toBeDefined();
    expect(page.nodes.map((n) => n.node)).toEqual(['h4', 'h1', 'h2', 'h3', 'h5', 'h6']);
    expect(page.nodes[0]!.outliers).toBe(six.view.outliers.length);
    expect(page.nodes[0]!.runs).toEqual([{ command: 'sweep', runId: 'sweep-h4' }]);
    const flagged = page.figures.filter((f) => f.outlierNodeCount > 0);
    expect(flagged.length).toBeGreaterThan(0);
    // Flagged figures lead the list, each names the weak node, which is also its lowest.
    expect(page.figures.slice(0, flagged.length)).toEqual(flagged);
    for (const f of flagged) {
      expect(f.outlierNodes).toEqual([WEAK]);
      expect(f.low.node).toBe(WEAK);
    }
    expect(page.outliers.map((o) => o.text)).toEqual(six.view.outliers.map((o) => o.text));
    expect(page.notes).toContain('h9: run sweep-h9 could not be read: gone');
  });

  it('carries each figure as median and extremes only, so it grows with the nodes, not nodes x figures', () => {
    for (const f of page.figures) {
      const row = six.view.figures.find((r) => r.key === f.key)!;
      expect(f.nodes).toBe(row.cells.length);
      expect(f.median).toBe(row.median);
      expect(f.low.value).toBe(Math.min(...row.cells.map((c) => c.value)));
      expect(f.high.value).toBe(Math.max(...row.cells.map((c) => c.value)));
      expect(f).not.toHaveProperty('cells');
    }
    const sixty = fleetOf(60);
    const bytes = (v: unknown) => JSON.stringify(v).length;
    const pagePerNode =
      (bytes(fleetPageView(sixty.view, { index: sixty.index })) -
        bytes(fleetPageView(six.view, { index: six.index }))) /
      54;
    const viewPerNode = (bytes(sixty.view) - bytes(six.view)) / 54;
    // The whole view adds a cell per figure for each node; the page only the node's row.
    expect(viewPerNode).toBeGreaterThan(six.view.figures.length * 60);
    expect(pagePerNode).toBeLessThan(200);
  });

  it("answers a figure with every node's value, lowest first, and nothing for a figure it lacks", () => {
    const key = page.figures[0]!.key;
    const answer = figureValues(six.view, key)!;
    expect(parseFleetHostMessage({ type: 'figure-values', figure: answer })).toBeDefined();
    const row = six.view.figures.find((r) => r.key === key)!;
    expect(answer.values.map((v) => v.value)).toEqual(row.cells.map((c) => c.value).sort((a, b) => a - b));
    expect(answer.values[0]).toMatchObject({ node: WEAK, outlier: true });
    expect(answer.values.filter((v) => v.outlier).map((v) => v.node)).toEqual([WEAK]);
    expect(figureValues(six.view, 'no such figure')).toBeUndefined();
  });

  it('keeps a figure whose median and MAD are both 0 within what the schema accepts (z would be infinite)', () => {
    const values = [0, 0, 0, 5];
    const j = judge(values);
    expect(j.z[3]).toBe(Infinity);
    const row = six.view.figures[0]!;
    const zero: FleetView = {
      ...six.view,
      figures: [
        {
          ...row,
          median: j.median,
          cells: values.map((value, i) => ({
            node: `z${i}`,
            value,
            deviation: j.deviation[i]!,
            z: j.z[i]!,
            outlier: j.outlier[i]!,
          })),
        },
      ],
    };
    const answer = figureValues(zero, row.key)!;
    expect(answer.values.at(-1)!.z).toBe(Number.MAX_VALUE);
    expect(parseFleetHostMessage(JSON.parse(JSON.stringify({ type: 'figure-values', figure: answer })))).toBeDefined();
    expect(
      parseFleetHostMessage(JSON.parse(JSON.stringify({ type: 'fleet-view', view: fleetPageView(zero) }))),
    ).toBeDefined();
  });

  it('cuts the lists a person reads at their bounds and counts the rest', () => {
    // Every peak below a minimum no GPU reaches: a failure per figure and node.
    const strict = fleetOf(6, {
      minGbps: { 'cu/host': 1e6, 'cu/device': 1e6, 'engine/host': 1e6, 'engine/device': 1e6 },
    });
    const failures = strict.view.nodes[0]!.failures.length;
    expect(failures).toBeGreaterThan(0);
    const p = fleetPageView(strict.view);
    expect(
      p.nodes.every(
        (n) => n.failureCount === failures && n.failures.length === Math.min(failures, FLEET_LIMITS.failuresPerNode),
      ),
    ).toBe(true);
    // More outliers than a page gets: the view's own list, repeated.
    const many = {
      ...six.view,
      outliers: Array.from(
        { length: FLEET_LIMITS.outliers + 5 },
        (_, i) => six.view.outliers[i % six.view.outliers.length]!,
      ),
    };
    const cut = fleetPageView(many);
    expect(cut.outliers).toHaveLength(FLEET_LIMITS.outliers);
    expect(cut.outlierCount).toBe(FLEET_LIMITS.outliers + 5);
    expect(cut.notes.at(-1)).toMatch(/first 10000 of 10005 outliers/);
    expect(parseFleetHostMessage({ type: 'fleet-view', view: cut })).toBeDefined();
    // The schema refuses what the builder never makes: one outlier too many, an overlong node name.
    expect(
      parseFleetHostMessage({ type: 'fleet-view', view: { ...cut, outliers: [...cut.outliers, cut.outliers[0]] } }),
    ).toBeUndefined();
    expect(
      parseFleetHostMessage({
        type: 'fleet-view',
        view: { ...page, nodes: [{ ...page.nodes[0]!, node: 'n'.repeat(4097) }] },
      }),
    ).toBeUndefined();
  });
});

describe('fleet page messages', () => {
  it('accepts what the page sends and refuses the rest', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'webview-error', message: 'x' },
      { type: 'select-figure', key: page.figures[0]!.key },
      { type: 'open-run', runId: 'sweep-h4' },
      { type: 'export-table', format: 'csv' },
      { type: 'copy-table' },
    ]) {
      expect(parseFleetWebviewMessage(m)).toEqual(m);
    }
    for (const m of [
      { type: 'open-run', runId: '../../etc' },
      { type: 'open-run' },
      { type: 'select-figure', key: 'k'.repeat(4097) },
      { type: 'export-table', format: 'xlsx' },
      { type: 'fleet-view' },
      { type: 'figure' },
      null,
      'ready',
    ]) {
      expect(parseFleetWebviewMessage(m)).toBeUndefined();
    }
    expect(
      parseFleetHostMessage({
        type: 'figure-values',
        figure: { ...figureValues(six.view, page.figures[0]!.key)!, median: Number.NaN },
      }),
    ).toBeUndefined();
  });
});

describe('fleetTableModel', () => {
  it("has a row per node in the page's order, naming the weak node's outlier figures and its threshold failures", () => {
    const judged = fleetOf(6, { maxBelowMedian: 0.2 });
    const p = fleetPageView(judged.view, { index: judged.index });
    const t = fleetTableModel(p);
    expect(t.title).toBe('SDMA Lens fleet fleet-test');
    expect(t.columns).toEqual([
      'node',
      'status',
      'outliers',
      'outlier figures',
      'thresholds',
      'failures',
      'failed checks',
      'error',
      'runs',
    ]);
    expect(t.rows.map((r) => r[0])).toEqual(p.nodes.map((n) => n.node));
    const [h4, ...others] = t.rows;
    const labels = p.figures.filter((f) => f.outlierNodeCount > 0).map((f) => `${f.label} (low)`);
    expect(h4).toEqual([
      'h4',
      'ok',
      labels.length,
      labels.join('; '),
      'FAIL',
      judged.view.nodes.find((n) => n.node === WEAK)!.failures.length,
      judged.view.nodes.find((n) => n.node === WEAK)!.failures.join('; '),
      '',
      'sweep-h4',
    ]);
    for (const r of others) expect(r.slice(2, 6)).toEqual([0, '', 'pass', 0]);
    expect(t.notes?.[0]).toMatch(/^Slurm job 7/);
    // Without thresholds, no threshold columns; CSV and Markdown hold the same rows.
    const plain = fleetTableModel(page);
    expect(plain.columns).toEqual(['node', 'status', 'outliers', 'outlier figures', 'error', 'runs']);
    expect(tableCsv(plain).split('\r\n').filter(Boolean)).toHaveLength(1 + page.nodes.length);
    expect(
      tableMarkdown(plain)
        .split('\n')
        .filter((l) => l.startsWith('|')),
    ).toHaveLength(2 + page.nodes.length);
  });
});
