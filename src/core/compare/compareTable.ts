/**
 * The comparison as plain text for the CLI: one row per common point (point, A GB/s, B GB/s,
 * ratio [low, high], the run-to-run tolerance where it differs by path and size band, verdict),
 * so a CI log can be grepped for "regression"; comment lines start with '#', as in the other
 * tables. The tolerance and where it came from head the table. Each line goes through `terminalLine`: a node name,
 * a run id or a note of a run stays on its own line, with nothing a terminal obeys.
 */
import type { Comparison, RunInfo } from './compare';
import { formatRatio, summaryLines, toleranceLines } from './compare';
import { percent } from './noise';
import { formatGbps } from '../units';
import { terminalLine } from '../text';

const padEnd = (s: string, width: number) => (s.length >= width ? s : s + ' '.repeat(width - s.length));
const padStart = (s: string, width: number) => (s.length >= width ? s : ' '.repeat(width - s.length) + s);

function runLine(side: 'A' | 'B', r: RunInfo): string {
  const extra = [
    r.simulated ? 'SIMULATED' : '',
    r.status !== 'ok' ? r.status : '',
    r.source ? `imported from ${r.source}` : '',
  ].filter(Boolean);
  return `# ${side}: ${r.id} · ${r.node} · ${r.createdAt}${extra.length > 0 ? ` · ${extra.join(' · ')}` : ''}`;
}

/** Points one run alone measured, listed by name up to this many per run (two sweeps of different pairs share none). */
const MAX_ONLY = 20;

export function compareTable(c: Comparison): string {
  const out = [
    `# SDMA Lens comparison of two ${c.kind} runs: B against A`,
    runLine('A', c.a),
    runLine('B', c.b),
    `# ${c.method}`,
    `# run-to-run tolerance ${c.noise.description}`,
  ];
  for (const l of toleranceLines(c)) out.push(`# ${l}`);
  if (c.noise.source === 'default')
    out.push(
      "# the default is one H200 node's run-to-run variation; --baseline-runs ID,... (repeats of A on this node) measures this node's",
    );
  // A column of the tolerance only where it differs by path and size band.
  const byBand = c.noise.source === 'baseline runs';
  // A column of each run's mover evidence where the words differ between points or runs; one line
  // where every point says the same in both runs; nothing where neither run has any (runs saved
  // before it print as before).
  const pairs = new Set(c.points.map((p) => (p.evidence ? `${p.evidence.a}\u0000${p.evidence.b}` : '')));
  const [only] = pairs;
  const [wordA, wordB] = (only ?? '').split('\u0000');
  const uniform = pairs.size === 1 && only !== '' && wordA === wordB;
  const withEvidence = pairs.size > 1 || (pairs.size === 1 && only !== '' && !uniform);
  if (uniform) out.push(`# mover evidence: ${wordA} in both runs at every point`);
  const rows = c.points.map((p) => [
    p.label,
    formatGbps(p.a.gbps),
    formatGbps(p.b.gbps),
    formatRatio(p),
    ...(byBand ? [percent(p.tolerance)] : []),
    ...(withEvidence ? [`${p.evidence?.a ?? '-'} / ${p.evidence?.b ?? '-'}`] : []),
    `${p.verdict}${p.movedDifferently ? ' ≠ moved differently' : ''}`,
  ]);
  const head = [
    'point',
    `A ${c.bandwidth}`,
    `B ${c.bandwidth}`,
    'ratio [low, high]',
    ...(byBand ? ['tolerance'] : []),
    ...(withEvidence ? ['evidence A / B'] : []),
    'verdict',
  ];
  const widths = head.map((h, i) => rows.reduce((w, r) => Math.max(w, r[i]!.length), h.length));
  const line = (r: string[], lead: string) => {
    const cells = [
      padEnd(r[0]!, widths[0]!),
      padStart(r[1]!, widths[1]!),
      padStart(r[2]!, widths[2]!),
      padEnd(r[3]!, widths[3]!),
    ];
    let i = 4;
    if (byBand) cells.push(padStart(r[i]!, widths[i++]!));
    if (withEvidence) cells.push(padEnd(r[i]!, widths[i++]!));
    cells.push(r[i]!);
    return `${lead}${cells.join('  ')}`;
  };
  if (rows.length > 0) {
    out.push(line(head, '# '));
    for (const r of rows) out.push(line(r, '  '));
  }
  // Why a point's noise is unknown, once per reason rather than once per row.
  const whys = new Map<string, number>();
  for (const p of c.points) if (p.why) whys.set(p.why, (whys.get(p.why) ?? 0) + 1);
  for (const [why, n] of whys) out.push(`# unknown noise (${n} point${n === 1 ? '' : 's'}): ${why}`);
  // Why a point is flagged "moved differently", once per reason.
  const moved = new Map<string, number>();
  for (const p of c.points)
    if (p.movedDifferently) moved.set(p.movedDifferently, (moved.get(p.movedDifferently) ?? 0) + 1);
  for (const [why, n] of moved) out.push(`# ≠ moved differently (${n} point${n === 1 ? '' : 's'}): ${why}`);
  for (const [side, only] of [
    ['A', c.onlyInA],
    ['B', c.onlyInB],
  ] as const) {
    for (const p of only.slice(0, MAX_ONLY))
      out.push(`# only in ${side}: ${p.label} (${formatGbps(p.side.gbps)} ${c.bandwidth})`);
    if (only.length > MAX_ONLY) out.push(`# only in ${side}: ${only.length - MAX_ONLY} more (--json lists them all)`);
  }
  for (const n of c.notes) out.push(`# note: ${n}`);
  for (const l of summaryLines(c)) out.push(`# ${l}`);
  return out.map(terminalLine).join('\n');
}
