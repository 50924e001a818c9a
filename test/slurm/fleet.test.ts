/**
 * `sdma-lens fleet` against a real Slurm: slurmctld and one slurmd per node, each node in its
 * own network namespace with its own hostname (test/slurm/cluster.ts). The helper runs its
 * simulator on every node; `--sim-weak engine=0.6@n3` makes n3's copy engines slow, as a node
 * with a weak engine is. Checked: the weak node and only it is named, each node's run is saved
 * as a run of its own, a cancel leaves no job in the queue and no helper on any node, a node
 * whose helper dies mid-run costs that node only, an allocation the user holds is used and
 * kept, and threshold files pass and fail nodes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleCli, clusterEnv, helpersOnNodes as helpersIn, queue as queueOf, startCli, until } from './support';

const skip = inject('slurmSkip');
const conf = inject('slurmConf');
const nodes = inject('slurmNodes');
const helper = inject('helperPath');
let work: string;
let cli: string;

const env = () => clusterEnv(conf);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdma-fleet-'));
  cli = await bundleCli(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const start = (args: string[]) => startCli(cli, conf, args);
const fleet = (args: string[]) => start(['fleet', '--helper', helper, ...args]).exited;
const queue = () => queueOf(conf);
const helpersOnNodes = () => helpersIn(nodes);

const SWEEP = ['--sizes', '64K,1M,16M,256M', '--iters', '5', '--cus', '1,64'];

describe.skipIf(skip !== '')(`sdma-lens fleet on a real Slurm cluster${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let runsDir: string;
  let weakJson: {
    outliers: { node: string; figure: string; text: string }[];
    nodes: { node: string; status: string; runIds: string[] }[];
    fleetFile: string;
    job: string;
  };

  it('runs the sweep and the matrix on every node as runs of their own, names the weak node and only it, and gives the allocation back', async () => {
    runsDir = join(work, 'weak');
    const r = await fleet([
      '--nodes',
      String(nodes.length),
      ...SWEEP,
      '--matrix',
      '--matrix-size',
      '16M',
      '--sim-weak',
      'engine=0.6@n3',
      '--runs-dir',
      runsDir,
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    weakJson = JSON.parse(r.out);
    expect(weakJson.nodes.map((n) => [n.node, n.status])).toEqual(nodes.map((n) => [n, 'ok']));
    // Every node's run is an ordinary run, saved with its fleet and node.
    for (const n of weakJson.nodes) {
      expect(n.runIds).toHaveLength(2);
      const headers = n.runIds.map((id) =>
        JSON.parse(readFileSync(join(runsDir, id, 'run.ndjson'), 'utf8').split('\n')[0]!),
      );
      for (const header of headers) expect(header.fleet).toMatchObject({ node: n.node, job: weakJson.job });
      expect(headers.map((h) => h.command)).toEqual(['sweep', 'matrix']);
    }
    expect(weakJson.outliers.length).toBeGreaterThan(0);
    expect(new Set(weakJson.outliers.map((o) => o.node))).toEqual(new Set(['n3']));
    // The engine paths, and only they: the CU copies of n3 are as fast as the others'.
    expect(weakJson.outliers.every((o) => / engine\//.test(o.figure) || o.figure.startsWith('crossover'))).toBe(true);
    expect(weakJson.outliers.some((o) => o.figure.startsWith('peak engine/'))).toBe(true);
    // The pairs: n3's engine cells of the matrix, named by their GPUs.
    expect(weakJson.outliers.filter((o) => o.figure.startsWith('cell engine/')).length).toBeGreaterThan(10);
    expect(weakJson.outliers.some((o) => /^n3: matrix engine\/\S+ GPU \d → GPU \d/.test(o.text))).toBe(true);
    console.log(
      `outliers named (${weakJson.outliers.length}), the first 6:\n  ${weakJson.outliers
        .slice(0, 6)
        .map((o) => o.text)
        .join('\n  ')}`,
    );
    // Given back means gone: the fleet waited for Slurm to stop listing the job before it said so.
    expect(r.err).toMatch(new RegExp(`allocation ${weakJson.job} given back: Slurm no longer lists it`));
    expect(queue()).toEqual([]);
    const saved = JSON.parse(readFileSync(weakJson.fleetFile, 'utf8'));
    expect(saved.slurm.released).toMatchObject({ gone: true });
    console.log(`the job left the queue ${saved.slurm.released.waitedMs} ms after scancel`);
  });

  it('prints the saved fleet again, and --fail-on-outliers makes the weak node an exit 1', async () => {
    const shown = await start(['fleet', 'show', '--runs-dir', runsDir]).exited;
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/outliers: \d+ on 1 node/);
    expect(shown.out).toMatch(/n3: peak engine|n3: engine\//);
    const gated = await start(['fleet', 'show', '--runs-dir', runsDir, '--fail-on-outliers']).exited;
    expect(gated.code).toBe(1);
  });

  it('passes and fails nodes against a thresholds file', async () => {
    const file = join(work, 'thresholds.json');
    writeFileSync(file, JSON.stringify({ maxBelowMedian: 0.2 }));
    const below = await start(['fleet', 'show', '--runs-dir', runsDir, '--thresholds', file, '--json']).exited;
    expect(below.code).toBe(1);
    const view = JSON.parse(below.out);
    expect(
      view.nodes.filter((n: { failures: string[] }) => n.failures.length > 0).map((n: { node: string }) => n.node),
    ).toEqual(['n3']);
    writeFileSync(file, JSON.stringify({ minGbps: { 'engine/host': 1 } }));
    expect((await start(['fleet', 'show', '--runs-dir', runsDir, '--thresholds', file]).exited).code).toBe(0);
    writeFileSync(file, JSON.stringify({ minGbps: { 'engine/hots': 1 } }));
    const typo = await start(['fleet', 'show', '--runs-dir', runsDir, '--thresholds', file]).exited;
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/engine\/hots|minGbps/);
  });

  it('cancelled with Ctrl+C: exit 130, no job left in the queue, no helper left on any node', async () => {
    const dir = join(work, 'cancel');
    const run = start([
      'fleet',
      '--helper',
      helper,
      '--nodes',
      String(nodes.length),
      ...SWEEP,
      '--sim-delay-ms',
      '400',
      '--runs-dir',
      dir,
    ]);
    await until(
      'a helper on every node',
      () => new Set(helpersOnNodes().map((h) => h.split(':')[0])).size === nodes.length,
      30_000,
    );
    const t0 = performance.now();
    run.child.kill('SIGINT');
    const r = await run.exited;
    const exitMs = performance.now() - t0;
    expect(r.code, r.err).toBe(130);
    expect(queue(), 'the CLI exits after Slurm stopped listing the job').toEqual([]);
    const noHelpers = await until('no helper on any node', () => helpersOnNodes().length === 0, 15_000);
    console.log(
      `cancel: CLI exited ${exitMs} ms after SIGINT, the queue empty by then; helpers gone ${noHelpers.ms} ms later`,
    );
    const saved = JSON.parse(readFileSync(r.out.match(/# saved: (.*)/)![1]!, 'utf8'));
    expect(saved.status).toBe('cancelled');
    // What each node measured before the cancel is kept, its run ended cancelled.
    for (const n of saved.nodes) for (const x of n.runs) expect(x.status).toBe('cancelled');
  });

  it('a node whose helper dies mid-run costs that node only: the others finish, the fleet is partial, exit 1', async () => {
    const dir = join(work, 'crash');
    const run = start([
      'fleet',
      '--helper',
      helper,
      '--nodes',
      String(nodes.length),
      ...SWEEP,
      '--sim-delay-ms',
      '150',
      '--runs-dir',
      dir,
      '--json',
    ]);
    const victim = await until('a helper on n2', () => helpersOnNodes().find((h) => h.startsWith('n2:')), 30_000);
    process.kill(Number(victim.value.split(':')[1]), 'SIGKILL');
    const r = await run.exited;
    expect(r.code, r.err).toBe(1);
    const view = JSON.parse(r.out);
    const status = Object.fromEntries(view.nodes.map((n: { node: string; status: string }) => [n.node, n.status]));
    expect(status).toMatchObject({ n1: 'ok', n3: 'ok' });
    expect(status.n2).not.toBe('ok');
    expect(view.status).toBe('partial');
    const n2 = view.nodes.find((n: { node: string }) => n.node === 'n2');
    expect(n2.error).toMatch(/sweep: /);
    console.log(`n2 after its helper was killed: ${n2.status}: ${n2.error}`);
    expect(queue()).toEqual([]);
    expect(helpersOnNodes()).toEqual([]);
  });

  it('uses an allocation the user holds (--jobid) and leaves it held', async () => {
    const salloc = execFileSync('salloc', ['--no-shell', '--nodes=2', '--job-name=mine'], {
      encoding: 'utf8',
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    void salloc;
    const job = queue().map((l) => l.split(' ')[0]!)[0]!;
    try {
      const r = await fleet(['--jobid', job, ...SWEEP, '--runs-dir', join(work, 'held'), '--json']);
      expect(r.code, r.err).toBe(0);
      const view = JSON.parse(r.out);
      expect(view.nodes).toHaveLength(2);
      expect(view.notes.join(' ')).toMatch(/Only 2 nodes measured: outliers need at least 3/);
      expect(queue()).toEqual([`${job} RUNNING`]);
    } finally {
      execFileSync('scancel', [job], { env: env() });
    }
    await until('an empty queue', () => queue().length === 0, 20_000);
  });

  it('a partition Slurm does not have: its own words, exit 1, nothing queued or saved', async () => {
    const dir = join(work, 'nopart');
    const r = await fleet(['--nodes', '2', '--partition', 'nosuch', ...SWEEP, '--runs-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/salloc exited with 1: .*[Ii]nvalid partition/);
    expect(queue()).toEqual([]);
  });

  it('cancelled while Slurm keeps the request queued: the queued job is cancelled, the held one untouched', async () => {
    execFileSync('salloc', ['--no-shell', `--nodes=${nodes.length}`, '--exclusive', '--job-name=busy'], {
      env: env(),
      stdio: 'ignore',
    });
    const busy = queue()[0]!.split(' ')[0]!;
    try {
      const run = start(['fleet', '--helper', helper, '--nodes', '1', ...SWEEP, '--runs-dir', join(work, 'queued')]);
      const queued = await until(
        'the fleet queued as a job of its own',
        () => run.err().match(/queued as Slurm job (\d+)/)?.[1],
        30_000,
      );
      expect(queue()).toContain(`${queued.value} PENDING`);
      run.child.kill('SIGINT');
      const r = await run.exited;
      expect(r.code, r.err).toBe(130);
      expect(queue(), 'the queued job left the queue before the CLI exited').toEqual([`${busy} RUNNING`]);
    } finally {
      execFileSync('scancel', [busy], { env: env() });
    }
    await until('an empty queue', () => queue().length === 0, 20_000);
  });
});
