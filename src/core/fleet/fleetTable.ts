/**
 * The fleet view as text for a terminal (`sdma-lens fleet`): nodes, figures against the median,
 * outliers, advice, thresholds. Node names, Slurm's and the runs' words come from outside: every
 * line goes through `terminalLine`, so each stays one line with nothing a terminal obeys.
 */
import { terminalLine } from '../text';
import { formatBytes } from '../units';
import type { FleetFigureRow, FleetView } from './fleetView';

function pad(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => rows.reduce((w, r) => Math.max(w, (r[i] ?? '').length), 0));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

function value(row: FleetFigureRow, x: number): string {
  return row.unit === 'bytes' ? formatBytes(Math.round(x)) : x.toFixed(1);
}

/** At most this many figure rows are printed in full (a 1,000-node matrix fleet has thousands); the JSON has them all. */
const FIGURE_ROWS = 60;
/** Outlier sentences printed per node. */
const OUTLIERS_PER_NODE = 8;

export function fleetTable(view: FleetView): string {
  const lines: string[] = [];
  const failed = view.nodes.filter((n) => n.status !== 'ok').length;
  lines.push(
    `# fleet ${view.id}: ${view.nodes.length} nodes, Slurm job ${view.job} (${view.via}) · ${view.status}${failed ? ` · ${failed} not ok` : ''}${view.simulated ? ' · SIMULATED' : ''}`,
  );
  if (view.message) lines.push(`# ${view.message}`);
  for (const n of view.notes) lines.push(`# ${n}`);
  lines.push(
    ...pad([
      ['node', 'status', 'outliers', ...(view.thresholds ? ['thresholds'] : []), 'runs'],
      ...view.nodes.map((n) => [
        n.node,
        n.status,
        String(n.outliers),
        ...(view.thresholds ? [n.failures.length === 0 ? 'pass' : `FAIL (${n.failures.length})`] : []),
        n.runIds.join(' ') || '-',
      ]),
    ]),
  );
  for (const n of view.nodes) if (n.error) lines.push(`#   ${n.node}: ${n.error}`);
  // Every sweep figure; of the matrix cells (a 1,000-node fleet of 8-GPU matrices has 56 per path) only those with an outlier.
  const flagged = (r: FleetFigureRow) => r.cells.some((c) => c.outlier);
  const shown = view.figures
    .filter((r) => r.kind !== 'cell' || flagged(r))
    .sort((a, b) => Number(flagged(b)) - Number(flagged(a)) || a.key.localeCompare(b.key));
  const cells = view.figures.filter((r) => r.kind === 'cell');
  lines.push('#', '# figures: the fleet median and the nodes furthest from it (GB/s, or bytes for crossovers)');
  lines.push(
    ...pad([
      ['figure', 'nodes', 'median', 'lowest', 'highest', 'outliers'],
      ...shown.slice(0, FIGURE_ROWS).map((r) => {
        const lo = r.cells.reduce((a, b) => (b.value < a.value ? b : a));
        const hi = r.cells.reduce((a, b) => (b.value > a.value ? b : a));
        const out = r.cells.filter((c) => c.outlier).map((c) => c.node);
        return [
          r.label,
          String(r.cells.length),
          value(r, r.median),
          `${value(r, lo.value)} (${lo.node})`,
          `${value(r, hi.value)} (${hi.node})`,
          r.judged ? out.join(',') || '-' : 'too few nodes',
        ];
      }),
    ]),
  );
  if (shown.length > FIGURE_ROWS)
    lines.push(`# ... ${shown.length - FIGURE_ROWS} more figures (--json lists them all)`);
  if (cells.length > 0)
    lines.push(
      `# matrix: ${cells.length} cells compared, ${cells.filter(flagged).length} with an outlier node${cells.some(flagged) ? ' (listed above)' : ''}`,
    );
  lines.push(
    '#',
    `# outliers: ${view.outliers.length === 0 ? 'none' : `${view.outliers.length} on ${new Set(view.outliers.map((o) => o.node)).size} node(s)`}; ${view.rule}`,
  );
  // Per node the first few: a node with a weak engine is an outlier in every engine cell of its matrix.
  const byNode = new Map<string, string[]>();
  for (const o of view.outliers) byNode.set(o.node, [...(byNode.get(o.node) ?? []), o.text]);
  for (const [node, texts] of byNode) {
    for (const t of texts.slice(0, OUTLIERS_PER_NODE)) lines.push(`#   ${t}`);
    if (texts.length > OUTLIERS_PER_NODE)
      lines.push(`#   ${node}: ... ${texts.length - OUTLIERS_PER_NODE} more figures (--json lists them all)`);
  }
  if (view.advice.length > 0) {
    lines.push(
      '#',
      view.adviceDiffers
        ? `# advice differs between nodes (${view.advice.length} sets):`
        : `# advice: the same on all ${view.advice[0]!.nodes.length} measured nodes`,
    );
    for (const g of view.advice)
      lines.push(
        `#   ${view.adviceDiffers ? `${g.nodes.join(',')}: ` : ''}${g.settings.join(' ') || '(no settings to change)'}`,
      );
  }
  if (view.thresholds) {
    lines.push('#', `# thresholds: ${view.thresholds.passed} passed, ${view.thresholds.failed} failed`);
    for (const n of view.nodes) for (const f of n.failures) lines.push(`#   ${n.node}: ${f}`);
  }
  return lines.map(terminalLine).join('\n');
}
