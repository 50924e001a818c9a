/**
 * Words a run's `library-calls` records (`sdma-probe run --library-log`) as one line per
 * collective: how many calls, and which path how many of them took at which sizes, e.g.
 * "AllToAll (RCCL): 40 calls, 38 via sdma (512 KiB-64 MiB per peer), 2 via lsa (256 KiB per peer)".
 * The counts are what the library logged, never estimates. Pure: no I/O, no VS Code.
 */
import type { LibraryCalls } from '../protocol';
import { formatBytes } from '../units';

export interface PathUse {
  transport: string;
  calls: number;
  sizeKind?: LibraryCalls['sizeKind'];
  minBytes?: number;
  maxBytes?: number;
}

export interface CollectiveUse {
  op: string;
  /** "RCCL" / "NCCL" when the records say. */
  library?: string;
  calls: number;
  /** Most calls first. */
  paths: PathUse[];
}

/** One entry per collective (in first-seen order), its paths merged over the size ranges. */
export function summarizeLibraryCalls(records: readonly LibraryCalls[]): CollectiveUse[] {
  const ops = new Map<string, CollectiveUse & { byPath: Map<string, PathUse> }>();
  for (const r of records) {
    let op = ops.get(r.op);
    if (!op) {
      op = { op: r.op, calls: 0, paths: [], byPath: new Map() };
      ops.set(r.op, op);
    }
    if (r.library !== undefined) op.library ??= r.library.toUpperCase();
    op.calls += r.calls;
    // Sizes of different kinds are not one range: they stay apart.
    const key = `${r.transport}\0${r.sizeKind ?? ''}`;
    const path = op.byPath.get(key) ?? { transport: r.transport, calls: 0, sizeKind: r.sizeKind };
    path.calls += r.calls;
    if (r.minBytes !== undefined) path.minBytes = Math.min(path.minBytes ?? Infinity, r.minBytes);
    if (r.maxBytes !== undefined) path.maxBytes = Math.max(path.maxBytes ?? 0, r.maxBytes);
    op.byPath.set(key, path);
  }
  return [...ops.values()].map(({ byPath, ...op }) => ({
    ...op,
    paths: [...byPath.values()].sort((a, b) => b.calls - a.calls || a.transport.localeCompare(b.transport)),
  }));
}

function sizeRange(p: PathUse): string {
  if (p.minBytes === undefined || p.maxBytes === undefined) return '';
  const range =
    p.minBytes === p.maxBytes ? formatBytes(p.minBytes) : `${formatBytes(p.minBytes)}-${formatBytes(p.maxBytes)}`;
  return ` (${range}${p.sizeKind === 'bytesPerPeer' ? ' per peer' : ''})`;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "AllToAll (RCCL): 40 calls, 38 via sdma (512 KiB-64 MiB per peer), 2 via lsa (256 KiB per peer)". */
export function describeCollectiveUse(use: CollectiveUse): string {
  const head = `${use.op}${use.library ? ` (${use.library})` : ''}: ${plural(use.calls, 'call')}`;
  return [head, ...use.paths.map((p) => `${p.calls} via ${p.transport}${sizeRange(p)}`)].join(', ');
}

/** The lines for a run's summary; empty when the run has no `library-calls` records. */
export function libraryCallLines(records: readonly LibraryCalls[] | undefined): string[] {
  return summarizeLibraryCalls(records ?? []).map(describeCollectiveUse);
}
