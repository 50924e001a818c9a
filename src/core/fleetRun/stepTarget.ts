/**
 * One node of a Slurm allocation as a target: the helper is started as a one-task `srun`
 * step on that node, through the target where Slurm is asked (this machine or an SSH login
 * node). The step passes the helper's output through as it comes, so the node's run streams
 * into its run file like any other; a cancel stops srun, which ends the step on the node.
 * Files the helper writes land on the node's file system: the base target's places, which
 * on a cluster are the shared home or scratch a login node sees too.
 */
import type { HelperProcess, RunOutputs, SpawnOptions, Target } from '../runtime/target';
import { stepArgs } from './slurm';

export class SlurmStepTarget implements Target {
  readonly kind: Target['kind'];
  readonly label: string;

  constructor(
    readonly base: Target,
    readonly job: string,
    readonly node: string,
    private readonly stepName: string,
  ) {
    this.kind = base.kind;
    this.label = `${node} (Slurm job ${job}${base.kind === 'ssh' ? ` via ${base.label}` : ''})`;
  }

  spawn(file: string, args: readonly string[], options: SpawnOptions): HelperProcess {
    return this.base.spawn('srun', [...stepArgs(this.job, this.node, this.stepName), file, ...args], options);
  }

  outputs(runId: string, localDir: string): Promise<RunOutputs> {
    return this.base.outputs(runId, localDir);
  }
}
