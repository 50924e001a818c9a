/**
 * The fleet panel's nodes table as one model (tables/tableText.ts), for its "Copy table",
 * "Export CSV…" and "Export Markdown…": one row per node, in the page's order (outliers
 * first), with its status, how many outliers it has and on which figures, its threshold
 * verdict and failures, its error and its runs.
 *
 * Built from the page's view, not the whole `FleetView`, so the page's own Copy and the host's
 * exports are the same rows. That leaves out the per-node value of each figure: the page holds
 * a figure's values only while it shows that figure, and at 1,000 nodes of 8-GPU matrices the
 * node x figure grid is hundreds of thousands of numbers. `sdma-lens fleet show --json` writes
 * that grid (every figure's `cells`). Browser-safe.
 */
import type { TableCell, TableModel } from '../tables/tableText';
import { SIMULATED_NOTE } from '../tables/tableText';
import type { FleetPageView } from './fleetMessages';

export function fleetTableModel(view: FleetPageView): TableModel {
  const labels = new Map(view.figures.map((f) => [f.key, f.label]));
  const outlierFigures = new Map<string, string[]>();
  for (const o of view.outliers) {
    const list = outlierFigures.get(o.node) ?? [];
    list.push(`${labels.get(o.figure) ?? o.figure} (${o.side})`);
    outlierFigures.set(o.node, list);
  }
  const thresholds = view.thresholds !== undefined;
  const rows = view.nodes.map((n): TableCell[] => [
    n.node,
    n.status,
    n.outliers,
    (outlierFigures.get(n.node) ?? []).join('; '),
    ...(thresholds
      ? [
          n.failureCount === 0 ? 'pass' : 'FAIL',
          n.failureCount,
          [
            ...n.failures,
            ...(n.failureCount > n.failures.length ? [`and ${n.failureCount - n.failures.length} more`] : []),
          ].join('; '),
        ]
      : []),
    n.error ?? '',
    n.runs.map((r) => r.runId).join(' '),
  ]);
  return {
    title: `SDMA Lens fleet ${view.id}`,
    columns: [
      'node',
      'status',
      'outliers',
      'outlier figures',
      ...(thresholds ? ['thresholds', 'failures', 'failed checks'] : []),
      'error',
      'runs',
    ],
    rows,
    notes: [
      ...(view.simulated ? [SIMULATED_NOTE] : []),
      `Slurm job ${view.job} (${view.via}), ${view.nodes.length} nodes, ${view.status}.`,
      `Outliers: ${view.rule}.`,
      ...(view.outlierCount > view.outliers.length
        ? [`The outlier figures list the first ${view.outliers.length} of ${view.outlierCount} outliers.`]
        : []),
      ...(view.thresholds ? [`Thresholds: ${view.thresholds.passed} passed, ${view.thresholds.failed} failed.`] : []),
      ...view.notes.filter((n) => !n.startsWith('SIMULATED')),
    ],
  };
}
