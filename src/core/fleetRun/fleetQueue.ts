/**
 * A queued fleet (batch.ts): `queueFleet` submits one sbatch job and saves the fleet as
 * `queued`; `collectFleet` waits for the job to leave the queue (or says it has not), then
 * puts each node's captured output through the one run flow (replayTarget.ts), so every node
 * becomes a run of its own exactly as in a live fleet; `cancelQueuedFleet` gives the job back.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStore } from '../runs/runStore';
import { makeRunId } from '../runs/runStore';
import type { HelperCommand, HelperProvider } from '../runtime/runFlow';
import { runHelperCommand } from '../runtime/runFlow';
import { runStatus } from '../run';
import type { Target } from '../runtime/target';
import { BATCH_SCRIPT, batchArgs, parsableJobId } from './batch';
import type { FleetIndex, FleetNode } from '../fleet/fleetIndex';
import { FLEET_FORMAT } from '../fleet/fleetIndex';
import type { FleetResult } from './fleetRun';
import { endMessage, fixedHelper, statusOf } from './fleetRun';
import type { FleetStore } from './fleetStore';
import type { NodeRuns } from '../fleet/fleetView';
import type { AllocationRequest } from './slurm';
import { checkSlurmName } from './slurm';
import { jobState, release, runTool, SlurmError, stillListed } from './slurmTools';
import { ReplayTarget } from './replayTarget';

export interface QueueOptions {
  base: Target;
  helpers: HelperProvider;
  fleets: FleetStore;
  signal?: AbortSignal;
  /** The most `fleet cancel` waits for Slurm to stop listing the job (default `RELEASE_WAIT_MS`). */
  releaseWaitMs?: number;
}

/** Submits the job; the fleet is saved `queued` with the job id. Only the sweep (a matrix is not queued). */
export async function queueFleet(
  allocation: AllocationRequest,
  sweep: HelperCommand,
  o: QueueOptions,
): Promise<FleetIndex> {
  if (o.base.kind !== 'local')
    throw new SlurmError(
      'a queued fleet is submitted from the login node itself: run sdma-lens there (its files must be on a file system the nodes share)',
    );
  const helper = await o.helpers.helperFor(o.base, o.signal);
  const id = makeRunId('fleet', 'slurm');
  const dir = o.fleets.dirOf(id);
  const nodesDir = join(dir, 'nodes');
  mkdirSync(nodesDir, { recursive: true });
  const script = join(dir, 'batch.sh');
  writeFileSync(script, BATCH_SCRIPT, { mode: 0o755, flag: 'wx' });
  chmodSync(script, 0o755);
  const helperArgs = sweep.args(() => {
    throw new Error('a queued fleet writes no files besides its records');
  });
  const r = await runTool(
    o.base,
    'sbatch',
    batchArgs(allocation, script, nodesDir, join(dir, 'job.log'), helper.path, helperArgs),
    o.signal,
  );
  const job = r.code === 0 ? parsableJobId(r.stdout) : undefined;
  if (!job)
    throw new SlurmError(
      `sbatch ${r.signal ? `was stopped by ${r.signal}` : `exited with ${r.code}`}: ${r.stderr.trim().split('\n').slice(-3).join(' ') || r.stdout.trim() || 'no job id'}`,
    );
  const index: FleetIndex = {
    format: FLEET_FORMAT,
    version: 1,
    id,
    createdAt: new Date().toISOString(),
    via: { kind: 'local' },
    slurm: {
      job,
      ownAllocation: true,
      batch: { dir: nodesDir },
      ...(allocation.partition ? { partition: allocation.partition } : {}),
      ...(allocation.nodelist ? { nodelist: allocation.nodelist } : {}),
    },
    helper: helper.path,
    commands: ['sweep'],
    args: { sweep: helperArgs },
    status: 'queued',
    nodes: [],
  };
  o.fleets.write(index);
  return index;
}

/** Slurm's states of a job that has not ended. */
const ACTIVE = new Set(['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'REQUEUED', 'RESIZING']);

/** The nodes that wrote anything, by name (node files only: names Slurm allows, regular files). */
function nodesOf(dir: string): string[] {
  const names = new Set<string>();
  for (const f of readdirSync(dir)) {
    const m = /^(.+)\.(ndjson|stderr|exit)$/.exec(f);
    if (!m || lstatSync(join(dir, f)).isFile() === false) continue;
    try {
      names.add(checkSlurmName('node', m[1]!));
    } catch {
      // not a node's file
    }
  }
  return [...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
}

export type CollectResult =
  { kind: 'waiting'; index: FleetIndex; state: string } | ({ kind: 'collected' } & FleetResult);

export interface CollectOptions extends QueueOptions {
  store: RunStore;
  /** Wait until the job has ended (polling every `pollMs`), else say it is still queued or running. */
  wait?: boolean;
  pollMs?: number;
}

export async function collectFleet(id: string, o: CollectOptions): Promise<CollectResult> {
  const index = o.fleets.read(id);
  const dir = index.slurm.batch?.dir;
  if (!dir || !index.helper)
    throw new SlurmError(`fleet ${id} was not queued (it ran its nodes live): open it with sdma-lens fleet show ${id}`);
  if (index.status !== 'queued')
    throw new SlurmError(`fleet ${id} was collected already (${index.status}): sdma-lens fleet show ${id}`);
  for (;;) {
    const state = await jobState(o.base, index.slurm.job);
    if (state === undefined || !ACTIVE.has(state)) break;
    if (!o.wait) return { kind: 'waiting', index, state };
    if (o.signal?.aborted) return { kind: 'waiting', index, state };
    await new Promise((r) => setTimeout(r, o.pollMs ?? 2000));
  }
  const fixed = fixedHelper({ path: index.helper, backends: [], source: 'the queued fleet' });
  const runs = new Map<string, NodeRuns>();
  index.nodes = nodesOf(dir).map((node): FleetNode => ({ node, runs: [] }));
  for (const entry of index.nodes) {
    const target = new ReplayTarget(dir, entry.node, index.slurm.job);
    const result = await runHelperCommand(
      {
        command: 'sweep',
        idTag: 'slurm',
        args: () => index.args.sweep ?? [],
        fleet: { id, node: entry.node, job: index.slurm.job },
      },
      { target, helpers: fixed, store: o.store, signal: o.signal, stallTimeoutS: 0 },
    );
    if (result.kind === 'ended') {
      runs.set(entry.node, { sweep: result.run });
      const status = runStatus(result.run);
      entry.runs.push({ command: 'sweep', runId: result.run.header.id, status });
      if (status !== 'ok') entry.error = `sweep: ${endMessage(result.run)}`;
    } else if (result.kind === 'refused') {
      entry.error = `sweep: refused: ${result.message}`;
    }
  }
  index.status = statusOf(index, index.slurm.batch?.cancelled === true);
  if (index.nodes.length === 0)
    index.message = `the job wrote no node output into ${dir}: see ${join(o.fleets.dirOf(id), 'job.log')}`;
  index.endedAt = new Date().toISOString();
  const file = o.fleets.write(index);
  return { kind: 'collected', index, file, runs };
}

/** Cancels a queued fleet's job; what its nodes wrote can still be collected. */
export async function cancelQueuedFleet(id: string, o: QueueOptions): Promise<FleetIndex> {
  const index = o.fleets.read(id);
  if (index.status !== 'queued') throw new SlurmError(`fleet ${id} is not queued (${index.status})`);
  const released = await release(o.base, index.slurm.job, { waitMs: o.releaseWaitMs });
  index.slurm.batch = { ...index.slurm.batch!, cancelled: true };
  index.slurm.released = released;
  index.message = `job ${index.slurm.job} cancelled ${new Date().toISOString()}${released.gone ? '' : ` (${stillListed(index.slurm.job, released)})`}; what its nodes wrote can still be collected`;
  o.fleets.write(index);
  return index;
}
