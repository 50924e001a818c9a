/**
 * Folds the `dispatch` and `copy` records of a `sdma-probe run` into one summary per kernel
 * (launches, time, CUs seen, bytes moved by path) and per copy path, for the code lenses
 * above kernels and the run summary. Pure: no I/O, no VS Code.
 */
import type { CopyOp, Dispatch, PathName, RunSource } from '../protocol';
import { PATHS, pathName } from '../protocol';
import type { KernelSite } from '../kernels/detect';
import { matchKernel } from '../kernels/names';

export type BytesByPath = Record<PathName, number>;

export interface KernelSummary {
  /** The name as the profiler printed it (demangled when it could be). */
  name: string;
  launches: number;
  /** GPUs it ran on, ascending. */
  gpus: number[];
  totalNs: number;
  avgNs: number;
  minNs: number;
  maxNs: number;
  /** Most distinct CUs/SMs the device trace saw in one launch; undefined when no launch was traced. */
  cusSeen?: number;
  /** Bytes of the copies made inside its launches (device-initiated), by mover/initiator. */
  bytesByPath: BytesByPath;
  sources: RunSource[];
}

export interface CopyPathSummary {
  path: PathName;
  copies: number;
  bytes: number;
  /** Sum of the copies' own durations (overlapping copies count twice). */
  busyNs: number;
  /** bytes / busyNs, in GB/s (10^9 bytes per second); undefined without time. */
  gbps?: number;
}

export interface ProfileSummary {
  kernels: KernelSummary[];
  copyPaths: CopyPathSummary[];
  /** Bytes between each pair of memories, `src->dst` with -1 for host memory, e.g. "0->1". */
  bytesByRoute: Record<string, number>;
  /** Copies no kernel launch contains (host-initiated, or made outside every traced launch). */
  copiesOutsideKernels: number;
  /** First start to last end over all records, ns; 0 when there are none. */
  spanNs: number;
  /** True when any record came from the simulator. */
  simulated: boolean;
}

function emptyBytes(): BytesByPath {
  return Object.fromEntries(PATHS.map((p) => [p, 0])) as BytesByPath;
}

const durationNs = (r: { startNs: number; endNs: number }) => Math.max(0, r.endNs - r.startNs);

/**
 * The launch a device-initiated copy belongs to: on its source GPU (a put) or else its
 * destination GPU (a get), the latest-started launch whose span holds the copy's midpoint.
 */
export function owningDispatch(copy: CopyOp, byGpu: ReadonlyMap<number, readonly Dispatch[]>): Dispatch | undefined {
  const mid = copy.startNs + (copy.endNs - copy.startNs) / 2;
  for (const gpu of [copy.srcGpu, copy.dstGpu]) {
    const list = byGpu.get(gpu);
    if (!list) continue;
    // Sorted by start: binary search for the last launch started by `mid`, then walk back.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (list[m]!.startNs <= mid) lo = m + 1;
      else hi = m;
    }
    for (let i = lo - 1; i >= 0; i--) {
      const d = list[i]!;
      if (d.endNs >= mid) return d;
    }
  }
  return undefined;
}

export function summarizeProfile(dispatches: readonly Dispatch[], copies: readonly CopyOp[]): ProfileSummary {
  const kernels = new Map<string, KernelSummary & { gpuSet: Set<number>; sourceSet: Set<RunSource> }>();
  const byDispatch = new Map<Dispatch, string>();
  const byGpu = new Map<number, Dispatch[]>();
  let first = Infinity;
  let last = -Infinity;
  let simulated = false;

  for (const d of dispatches) {
    const t = durationNs(d);
    let k = kernels.get(d.name);
    if (!k) {
      k = {
        name: d.name,
        launches: 0,
        gpus: [],
        totalNs: 0,
        avgNs: 0,
        minNs: Infinity,
        maxNs: 0,
        bytesByPath: emptyBytes(),
        sources: [],
        gpuSet: new Set(),
        sourceSet: new Set(),
      };
      kernels.set(d.name, k);
    }
    k.launches++;
    k.totalNs += t;
    k.minNs = Math.min(k.minNs, t);
    k.maxNs = Math.max(k.maxNs, t);
    k.gpuSet.add(d.gpu);
    k.sourceSet.add(d.source);
    if (d.cusSeen !== undefined) k.cusSeen = Math.max(k.cusSeen ?? 0, d.cusSeen);
    byDispatch.set(d, d.name);
    const list = byGpu.get(d.gpu) ?? [];
    list.push(d);
    byGpu.set(d.gpu, list);
    first = Math.min(first, d.startNs);
    last = Math.max(last, d.endNs);
    simulated ||= d.source === 'sim';
  }
  for (const list of byGpu.values()) list.sort((a, b) => a.startNs - b.startNs);

  const paths = new Map<PathName, CopyPathSummary>();
  const bytesByRoute: Record<string, number> = {};
  let outside = 0;
  for (const c of copies) {
    const path = pathName(c.mover, c.initiator);
    const p = paths.get(path) ?? { path, copies: 0, bytes: 0, busyNs: 0 };
    p.copies++;
    p.bytes += c.bytes;
    p.busyNs += durationNs(c);
    paths.set(path, p);
    const route = `${c.srcGpu}->${c.dstGpu}`;
    bytesByRoute[route] = (bytesByRoute[route] ?? 0) + c.bytes;
    first = Math.min(first, c.startNs);
    last = Math.max(last, c.endNs);
    simulated ||= c.source === 'sim';
    const owner = c.initiator === 'device' ? owningDispatch(c, byGpu) : undefined;
    const name = owner ? byDispatch.get(owner) : undefined;
    const k = name === undefined ? undefined : kernels.get(name);
    if (k) k.bytesByPath[path] += c.bytes;
    else outside++;
  }

  const kernelList: KernelSummary[] = [...kernels.values()]
    .map(({ gpuSet, sourceSet, ...k }) => ({
      ...k,
      avgNs: k.launches > 0 ? k.totalNs / k.launches : 0,
      minNs: Number.isFinite(k.minNs) ? k.minNs : 0,
      gpus: [...gpuSet].sort((a, b) => a - b),
      sources: [...sourceSet].sort(),
    }))
    .sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name));

  const copyPaths = PATHS.flatMap((path) => {
    const p = paths.get(path);
    if (!p) return [];
    return [p.busyNs > 0 ? { ...p, gbps: p.bytes / p.busyNs } : p];
  });

  return {
    kernels: kernelList,
    copyPaths,
    bytesByRoute,
    copiesOutsideKernels: outside,
    spanNs: Number.isFinite(first) && Number.isFinite(last) ? last - first : 0,
    simulated,
  };
}

export interface SiteSummary {
  site: KernelSite;
  /** Every printed kernel that maps to this site (template instances are separate entries). */
  kernels: KernelSummary[];
}

/**
 * Places kernel summaries on the kernels detected in a source file: a printed name that
 * maps to exactly one site goes there; ambiguous and unknown names are returned apart.
 */
export function summariesBySite(
  kernels: readonly KernelSummary[],
  sites: readonly KernelSite[],
): { bySite: SiteSummary[]; unplaced: KernelSummary[] } {
  const bySite = new Map<KernelSite, KernelSummary[]>();
  const unplaced: KernelSummary[] = [];
  for (const k of kernels) {
    const m = matchKernel(k.name, sites);
    if (m.kind === 'unique') bySite.set(m.site, [...(bySite.get(m.site) ?? []), k]);
    else unplaced.push(k);
  }
  return { bySite: [...bySite].map(([site, ks]) => ({ site, kernels: ks })), unplaced };
}
