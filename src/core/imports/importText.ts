/**
 * An imported run as text: where it came from, what was imported, and each sample's or
 * point's headline numbers exactly as imported (the tool's own digits, no rounding), then its
 * notes. The CLI prints it; the numbers are the run's, read back from the saved file. File
 * names, command lines, node names and the tool's own words come from outside: every line goes
 * through `terminalLine`, so each stays one line with nothing a terminal obeys.
 */
import { pairName } from '../endpoints';
import { pathName } from '../protocol';
import type { Run } from '../run';
import { terminalLine } from '../text';
import { formatBytes } from '../units';
import { sourceName } from './importRun';

const pad = (s: string, width: number) => (s.length >= width ? s : ' '.repeat(width - s.length) + s);
const left = (s: string, width: number) => s.padEnd(width);

export function importedLines(run: Run): string[] {
  const source = run.header.source;
  const out = [
    `# ${source ? `${source.file}: ${sourceName(source)} ${source.format} output${source.commandLine ? ` (${source.commandLine})` : ''}` : run.header.id} -> run ${run.header.id}`,
  ];
  out.push(`# ${run.end?.message ?? ''}`);
  if (run.topology)
    out.push(
      `# node: ${run.topology.node.model} x${run.topology.gpus.length} on ${run.topology.node.name}${run.topology.libraries.length > 0 ? ` · ${run.topology.libraries.map((l) => `${l.name} ${l.version}`).join(', ')}` : ''}`,
    );
  if (run.header.command === 'collective') {
    out.push(
      `#${left(' op', 11)}${left('place', 6)}${pad('ranks', 6)}${pad('size', 12)}${pad('time us', 12)}${pad('algbw', 12)}${pad('busbw', 12)}  #wrong`,
    );
    for (const p of run.collectives ?? []) {
      out.push(
        `  ${left(p.op, 10)}${left(p.inPlace ? 'in' : 'out', 6)}${pad(String(p.ranks), 6)}${pad(formatBytes(p.sizeBytes), 12)}${pad(String(p.timeUs), 12)}${pad(String(p.algbwGbps), 12)}${pad(String(p.busbwGbps), 12)}  ${p.wrong ?? 'N/A'}`,
      );
    }
  } else {
    out.push(
      `#${left(' path', 13)}${left('pair', 16)}${pad('CUs', 4)}${pad('size', 12)}${pad('GB/s', 12)}${pad('iters', 6)}`,
    );
    for (const s of run.samples) {
      out.push(
        `  ${left(pathName(s.mover, s.initiator), 12)}${left(pairName(s), 16)}${pad(String(s.cus), 4)}${pad(formatBytes(s.sizeBytes), 12)}${pad(String(s.gbps), 12)}${pad(String(s.iters), 6)}`,
      );
    }
  }
  for (const w of run.warnings)
    out.push(
      `# ${w.code === 'import-assumed' ? 'assumed' : w.code === 'import-source-warning' ? 'the tool said' : w.code === 'import-variant' ? 'variant' : 'not mapped'}: ${w.message}`,
    );
  return out.map(terminalLine);
}
