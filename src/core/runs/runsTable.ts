/**
 * The runs folder as `sdma-lens runs` prints it: one line per run, newest first, in aligned
 * columns: id, date (local time), command, node, status, then SIMULATED or where an imported run
 * came from, and the lines it could not use. Every field is one terminal line (terminalLine).
 */
import { basename } from 'node:path';
import { terminalLine } from '../text';
import type { RunSummary } from './runStore';

/** "2026-11-30 14:05:09": a date and time in this machine's time zone; "-" for a date that is not one. */
export function localDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '-';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** Where a run ran: `local`, an SSH node, a fleet's Slurm node; "-" for an import (another tool ran it). */
export function runNode(s: RunSummary): string {
  const h = s.header;
  if (!h || h.source) return '-';
  if (h.fleet) return `${h.fleet.node} (Slurm)`;
  if (h.target.kind === 'ssh') return h.target.host ?? 'ssh';
  return 'local';
}

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;

/** What a reader should know before trusting a run: simulated, imported, unusable lines, unreadable. */
function notes(s: RunSummary): string[] {
  const source = s.header?.source;
  return [
    ...(s.simulated ? ['SIMULATED'] : []),
    ...(source ? [`imported from ${source.tool} (${basename(source.file)})`] : []),
    ...(s.error ? [`(${s.error})`] : []),
    ...(s.problems ? [`(${plural(s.problems.count, 'problem')}, first: ${s.problems.first})`] : []),
  ];
}

/** The lines of the list; none for an empty folder. */
export function runsTable(summaries: readonly RunSummary[]): string[] {
  const rows = summaries.map((s) => ({
    columns: [
      s.id,
      s.header ? localDateTime(s.header.createdAt) : '-',
      s.header?.command ?? '-',
      runNode(s),
      s.status,
    ].map(terminalLine),
    notes: notes(s).map(terminalLine),
  }));
  const widths = rows.reduce((w, r) => w.map((n, i) => Math.max(n, r.columns[i]!.length)), [0, 0, 0, 0, 0]);
  return rows.map((r) =>
    [
      ...r.columns.map((c, i) => (i < r.columns.length - 1 || r.notes.length > 0 ? c.padEnd(widths[i]!) : c)),
      ...r.notes,
    ].join('  '),
  );
}
