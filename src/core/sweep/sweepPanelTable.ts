/**
 * The sweep panel's table model, built from the view its page already holds (the host builds
 * the same view from the run), so what "Copy table" puts on the clipboard and what "Export CSV…"
 * and "Export Markdown…" write are the same rows. Numbers stay numbers (GB/s, bytes, at full
 * precision); the words are the panel's own. Browser-safe.
 */
import { endpointName } from '../endpoints';
import type { TableCell, TableModel } from '../tables/tableText';
import { notesOf } from '../tables/tableText';
import { formatBytes } from '../units';
import type { SweepSeries, SweepView } from './sweepView';

export function cuCountLabel(cus: number): string {
  return `${cus} ${cus === 1 ? 'CU' : 'CUs'}`;
}

/** "cu/host · 64 CUs", "engine/device · 1 CU", "engine/host" (a host-started engine copy uses no CU): the sweep panel's series names. */
export function seriesLabel(series: Pick<SweepSeries, 'path' | 'cus'>): string {
  if (series.path.startsWith('engine/') && series.cus === 0) return series.path;
  return `${series.path} · ${cuCountLabel(series.cus)}`;
}

/**
 * A sweep: one row per message size, for every series of the run (every endpoint pair and CU
 * count, not only the one the chart shows), each with its GB/s (mean of the timed iterations)
 * and the slowest and fastest iteration's GB/s.
 */
export function sweepTableModel(view: SweepView): TableModel {
  const severalPairs = view.pairs.length > 1;
  const name = (s: SweepSeries) =>
    `${severalPairs ? `${endpointName(s.src)} → ${endpointName(s.dst)} ` : ''}${seriesLabel(s)}`;
  const columns = [
    'size',
    'bytes',
    ...view.series.flatMap((s) => [`${name(s)} GB/s`, `${name(s)} low GB/s`, `${name(s)} high GB/s`]),
  ];
  const sizes = [...new Set(view.series.flatMap((s) => s.points.map((p) => p.sizeBytes)))].sort((a, b) => a - b);
  const bySize = view.series.map((s) => new Map(s.points.map((p) => [p.sizeBytes, p])));
  const rows = sizes.map((size): TableCell[] => [
    formatBytes(size),
    size,
    ...bySize.flatMap((m) => {
      const p = m.get(size);
      return p ? [p.gbps, p.gbpsLow, p.gbpsHigh] : [null, null, null];
    }),
  ]);
  const pairs = view.pairs.map((p) => p.label).join(', ');
  return {
    title: `SDMA Lens sweep ${view.runId}`,
    columns,
    rows,
    notes: notesOf(view.simulated, [
      `${view.nodeLabel ? `${view.nodeLabel} · ` : ''}backend ${view.backend} · ${view.pairs.length > 1 ? 'endpoint pairs' : 'endpoints'}: ${pairs || 'none measured yet'} · ${view.status}`,
      'GB/s: bytes / 1e9 / mean seconds of the timed iterations; low and high: the slowest and the fastest iteration.',
      ...view.unsupported.map((u) => u.text),
      ...view.warnings.map((w) => `warning: ${w}`),
      ...view.problems.map((p) => `problem: ${p}`),
    ]),
  };
}
