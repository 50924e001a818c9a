/**
 * A queued fleet (`sdma-lens fleet --queue`) on the real Slurm cluster: one sbatch job whose
 * constant script starts a step per node and writes each node's output into the fleet's
 * folder, then `fleet collect` turning those files into runs through the run flow. Checked:
 * the weak node named as in a live fleet, the job gone from the queue; collect before the job
 * ends says so (exit 3); `fleet cancel` leaves no job and no helper, and what ran is collected
 * as a cancelled fleet.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleCli, helpersOnNodes, queue as queueOf, startCli, until } from './support';

const skip = inject('slurmSkip');
const conf = inject('slurmConf');
const nodes = inject('slurmNodes');
const helper = inject('helperPath');
let work: string;
let cli: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdma-fleet-queue-'));
  cli = await bundleCli(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sdmaLens = (args: string[]) => startCli(cli, conf, args).exited;
const queue = () => queueOf(conf);

const SWEEP = ['--sizes', '64K,1M,16M,256M', '--iters', '5', '--cus', '1,64'];

describe.skipIf(skip !== '')(
  `sdma-lens fleet --queue on a real Slurm cluster${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    it('queues one batch job, collects every node as a run of its own, names the weak node', async () => {
      const runs = join(work, 'queued');
      const q = await sdmaLens([
        'fleet',
        '--queue',
        '--helper',
        helper,
        '--nodes',
        String(nodes.length),
        ...SWEEP,
        '--sim-weak',
        'engine=0.6@n1',
        '--runs-dir',
        runs,
        '--json',
      ]);
      expect(q.code, q.err).toBe(0);
      const { fleet, job } = JSON.parse(q.out);
      expect(job).toMatch(/^\d+$/);
      const c = await sdmaLens(['fleet', 'collect', fleet, '--wait', '--runs-dir', runs, '--json']);
      expect(c.code, c.err).toBe(0);
      const view = JSON.parse(c.out);
      expect(view.nodes.map((n: { node: string; status: string }) => `${n.node} ${n.status}`)).toEqual(
        nodes.map((n) => `${n} ok`),
      );
      expect(new Set(view.outliers.map((o: { node: string }) => o.node))).toEqual(new Set(['n1']));
      for (const n of view.nodes) {
        const header = JSON.parse(readFileSync(join(runs, n.runIds[0], 'run.ndjson'), 'utf8').split('\n')[0]!);
        expect(header.fleet).toMatchObject({ id: fleet, node: n.node, job });
      }
      expect(queue()).toEqual([]);
      // Collected once: a second collect says so.
      const again = await sdmaLens(['fleet', 'collect', fleet, '--runs-dir', runs]);
      expect(again.code).toBe(1);
      expect(again.err).toMatch(/collected already/);
    });

    it('collect before the job ends says so (exit 3); cancel leaves no job and no helper; what ran is collected as cancelled', async () => {
      const runs = join(work, 'cancel');
      const q = await sdmaLens([
        'fleet',
        '--queue',
        '--helper',
        helper,
        '--nodes',
        String(nodes.length),
        ...SWEEP,
        '--sim-delay-ms',
        '400',
        '--runs-dir',
        runs,
        '--json',
      ]);
      expect(q.code, q.err).toBe(0);
      const { fleet, job } = JSON.parse(q.out);
      await until('a helper on every node', () => helpersOnNodes(nodes).length === nodes.length, 30_000);
      const early = await sdmaLens(['fleet', 'collect', fleet, '--runs-dir', runs]);
      expect(early.code).toBe(3);
      expect(early.err).toMatch(new RegExp(`job ${job} of fleet ${fleet} is (RUNNING|PENDING|CONFIGURING)`));
      const c = await sdmaLens(['fleet', 'cancel', fleet, '--runs-dir', runs]);
      expect(c.code, c.err).toBe(0);
      // Cancelled means gone: `fleet cancel` returned after Slurm stopped listing the job.
      expect(c.out).toMatch(new RegExp(`Slurm job ${job} cancelled, gone from the queue`));
      expect(queue()).toEqual([]);
      const noHelper = (await until('no helper on any node', () => helpersOnNodes(nodes).length === 0, 15_000)).ms;
      console.log(`fleet cancel: queue empty when it returned, helpers gone ${noHelper} ms later`);
      const collected = await sdmaLens(['fleet', 'collect', fleet, '--wait', '--runs-dir', runs, '--json']);
      expect(collected.code, collected.err).toBe(130);
      const view = JSON.parse(collected.out);
      expect(view.status).toBe('cancelled');
      expect(view.nodes.length).toBe(nodes.length);
    });
  },
);
