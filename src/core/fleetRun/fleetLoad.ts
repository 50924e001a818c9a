/**
 * A saved fleet read back: its index and, per node, the figures of its runs from the runs folder
 * (a run that is gone or unreadable is said, not thrown). A node's run is small (tens of
 * kilobytes): it is read with synchronous calls (`RunStore.openSync`), which cost a fraction of
 * the asynchronous ones' round trips, the event loop given a turn every 20 ms (a run over 4 MiB
 * is read asynchronously, as any other); a caller's own `open` is called `concurrency` at once.
 * Each node's runs are reduced to the figures judging needs (`nodeFigures`) as soon as they are read and then let go, so a fleet of
 * thousands of nodes never holds every node's runs at once. Cancel stops starting new reads.
 */
import { statSync } from 'node:fs';
import type { Run } from '../run';
import type { RunStore } from '../runs/runStore';
import type { FleetIndex } from '../fleet/fleetIndex';
import type { FleetStore } from './fleetStore';
import type { NodeFigures, NodeRuns } from '../fleet/fleetView';
import { nodeFigures } from '../fleet/fleetView';

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
/** A node's run up to this size is read synchronously (a few milliseconds at most); a larger one asynchronously. */
const SYNC_READ_MAX_BYTES = 4 * 1024 * 1024;

/** The size of what is at `file`, as a hint only (the open checks what it is); 0 when it cannot be looked at. */
function sizeOf(file: string): number {
  try {
    return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

/** Node files read at once. */
export const FLEET_READ_CONCURRENCY = 32;

export interface LoadFleetOptions {
  signal?: AbortSignal;
  concurrency?: number;
  /** How a run is read (RunStore.open unless said; a test counts reads in flight through it). */
  open?: (runId: string) => Promise<Run>;
  /** Called as each node is read: nodes read so far, and how many there are. */
  onProgress?: (done: number, total: number) => void;
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
      return sizeOf(store.fileOf(runId)) <= SYNC_READ_MAX_BYTES
        ? store.openSync(runId, { signal: options.signal })
        : store.open(runId, { signal: options.signal });
    });
  let done = 0;
  const read = await mapBounded(
    index.nodes,
    options.concurrency ?? FLEET_READ_CONCURRENCY,
    async (n) => {
      const mine: NodeRuns = {};
      const problems: string[] = [];
      for (const r of n.runs) {
        options.signal?.throwIfAborted();
        try {
          mine[r.command] = await open(r.runId);
        } catch (err) {
          problems.push(`${n.node}: run ${r.runId} could not be read: ${(err as Error).message}`);
        }
      }
      // The runs go out of reach here: only their figures are kept.
      const figures = nodeFigures(mine);
      options.onProgress?.(++done, index.nodes.length);
      return { figures, problems };
    },
    options.signal,
  );
  const nodes = new Map<string, NodeFigures>();
  const problems: string[] = [];
  index.nodes.forEach((n, i) => {
    nodes.set(n.node, read[i]!.figures);
    problems.push(...read[i]!.problems);
  });
  return { index, nodes, problems };
}
