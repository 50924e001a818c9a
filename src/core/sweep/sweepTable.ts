/**
 * Plain-text tables of a sweep, laid out the way TransferBench and nccl-tests users read
 * them: one row per message size, GB/s in columns, comment lines starting with '#'.
 */
import type { Run } from '../run';
import { isSimulated } from '../run';
import type { SweepPoint, SweepSeries } from './sweepView';
import { seriesOfPair, sweepView, unsupportedOfPair } from './sweepView';
import { formatBytes, formatGbps } from '../units';
import { terminalLine } from '../text';

function pad(s: string, width: number): string {
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}

/** Appends one block to `out`: a row per size, a column per series (a series' first point of a size). */
function block(out: string[], title: string, columns: { head: string; series: SweepSeries }[], sizes: number[]): void {
  let width = 9;
  for (const c of columns) width = Math.max(width, c.head.length + 2);
  const bySize = columns.map((c) => {
    const points = new Map<number, SweepPoint>();
    for (const p of c.series.points) if (!points.has(p.sizeBytes)) points.set(p.sizeBytes, p);
    return points;
  });
  out.push('#', `# ${title}`, `#${pad('size', 10)}${columns.map((c) => pad(c.head, width)).join('')}`);
  for (const size of sizes) {
    const cells = bySize.map((points) => {
      const p = points.get(size);
      return pad(p ? formatGbps(p.gbps) : '-', width);
    });
    out.push(` ${pad(formatBytes(size), 10)}${cells.join('')}`);
  }
}

export function sweepTable(run: Run): string {
  const view = sweepView(run);
  const out: string[] = [];
  const node = run.topology?.node;
  out.push(`# SDMA Lens transfer sweep ${view.runId}`);
  const endpoints = view.pairs.length > 0 ? view.pairs.map((p) => p.label).join(', ') : 'none measured yet';
  out.push(
    `# node: ${node?.model ?? 'unknown'} · ${view.pairs.length > 1 ? 'endpoint pairs' : 'endpoints'}: ${endpoints} · backend ${view.backend} · ${run.samples[0]?.iters ?? 0} timed iterations per point`,
  );
  if (isSimulated(run))
    out.push('# SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.');
  out.push('# bandwidth = bytes / 1e9 / mean seconds (GB/s)');
  for (const pair of view.pairs) {
    const series = seriesOfPair(view, pair);
    const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.sizeBytes)))].sort((a, b) => a - b);
    for (const path of ['cu/host', 'cu/device'] as const) {
      const cols = series.filter((s) => s.path === path).map((s) => ({ head: `${s.cus} CU`, series: s }));
      if (cols.length > 0) block(out, `${path}, ${pair.label}: GB/s by CUs carrying the copy`, cols, sizes);
    }
    const engines = series.filter((s) => s.path.startsWith('engine/')).map((s) => ({ head: s.path, series: s }));
    if (engines.length > 0) block(out, `copy engine (SDMA) paths, ${pair.label}: GB/s`, engines, sizes);
    for (const u of unsupportedOfPair(view, pair)) out.push('#', `# ${u.text}`);
  }
  for (const w of view.warnings) out.push(`# warning: ${w}`);
  for (const p of view.problems) out.push(`# problem: ${p}`);
  return out.map(terminalLine).join('\n');
}
