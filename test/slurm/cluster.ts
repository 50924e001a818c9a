/**
 * Vitest global setup of the fleet tests: the real helper (test/contract/buildHelper.ts), then a
 * real Slurm cluster of SLURM_NODES nodes on this machine (test/slurm/cluster.sh: munged,
 * slurmctld, one slurmd per network namespace), stopped afterwards. Where it cannot start (not
 * root, Slurm not installed) the tests are skipped with that reason, never passed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import buildHelper from '../contract/buildHelper';

declare module 'vitest' {
  export interface ProvidedContext {
    slurmConf: string;
    slurmSkip: string;
    slurmNodes: string[];
  }
}

export const SLURM_NODES = 3;

export default function setup(project: TestProject) {
  buildHelper(project);
  const script = join(resolve(__dirname), 'cluster.sh');
  const dir = process.env.SDMA_SLURM_DIR ?? '/tmp/sdma-lens-slurm';
  const missing = ['/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/srun', '/usr/sbin/munged'].filter(
    (f) => !existsSync(f),
  );
  let skip = '';
  if (process.getuid?.() !== 0) skip = 'the Slurm cluster needs root (network namespaces, slurmd)';
  else if (missing.length > 0)
    skip = `Slurm is not installed (${missing.join(', ')}): apt-get install slurmctld slurmd slurm-client munge`;
  let conf = '';
  if (!skip) {
    conf = execFileSync('bash', [script, 'start', String(SLURM_NODES)], {
      encoding: 'utf8',
      env: { ...process.env, SDMA_SLURM_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
      .trim()
      .split('\n')
      .at(-1)!;
  }
  project.provide('slurmConf', conf);
  project.provide('slurmSkip', skip);
  project.provide(
    'slurmNodes',
    Array.from({ length: SLURM_NODES }, (_, i) => `n${i + 1}`),
  );
  return () => {
    if (!skip)
      execFileSync('bash', [script, 'stop'], { env: { ...process.env, SDMA_SLURM_DIR: dir }, stdio: 'inherit' });
  };
}
