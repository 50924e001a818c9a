/**
 * `sdma-probe collective --bootstrap-dir` under a real srun (test/slurm/cluster.ts): four
 * ranks on two nodes, each a task of one step, meet through rank 0's private bootstrap file in
 * a folder both nodes see. Only rank 0's records reach srun's merged output; the file is gone
 * afterwards; a rank that cannot find the id says so on its stderr and fails its task.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { HelperRecord } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { clusterEnv } from './support';

const skip = inject('slurmSkip');
const conf = inject('slurmConf');
const helper = inject('helperPath');

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function srun(args: string[], timeoutMs = 60_000) {
  return spawnSync('srun', args, { env: clusterEnv(conf), encoding: 'utf8', timeout: timeoutMs });
}

describe.skipIf(skip !== '')(`collective ranks under srun${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('four tasks on two nodes: one run of four ranks, launcher srun, printed by rank 0 alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-srun-'));
    dirs.push(dir);
    const run = srun([
      '-N',
      '2',
      '-n',
      '4',
      '--overcommit',
      '--kill-on-bad-exit=1',
      helper,
      'collective',
      '--backend',
      'sim',
      '--sim-gpus',
      '4',
      '-b',
      '1M',
      '-e',
      '4M',
      '--repeats',
      '2',
      '--variants',
      'default',
      '--bootstrap-dir',
      dir,
    ]);
    expect(run.status, run.stderr).toBe(0);
    const rs: HelperRecord[] = run.stdout
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => {
        const p = parseLine(l);
        if (p.kind !== 'record') throw new Error(`not a record: ${l.slice(0, 200)}`);
        return p.record;
      });
    expect(rs.filter((r) => r.type === 'hello')).toHaveLength(1);
    const variant = rs.find((r) => r.type === 'collective-variant');
    expect(variant).toMatchObject({ variant: 'default', mode: 'rank-per-process', launcher: 'srun' });
    const points = rs.filter((r) => r.type === 'collective');
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect(p).toMatchObject({ ranks: 4 });
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a rank whose id never comes says so on stderr; the step fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-srun-'));
    dirs.push(dir);
    // Rank 0 of this step is asked for a bootstrap folder that is not there: it cannot publish,
    // and rank 1 waits for the id in the folder it was given, up to --rank-timeout.
    const run = srun([
      '-N',
      '1',
      '-n',
      '2',
      '--overcommit',
      'bash',
      '-c',
      `if [ "$SLURM_PROCID" = 0 ]; then d=${dir}/missing; else d=${dir}; fi; exec ${helper} collective --backend sim --sim-gpus 2 --variants default --rank-timeout 2 --bootstrap-dir "$d"`,
    ]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/rank 1: rank 0 wrote no bootstrap id to .* within 2 s/);
    expect(run.stdout).toMatch(/rank 0 could not publish the bootstrap id/);
  });
});
