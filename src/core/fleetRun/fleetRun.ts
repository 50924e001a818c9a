/**
 * A fleet sweep: one allocation, then on every node of it the same helper commands (a sweep,
 * optionally a matrix), each through the one run flow as a run of its own, then the fleet
 * index (fleetIndex.ts) that ties them together. Nodes run side by side, at most `parallel`
 * at once. Each node's runs are saved as they stream, and the index is rewritten as nodes end
 * (at most once a second) and at the end, so a fleet cut short (a cancel, a node that fails, a
 * lost login node) keeps every node's runs; the allocation the fleet
 * asked for is given back whatever the end, so no job is left in the queue.
 */
import type { Run } from '../run';
import { runStatus } from '../run';
import type { RunStore } from '../runs/runStore';
import { makeRunId } from '../runs/runStore';
import type { HelperCommand, HelperProvider, TargetHelper } from '../runtime/runFlow';
import { runHelperCommand } from '../runtime/runFlow';
import type { LogLevel } from '../runtime/session';
import type { Target } from '../runtime/target';
import type { FleetCommand, FleetIndex, FleetNode, FleetStatus } from '../fleet/fleetIndex';
import { FLEET_FORMAT } from '../fleet/fleetIndex';
import type { FleetStore } from './fleetStore';
import type { NodeRuns } from '../fleet/fleetView';
import type { AllocationRequest } from './slurm';
import { allocate, jobNodes, release, stillListed } from './slurmTools';
import { SlurmStepTarget } from './stepTarget';

export const DEFAULT_PARALLEL = 64;
/** The least time between two writes of a running fleet's index. */
const INDEX_WRITE_MS = 1000;

export interface FleetRequest {
  /** An allocation to use as it is (`job`), or what to ask Slurm for. */
  allocation: { job: string } | AllocationRequest;
  /** In order, on every node; `sweep` first. */
  commands: Partial<Record<FleetCommand, HelperCommand>>;
  /** Nodes measured at once (each is one srun on the login node). */
  parallel?: number;
}

export type FleetEvent =
  | { kind: 'queued'; job: string }
  | { kind: 'allocated'; job: string; nodes: string[]; own: boolean }
  | {
      kind: 'node-end';
      node: string;
      command: FleetCommand;
      status: string;
      message?: string;
      done: number;
      total: number;
    }
  /** `scancel` done, Slurm still lists the job (its nodes being cleaned): the fleet waits, bounded. */
  | { kind: 'releasing'; job: string; state: string }
  /** The allocation the fleet asked for, given back: gone from the queue, or still listed when the wait ran out. */
  | { kind: 'released'; job: string; gone: boolean; state?: string; waitedMs: number };

export interface FleetRunOptions {
  /** Where Slurm is asked and the steps are started from: this machine or an SSH login node. */
  base: Target;
  helpers: HelperProvider;
  store: RunStore;
  fleets: FleetStore;
  signal?: AbortSignal;
  stallTimeoutS?: number;
  /** The most the fleet waits, after `scancel`, for Slurm to stop listing its job (default `RELEASE_WAIT_MS`). */
  releaseWaitMs?: number;
  onEvent?(event: FleetEvent): void;
  onLog?(level: LogLevel, message: string): void;
}

export interface FleetResult {
  index: FleetIndex;
  file: string;
  runs: Map<string, NodeRuns>;
}

/** The helper found once on the login node: the nodes see it at the same path (a shared file system). */
export function fixedHelper(helper: TargetHelper): HelperProvider {
  return { helperFor: async () => helper, forget: () => {} };
}

async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** How a fleet ended, from its nodes: ok when every node's every run is, partial when some are. */
export function statusOf(index: FleetIndex, cancelled: boolean): FleetStatus {
  if (cancelled) return 'cancelled';
  const ok = index.nodes.filter(
    (n) => !n.error && n.runs.length === index.commands.length && n.runs.every((r) => r.status === 'ok'),
  ).length;
  if (ok === index.nodes.length && ok > 0) return 'ok';
  return ok > 0 ? 'partial' : 'error';
}

export async function runFleet(request: FleetRequest, o: FleetRunOptions): Promise<FleetResult> {
  const log = o.onLog ?? (() => {});
  const commands = (['sweep', 'matrix'] as const).filter((c) => request.commands[c] !== undefined);
  if (commands.length === 0) throw new Error('a fleet runs at least one command (sweep or matrix)');
  const parallel = request.parallel ?? DEFAULT_PARALLEL;
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 1024)
    throw new Error(`--parallel must be a whole number in 1..1024 (got ${parallel})`);

  // The helper first: a login node without one is said before anything is queued.
  const helper = await o.helpers.helperFor(o.base, o.signal);
  const id = makeRunId('fleet', 'slurm');
  const own = !('job' in request.allocation);
  const job =
    'job' in request.allocation
      ? request.allocation.job
      : await allocate(o.base, request.allocation, o.signal, (j) => o.onEvent?.({ kind: 'queued', job: j }));
  const runs = new Map<string, NodeRuns>();
  const index: FleetIndex = {
    format: FLEET_FORMAT,
    version: 1,
    id,
    createdAt: new Date().toISOString(),
    via: o.base.kind === 'ssh' ? { kind: 'ssh', host: o.base.label } : { kind: 'local' },
    slurm: {
      job,
      ownAllocation: own,
      ...('partition' in request.allocation && request.allocation.partition
        ? { partition: request.allocation.partition }
        : {}),
      ...('nodelist' in request.allocation && request.allocation.nodelist
        ? { nodelist: request.allocation.nodelist }
        : {}),
    },
    commands: [...commands],
    args: {},
    status: 'running',
    nodes: [],
  };
  let file = '';
  try {
    const nodes = await jobNodes(o.base, job, o.signal);
    o.onEvent?.({ kind: 'allocated', job, nodes, own });
    index.nodes = nodes.map((node): FleetNode => ({ node, runs: [] }));
    file = o.fleets.write(index);
    // Each node's runs are saved as they stream; the index that lists them is rewritten at most
    // once a second while nodes end (a 1,000-node fleet would otherwise write it 1,000 times).
    let lastWrite = performance.now();
    const indexChanged = () => {
      if (performance.now() - lastWrite < INDEX_WRITE_MS) return;
      o.fleets.write(index);
      lastWrite = performance.now();
    };
    let done = 0;
    await pool(index.nodes, parallel, async (entry) => {
      const target = new SlurmStepTarget(o.base, job, entry.node, `sdma-lens-${id.slice(-4)}`);
      const mine: NodeRuns = {};
      runs.set(entry.node, mine);
      for (const command of commands) {
        if (o.signal?.aborted) break;
        const base = request.commands[command]!;
        let status = 'missing';
        let message: string | undefined;
        try {
          const result = await runHelperCommand(
            { ...base, fleet: { id, node: entry.node, job } },
            {
              target,
              helpers: fixedHelper(helper),
              store: o.store,
              signal: o.signal,
              stallTimeoutS: o.stallTimeoutS,
              onStart: (header) => (index.args[command] ??= header.helper.args),
              onLog: (level, text) => log(level, `${entry.node}: ${text}`),
            },
          );
          if (result.kind === 'ended') {
            mine[command] = result.run;
            status = runStatus(result.run);
            entry.runs.push({ command, runId: result.run.header.id, status });
            if (status !== 'ok') message = endMessage(result.run);
          } else if (result.kind === 'refused') {
            status = 'refused';
            message = result.message;
          } else {
            status = 'cancelled';
          }
        } catch (err) {
          status = 'error';
          message = (err as Error).message;
        }
        if (message) entry.error = entry.error ? `${entry.error}; ${command}: ${message}` : `${command}: ${message}`;
        done++;
        o.onEvent?.({
          kind: 'node-end',
          node: entry.node,
          command,
          status,
          ...(message ? { message } : {}),
          done,
          total: index.nodes.length * commands.length,
        });
        indexChanged();
      }
    });
  } catch (err) {
    index.message = (err as Error).message;
    index.status = 'error';
    throw err;
  } finally {
    if (own) {
      try {
        const released = await release(o.base, job, {
          waitMs: o.releaseWaitMs,
          onWaiting: (state) => o.onEvent?.({ kind: 'releasing', job, state }),
        });
        index.slurm.released = released;
        o.onEvent?.({ kind: 'released', job, ...released });
        if (!released.gone) {
          const said = stillListed(job, released);
          index.message = index.message ? `${index.message}; ${said}` : said;
          log('warn', said);
        }
      } catch (err) {
        const said = `the allocation (job ${job}) could not be given back: ${(err as Error).message}. Cancel it with: scancel ${job}`;
        index.message = index.message ? `${index.message}; ${said}` : said;
        log('error', said);
      }
    }
    if (index.status === 'running') index.status = statusOf(index, o.signal?.aborted === true);
    index.endedAt = new Date().toISOString();
    if (index.nodes.length > 0 || file) file = o.fleets.write(index);
  }
  return { index, file, runs };
}

/** A node's run that did not end ok, in the index's words: status, how the process ended, the run's message. */
export function endMessage(run: Run): string {
  const end = run.end;
  if (!end) return 'the run did not end';
  const how = end.signal ? `killed by ${end.signal}` : end.exitCode !== null ? `exit ${end.exitCode}` : end.status;
  return `${end.status} (${how})${end.message ? `: ${end.message}` : ''}`;
}
