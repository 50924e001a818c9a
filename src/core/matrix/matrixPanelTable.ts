/**
 * The matrix panel's table model, built from the page view the panel already holds, so "Copy
 * table" and the exports write the same rows. GB/s stay numbers at full precision. Browser-safe.
 */
import { endpointName } from '../endpoints';
import { contradictsNote, EVIDENCE_COLUMNS, evidenceCells } from '../moverEvidence';
import type { TableCell, TableModel } from '../tables/tableText';
import { notesOf } from '../tables/tableText';
import { formatBytes } from '../units';
import type { MatrixGridCell, MatrixPageView } from './matrixMessages';

function cellState(c: MatrixGridCell): string {
  if (c.state === 'failed') return `failed: ${c.error ?? ''}`;
  if (c.state === 'missing') return 'not measured';
  if (c.evidence?.state === 'contradicts') return 'measured (✗ its mover evidence contradicts its label)';
  return c.weakest ? 'measured (weak pair)' : 'measured';
}

/** A cell's four evidence columns: "not recorded" for a measured cell without evidence, empty for one not measured. */
function evidenceOf(c: MatrixGridCell): TableCell[] {
  return c.state === 'measured' ? evidenceCells(c.evidence) : [null, null, null, null];
}

/** A matrix: one row per source x destination cell of each path (the diagonal left out), GB/s where measured. */
export function matrixTableModel(view: MatrixPageView): TableModel {
  const rows = view.paths.flatMap((p) =>
    p.rows
      .flat()
      .filter((c) => c.state !== 'self')
      .map((c): TableCell[] => [
        p.label,
        endpointName(c.src),
        endpointName(c.dst),
        c.gbps ?? null,
        cellState(c),
        ...evidenceOf(c),
      ]),
  );
  const contradicts = view.paths.reduce((n, p) => n + (p.contradicts ?? 0), 0);
  const how = view.concurrent ? 'all pairs of a path at once' : 'each ordered pair measured alone';
  return {
    title: `SDMA Lens bandwidth matrix ${view.runId}`,
    columns: ['path', 'source', 'destination', 'GB/s', 'state', ...EVIDENCE_COLUMNS],
    rows,
    notes: notesOf(view.simulated, [
      `${view.node ? `${view.node} · ` : ''}${view.sizeBytes > 0 ? `${formatBytes(view.sizeBytes)} per copy · ` : ''}${view.iters > 0 ? `median of ${view.iters} timed iterations · ` : ''}${how} · ${view.status}`,
      ...view.paths.map((p) => p.weakestText),
      ...view.paths.flatMap((p) => (p.evidenceText ? [`${p.label} mover evidence: ${p.evidenceText}`] : [])),
      ...(contradicts > 0
        ? [
            `${contradictsNote('cell')} ${contradicts} cell${contradicts === 1 ? '' : 's'} flagged, left out of the min/median/max and the weak-pair rule.`,
          ]
        : []),
      ...view.paths.flatMap((p) => (p.totalText ? [p.totalText] : [])),
      ...view.notes.filter((n) => !n.startsWith('Simulated node:')),
    ]),
  };
}
