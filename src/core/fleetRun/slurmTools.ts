/**
 * Short Slurm commands (salloc, squeue, scontrol, scancel) through a target, so the same code
 * asks Slurm on this machine or on a login node over SSH. Each is an argument array; the
 * output is collected whole (these print a few lines) and the exit said in the error.
 */
import type { Target } from '../runtime/target';
import {
  allocationArgs,
  allocationJobId,
  cancelArgs,
  hostnamesArgs,
  jobNodesArgs,
  jobStateArgs,
  parseHostnames,
} from './slurm';
import type { AllocationRequest } from './slurm';

export interface ToolResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export class SlurmError extends Error {}

const MAX_OUTPUT = 1 << 20;

export async function runTool(
  target: Target,
  file: string,
  args: readonly string[],
  signal?: AbortSignal,
  onStderr?: (text: string) => void,
): Promise<ToolResult> {
  const child = target.spawn(file, args, { signal });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => void (stdout.length < MAX_OUTPUT && (stdout += d)));
  child.stderr.on('data', (d: string) => {
    if (stderr.length < MAX_OUTPUT) stderr += d;
    onStderr?.(stderr);
  });
  const exit = await child.exit;
  if (exit.spawnError)
    throw new SlurmError(
      `${file} could not be started on ${target.label}: ${exit.spawnError}. Is Slurm's client installed there (${file} on PATH)?`,
    );
  if (exit.lost) throw new SlurmError(exit.lost);
  return { code: exit.exitCode, signal: exit.signal, stdout, stderr };
}

function failure(file: string, r: ToolResult): SlurmError {
  const said = r.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 600);
  return new SlurmError(
    `${file} ${r.signal ? `was stopped by ${r.signal}` : `exited with ${r.code}`}${said ? `: ${said}` : ''}`,
  );
}

/**
 * Asks for an allocation and waits until Slurm grants it. A cancel while it waits kills salloc
 * and cancels the job it was queued as, so nothing stays in the queue.
 */
export async function allocate(
  target: Target,
  request: AllocationRequest,
  signal: AbortSignal | undefined,
  onQueued?: (job: string) => void,
): Promise<string> {
  const args = allocationArgs(request);
  let seen: string | undefined;
  try {
    const r = await runTool(target, 'salloc', args, signal, (text) => {
      const { job } = allocationJobId(text);
      if (job && job !== seen) {
        seen = job;
        onQueued?.(job);
      }
    });
    const { job, granted } = allocationJobId(r.stderr);
    seen ??= job;
    if (signal?.aborted) throw new SlurmError('cancelled while waiting for the allocation');
    if (r.code !== 0 || !granted || !job) throw failure('salloc', r);
    return job;
  } catch (err) {
    if (seen) await release(target, seen).catch(() => undefined);
    throw err;
  }
}

/** The nodes of a job, in Slurm's order. */
export async function jobNodes(target: Target, job: string, signal?: AbortSignal): Promise<string[]> {
  const q = await runTool(target, 'squeue', jobNodesArgs(job), signal);
  if (q.code !== 0) throw failure('squeue', q);
  const list = q.stdout.trim().split('\n')[0]?.trim() ?? '';
  if (list === '' || list.startsWith('('))
    throw new SlurmError(`job ${job} has no nodes (is it running? squeue says "${list || 'nothing'}")`);
  const h = await runTool(target, 'scontrol', hostnamesArgs(list), signal);
  if (h.code !== 0) throw failure('scontrol', h);
  return parseHostnames(h.stdout);
}

/** The job's state (RUNNING, PENDING, ...), or undefined when Slurm no longer lists it. */
export async function jobState(target: Target, job: string): Promise<string | undefined> {
  const r = await runTool(target, 'squeue', jobStateArgs(job));
  return r.code === 0 ? r.stdout.trim().split('\n')[0]?.trim() || undefined : undefined;
}

/** Job states in which Slurm no longer holds the job's nodes: `squeue --jobs` may still list them until the job is purged. */
const ENDED_STATES = new Set([
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PREEMPTED',
  'REVOKED',
  'TIMEOUT',
]);

/**
 * The job's state as `squeue` lists it; undefined once Slurm has purged it ("Invalid job id").
 * Any other failure of squeue is said as the state, so it is never taken for "gone".
 */
async function listedState(target: Target, job: string): Promise<string | undefined> {
  const r = await runTool(target, 'squeue', jobStateArgs(job));
  if (r.code === 0) return r.stdout.trim().split('\n')[0]?.trim() || undefined;
  if (/invalid job id/i.test(r.stderr)) return undefined;
  return `unknown (${failure('squeue', r).message})`;
}

/** How long `release` waits, by default, for the job to leave the queue after `scancel`. */
export const RELEASE_WAIT_MS = 60_000;

export interface ReleaseOptions {
  /** The most it waits for Slurm to stop listing the job (its nodes cleaned, state COMPLETING gone). */
  waitMs?: number;
  /** Said once when the job is still listed after `scancel` (it is being cleaned up), with its state. */
  onWaiting?(state: string): void;
  /** Polls stop early when this aborts (the job is then reported as still listed). */
  signal?: AbortSignal;
}

/** What became of the job: gone from the queue (or ended), or still listed in `state` when the wait ran out. */
export type Released = { gone: true; waitedMs: number } | { gone: false; state: string; waitedMs: number };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Gives the allocation back (its steps end with it), then waits, bounded, until Slurm no longer
 * lists the job as holding its nodes: after `scancel` a job stays COMPLETING while its nodes are
 * cleaned, and an allocation "given back" means the nodes are free for the next job. Never under
 * the caller's abort for the `scancel` itself: a cancel must still release.
 */
export async function release(target: Target, job: string, o: ReleaseOptions = {}): Promise<Released> {
  const r = await runTool(target, 'scancel', cancelArgs(job));
  if (r.code !== 0) throw failure('scancel', r);
  const waitMs = o.waitMs ?? RELEASE_WAIT_MS;
  const t0 = performance.now();
  let said = false;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    const state = await listedState(target, job);
    const waitedMs = performance.now() - t0;
    if (state === undefined || ENDED_STATES.has(state)) return { gone: true, waitedMs };
    if (waitedMs >= waitMs || o.signal?.aborted) return { gone: false, state, waitedMs };
    if (!said) {
      said = true;
      o.onWaiting?.(state);
    }
    await sleep(Math.min(pause, waitMs - waitedMs), o.signal);
  }
}

/** The sentence for a job Slurm still listed when `release` stopped waiting. */
export function stillListed(job: string, r: Released & { gone: false }): string {
  return `Slurm still lists job ${job} as ${r.state} ${(r.waitedMs / 1000).toFixed(0)} s after it was cancelled; its nodes are free once it leaves the queue (squeue --jobs=${job})`;
}
