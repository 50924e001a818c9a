/**
 * Plain-text tables of a sweep, laid out the way TransferBench and nccl-tests users read
 * them: one row per message size, GB/s in columns, comment lines starting with '#'. Where the
 * run has mover evidence each GB/s column is followed by its samples' evidence word, and a
 * sample whose evidence contradicts its label is marked ✗ and named under the tables.
 */
import { contradictsNote, NOT_RECORDED } from '../moverEvidence';
import type { Run } from '../run';
import { isSimulated } from '../run';
import type { SweepPoint, SweepSeries } from './sweepView';
import { contradictingPoints, seriesOfPair, sweepSeriesDimensions, sweepView, unsupportedOfPair } from './sweepView';
import { dimensionWords } from '../seriesKey';
import { RUNTIME_DEFAULT_NOTE, seriesLabel } from './sweepPanelTable';
import { formatBytes, formatGbps } from '../units';
import { terminalLine } from '../text';

function pad(s: string, width: number): string {
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}

/** What a GB/s cell shows: the figure, the runtime's mover in the runtime-default series, ✗ when the evidence contradicts the label. */
function gbpsText(p: SweepPoint): string {
  const flag = p.evidence?.state === 'contradicts' ? ' ✗' : '';
  return `${p.mover ? `${p.mover} ` : ''}${formatGbps(p.gbps)}${flag}`;
}

/**
 * Appends one block to `out`: a row per size, a column per series (a series' first point of a
 * size), and with `evidence` each series' evidence word beside its GB/s.
 */
function block(
  out: string[],
  title: string,
  columns: { head: string; series: SweepSeries }[],
  sizes: number[],
  evidence: boolean,
): void {
  const bySize = columns.map((c) => {
    const points = new Map<number, SweepPoint>();
    for (const p of c.series.points) if (!points.has(p.sizeBytes)) points.set(p.sizeBytes, p);
    return points;
  });
  const cells = sizes.map((size) =>
    bySize.flatMap((points) => {
      const p = points.get(size);
      const value = p ? gbpsText(p) : '-';
      return evidence ? [value, p ? (p.evidence?.word ?? NOT_RECORDED) : '-'] : [value];
    }),
  );
  const heads = columns.flatMap((c) => (evidence ? [c.head, 'evidence'] : [c.head]));
  // GB/s columns share one width (as wide as the widest head, at least 9); evidence columns their own.
  const step = evidence ? 2 : 1;
  let gbpsWidth = 9;
  for (const c of columns) gbpsWidth = Math.max(gbpsWidth, c.head.length + 2);
  if (evidence)
    for (const row of cells)
      for (let i = 0; i < row.length; i += step) gbpsWidth = Math.max(gbpsWidth, row[i]!.length + 2);
  const widths = heads.map((h, i) =>
    i % step === 0 ? gbpsWidth : cells.reduce((w, row) => Math.max(w, row[i]!.length + 2), h.length + 2),
  );
  // Evidence words read left to right; numbers right-aligned as before.
  const cell = (text: string, i: number) =>
    evidence && i % 2 === 1 ? `  ${text}`.padEnd(widths[i]!) : pad(text, widths[i]!);
  out.push('#', `# ${title}`, `#${pad('size', 10)}${heads.map(cell).join('')}`.trimEnd());
  sizes.forEach((size, r) => out.push(` ${pad(formatBytes(size), 10)}${cells[r]!.map(cell).join('')}`.trimEnd()));
}

export function sweepTable(run: Run): string {
  const view = sweepView(run);
  const out: string[] = [];
  const node = run.topology?.node;
  out.push(`# SDMA Lens transfer sweep ${view.runId}`);
  const endpoints = view.pairs.length > 0 ? view.pairs.map((p) => p.label).join(', ') : 'none measured yet';
  out.push(
    `# node: ${node?.model ?? 'unknown'} · ${view.pairs.length > 1 ? 'endpoint pairs' : 'endpoints'}: ${endpoints} · backend ${view.backend} · ${run.samples.at(0)?.iters ?? 0} timed iterations per point`,
  );
  if (isSimulated(run))
    out.push('# SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.');
  out.push('# bandwidth = bytes / 1e9 / mean seconds (GB/s)');
  // What moved the bytes: a column beside each GB/s column where the samples' words differ; one
  // line where every sample says the same (a simulated run), or none was recorded (a run saved
  // before the helper printed it keeps its old tables).
  const words = new Set(view.series.flatMap((s) => s.points.map((p) => p.evidence?.word ?? NOT_RECORDED)));
  const evidence = words.size > 1;
  if (evidence)
    out.push(
      "# evidence: what moved each sample's bytes as the platform saw it (✓ matches the label, ✗ contradicts it, not observed, simulated, not recorded)",
    );
  else if (words.has(NOT_RECORDED))
    out.push(`# mover evidence: ${NOT_RECORDED} (the run was made before the helper printed it, or imported)`);
  else if (words.size === 1) out.push(`# mover evidence: ${[...words][0]} (every sample)`);
  for (const pair of view.pairs) {
    const series = seriesOfPair(view, pair);
    const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.sizeBytes)))].sort((a, b) => a - b);
    for (const path of ['cu/host', 'cu/device'] as const) {
      const cols = series
        .filter((s) => s.path === path && !s.series)
        .map((s) => ({ head: [`${s.cus} CU`, ...dimensionWords(sweepSeriesDimensions(s))].join(' · '), series: s }));
      if (cols.length > 0) block(out, `${path}, ${pair.label}: GB/s by CUs carrying the copy`, cols, sizes, evidence);
    }
    const engines = series
      .filter((s) => s.path.startsWith('engine/') && !s.series)
      .map((s) => ({ head: [s.path, ...dimensionWords(sweepSeriesDimensions(s))].join(' · '), series: s }));
    if (engines.length > 0) block(out, `copy engine (SDMA) paths, ${pair.label}: GB/s`, engines, sizes, evidence);
    const defaults = series.filter((s) => s.series).map((s) => ({ head: seriesLabel(s), series: s }));
    if (defaults.length > 0)
      block(
        out,
        `runtime default, ${pair.label}: GB/s (the runtime's mover before each figure)`,
        defaults,
        sizes,
        evidence,
      );
    for (const u of unsupportedOfPair(view, pair)) out.push('#', `# ${u.text}`);
  }
  if (view.series.some((s) => s.series)) out.push('#', `# ${RUNTIME_DEFAULT_NOTE}`);
  const contradicting = contradictingPoints(view);
  if (contradicting.length > 0) {
    out.push('#', `# ${contradictsNote('sample')}`);
    for (const { series, point } of contradicting)
      out.push(
        `# ✗ ${seriesLabel(series)} ${formatBytes(point.sizeBytes)}, ${view.pairs.find((p) => p.src === series.src && p.dst === series.dst)?.label ?? ''}: ${point.evidence?.detail ?? ''}`,
      );
  }
  for (const w of view.warnings) out.push(`# warning: ${w}`);
  for (const p of view.problems) out.push(`# problem: ${p}`);
  return out.map(terminalLine).join('\n');
}
