/**
 * The extension-side pieces the fleet page check needs, bundled for Node by fleet.mjs: the
 * panel's HTML (same CSP) and the messages the host posts for a real fleet. Its nodes' runs
 * are real simulator sweeps (`native/build/sdma-probe sweep --backend sim`), one per node with
 * its own `--seed`, one of them with `--sim-weak engine=0.6` (its copy engines at 60%), each
 * wrapped as the run file a fleet leaves (a run header naming the fleet and the node, the
 * helper's lines, a run-end), read through the one reducer and judged by `fleetView`, with a
 * threshold file applied; a sixth node's step failed before its helper ran (no run, an error). Every message is checked against the page's schema as the page
 * will check it.
 */
import { execFileSync } from 'node:child_process';
import type { FleetIndex } from '../../src/core/fleet/fleetIndex';
import type { FleetHostMessage } from '../../src/core/fleet/fleetMessages';
import { parseFleetHostMessage } from '../../src/core/fleet/fleetMessages';
import { figureValues, fleetPageView } from '../../src/core/fleet/fleetPage';
import type { FleetView, NodeRuns } from '../../src/core/fleet/fleetView';
import { fleetView } from '../../src/core/fleet/fleetView';
import type { Thresholds } from '../../src/core/fleet/thresholds';
import type { Run } from '../../src/core/run';
import { runFromText } from '../support/benchRuns';

export { makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';

const FLEET_ID = '2026-12-02T08-00-00-000Z-fleet-slurm-t3st';
const JOB = '4242';
/** Enough sizes for the advice's crossovers, two CU counts: a sweep of a few hundred samples a node. */
const SWEEP_ARGS = ['sweep', '--backend', 'sim', '--sizes', '64K:256M', '--cus', '8,64', '--iters', '5'];
export const WEAK_NODE = 'gpu-node-03';
export const THRESHOLDS: Thresholds = { maxBelowMedian: 0.2 };

/** One node's sweep from the real helper, as the run file `sdma-lens fleet` saves for it. */
function nodeRun(probe: string, node: string, seed: number, weak: boolean): Run {
  const args = [...SWEEP_ARGS, '--seed', String(seed), ...(weak ? ['--sim-weak', 'engine=0.6'] : [])];
  const out = execFileSync(probe, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const id = `2026-12-02T08-00-0${seed}-000Z-sweep-sim-n${String(seed).padStart(3, '0')}`;
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id,
    command: 'sweep',
    createdAt: '2026-12-02T08:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: probe, args },
    fleet: { id: FLEET_ID, node, job: JOB },
  };
  const end = {
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-12-02T08:01:00.000Z',
  };
  return runFromText(`${JSON.stringify(header)}\n${out.trimEnd()}\n${JSON.stringify(end)}\n`);
}

/** Nodes whose step failed before the helper ran: no run, the step's own words. */
function indexOf(runs: Map<string, NodeRuns>, failed: Record<string, string> = {}): FleetIndex {
  return {
    format: 'sdma-lens-fleet',
    version: 1,
    id: FLEET_ID,
    createdAt: '2026-12-02T08:00:00.000Z',
    endedAt: '2026-12-02T08:01:00.000Z',
    via: { kind: 'local' },
    slurm: { job: JOB, ownAllocation: true, partition: 'gpu' },
    commands: ['sweep'],
    args: { sweep: SWEEP_ARGS },
    status: 'ok',
    nodes: [
      ...[...runs].map(([node, r]) => ({
        node,
        runs: [{ command: 'sweep' as const, runId: r.sweep!.header.id, status: 'ok' }],
      })),
      ...Object.entries(failed).map(([node, error]) => ({ node, runs: [], error })),
    ],
  };
}

function checked(message: unknown): FleetHostMessage {
  // Through JSON as a postMessage would not, so a value JSON cannot carry (NaN, Infinity) fails here too.
  const parsed = parseFleetHostMessage(JSON.parse(JSON.stringify(message)));
  if (!parsed)
    throw new Error(`this ${(message as { type: string }).type} message does not satisfy FleetHostMessageSchema`);
  return parsed;
}

export interface Fleet {
  view: FleetView;
  message: FleetHostMessage & { type: 'fleet-view' };
  /** The host's answer to `select-figure` for `key`. */
  figure(key: string): FleetHostMessage & { type: 'figure-values' };
  runIds: string[];
}

function fleetOf(runs: Map<string, NodeRuns>, thresholds?: Thresholds, failed: Record<string, string> = {}): Fleet {
  const index = indexOf(runs, failed);
  const view = fleetView(index, runs, thresholds);
  return {
    view,
    message: checked({ type: 'fleet-view', view: fleetPageView(view, { index }) }) as Fleet['message'],
    figure: (key) => {
      const figure = figureValues(view, key);
      if (!figure) throw new Error(`the fleet has no figure ${key}`);
      return checked({ type: 'figure-values', figure }) as ReturnType<Fleet['figure']>;
    },
    runIds: [...runs.values()].map((r) => r.sweep!.header.id),
  };
}

/** A sixth node of the small fleet whose Slurm step failed: no run. */
export const FAILED_NODE = 'gpu-node-06';
export const FAILED_ERROR = 'srun: error: Node failure on gpu-node-06';

/** Five nodes, seeds 1..5, the third one's copy engines at 60%, and a sixth that never ran; thresholds applied. */
export function smallFleet(probe: string): Fleet {
  const runs = new Map<string, NodeRuns>();
  for (let seed = 1; seed <= 5; seed++) {
    const node = `gpu-node-${String(seed).padStart(2, '0')}`;
    runs.set(node, { sweep: nodeRun(probe, node, seed, node === WEAK_NODE) });
  }
  return fleetOf(runs, THRESHOLDS, { [FAILED_NODE]: FAILED_ERROR });
}

/** A copy of a node's run as another node's: the same records under that node's name and a run id of its own. */
function renamed(run: Run, node: string, i: number): Run {
  return { ...run, header: { ...run.header, id: `${run.header.id}-${i}`, fleet: { id: FLEET_ID, node, job: JOB } } };
}

/**
 * `nodes` nodes from the five real runs: every 100th (from the 3rd) the weak node's sweep, the
 * others the four seeds' in turn, so the fleet holds the spread the seeds give and a weak
 * node in every hundred.
 */
export function bigFleet(probe: string, nodes: number): Fleet {
  const seeds = [1, 2, 3, 4, 5].map((seed) => nodeRun(probe, `seed-${seed}`, seed, seed === 3));
  const strong = [seeds[0]!, seeds[1]!, seeds[3]!, seeds[4]!];
  const runs = new Map<string, NodeRuns>();
  for (let i = 0; i < nodes; i++) {
    const node = `gpu-node-${String(i + 1).padStart(4, '0')}`;
    runs.set(node, { sweep: renamed(i % 100 === 2 ? seeds[2]! : strong[i % strong.length]!, node, i) });
  }
  return fleetOf(runs);
}
