/**
 * `sdma-lens fleet --target`: Slurm asked on a login node over SSH. The login node is a real
 * sshd on loopback (test/ssh/sshd.ts) whose sessions get the test cluster's SLURM_CONF, as a
 * login node's users get its Slurm; salloc, squeue, scontrol, srun and scancel run there
 * through the same fixed remote script as the helper (docs/REMOTE.md). Checked: the weak node
 * is named, the allocation is given back, and no ssh process or control socket is left.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TestSshd } from '../ssh/sshd';
import { SSHD, startSshd } from '../ssh/sshd';
import { bundleCli, clusterEnv } from './support';

const skip = inject('slurmSkip') || (existsSync(SSHD) ? '' : `${SSHD} is missing (apt-get install openssh-server)`);
const conf = inject('slurmConf');
const helper = inject('helperPath');
let work: string;
let cli: string;
let sshd: TestSshd | undefined;

const env = () => clusterEnv(conf);

beforeAll(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'sdma-fleet-ssh-'));
  cli = await bundleCli(work);
  sshd = await startSshd({ env: { SLURM_CONF: conf } });
});
afterAll(() => {
  sshd?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function sshProcesses(): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,comm=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => / ssh +/.test(l) && sshd !== undefined && l.includes(sshd.configFile));
}

describe.skipIf(skip !== '')(
  `sdma-lens fleet --target, Slurm on a login node over SSH${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    it('runs every node through the login node, names the weak one, gives the allocation back and leaves no ssh behind', async () => {
      const runs = join(work, 'runs');
      const child = spawn(
        process.execPath,
        [
          cli,
          'fleet',
          '--target',
          'sdma-node',
          '--ssh-config',
          sshd!.configFile,
          '--helper',
          helper,
          '--nodes',
          '3',
          '--sizes',
          '64K,1M,16M,256M',
          '--iters',
          '5',
          '--cus',
          '1,64',
          '--sim-weak',
          'engine=0.6@n2',
          '--runs-dir',
          runs,
          '--json',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env: env() },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      expect(code, err).toBe(0);
      const view = JSON.parse(out);
      expect(view.via).toBe('over SSH to sdma-node');
      expect(view.nodes.map((n: { status: string }) => n.status)).toEqual(['ok', 'ok', 'ok']);
      expect(new Set(view.outliers.map((o: { node: string }) => o.node))).toEqual(new Set(['n2']));
      // The runs came back to this machine's runs folder, one per node.
      expect(readdirSync(runs).length).toBe(3);
      expect(err).toMatch(/allocation \d+ given back: Slurm no longer lists it/);
      const queue = execFileSync('squeue', ['--noheader'], { encoding: 'utf8', env: env() }).trim();
      expect(queue).toBe('');
      expect(sshProcesses()).toEqual([]);
    });
  },
);
