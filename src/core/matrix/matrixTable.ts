/**
 * The bandwidth matrix as text: per path a grid of GB/s (sources in rows, destinations in
 * columns, as nvbandwidth prints its matrices), then min/median/max and the weak pairs (or that none stands out).
 */
import type { MatrixPathView } from './matrixMessages';
import type { Run } from '../run';
import { endpointArg, pairName } from '../endpoints';
import { contradictsNote } from '../moverEvidence';
import { matrixPageView } from './matrixView';
import { formatBytes, formatGbps } from '../units';
import { terminalLine } from '../text';

const pad = (s: string, width: number) => (s.length >= width ? s : ' '.repeat(width - s.length) + s);

function grid(p: MatrixPathView): string[] {
  const width = 9;
  const lines = [`#${pad('src\\dst', 8)}${p.gpus.map((g) => pad(endpointArg(g), width)).join('')}`];
  for (const row of p.rows) {
    const cells = row.map((c) => {
      if (c.state === 'self') return pad('-', width);
      if (c.state === 'failed') return pad('failed', width);
      if (c.state === 'missing') return pad('.', width);
      return pad(`${formatGbps(c.gbps!)}${c.evidence?.state === 'contradicts' ? '✗' : c.weakest ? '*' : ''}`, width);
    });
    lines.push(` ${pad(row[0] ? endpointArg(row[0].src) : '', 8)}${cells.join('')}`);
  }
  return lines;
}

/** The path's cells' evidence in words, and each cell whose evidence contradicts its label with what was seen. */
function evidence(p: MatrixPathView): string[] {
  const lines = p.evidenceText ? [`# mover evidence: ${p.evidenceText}`] : [];
  // One line per distinct detail, as failures are.
  const byDetail = new Map<string, string[]>();
  for (const row of p.rows)
    for (const c of row)
      if (c.evidence?.state === 'contradicts') {
        const detail = c.evidence.detail ?? '';
        byDetail.set(detail, [...(byDetail.get(detail) ?? []), pairName(c)]);
      }
  for (const [detail, pairs] of byDetail)
    lines.push(
      pairs.length === 1 ? `# ✗ ${pairs[0]}: ${detail}` : `# ✗ ${pairs.length} cells (${pairs[0]}, ...): ${detail}`,
    );
  return lines;
}

/** Concurrent paths: each GPU's row and column sums, then the path's aggregate. */
function totals(p: MatrixPathView): string[] {
  if (!p.gpuTotals) return [];
  const lines = [
    `#${pad('GPU', 8)}${pad('send', 11)}${pad('receive', 11)}   GB/s, sums of the row and column while all pairs ran`,
  ];
  for (const g of p.gpuTotals)
    lines.push(` ${pad(endpointArg(g.gpu), 8)}${pad(formatGbps(g.sendGbps), 11)}${pad(formatGbps(g.receiveGbps), 11)}`);
  if (p.totalText) lines.push(`# ${p.totalText}`);
  return lines;
}

/** Failed cells, one line per distinct reason (a path that cannot run at once fails every cell the same way). */
function failures(p: MatrixPathView): string[] {
  const byReason = new Map<string, string[]>();
  for (const row of p.rows)
    for (const c of row)
      if (c.state === 'failed') byReason.set(c.error ?? '', [...(byReason.get(c.error ?? '') ?? []), pairName(c)]);
  return [...byReason].map(([reason, pairs]) =>
    pairs.length === 1
      ? `# failed ${pairs[0]}: ${reason}`
      : `# failed ${pairs.length} cells (${pairs[0]}, ...): ${reason}`,
  );
}

export function matrixTable(run: Run): string {
  const view = matrixPageView(run);
  const out = [`# SDMA Lens bandwidth matrix ${view.runId}`];
  const how = view.concurrent ? 'all pairs of a path at once' : 'each ordered pair measured alone';
  out.push(
    `# node: ${view.node || 'unknown'} · ${formatBytes(view.sizeBytes)} per copy · ${how} · ${view.iters} timed iterations per cell`,
  );
  if (view.simulated)
    out.push('# SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.');
  out.push(
    "# GB/s = bytes / 1e9 / median seconds; rows: source (GPU or host), columns: destination; * weak pair (below the others: see the line under the grid); ✗ the cell's mover evidence contradicts its label; failed: see errors; .: not measured",
  );
  const anyEvidence = view.paths.some((p) => p.evidenceText);
  if (!anyEvidence && view.paths.some((p) => p.measured > 0))
    out.push('# mover evidence: not recorded (the run was made before the helper printed it)');
  for (const p of view.paths) {
    out.push('#', `# ${p.label}`, ...grid(p));
    if (p.stats)
      out.push(
        `# min ${formatGbps(p.stats.minGbps)} · median ${formatGbps(p.stats.medianGbps)} · max ${formatGbps(p.stats.maxGbps)} GB/s`,
      );
    out.push(`# ${p.weakestText}`, ...evidence(p), ...totals(p), ...failures(p));
  }
  if (view.paths.some((p) => (p.contradicts ?? 0) > 0)) out.push('#', `# ${contradictsNote('cell')}`);
  for (const n of view.notes) if (!n.startsWith('Simulated node')) out.push(`# note: ${n}`);
  return out.map(terminalLine).join('\n');
}
