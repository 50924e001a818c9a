/**
 * A collective or overlap run as text, laid out as nccl-tests prints its results: one row per
 * operation, variant and size with time, algbw and busbw; then the crossovers, the overlap
 * rows and the settings the view recommends. Node names, the helper's warnings and errors come
 * from outside: every line goes through `terminalLine`, so each stays one line with nothing a
 * terminal obeys; the export lines are the view's, checked against the knob catalog.
 */
import type { Run } from '../run';
import { terminalLine } from '../text';
import { formatBytes, formatGbps } from '../units';
import { collectivePageView } from './collectiveView';
import { transportLegend } from './transports';
import { MODE_MEANING, cusUsedText, modeText, variantRows } from './collectiveLabels';
import type { OverlapView } from './collectiveMessages';

const pad = (s: string, width: number) => (s.length >= width ? s : ' '.repeat(width - s.length) + s);

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
const gbps = (x: number | null) => (x === null ? '-' : formatGbps(x));

/**
 * The overlap rows, one per compute kind, copy size and path, against the CU arithmetic, then
 * the claim lines (the engine path against the CU copy). The mechanism is the helper's text,
 * last on its row; every line goes through `terminalLine` with the rest.
 */
function overlapLines(overlap: OverlapView, out: string[]): void {
  out.push(
    '#',
    '# CU arithmetic = (total CUs - CUs the copy holds) / total CUs; kept = compute rate beside the copy / alone; bw kept = copy beside / copy alone',
    `#${pad('compute', 8)}${pad('bound', 8)}  ${'copy beside it'.padEnd(18)}${pad('size', 10)}${pad('CUs', 10)}${pad('CU arith', 9)}${pad('kept', 8)}${pad('copy GB/s alone -> beside', 27)}${pad('bw kept', 9)}  ${'decided by'.padEnd(11)}${pad('MHz / W', 15)}  mechanism`,
  );
  for (const r of overlap.rows) {
    const cus = r.cusUsed !== null && r.totalCus !== null ? `${r.cusUsed}/${r.totalCus}` : '-';
    const copy = r.copyAloneGbps !== null ? `${gbps(r.copyAloneGbps)} -> ${gbps(r.copyGbps)}` : gbps(r.copyGbps);
    const decided = r.decidedBy === 'unknown' ? `(${r.cause})` : r.decidedBy;
    const clock = `${r.smClockMHz !== null ? r.smClockMHz.toFixed(0) : '-'} / ${r.powerW !== null ? r.powerW.toFixed(0) : '-'}`;
    out.push(
      ` ${pad(r.compute, 8)}${pad(r.bound, 8)}  ${r.label.padEnd(18)}${pad(formatBytes(r.copySizeBytes), 10)}${pad(cus, 10)}${pad(pct(r.cuArithmetic), 9)}${pad(pct(r.keptFraction), 8)}${pad(copy, 27)}${pad(pct(r.bandwidthKept), 9)}  ${decided.padEnd(11)}${pad(clock, 15)}  ${r.mechanism ?? '-'}`,
    );
  }
  const telemetry = [...new Set(overlap.rows.map((r) => r.telemetry).filter((t) => t !== null))];
  if (telemetry.length > 0) out.push(`# clocks and power from: ${telemetry.join(', ')}`);
  for (const c of overlap.claims) out.push(`# claim: ${c.text}`);
}

export function collectiveTable(run: Run): string {
  const view = collectivePageView(run);
  const out: string[] = [
    `# SDMA Lens ${view.command === 'overlap' ? 'compute overlap' : 'collective sweep'} ${view.runId}`,
  ];
  out.push(`# node: ${view.node || 'unknown'} · status ${view.status}`);
  if (view.command === 'collective')
    out.push(`# mode: ${modeText(view.mode, view.launcher)}: ${MODE_MEANING[view.mode]}`);
  if (view.simulated)
    out.push('# SIMULATED: these numbers come from the simulated MI350X model, not from a measurement.');
  const variants = variantRows(view.variants);
  if (variants.length > 0) {
    out.push(`#${'variant'.padEnd(15)}${'ran'.padEnd(5)}${'library'.padEnd(18)}why not / conditions`);
    for (const v of variants) {
      const why = [v.reason, ...v.conditions].filter((x) => x !== '').join('; ');
      out.push(`# ${v.variant.padEnd(14)}${v.supported.padEnd(5)}${v.library.padEnd(18)}${why || '-'}`);
    }
  }
  if (view.curves.length > 0) {
    out.push('# busbw = algbw x (ranks-1)/ranks (GB/s, as nccl-tests)');
    const legend = transportLegend(view.curves.flatMap((c) => c.points.map((p) => p.transport)));
    if (legend.length > 0) out.push(`# path: ${legend.map((t) => `${t.transport} = ${t.meaning}`).join('; ')}`);
    out.push(
      `#${pad('op', 10)}${pad('variant', 13)}${pad('place', 8)}${pad('size', 11)}${pad('time µs', 11)}${pad('algbw', 9)}${pad('busbw', 9)}${pad('CUs', 15)}  path`,
    );
    for (const c of view.curves) {
      for (const p of c.points) {
        const path = `${p.transport ?? '-'}${p.offPath ? ' (not the variant\u2019s path)' : ''}${p.wrong ? `, ${p.wrong} wrong` : ''}`;
        out.push(
          ` ${pad(c.op, 10)}${pad(c.variant, 13)}${pad(c.inPlace ? 'in' : 'out', 8)}${pad(formatBytes(p.sizeBytes), 11)}${pad(p.timeUs.toFixed(1), 11)}${pad(formatGbps(p.algbwGbps), 9)}${pad(formatGbps(p.busbwGbps), 9)}${pad(cusUsedText(p.cusUsed), 15)}  ${path}`,
        );
      }
    }
  }
  for (const x of view.crossovers) out.push(`# ${x.text}`);
  if (view.overlap.rows.length > 0) overlapLines(view.overlap, out);
  for (const r of view.recommendations)
    out.push(`# ${r.knob}${r.value !== undefined ? `=${r.value}` : ''} (${r.confidence}): ${r.evidence}`);
  if (view.cus) out.push(`# CUs: ${view.cus.text}`);
  for (const line of view.cuBudget) out.push(`# ${line}`);
  for (const note of view.notes) out.push(`# note: ${note}`);
  const lines = out.map(terminalLine);
  if (view.exports) lines.push('# shell:', ...view.exports.split('\n'));
  return lines.join('\n');
}
