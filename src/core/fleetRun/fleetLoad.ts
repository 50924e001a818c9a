/** A saved fleet read back: its index and each node's runs from the runs folder (a run that is gone or unreadable is said, not thrown). */
import type { RunStore } from '../runs/runStore';
import type { FleetIndex } from '../fleet/fleetIndex';
import type { FleetStore } from './fleetStore';
import type { NodeRuns } from '../fleet/fleetView';

export interface LoadedFleet {
  index: FleetIndex;
  runs: Map<string, NodeRuns>;
  /** Runs the index names that could not be read, each in a sentence. */
  problems: string[];
}

/** `id` undefined: the newest fleet. */
export async function loadFleet(store: RunStore, fleets: FleetStore, id?: string): Promise<LoadedFleet> {
  const chosen = id ?? fleets.list()[0];
  if (chosen === undefined)
    throw new Error(`no fleet is saved in ${fleets.root} (run one with: sdma-lens fleet --nodes N)`);
  const index = fleets.read(chosen);
  const runs = new Map<string, NodeRuns>();
  const problems: string[] = [];
  for (const n of index.nodes) {
    const mine: NodeRuns = {};
    for (const r of n.runs) {
      try {
        mine[r.command] = await store.open(r.runId);
      } catch (err) {
        problems.push(`${n.node}: run ${r.runId} could not be read: ${(err as Error).message}`);
      }
    }
    runs.set(n.node, mine);
  }
  return { index, runs, problems };
}
