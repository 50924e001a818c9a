/**
 * A saved fleet read back: its index and, per node, the figures of its runs from the runs folder
 * (a run that is gone or unreadable is said, not thrown). A node's run is small (tens of
 * kilobytes): it is read with synchronous calls (`RunStore.openSync`), which cost a fraction of
 * the asynchronous ones' round trips, the event loop given a turn every 20 ms (a run over 4 MiB
 * is read asynchronously, as any other); a caller's own `open` is called `concurrency` at once.
 * Each node's runs are reduced to the figures judging needs (`nodeFigures`) as soon as they are read and then let go, so a fleet of
 * thousands of nodes never holds every node's runs at once. Cancel stops starting new reads.
 * Given a worker script (`workers`), the nodes are read and reduced by a pool of worker
 * threads instead (fleetReaders.ts), the same figures in the same order.
 */
import type { Run } from '../run';
import type { RunStore } from '../runs/runStore';
import type { FleetIndex } from '../fleet/fleetIndex';
import type { FleetStore } from './fleetStore';
import type { NodeFigures } from '../fleet/fleetView';
import type { NodeRead } from './fleetReaders';
import { openRun, readNode, readNodesInWorkers } from './fleetReaders';

/**
 * `fn` over `items`, at most `limit` at once; the results in the items' order. Stops starting
 * new calls once `signal` is aborted (those running finish) and then throws its reason.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (signal?.aborted) return;
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  signal?.throwIfAborted();
  return out;
}

export interface LoadedFleet {
  index: FleetIndex;
  /** Per node (every node of the index), what judging needs of its runs. */
  nodes: Map<string, NodeFigures>;
  /** Runs the index names that could not be read, each in a sentence, in the index's order. */
  problems: string[];
}

/** The longest the default reader holds the thread before the event loop gets a turn. */
const YIELD_MS = 20;
/** Fewer nodes than this are read in-process: starting workers would cost more than they save. */
export const WORKERS_FROM_NODES = 64;

/** Node files read at once. */
export const FLEET_READ_CONCURRENCY = 32;

export interface LoadFleetOptions {
  signal?: AbortSignal;
  concurrency?: number;
  /** How a run is read (RunStore.open unless said; a test counts reads in flight through it). */
  open?: (runId: string) => Promise<Run>;
  /** Called as each node is read: nodes read so far, and how many there are. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Read the nodes in worker threads: `script` loads fleetReaders.ts (a bundle of this code),
   * `count` workers at most (default and cap: the cores). Not with `open`, nor for fewer than
   * WORKERS_FROM_NODES nodes; a pool that cannot start reads in-process.
   */
  workers?: { script: string | URL; count?: number };
}

/** `id` undefined: the newest fleet. Throws the signal's reason when cancelled. */
export async function loadFleet(
  store: RunStore,
  fleets: FleetStore,
  id?: string,
  options: LoadFleetOptions = {},
): Promise<LoadedFleet> {
  const chosen = id ?? fleets.list()[0];
  if (chosen === undefined)
    throw new Error(`no fleet is saved in ${fleets.root} (run one with: sdma-lens fleet --nodes N)`);
  const index = fleets.read(chosen);
  const pooled =
    options.workers && !options.open && index.nodes.length >= WORKERS_FROM_NODES
      ? await readNodesInWorkers(store.root, index.nodes, {
          ...options.workers,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        })
      : undefined;
  const read = pooled ?? (await readInProcess(store, index, options));
  const nodes = new Map<string, NodeFigures>();
  const problems: string[] = [];
  index.nodes.forEach((n, i) => {
    nodes.set(n.node, read[i]!.figures);
    problems.push(...read[i]!.problems);
  });
  return { index, nodes, problems };
}

/** Every node read on this thread, `concurrency` at once, in the index's order. */
async function readInProcess(store: RunStore, index: FleetIndex, options: LoadFleetOptions): Promise<NodeRead[]> {
  // A node's run is small (a sweep of tens of kilobytes): read with synchronous calls, a
  // fraction of the cost of the asynchronous ones, the event loop given a turn every YIELD_MS.
  let turn = performance.now();
  const open =
    options.open ??
    (async (runId: string) => {
      if (performance.now() - turn > YIELD_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        turn = performance.now();
      }
      // A larger run (a dense sweep) is read as any other, without holding the thread.
      return openRun(store, runId, options.signal);
    });
  let done = 0;
  return mapBounded(
    index.nodes,
    options.concurrency ?? FLEET_READ_CONCURRENCY,
    async (n) => {
      const read = await readNode(store, n, open, options.signal);
      options.onProgress?.(++done, index.nodes.length);
      return read;
    },
    options.signal,
  );
}
