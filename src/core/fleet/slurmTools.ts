/**
 * Short Slurm commands (salloc, squeue, scontrol, scancel) through a target, so the same code
 * asks Slurm on this machine or on a login node over SSH. Each is an argument array; the
 * output is collected whole (these print a few lines) and the exit said in the error.
 */
import type { Target } from '../runtime/target';
import { allocationArgs, allocationJobId, cancelArgs, hostnamesArgs, jobNodesArgs, jobStateArgs, parseHostnames } from './slurm';
import type { AllocationRequest } from './slurm';

export interface ToolResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export class SlurmError extends Error {}

const MAX_OUTPUT = 1 << 20;

export async function runTool(target: Target, file: string, args: readonly string[], signal?: AbortSignal, onStderr?: (text: string) => void): Promise<ToolResult> {
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
  if (exit.spawnError) throw new SlurmError(`${file} could not be started on ${target.label}: ${exit.spawnError}. Is Slurm's client installed there (${file} on PATH)?`);
  if (exit.lost) throw new SlurmError(exit.lost);
  return { code: exit.exitCode, signal: exit.signal, stdout, stderr };
}

function failure(file: string, r: ToolResult): SlurmError {
  const said = r.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 600);
  return new SlurmError(`${file} ${r.signal ? `was stopped by ${r.signal}` : `exited with ${r.code}`}${said ? `: ${said}` : ''}`);
}

/**
 * Asks for an allocation and waits until Slurm grants it. A cancel while it waits kills salloc
 * and cancels the job it was queued as, so nothing stays in the queue.
 */
export async function allocate(target: Target, request: AllocationRequest, signal: AbortSignal | undefined, onQueued?: (job: string) => void): Promise<string> {
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
  if (list === '' || list.startsWith('(')) throw new SlurmError(`job ${job} has no nodes (is it running? squeue says "${list || 'nothing'}")`);
  const h = await runTool(target, 'scontrol', hostnamesArgs(list), signal);
  if (h.code !== 0) throw failure('scontrol', h);
  return parseHostnames(h.stdout);
}

/** The job's state (RUNNING, PENDING, ...), or undefined when Slurm no longer lists it. */
export async function jobState(target: Target, job: string): Promise<string | undefined> {
  const r = await runTool(target, 'squeue', jobStateArgs(job));
  return r.code === 0 ? r.stdout.trim().split('\n')[0]?.trim() || undefined : undefined;
}

/** Gives the allocation back (its steps end with it). Never under the caller's abort: a cancel must still release. */
export async function release(target: Target, job: string): Promise<void> {
  const r = await runTool(target, 'scancel', cancelArgs(job));
  if (r.code !== 0) throw failure('scancel', r);
}
