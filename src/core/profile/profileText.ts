/**
 * A profiled program's or imported profile's run as text: its kernels, copy paths and the
 * collectives its library logged. The extension's output channel and the CLI print the same.
 * Kernel names, copy labels and the program's arguments come from outside: every line goes
 * through `terminalLine`, so each stays one line with nothing a terminal obeys.
 */
import type { Run } from '../run';
import { terminalLine } from '../text';
import { formatBytes, formatDuration, formatGbps } from '../units';
import { libraryCallLines } from './libraryCalls';
import { summarizeProfile } from './profileSummary';

/** One line per kernel (the one named by `mark` gets a '>'), per copy path, per logged collective. */
export function profileLines(run: Run, mark?: string): string[] {
  const summary = summarizeProfile(run.dispatches, run.copies);
  const lines: string[] = [];
  for (const k of summary.kernels) {
    lines.push(
      `${k.name === mark ? '>' : ' '} ${k.launches} x ${k.name}: avg ${formatDuration(k.avgNs)}, total ${formatDuration(k.totalNs)}${k.cusSeen !== undefined ? `, ${k.cusSeen} CUs` : ''}`,
    );
  }
  for (const p of summary.copyPaths)
    lines.push(
      `  ${p.path}: ${p.copies} copies, ${formatBytes(p.bytes)}${p.gbps !== undefined ? `, ${formatGbps(p.gbps)} GB/s while busy` : ''}`,
    );
  const collectives = libraryCallLines(run.libraryCalls);
  if (collectives.length > 0) lines.push('  collectives, by the path the library logged:');
  for (const line of collectives) lines.push(`    ${line}`);
  return lines.map(terminalLine);
}

/** The header line: which run, whether simulated, what ran. */
export function profileTitle(run: Run): string {
  const summary = summarizeProfile(run.dispatches, run.copies);
  const args = run.header.helper.args;
  const what =
    run.header.command === 'import' ? `import of ${args.at(-1) ?? ''}` : args.slice(args.indexOf('--') + 1).join(' ');
  return terminalLine(`run ${run.header.id}${summary.simulated ? ' (SIMULATED records)' : ''}: ${what}`);
}
