/**
 * The bandwidth matrix as text: per path a grid of GB/s (sources in rows, destinations in
 * columns, as nvbandwidth prints its matrices), then min/median/max and the weakest pair.
 */
import type { MatrixPathView } from './matrixMessages';
import type { Run } from './run';
import { matrixPageView } from './matrixView';
import { formatBytes, formatGbps } from './units';

const pad = (s: string, width: number) => (s.length >= width ? s : ' '.repeat(width - s.length) + s);

function grid(p: MatrixPathView): string[] {
  const width = 9;
  const lines = [`#${pad('src\\dst', 8)}${p.gpus.map((g) => pad(String(g), width)).join('')}`];
  for (const row of p.rows) {
    const cells = row.map((c) => {
      if (c.state === 'self') return pad('-', width);
      if (c.state === 'failed') return pad('failed', width);
      if (c.state === 'missing') return pad('.', width);
      return pad(`${formatGbps(c.gbps!)}${c.weakest ? '*' : ''}`, width);
    });
    lines.push(` ${pad(String(row[0]?.src ?? ''), 8)}${cells.join('')}`);
  }
  return lines;
}

export function matrixTable(run: Run): string {
  const view = matrixPageView(run);
  const out = [`# SDMA Lens bandwidth matrix ${view.runId}`];
  out.push(`# node: ${view.node || 'unknown'} · ${formatBytes(view.sizeBytes)} per copy · each ordered pair measured alone · ${view.iters} timed iterations per cell`);
  if (view.simulated) out.push('# SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.');
  out.push('# GB/s = bytes / 1e9 / median seconds; rows: source GPU, columns: destination GPU; * weakest; failed: see errors; .: not measured');
  for (const p of view.paths) {
    out.push('#', `# ${p.label}`, ...grid(p));
    if (p.stats) out.push(`# min ${formatGbps(p.stats.minGbps)} · median ${formatGbps(p.stats.medianGbps)} · max ${formatGbps(p.stats.maxGbps)} GB/s`);
    out.push(`# ${p.weakestText}`);
    for (const row of p.rows) for (const c of row) if (c.state === 'failed') out.push(`# failed GPU ${c.src} -> GPU ${c.dst}: ${c.error ?? ''}`);
  }
  for (const n of view.notes) if (!n.startsWith('Simulated node')) out.push(`# note: ${n}`);
  return out.join('\n');
}
