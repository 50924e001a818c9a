/**
 * Slurm as argument arrays: asking for an allocation (`salloc --no-shell`), the nodes it got
 * (`squeue`, `scontrol show hostnames`), one step per node (`srun`), and giving it back
 * (`scancel`). Every value that reaches an argument is checked first, so a partition or node
 * name can never be read as an option; no shell is involved anywhere.
 */

/** A partition, node or hostlist expression (`gpu`, `n[1-4],n7`): what Slurm's names allow, never a leading `-`. */
const SLURM_NAME = /^[A-Za-z0-9][A-Za-z0-9._\-[\],]{0,1023}$/;
const JOB_ID = /^[0-9]{1,12}$/;

export function checkSlurmName(what: string, value: string): string {
  if (!SLURM_NAME.test(value))
    throw new Error(
      `${what} "${value}" is not a Slurm name (letters, digits, . _ - and hostlist brackets, not starting with -)`,
    );
  return value;
}

export function checkJobId(value: string): string {
  if (!JOB_ID.test(value)) throw new Error(`"${value}" is not a Slurm job id (digits)`);
  return value;
}

export interface AllocationRequest {
  /** Nodes wanted; with `nodelist` alone, the list's own count. */
  nodes?: number;
  partition?: string;
  /** A hostlist expression: exactly these nodes. */
  nodelist?: string;
  /** Time limit in minutes. */
  timeMinutes?: number;
  account?: string;
}

export const JOB_NAME = 'sdma-lens-fleet';

/** Whole nodes (a measurement beside another job's traffic measures that job), one task each. */
export function allocationArgs(r: AllocationRequest): string[] {
  const args = ['--no-shell', `--job-name=${JOB_NAME}`, '--exclusive', '--ntasks-per-node=1'];
  if (r.nodes !== undefined) {
    if (!Number.isInteger(r.nodes) || r.nodes < 1 || r.nodes > 100_000)
      throw new Error(`the node count must be a whole number in 1..100000 (got ${r.nodes})`);
    args.push(`--nodes=${r.nodes}`);
  }
  if (r.partition !== undefined) args.push(`--partition=${checkSlurmName('partition', r.partition)}`);
  if (r.nodelist !== undefined) args.push(`--nodelist=${checkSlurmName('node list', r.nodelist)}`);
  if (r.account !== undefined) args.push(`--account=${checkSlurmName('account', r.account)}`);
  if (r.timeMinutes !== undefined) {
    if (!Number.isInteger(r.timeMinutes) || r.timeMinutes < 1 || r.timeMinutes > 10_080)
      throw new Error(`the time limit must be whole minutes in 1..10080 (got ${r.timeMinutes})`);
    args.push(`--time=${r.timeMinutes}`);
  }
  if (r.nodes === undefined && r.nodelist === undefined)
    throw new Error('say how many nodes (--nodes) or which (--nodelist)');
  return args;
}

/** The job id salloc names on stderr: "Granted job allocation 42", or "Pending job allocation 42" while it waits. */
export function allocationJobId(stderr: string): { job?: string; granted: boolean } {
  const granted = /Granted job allocation ([0-9]+)/.exec(stderr);
  if (granted) return { job: granted[1], granted: true };
  const pending = /Pending job allocation ([0-9]+)|job ([0-9]+) queued/.exec(stderr);
  return { job: pending?.[1] ?? pending?.[2], granted: false };
}

export function jobNodesArgs(job: string): string[] {
  return ['--noheader', `--jobs=${checkJobId(job)}`, '--format=%N'];
}

export function jobStateArgs(job: string): string[] {
  return ['--noheader', `--jobs=${checkJobId(job)}`, '--format=%T'];
}

export function hostnamesArgs(nodelist: string): string[] {
  return ['show', 'hostnames', checkSlurmName('node list', nodelist)];
}

/** One task on one node of the allocation, the program's output passed through untouched. */
export function stepArgs(job: string, node: string, name: string): string[] {
  return [
    `--jobid=${checkJobId(job)}`,
    `--nodelist=${checkSlurmName('node', node)}`,
    '--nodes=1',
    '--ntasks=1',
    '--exact',
    '--quiet',
    `--job-name=${checkSlurmName('step name', name)}`,
    '--kill-on-bad-exit=1',
    '--',
  ];
}

export function cancelArgs(job: string): string[] {
  return [checkJobId(job)];
}

/** `scontrol show hostnames` prints one node a line. */
export function parseHostnames(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}
