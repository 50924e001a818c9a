/**
 * A fleet made of one real run, for the fleet's unit tests: the run as each node's, scaled by
 * that node's noise (and its copy engines by a factor, for a weak node), and the index that
 * lists them, as `sdma-lens fleet` would have saved it.
 */
import type { FleetIndex } from '../../src/core/fleet/fleetIndex';
import type { Run } from '../../src/core/run';
import { SampleTable } from '../../src/core/sampleTable';

export const FLEET_ID = 'fleet-test';

/** A copy of a real run as node `node`'s: every sample's GB/s and times scaled (engine paths by `engine`, all by `noise`). */
export function asNode(run: Run, node: string, noise: number, engine = 1): Run {
  const samples = run.samples.map((s) => {
    const k = noise * (s.mover === 'engine' ? engine : 1);
    return {
      ...s,
      gbps: s.gbps * k,
      ...(s.gbpsMedian !== undefined ? { gbpsMedian: s.gbpsMedian * k } : {}),
      meanNs: s.meanNs / k,
      ...(s.timesNs ? { timesNs: s.timesNs.map((t) => t / k) } : {}),
      ...(s.medianNs !== undefined ? { medianNs: s.medianNs / k } : {}),
    };
  });
  return {
    ...run,
    header: { ...run.header, id: `sweep-${node}`, fleet: { id: FLEET_ID, node, job: '7' } },
    samples: SampleTable.from(samples),
  };
}

/** The index of a fleet whose nodes each ran one sweep (`statuses`: a node's run status other than ok). */
export function fleetIndexOf(nodes: readonly string[], statuses: Record<string, string> = {}): FleetIndex {
  return {
    format: 'sdma-lens-fleet',
    version: 1,
    id: FLEET_ID,
    createdAt: '2026-12-02T00:00:00Z',
    via: { kind: 'local' },
    slurm: { job: '7', ownAllocation: true },
    commands: ['sweep'],
    args: {},
    status: 'ok',
    nodes: nodes.map((node) => ({
      node,
      runs: [{ command: 'sweep', runId: `sweep-${node}`, status: statuses[node] ?? 'ok' }],
    })),
  };
}
