/**
 * The words above a kernel after a profile run: one line for the code lens, a few for the
 * hover. Template instances of one source kernel are added up.
 */
import type { KernelSite } from '../kernels/detect';
import { matchKernel } from '../kernels/names';
import type { KernelSummary } from './profileSummary';
import { summariesBySite } from './profileSummary';
import { formatBytes, formatDuration } from '../units';

export interface KernelFactsText {
  summary: string;
  details: string;
  /** The printed name of the busiest instance (for filters). */
  printedName: string;
  /** Every printed name shown here (template instances, and launches that may be this kernel): the timeline's kernel filter. */
  printedNames: string[];
  /** Set when some of those launches may be another kernel of the file: says which, for titles. */
  ambiguous?: string;
}

export function kernelFactsText(instances: readonly KernelSummary[]): KernelFactsText | undefined {
  if (instances.length === 0) return undefined;
  const launches = instances.reduce((n, k) => n + k.launches, 0);
  const totalNs = instances.reduce((n, k) => n + k.totalNs, 0);
  const avgNs = launches > 0 ? totalNs / launches : 0;
  const cus = instances.map((k) => k.cusSeen).filter((c): c is number => c !== undefined);
  const bytes = { cu: 0, engine: 0 };
  for (const k of instances) {
    for (const [path, b] of Object.entries(k.bytesByPath)) bytes[path.startsWith('engine/') ? 'engine' : 'cu'] += b;
  }
  const moved = bytes.cu + bytes.engine;
  const parts = [`${formatDuration(avgNs)} avg x ${launches} launch${launches === 1 ? '' : 'es'}`];
  if (cus.length > 0) parts.push(`${cus.reduce((m, c) => Math.max(m, c), 0)} CUs`);
  if (moved > 0) parts.push(`${formatBytes(moved)} moved, ${Math.round((100 * bytes.engine) / moved)}% by SDMA`);
  const busiest = [...instances].sort((a, b) => b.totalNs - a.totalNs)[0]!;
  const lines = [
    `- ${launches} launches, ${formatDuration(totalNs)} in all (avg ${formatDuration(avgNs)}, min ${formatDuration(instances.reduce((m, k) => Math.min(m, k.minNs), Infinity))}, max ${formatDuration(instances.reduce((m, k) => Math.max(m, k.maxNs), -Infinity))})`,
    cus.length > 0
      ? `- up to ${cus.reduce((m, c) => Math.max(m, c), 0)} CUs/SMs seen by the device trace in one launch`
      : '- CUs: not traced (include sdma_lens/trace.h to see them)',
    moved > 0
      ? `- moved inside its launches: ${formatBytes(bytes.cu)} by load/store, ${formatBytes(bytes.engine)} by the copy engine`
      : '- no copies traced inside its launches',
    `- GPUs: ${[...new Set(instances.flatMap((k) => k.gpus))].sort((a, b) => a - b).join(', ')}; sources: ${[...new Set(instances.flatMap((k) => k.sources))].join(', ')}`,
  ];
  if (instances.length > 1) lines.push(`- ${instances.length} instances: ${instances.map((k) => k.name).join('; ')}`);
  return {
    summary: parts.join(' - '),
    details: lines.join('\n'),
    printedName: busiest.name,
    printedNames: instances.map((k) => k.name),
  };
}

/**
 * Facts per detected kernel (by qualified name). A printed name that could be several
 * kernels of the file is shown on each of them, marked ambiguous, never on one by guess.
 */
export function factsBySite(
  kernels: readonly KernelSummary[],
  sites: readonly KernelSite[],
): Map<string, KernelFactsText> {
  const facts = new Map<string, KernelFactsText>();
  const { bySite, unplaced } = summariesBySite(kernels, sites);
  for (const { site, kernels: ks } of bySite) {
    const text = kernelFactsText(ks);
    if (text) facts.set(site.qualifiedName, text);
  }
  for (const k of unplaced) {
    const m = matchKernel(k.name, sites);
    if (m.kind !== 'ambiguous') continue;
    const text = kernelFactsText([k])!;
    const note = `ambiguous: ${m.sites.length} kernels here match ${k.name}`;
    for (const site of m.sites) {
      const known = facts.get(site.qualifiedName);
      facts.set(
        site.qualifiedName,
        known
          ? {
              ...known,
              details: `${known.details}\n- also possibly ${k.name} (${note})`,
              printedNames: [...known.printedNames, k.name],
              ambiguous: known.ambiguous ?? note,
            }
          : {
              summary: `${text.summary} (${note.split(':')[0]})`,
              details: `${text.details}\n- ${note}`,
              printedName: text.printedName,
              printedNames: [k.name],
              ambiguous: note,
            },
      );
    }
  }
  return facts;
}
