/**
 * The sweep panel's table model, built from the view its page already holds (the host builds
 * the same view from the run), so what "Copy table" puts on the clipboard and what "Export CSV…"
 * and "Export Markdown…" write are the same rows. Numbers stay numbers (GB/s, bytes, at full
 * precision); the words are the panel's own. Browser-safe.
 */
import { endpointName } from '../endpoints';
import { contradictsNote, EVIDENCE_COLUMNS, evidenceCells } from '../moverEvidence';
import type { TableCell, TableModel } from '../tables/tableText';
import { notesOf } from '../tables/tableText';
import { formatBytes } from '../units';
import type { SweepPoint, SweepSeries, SweepView } from './sweepView';
import { contradictingPoints, sweepSeriesDimensions } from './sweepView';
import { dimensionWords } from '../seriesKey';

/** What the runtime-default series is, where a table has one. */
export const RUNTIME_DEFAULT_NOTE =
  "runtime default: what the HIP runtime does by default with the user's environment (the helper's own engine paths set ROC_P2P_SDMA_SIZE and GPU_FORCE_BLIT_COPY_SIZE to 0); its runtime mover is what the runtime used at that size. Never merged with the helper's own series.";

export function cuCountLabel(cus: number): string {
  return `${cus} ${cus === 1 ? 'CU' : 'CUs'}`;
}

/** The fields of a sweep series its name is made of. */
export type LabelledSeries = Pick<SweepSeries, 'path' | 'cus' | 'series'> &
  Partial<Pick<SweepSeries, 'wavesPerCu' | 'waveSize' | 'split' | 'splitOver' | 'batch' | 'shmemSdma'>>;

/**
 * "cu/host · 64 CUs", "engine/device · 1 CU", "engine/host" (a host-started engine copy uses no
 * CU), "runtime default (engine/host)": the sweep panel's series names, followed by the words of
 * each dimension that is not the default ("cu/device · 1 CU · 1 wave/CU", "engine/host · 4 engines").
 */
export function seriesLabel(series: LabelledSeries): string {
  if (series.series === 'runtime-default') return `runtime default (${series.path})`;
  const head =
    series.path.startsWith('engine/') && series.cus === 0
      ? series.path
      : `${series.path} · ${cuCountLabel(series.cus)}`;
  return [head, ...dimensionWords(sweepSeriesDimensions(series))].join(' · ');
}

/**
 * A sweep: one row per message size, for every series of the run (every endpoint pair and CU
 * count, not only the one the chart shows), each with its GB/s (mean of the timed iterations),
 * the slowest and fastest iteration's GB/s, and its sample's mover evidence (source, observed
 * mover, verdict, detail; "not recorded" where the run has none). The runtime-default series
 * also says which mover the runtime used at each size.
 */
export function sweepTableModel(view: SweepView): TableModel {
  const severalPairs = view.pairs.length > 1;
  const name = (s: SweepSeries) =>
    `${severalPairs ? `${endpointName(s.src)} → ${endpointName(s.dst)} ` : ''}${seriesLabel(s)}`;
  const columnsOf = (s: SweepSeries) => [
    `${name(s)} GB/s`,
    `${name(s)} low GB/s`,
    `${name(s)} high GB/s`,
    ...(s.series ? [`${name(s)} runtime mover`] : []),
    ...EVIDENCE_COLUMNS.map((c) => `${name(s)} ${c}`),
  ];
  const cellsOf = (s: SweepSeries, p: SweepPoint | undefined): TableCell[] => {
    const width = columnsOf(s).length;
    if (!p) return Array<TableCell>(width).fill(null);
    return [p.gbps, p.gbpsLow, p.gbpsHigh, ...(s.series ? [p.mover ?? null] : []), ...evidenceCells(p.evidence)];
  };
  const columns = ['size', 'bytes', ...view.series.flatMap(columnsOf)];
  const sizes = [...new Set(view.series.flatMap((s) => s.points.map((p) => p.sizeBytes)))].sort((a, b) => a - b);
  const bySize = view.series.map((s) => new Map(s.points.map((p) => [p.sizeBytes, p])));
  const rows = sizes.map((size): TableCell[] => [
    formatBytes(size),
    size,
    ...view.series.flatMap((s, i) => cellsOf(s, bySize[i]!.get(size))),
  ]);
  const pairs = view.pairs.map((p) => p.label).join(', ');
  const contradicting = contradictingPoints(view);
  return {
    title: `SDMA Lens sweep ${view.runId}`,
    columns,
    rows,
    notes: notesOf(view.simulated, [
      `${view.nodeLabel ? `${view.nodeLabel} · ` : ''}backend ${view.backend} · ${view.pairs.length > 1 ? 'endpoint pairs' : 'endpoints'}: ${pairs || 'none measured yet'} · ${view.status}`,
      'GB/s: bytes / 1e9 / mean seconds of the timed iterations; low and high: the slowest and the fastest iteration.',
      'evidence: what moved the bytes as the platform saw it (source, observed mover, verdict against the label, detail); "not recorded": the run has none.',
      ...(contradicting.length > 0
        ? [
            `${contradictsNote('sample')} Flagged: ${contradicting.map(({ series, point }) => `${name(series)} at ${formatBytes(point.sizeBytes)}`).join(', ')}.`,
          ]
        : []),
      ...(view.series.some((s) => s.series === 'runtime-default') ? [RUNTIME_DEFAULT_NOTE] : []),
      ...view.unsupported.map((u) => u.text),
      ...view.warnings.map((w) => `warning: ${w}`),
      ...view.problems.map((p) => `problem: ${p}`),
    ]),
  };
}
