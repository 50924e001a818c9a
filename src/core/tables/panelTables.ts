/**
 * Each panel's table model, built from the view its page already holds (the host builds the
 * same view from the run), so what "Copy table" puts on the clipboard and what "Export CSV…"
 * and "Export Markdown…" write are the same rows. Numbers stay numbers (GB/s, bytes, ratios
 * at full precision); the words are the panels' own. Browser-safe.
 */
import type { CollectivePageView } from '../collective/collectiveMessages';
import type { ComparePageView, GroupPoint } from '../compare/compareMessages';
import { endpointName } from '../endpoints';
import type { MatrixGridCell, MatrixPageView } from '../matrix/matrixMessages';
import type { SweepSeries, SweepView } from '../sweep/sweepView';
import { formatBytes } from '../units';
import type { TableCell, TableModel } from './tableText';

const SIMULATED = 'SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.';

export function cuCountLabel(cus: number): string {
  return `${cus} ${cus === 1 ? 'CU' : 'CUs'}`;
}

/** "cu/host · 64 CUs", "engine/device · 1 CU", "engine/host" (a host-started engine copy uses no CU): the sweep panel's series names. */
export function seriesLabel(series: Pick<SweepSeries, 'path' | 'cus'>): string {
  if (series.path.startsWith('engine/') && series.cus === 0) return series.path;
  return `${series.path} · ${cuCountLabel(series.cus)}`;
}

/** Notes of a view: SIMULATED first when the numbers are, then the view's own. */
function notesOf(simulated: boolean, own: readonly string[]): string[] {
  return [...(simulated ? [SIMULATED] : []), ...own];
}

/**
 * A sweep: one row per message size, for every series of the run (every endpoint pair and CU
 * count, not only the one the chart shows), each with its GB/s (mean of the timed iterations)
 * and the slowest and fastest iteration's GB/s.
 */
export function sweepTableModel(view: SweepView): TableModel {
  const severalPairs = view.pairs.length > 1;
  const name = (s: SweepSeries) => `${severalPairs ? `${endpointName(s.src)} → ${endpointName(s.dst)} ` : ''}${seriesLabel(s)}`;
  const columns = ['size', 'bytes', ...view.series.flatMap((s) => [`${name(s)} GB/s`, `${name(s)} low GB/s`, `${name(s)} high GB/s`])];
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

function cellState(c: MatrixGridCell): string {
  if (c.state === 'failed') return `failed: ${c.error ?? ''}`;
  if (c.state === 'missing') return 'not measured';
  return c.weakest ? 'measured (weak pair)' : 'measured';
}

/** A matrix: one row per source x destination cell of each path (the diagonal left out), GB/s where measured. */
export function matrixTableModel(view: MatrixPageView): TableModel {
  const rows = view.paths.flatMap((p) =>
    p.rows
      .flat()
      .filter((c) => c.state !== 'self')
      .map((c): TableCell[] => [p.label, endpointName(c.src), endpointName(c.dst), c.gbps ?? null, cellState(c)]),
  );
  const how = view.concurrent ? 'all pairs of a path at once' : 'each ordered pair measured alone';
  return {
    title: `SDMA Lens bandwidth matrix ${view.runId}`,
    columns: ['path', 'source', 'destination', 'GB/s', 'state'],
    rows,
    notes: notesOf(view.simulated, [
      `${view.node ? `${view.node} · ` : ''}${view.sizeBytes > 0 ? `${formatBytes(view.sizeBytes)} per copy · ` : ''}${view.iters > 0 ? `median of ${view.iters} timed iterations · ` : ''}${how} · ${view.status}`,
      ...view.paths.map((p) => p.weakestText),
      ...view.paths.flatMap((p) => (p.totalText ? [p.totalText] : [])),
      ...view.notes.filter((n) => !n.startsWith('Simulated node:')),
    ]),
  };
}

/** A collective run: one row per measured point (op, variant, form, size); an overlap run: one row per copy path beside each compute. */
export function collectiveTableModel(view: CollectivePageView): TableModel {
  const notes = notesOf(view.simulated, [`${view.node ? `${view.node} · ` : ''}${view.status}`, ...view.crossovers.map((c) => c.text), ...view.notes.filter((n) => !n.startsWith('Simulated node:'))]);
  if (view.command === 'overlap') {
    return {
      title: `SDMA Lens overlap ${view.runId}`,
      columns: ['compute', 'copy path', 'compute kept', 'copy GB/s', 'SM MHz', 'power W', 'why'],
      rows: view.overlap.rows.map((r) => [r.compute, r.label, r.keptFraction, r.copyGbps, r.smClockMHz, r.powerW, r.cause]),
      notes: [...notes, 'compute kept: the fraction of the compute rate it had alone.'],
    };
  }
  return {
    title: `SDMA Lens collectives ${view.runId}`,
    columns: ['op', 'variant', 'form', 'size', 'bytes', 'time µs', 'algbw GB/s', 'busbw GB/s', 'path', 'off path', '#wrong'],
    rows: view.curves.flatMap((c) => c.points.map((p): TableCell[] => [c.op, c.variant, c.inPlace ? 'in-place' : 'out-of-place', formatBytes(p.sizeBytes), p.sizeBytes, p.timeUs, p.algbwGbps, p.busbwGbps, p.transport, p.offPath ? 'yes' : 'no', p.wrong])),
    notes,
  };
}

/** A comparison: one row per point of every curve, both runs' bandwidth, the ratio B/A with its interval, the run-to-run tolerance, and the verdict. */
export function compareTableModel(view: ComparePageView): TableModel {
  const bw = view.bandwidth;
  const rows = view.groups.flatMap((g) =>
    g.points.map((p: GroupPoint): TableCell[] => [g.label, p.label, p.sizeBytes, p.a?.gbps ?? null, p.b?.gbps ?? null, p.ratio ?? null, p.interval?.[0] ?? null, p.interval?.[1] ?? null, p.tolerance ?? null, p.state]),
  );
  const simulated = [view.a.simulated ? 'A' : '', view.b.simulated ? 'B' : ''].filter(Boolean);
  return {
    title: `SDMA Lens comparison of ${view.kind} runs ${view.a.id} (A) and ${view.b.id} (B)`,
    columns: ['curve', 'point', 'bytes', `A ${bw}`, `B ${bw}`, 'ratio B/A', 'ratio low', 'ratio high', 'run-to-run tolerance', 'verdict'],
    rows,
    notes: [
      ...(simulated.length > 0 ? [`SIMULATED: run ${simulated.join(' and ')} ${simulated.length > 1 ? 'come' : 'comes'} from the simulated MI350X model, not from a measurement.`] : []),
      ...view.summaryLines,
      ...view.toleranceLines,
      view.method,
      ...view.notes,
    ],
  };
}
