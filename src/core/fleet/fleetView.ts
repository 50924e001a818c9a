/**
 * The fleet as one view: each node's status, every figure against the fleet's median with
 * its outliers (outliers.ts), the outlier nodes and pairs named in sentences, whether the
 * advice differs between nodes, and the thresholds' pass/fail. A pure function of the index
 * and the nodes' runs, for the CLI table, the JSON output and the fleet panel. Browser-safe.
 */
import type { Run } from '../run';
import { isSimulated, runStatus } from '../run';
import { formatBytes } from '../units';
import type { Figure } from './figures';
import { adviceSettings, matrixFigures, sweepAdvice, sweepFigures } from './figures';
import type { FleetIndex } from './fleetIndex';
import { CROSSOVER_MIN_DEVIATION, judge, MIN_DEVIATION, OUTLIER_RULE } from '../outliers';
import type { Thresholds } from './thresholds';
import { minimumFor } from './thresholds';

export interface NodeRuns {
  sweep?: Run;
  matrix?: Run;
}

export interface FleetNodeRow {
  node: string;
  /** ok, error, crashed, cancelled, missing (no run), as the node's runs ended (the worst of them). */
  status: string;
  runIds: string[];
  error?: string;
  simulated: boolean;
  outliers: number;
  /** Threshold checks this node failed (empty: passed, or no thresholds). */
  failures: string[];
}

export interface FleetFigureCell {
  node: string;
  value: number;
  deviation: number;
  z: number;
  outlier: boolean;
}

export interface FleetFigureRow {
  key: string;
  label: string;
  unit: Figure['unit'];
  kind: Figure['kind'];
  median: number;
  /** Whether there were enough nodes with this figure to judge. */
  judged: boolean;
  cells: FleetFigureCell[];
  lowIsWeak: boolean;
}

export interface FleetOutlier {
  node: string;
  figure: string;
  pair: string;
  text: string;
  side: 'low' | 'high';
}

export interface FleetView {
  id: string;
  createdAt: string;
  status: FleetIndex['status'];
  message?: string;
  job: string;
  via: string;
  simulated: boolean;
  nodes: FleetNodeRow[];
  figures: FleetFigureRow[];
  outliers: FleetOutlier[];
  /** Nodes grouped by the settings their advice would write; more than one group: the advice differs. */
  advice: { settings: string[]; nodes: string[] }[];
  adviceDiffers: boolean;
  rule: string;
  thresholds?: { failed: number; passed: number };
  notes: string[];
}

const STATUS_ORDER = ['missing', 'crashed', 'error', 'cancelled', 'incomplete', 'running', 'ok'];

function worst(statuses: string[]): string {
  return statuses.reduce((w, s) => (STATUS_ORDER.indexOf(s) < STATUS_ORDER.indexOf(w) ? s : w), 'ok');
}

function valueText(unit: Figure['unit'], x: number): string {
  return unit === 'bytes' ? formatBytes(Math.round(x)) : `${x.toFixed(1)} GB/s`;
}

/**
 * What judging a fleet needs of one node, taken from its runs: its figures, the settings its
 * advice would write, how each of its runs ended and whether it was simulated. Small beside the
 * runs themselves: a fleet of thousands of nodes keeps these, never every node's runs at once.
 */
export interface NodeFigures {
  figures: Figure[];
  /** The settings of the sweep's advice (absent: no advice, e.g. no sweep). */
  settings?: string[];
  /** `runStatus` of each run the node has, by command. */
  statuses: { sweep?: string; matrix?: string };
  simulated: boolean;
}

/** The figures of one node's runs (the advice, the costly part, computed once). */
export function nodeFigures(r: NodeRuns | undefined): NodeFigures {
  const advised = r?.sweep ? sweepAdvice(r.sweep) : [];
  const present = [r?.sweep, r?.matrix].filter((x): x is Run => x !== undefined);
  return {
    figures: [...(r?.sweep ? sweepFigures(r.sweep, advised) : []), ...(r?.matrix ? matrixFigures(r.matrix) : [])],
    ...(advised.length > 0 ? { settings: adviceSettings(advised) } : {}),
    statuses: {
      ...(r?.sweep ? { sweep: runStatus(r.sweep) } : {}),
      ...(r?.matrix ? { matrix: runStatus(r.matrix) } : {}),
    },
    simulated: present.some(isSimulated),
  };
}

/** The fleet view of the nodes' runs. */
export function fleetView(index: FleetIndex, runs: ReadonlyMap<string, NodeRuns>, thresholds?: Thresholds): FleetView {
  const nodes = new Map<string, NodeFigures>();
  for (const n of index.nodes) nodes.set(n.node, nodeFigures(runs.get(n.node)));
  return judgeFleet(index, nodes, thresholds);
}

/** The fleet view of the nodes' figures (fleetLoad.ts takes them node by node as it reads). */
export function judgeFleet(
  index: FleetIndex,
  nodeFacts: ReadonlyMap<string, NodeFigures>,
  thresholds?: Thresholds,
): FleetView {
  const figuresByNode = new Map<string, Figure[]>();
  const settingsByNode = new Map<string, string[]>();
  for (const n of index.nodes) {
    const facts = nodeFacts.get(n.node);
    if (facts?.settings) settingsByNode.set(n.node, facts.settings);
    figuresByNode.set(n.node, facts?.figures ?? []);
  }

  // One row per figure key, the nodes that have it, judged together.
  const byKey = new Map<string, { figure: Figure; cells: { node: string; value: number }[] }>();
  for (const [node, figures] of figuresByNode) {
    for (const f of figures) {
      const row = byKey.get(f.key) ?? { figure: f, cells: [] };
      row.cells.push({ node, value: f.value });
      byKey.set(f.key, row);
    }
  }
  const figures: FleetFigureRow[] = [];
  const outliers: FleetOutlier[] = [];
  for (const { figure, cells } of byKey.values()) {
    const j = judge(
      cells.map((c) => c.value),
      figure.kind === 'crossover' ? CROSSOVER_MIN_DEVIATION : MIN_DEVIATION,
    );
    figures.push({
      key: figure.key,
      label: figure.label,
      unit: figure.unit,
      kind: figure.kind,
      median: j.median,
      judged: j.judged,
      lowIsWeak: figure.lowIsWeak,
      cells: cells.map((c, i) => ({
        node: c.node,
        value: c.value,
        deviation: j.deviation[i]!,
        z: j.z[i]!,
        outlier: j.outlier[i]!,
      })),
    });
    cells.forEach((c, i) => {
      if (!j.outlier[i]) return;
      const side = c.value < j.median ? 'low' : 'high';
      const pct = Math.round(Math.abs(j.deviation[i]!) * 100);
      const how =
        figure.unit === 'bytes' ? `${side === 'low' ? 'smaller' : 'larger'} than` : side === 'low' ? 'below' : 'above';
      outliers.push({
        node: c.node,
        figure: figure.key,
        pair: figure.pair,
        side,
        text: `${c.node}: ${figure.label} ${valueText(figure.unit, c.value)}, ${pct}% ${how} the fleet median ${valueText(figure.unit, j.median)} (z ${j.z[i]!.toFixed(1)})`,
      });
    });
  }
  figures.sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }));
  // Per node: the sweep's figures first (a node's headline), then its matrix pairs.
  const rank = (key: string) => (key.startsWith('peak ') ? 0 : key.startsWith('crossover ') ? 1 : 2);
  outliers.sort(
    (a, b) =>
      a.node.localeCompare(b.node, undefined, { numeric: true }) ||
      rank(a.figure) - rank(b.figure) ||
      a.figure.localeCompare(b.figure, undefined, { numeric: true }),
  );

  // Threshold checks, per node.
  const failures = new Map<string, string[]>();
  if (thresholds) {
    for (const row of figures) {
      for (const c of row.cells) {
        const figure = byKey.get(row.key)!.figure;
        const min =
          figure && figure.kind !== 'crossover' ? minimumFor(thresholds, figure.kind, figure.path) : undefined;
        const list = failures.get(c.node) ?? [];
        if (min !== undefined && c.value < min)
          list.push(`${row.label} ${valueText(row.unit, c.value)} is below the minimum ${valueText(row.unit, min)}`);
        if (
          thresholds.maxBelowMedian !== undefined &&
          row.unit === 'GB/s' &&
          row.median > 0 &&
          c.value < row.median * (1 - thresholds.maxBelowMedian)
        ) {
          list.push(
            `${row.label} ${valueText(row.unit, c.value)} is more than ${Math.round(thresholds.maxBelowMedian * 100)}% below the fleet median ${valueText(row.unit, row.median)}`,
          );
        }
        failures.set(c.node, list);
      }
    }
  }

  const outlierCount = new Map<string, number>();
  for (const o of outliers) outlierCount.set(o.node, (outlierCount.get(o.node) ?? 0) + 1);
  const nodes: FleetNodeRow[] = index.nodes.map((n) => {
    const facts = nodeFacts.get(n.node);
    const statuses = index.commands.map((cmd) => facts?.statuses[cmd] ?? 'missing');
    const failed = failures.get(n.node) ?? [];
    // A node with no figures at all cannot pass a threshold check.
    if (thresholds && (figuresByNode.get(n.node)?.length ?? 0) === 0)
      failed.push('no figures were measured on this node');
    return {
      node: n.node,
      status: worst(statuses),
      runIds: n.runs.map((x) => x.runId),
      ...(n.error ? { error: n.error } : {}),
      simulated: facts?.simulated ?? false,
      outliers: outlierCount.get(n.node) ?? 0,
      failures: failed,
    };
  });

  const groups = new Map<string, { settings: string[]; nodes: string[] }>();
  for (const n of index.nodes) {
    const settings = settingsByNode.get(n.node);
    if (!settings) continue;
    const key = settings.join('\n');
    const g = groups.get(key) ?? { settings, nodes: [] };
    g.nodes.push(n.node);
    groups.set(key, g);
  }
  const advice = [...groups.values()].sort((a, b) => b.nodes.length - a.nodes.length);

  const simulated = nodes.some((n) => n.simulated);
  const notes: string[] = [];
  if (simulated) notes.push('SIMULATED: the nodes ran the simulated MI350X model, not a measurement.');
  const measured = nodes.filter((n) => figuresByNode.get(n.node)?.length).length;
  if (measured < 3) notes.push(`Only ${measured} node${measured === 1 ? '' : 's'} measured: outliers need at least 3.`);
  const missing = nodes.filter((n) => n.status !== 'ok');
  if (missing.length > 0)
    notes.push(
      `${missing.length} of ${nodes.length} nodes did not finish: ${missing.map((n) => `${n.node} (${n.status})`).join(', ')}.`,
    );
  return {
    id: index.id,
    createdAt: index.createdAt,
    status: index.status,
    ...(index.message ? { message: index.message } : {}),
    job: index.slurm.job,
    via: index.via.kind === 'ssh' ? `over SSH to ${index.via.host ?? 'a login node'}` : 'from this machine',
    simulated,
    nodes,
    figures,
    outliers,
    advice,
    adviceDiffers: advice.length > 1,
    rule: OUTLIER_RULE,
    ...(thresholds
      ? {
          thresholds: {
            failed: nodes.filter((n) => n.failures.length > 0).length,
            passed: nodes.filter((n) => n.failures.length === 0).length,
          },
        }
      : {}),
    notes,
  };
}
