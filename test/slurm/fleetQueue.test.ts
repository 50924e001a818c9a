/**
 * A queued fleet (`sdma-lens fleet --queue`) on the real Slurm cluster: one sbatch job whose
 * constant script starts a step per node and writes each node's output into the fleet's
 * folder, then `fleet collect` turning those files into runs through the run flow. Checked:
 * the weak node named as in a live fleet, the job gone from the queue; collect before the job
 * ends says so (exit 3); `fleet cancel` leaves no job and no helper, and what ran is collected
 * as a cancelled fleet.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const repo = resolve(__dirname, '..', '..');
const skip = inject('slurmSkip');
const conf = inject('slurmConf');
const nodes = inject('slurmNodes');
const helper = inject('helperPath');
let work: string;
let cli: string;

const env = () => ({ ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SLURM_'))), SLURM_CONF: conf });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdma-fleet-queue-'));
  cli = join(work, 'dist', 'cli.js');
  await build({ entryPoints: [join(repo, 'src', 'cli', 'bin.ts')], outfile: cli, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'silent' });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sdmaLens(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env() });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  return new Promise((r) => child.on('exit', (code) => r({ code, out, err })));
}

const queue = () => execFileSync('squeue', ['--noheader', '--format=%i %T'], { encoding: 'utf8', env: env() }).trim().split('\n').filter(Boolean);

function helpersOnNodes(): number {
  let n = 0;
  for (const node of nodes) {
    for (const pid of execFileSync('ip', ['netns', 'pids', `sdma-${node}`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('sdma-probe')) n++;
      } catch {
        // gone
      }
    }
  }
  return n;
}

async function until(what: string, probe: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!probe()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
  return Date.now() - t0;
}

const SWEEP = ['--sizes', '64K,1M,16M,256M', '--iters', '5', '--cus', '1,64'];

describe.skipIf(skip !== '')(`sdma-lens fleet --queue on a real Slurm cluster${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('queues one batch job, collects every node as a run of its own, names the weak node', async () => {
    const runs = join(work, 'queued');
    const q = await sdmaLens(['fleet', '--queue', '--helper', helper, '--nodes', String(nodes.length), ...SWEEP, '--sim-weak', 'engine=0.6@n1', '--runs-dir', runs, '--json']);
    expect(q.code, q.err).toBe(0);
    const { fleet, job } = JSON.parse(q.out);
    expect(job).toMatch(/^\d+$/);
    const c = await sdmaLens(['fleet', 'collect', fleet, '--wait', '--runs-dir', runs, '--json']);
    expect(c.code, c.err).toBe(0);
    const view = JSON.parse(c.out);
    expect(view.nodes.map((n: { node: string; status: string }) => `${n.node} ${n.status}`)).toEqual(nodes.map((n) => `${n} ok`));
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
    const q = await sdmaLens(['fleet', '--queue', '--helper', helper, '--nodes', String(nodes.length), ...SWEEP, '--sim-delay-ms', '400', '--runs-dir', runs, '--json']);
    expect(q.code, q.err).toBe(0);
    const { fleet, job } = JSON.parse(q.out);
    await until('a helper on every node', () => helpersOnNodes() === nodes.length, 30_000);
    const early = await sdmaLens(['fleet', 'collect', fleet, '--runs-dir', runs]);
    expect(early.code).toBe(3);
    expect(early.err).toMatch(new RegExp(`job ${job} of fleet ${fleet} is (RUNNING|PENDING|CONFIGURING)`));
    const c = await sdmaLens(['fleet', 'cancel', fleet, '--runs-dir', runs]);
    expect(c.code, c.err).toBe(0);
    const noJob = await until('the job to leave the queue', () => queue().length === 0, 30_000);
    const noHelper = await until('no helper on any node', () => helpersOnNodes() === 0, 15_000);
    console.log(`fleet cancel: queue empty ${noJob} ms later, helpers gone ${noHelper} ms after that`);
    const collected = await sdmaLens(['fleet', 'collect', fleet, '--wait', '--runs-dir', runs, '--json']);
    expect(collected.code, collected.err).toBe(130);
    const view = JSON.parse(collected.out);
    expect(view.status).toBe('cancelled');
    expect(view.nodes.length).toBe(nodes.length);
  });
});
