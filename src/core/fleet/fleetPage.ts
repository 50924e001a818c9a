/**
 * The fleet panel's view: the `FleetView` condensed so that its size grows with nodes plus
 * figures, never nodes times figures. A 1,000-node fleet of 8-GPU matrices has hundreds of
 * figures, each with a value on every node; the page gets each figure's median, its lowest
 * and highest node and its outlier nodes, and one figure's per-node values only when it asks
 * for that figure (`select-figure`, answered by `figureValues`). Lists a person reads (outlier
 * sentences, a node's threshold failures, a figure's outlier nodes) are cut at FLEET_LIMITS
 * and counted. Browser-safe.
 */
import type { FleetIndex } from './fleetIndex';
import type { FigureValues, FleetPageFigure, FleetPageNode, FleetPageView } from './fleetMessages';
import { FLEET_LIMITS } from './fleetMessages';
import type { FleetFigureRow, FleetNodeRow, FleetView } from './fleetView';

export interface FleetPageExtras {
  /** The fleet's index: which command each node's run ran (the Open buttons say it). */
  index?: FleetIndex;
  /** Runs the index names that could not be read (`LoadedFleet.problems`): shown with the notes. */
  problems?: readonly string[];
}

const natural = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });

/** Nodes with outliers first (most first), then those that failed a threshold, then those not ok, then by name. */
export function nodeOrder(
  a: Pick<FleetNodeRow, 'node' | 'outliers' | 'status'> & { failureCount: number },
  b: typeof a,
): number {
  return (
    b.outliers - a.outliers ||
    b.failureCount - a.failureCount ||
    Number(b.status !== 'ok') - Number(a.status !== 'ok') ||
    natural(a.node, b.node)
  );
}

/** A value the page's schema accepts: z of a fleet whose median and MAD are both 0 can be infinite. */
function bounded(x: number): number {
  if (Number.isFinite(x)) return x;
  return Number.isNaN(x) ? 0 : Math.sign(x) * Number.MAX_VALUE;
}

function pageNode(n: FleetNodeRow, commands: ReadonlyMap<string, string>): FleetPageNode {
  return {
    node: n.node,
    status: n.status,
    runs: n.runIds.slice(0, FLEET_LIMITS.runsPerNode).map((runId) => {
      const command = commands.get(runId);
      return command ? { command, runId } : { runId };
    }),
    ...(n.error ? { error: n.error } : {}),
    simulated: n.simulated,
    outliers: n.outliers,
    failures: n.failures.slice(0, FLEET_LIMITS.failuresPerNode),
    failureCount: n.failures.length,
  };
}

function pageFigure(f: FleetFigureRow): FleetPageFigure {
  let low = f.cells[0]!;
  let high = f.cells[0]!;
  for (const c of f.cells) {
    if (c.value < low.value) low = c;
    if (c.value > high.value) high = c;
  }
  const outliers = f.cells.filter((c) => c.outlier).sort((a, b) => a.value - b.value);
  return {
    key: f.key,
    label: f.label,
    kind: f.kind,
    unit: f.unit,
    lowIsWeak: f.lowIsWeak,
    nodes: f.cells.length,
    median: bounded(f.median),
    judged: f.judged,
    low: { node: low.node, value: low.value },
    high: { node: high.node, value: high.value },
    outlierNodes: outliers.slice(0, FLEET_LIMITS.outlierNodesPerFigure).map((c) => c.node),
    outlierNodeCount: outliers.length,
  };
}

export function fleetPageView(view: FleetView, extras: FleetPageExtras = {}): FleetPageView {
  const commands = new Map<string, string>();
  for (const n of extras.index?.nodes ?? []) for (const r of n.runs) commands.set(r.runId, r.command);
  const nodes = view.nodes
    .slice(0, FLEET_LIMITS.nodes)
    .map((n) => pageNode(n, commands))
    .sort(nodeOrder);
  const figures = view.figures
    .filter((f) => f.cells.length > 0)
    .slice(0, FLEET_LIMITS.figures)
    .map(pageFigure)
    .sort((a, b) => Number(b.outlierNodeCount > 0) - Number(a.outlierNodeCount > 0) || natural(a.key, b.key));
  const problems = extras.problems ?? [];
  const notes = [...view.notes, ...problems];
  if (view.outliers.length > FLEET_LIMITS.outliers)
    notes.push(
      `The first ${FLEET_LIMITS.outliers} of ${view.outliers.length} outliers are listed here; sdma-lens fleet show --json lists them all.`,
    );
  return {
    id: view.id,
    createdAt: view.createdAt,
    status: view.status,
    ...(view.message ? { message: view.message } : {}),
    job: view.job,
    via: view.via,
    simulated: view.simulated,
    nodes,
    figures,
    outliers: view.outliers
      .slice(0, FLEET_LIMITS.outliers)
      .map((o) => ({ node: o.node, figure: o.figure, side: o.side, text: o.text })),
    outlierCount: view.outliers.length,
    advice: view.advice
      .slice(0, FLEET_LIMITS.adviceGroups)
      .map((g) => ({ settings: g.settings.slice(0, FLEET_LIMITS.settingsPerGroup), nodes: g.nodes })),
    adviceDiffers: view.adviceDiffers,
    rule: view.rule,
    ...(view.thresholds ? { thresholds: view.thresholds } : {}),
    notes: notes.slice(0, FLEET_LIMITS.notes),
  };
}

/** The answer to the page's `select-figure`: every node's value of the figure, lowest first; undefined for a key the fleet has no figure of. */
export function figureValues(view: FleetView, key: string): FigureValues | undefined {
  const f = view.figures.find((x) => x.key === key);
  if (!f) return undefined;
  const values = f.cells
    .slice(0, FLEET_LIMITS.nodes)
    .map((c) => ({
      node: c.node,
      value: c.value,
      deviation: bounded(c.deviation),
      z: bounded(c.z),
      outlier: c.outlier,
    }))
    .sort((a, b) => a.value - b.value || natural(a.node, b.node));
  return {
    key: f.key,
    label: f.label,
    unit: f.unit,
    lowIsWeak: f.lowIsWeak,
    median: bounded(f.median),
    judged: f.judged,
    values,
  };
}
