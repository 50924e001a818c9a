/**
 * A queued fleet: one `sbatch` job instead of steps started from here, for a fleet that should
 * wait in the queue without a terminal held open. The job's script is a constant (below),
 * written into the fleet's folder; it takes data only as positional parameters (the output
 * folder, then the helper and its arguments), as the SSH scripts do (docs/REMOTE.md). On its
 * first node it starts one srun step per node of the job, each node's helper output into
 * `<out>/<node>.ndjson`, its stderr into `<node>.stderr`, srun's exit status into `<node>.exit`.
 * `sdma-lens fleet collect` later replays each node's file through the one run flow
 * (replayTarget.ts). The folder must be on a file system the job's first node shares with the
 * machine that submits and collects (the home or scratch file system of a cluster).
 */
import type { AllocationRequest } from './slurm';
import { allocationArgs, JOB_NAME } from './slurm';

export const BATCH_SCRIPT = `#!/bin/sh
# SDMA Lens fleet batch job: one srun step per node of this job. Arguments: the output folder,
# then the helper and its arguments. Each node writes OUT/<node>.ndjson (the helper's records),
# OUT/<node>.stderr, and OUT/<node>.exit (srun's exit status) when its step ends.
out=$1
shift
for node in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
  (
    srun --nodelist="$node" --nodes=1 --ntasks=1 --exact --kill-on-bad-exit=1 -- "$@" >"$out/$node.ndjson" 2>"$out/$node.stderr"
    echo $? >"$out/$node.exit"
  ) &
done
wait
`;

/**
 * sbatch's arguments: the allocation's (whole nodes, one task each), the job's own log in the
 * fleet folder, `--parsable` (the job id alone on stdout), then the script and its data.
 */
export function batchArgs(
  request: AllocationRequest,
  script: string,
  outDir: string,
  jobLog: string,
  helper: string,
  helperArgs: readonly string[],
): string[] {
  // salloc's request without --no-shell; the same checks on every value.
  const allocation = allocationArgs(request).filter((a) => a !== '--no-shell' && !a.startsWith('--job-name='));
  return [
    '--parsable',
    `--job-name=${JOB_NAME}`,
    ...allocation,
    `--output=${jobLog}`,
    script,
    outDir,
    helper,
    ...helperArgs,
  ];
}

/** `sbatch --parsable` prints `JOBID` or `JOBID;CLUSTER`. */
export function parsableJobId(stdout: string): string | undefined {
  return /^([0-9]{1,12})(?:;[^\n]*)?$/m.exec(stdout.trim())?.[1];
}
