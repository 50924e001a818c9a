/**
 * `sdma-probe collective`'s rank processes on the simulated node, through the real helper:
 * one process per rank by default (the helper starts them) or one process for all
 * (`--mode single-process`); under srun the ranks meet through a private bootstrap file; a
 * rank that exits, is killed or hangs stops every rank, and so do a cancel and the helper's
 * own death. Nothing is left running after any of them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { HelperRecord } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { helper, recordedRecords, records } from './run';

function of<T extends HelperRecord['type']>(rs: HelperRecord[], type: T): Extract<HelperRecord, { type: T }>[] {
  return rs.filter((r): r is Extract<HelperRecord, { type: T }> => r.type === type);
}

/** Processes whose command line holds every one of `words`. */
function processesWith(...words: string[]): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (words.every((w) => argv.includes(w))) found.push(Number(entry));
  }
  return found;
}

async function noneLeft(seed: string): Promise<number[]> {
  for (let i = 0; i < 50; i++) {
    const left = processesWith('--rank-child', seed);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
  return processesWith('--rank-child', seed);
}

let seedCounter = 7000 + (process.pid % 1000) * 10;
/** A seed no other test uses: it marks this run's processes. */
function uniqueSeed(): string {
  seedCounter += 1;
  return String(seedCounter);
}

const SMALL = ['-b', '1M', '-e', '4M', '--repeats', '2', '--sim-gpus', '4'];

describe('rank-per-process, the default', () => {
  const run = helper(['collective', '--backend', 'sim', ...SMALL]);
  const rs = records(run);

  it('runs every variant with one process per rank, said on each variant record', () => {
    expect(run.status).toBe(0);
    const variants = of(rs, 'collective-variant');
    expect(variants.length).toBeGreaterThan(0);
    for (const v of variants) expect(v).toMatchObject({ mode: 'rank-per-process', launcher: 'helper' });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  it('prints the same points as one process driving every rank', () => {
    const single = records(helper(['collective', '--backend', 'sim', ...SMALL, '--mode', 'single-process']));
    for (const v of of(single, 'collective-variant')) expect(v.mode).toBe('single-process');
    const key = (p: { op: string; variant: string; sizeBytes: number; inPlace: boolean }) =>
      `${p.op}|${p.variant}|${p.sizeBytes}|${p.inPlace}`;
    expect(of(rs, 'collective').map(key)).toEqual(of(single, 'collective').map(key));
  });

  it('counts progress per variant and names the variant it counts', () => {
    const progress = of(rs, 'progress');
    expect(progress.length).toBe(of(rs, 'collective').length);
    for (const p of progress) expect(p.message).toMatch(/^variant \d+ of \d+: /);
  });
});

describe('one rank (test/contract/endpoints.test.ts: one process refuses one GPU)', () => {
  it('runs as one rank process (busbw 0, as nccl-tests prints it)', () => {
    const run = helper([
      'collective',
      '--backend',
      'sim',
      '--sim-gpus',
      '1',
      '-b',
      '1M',
      '-e',
      '2M',
      '--variants',
      'default',
    ]);
    expect(run.status).toBe(0);
    const points = of(records(run), 'collective');
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect(p).toMatchObject({ ranks: 1, busbwGbps: 0 });
  });
});

describe('a rank that fails stops every rank', () => {
  const cases: [string, string, RegExp][] = [
    ['exit:1@2', 'rank-failed', /rank 1 exited with code 3 .*injected fault/],
    ['kill:2@3', 'rank-failed', /rank 2 was killed by signal 9/],
    ['hang:1@1', 'rank-stalled', /rank 1 printed nothing for 1 s/],
  ];
  for (const [fault, code, message] of cases) {
    it(`${fault}: error ${code}, only the points every rank finished, nothing left running`, async () => {
      const seed = uniqueSeed();
      const run = helper(
        [
          'collective',
          '--backend',
          'sim',
          ...SMALL,
          '--variants',
          'default',
          '--seed',
          seed,
          '--rank-fault',
          fault,
          '--rank-timeout',
          '1',
        ],
        30_000,
      );
      expect(run.status).toBe(1);
      const rs = records(run);
      const error = of(rs, 'error')[0];
      expect(error?.code).toBe(code);
      expect(error?.message).toMatch(message);
      expect(error?.message).toMatch(/every rank of variant default was stopped/);
      expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error' });
      const after = Number(/@(\d+)/.exec(fault)![1]);
      expect(of(rs, 'collective')).toHaveLength(after);
      expect(await noneLeft(seed)).toEqual([]);
    });
  }
});

/** Starts the helper and resolves once `ready` matched a line, with a way to wait for the end. */
function startHelper(args: string[], ready: (line: string) => boolean) {
  const child = spawn(inject('helperPath'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const started = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.split('\n').some(ready)) resolve();
    });
  });
  const ended = new Promise<{ code: number | null; lines: string[] }>((resolve) =>
    child.on('close', (code) => resolve({ code, lines: out.split('\n').filter((l) => l.length > 0) })),
  );
  return { child, started, ended };
}

describe("a cancel and the helper's death reach every rank", () => {
  it('SIGTERM to the helper: done cancelled, every rank stopped (one that ignores SIGTERM is killed)', async () => {
    const seed = uniqueSeed();
    const h = startHelper(
      ['collective', '--backend', 'sim', ...SMALL, '--variants', 'default', '--seed', seed, '--rank-fault', 'hang:1@1'],
      (l) => l.includes('"type":"collective-variant"'),
    );
    await h.started;
    expect(processesWith('--rank-child', seed).length).toBeGreaterThan(0);
    h.child.kill('SIGTERM');
    const end = await h.ended;
    expect(end.code).toBe(130);
    const last = parseLine(end.lines.at(-1)!);
    expect(last.kind === 'record' && last.record).toMatchObject({ type: 'done', status: 'cancelled' });
    expect(await noneLeft(seed)).toEqual([]);
  }, 20_000);

  it('SIGKILL to the helper: its ranks die with it', async () => {
    const seed = uniqueSeed();
    const h = startHelper(
      ['collective', '--backend', 'sim', ...SMALL, '--variants', 'default', '--seed', seed, '--rank-fault', 'hang:1@1'],
      (l) => l.includes('"type":"collective-variant"'),
    );
    await h.started;
    h.child.kill('SIGKILL');
    await h.ended;
    expect(await noneLeft(seed)).toEqual([]);
  }, 20_000);
});

describe('ranks started by srun meet through a private bootstrap file', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const bootstrapDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'sdma-lens-bootstrap-'));
    dirs.push(d);
    return d;
  };
  const srunEnv = (rank: number, world: number, job: string): NodeJS.ProcessEnv => ({
    ...process.env,
    SLURM_PROCID: String(rank),
    SLURM_NTASKS: String(world),
    SLURM_LOCALID: String(rank),
    SLURM_JOB_ID: job,
    SLURM_STEP_ID: '0',
  });

  it('rank 0 prints every record (launcher srun), the others print nothing, the id file is gone after', async () => {
    const dir = bootstrapDir();
    const job = `job${uniqueSeed()}`;
    const args = ['collective', '--backend', 'sim', ...SMALL, '--variants', 'default', '--bootstrap-dir', dir];
    const ranks = [0, 1, 2, 3].map(
      (r) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const c = spawn(inject('helperPath'), args, { env: srunEnv(r, 4, job), stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          c.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
          c.on('close', (code) => resolve({ code, out }));
        }),
    );
    const results = await Promise.all(ranks);
    for (const r of results) expect(r.code).toBe(0);
    const rs = results[0]!.out
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => {
        const p = parseLine(l);
        if (p.kind !== 'record') throw new Error(`not a record: ${l.slice(0, 200)}`);
        return p.record;
      });
    expect(of(rs, 'collective-variant')[0]).toMatchObject({ mode: 'rank-per-process', launcher: 'srun' });
    expect(of(rs, 'collective').length).toBeGreaterThan(0);
    for (const r of results.slice(1)) expect(r.out).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it('a rank refuses an id file that others can read, and one that never comes', () => {
    const dir = bootstrapDir();
    const job = `job${uniqueSeed()}`;
    const args = [
      'collective',
      '--backend',
      'sim',
      ...SMALL,
      '--variants',
      'default',
      '--bootstrap-dir',
      dir,
      '--rank-timeout',
      '1',
    ];
    const late = spawnSync(inject('helperPath'), args, { env: srunEnv(1, 2, job), encoding: 'utf8', timeout: 20_000 });
    expect(late.status).toBe(1);
    expect(late.stdout).toBe('');
    expect(late.stderr).toMatch(/rank 1: rank 0 wrote no bootstrap id to .* within 1 s/);

    const file = join(dir, `sdma-lens-${job}.0-default.id`);
    writeFileSync(file, `${'ab'.repeat(128)}\n`);
    chmodSync(file, 0o644);
    const open = spawnSync(inject('helperPath'), args, { env: srunEnv(1, 2, job), encoding: 'utf8', timeout: 20_000 });
    expect(open.status).toBe(1);
    expect(open.stdout).toBe('');
    expect(open.stderr).toMatch(/is not private to this user .*mode 420/);
    expect(existsSync(file)).toBe(true);
  });

  it('--bootstrap-dir without srun or mpirun is a usage error that says what to do', () => {
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (/^(SLURM_|OMPI_|PMI_|PMIX_)/.test(name)) delete env[name];
    const run = helper(['collective', '--backend', 'sim', '--bootstrap-dir', tmpdir()], 10_000, env);
    expect(run.status).toBe(2);
    expect(of(records(run), 'error')[0]?.message).toMatch(/no srun or mpirun rank .*leave --bootstrap-dir out/);
  });

  it('--rank-fault is refused on hardware backends', () => {
    const run = helper(['collective', '--backend', 'cuda', '--rank-fault', 'exit:1@1']);
    expect(run.status).toBe(2);
  });
});

describe('the one-H200 rank-per-process run in bench/results', () => {
  const dir = ['bench', 'results', 'h200x1-2026-12-04-ranks'];
  const rs = recordedRecords(...dir, 'ranks1.ndjson');

  it('validates against the protocol: one rank process started by the helper, the data checked', () => {
    const variants = of(rs, 'collective-variant');
    expect(variants.map((v) => v.variant)).toEqual(['default', 'ce']);
    for (const v of variants)
      expect(v).toMatchObject({ supported: true, mode: 'rank-per-process', launcher: 'helper' });
    const points = of(rs, 'collective');
    expect(points.length).toBe(2 * 10 + 10 + 2 * 10 + 10);
    for (const p of points) {
      expect(p).toMatchObject({ ranks: 1, wrong: 0, busbwGbps: 0, simulated: false });
      if (p.inPlace) {
        // One rank in place has nothing to move: the capture of a call holds no node at all.
        expect(p.transport).toBeNull();
        expect(p.transportEvidence).toMatch(/graph capture of one call: 0 kernel, 0 copy/);
      } else {
        // One rank is a local copy: NCCL's memcpy, no kernel in the capture.
        expect(p.transport).toBe('ce');
        expect(p.cusUsed).toMatchObject({ count: 0, source: 'zero-cta' });
      }
    }
  });

  it('agrees with nccl-tests in the same call from 64 MiB on (the figures of its README)', () => {
    const summary = JSON.parse(readFileSync(join(inject('repoRoot'), ...dir, 'summary.json'), 'utf8')) as {
      rows: { op: string; variant: string; sizeBytes: number; ratio: number | null }[];
    };
    const large = summary.rows.filter((r) => r.sizeBytes >= 64 << 20);
    expect(large.length).toBe(12);
    for (const r of large) expect(Math.abs(r.ratio! - 1), `${r.op} ${r.variant} ${r.sizeBytes}`).toBeLessThan(0.01);
  });
});
