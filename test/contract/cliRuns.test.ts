/**
 * The CLI's collective, overlap and import commands end to end with the real helper: the
 * table (or JSON) printed from the saved run, the flags passed on as the helper's own, and a
 * flag the helper refuses (exit 2, nothing kept).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';
import { runCli } from '../support/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-cli-runs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli([...args, '--runs-dir', dir, '--helper', inject('helperPath')]);
const fixture = (...p: string[]) => resolve(__dirname, '..', 'fixtures', ...p);

async function onlyRun() {
  const ids = readdirSync(dir);
  expect(ids).toHaveLength(1);
  return new RunStore(dir).open(ids[0]!);
}

describe('sdma-lens collective, overlap, import', () => {
  it('collective passes nccl-tests flags to the helper and prints one row per op, variant, placement and size', async () => {
    const r = await cli(
      'collective',
      '--backend',
      'sim',
      '-b',
      '1M',
      '-e',
      '4M',
      '-f',
      '2',
      '--ops',
      'allgather',
      '-n',
      '3',
    );
    expect(r.code, r.err).toBe(0);
    const run = await onlyRun();
    expect(run.header.command).toBe('collective');
    expect(run.header.helper.args).toEqual([
      'collective',
      '--backend',
      'sim',
      '--min-bytes',
      '1M',
      '--max-bytes',
      '4M',
      '--step-factor',
      '2',
      '--iters',
      '3',
      '--ops',
      'allgather',
    ]);
    const rows = r.out.split('\n').filter((l) => /^\s+allgather\s/.test(l));
    // 3 sizes x (default, every engine variant the helper ran) x (out-of-place, in-place)
    const variants = new Set((run.collectives ?? []).map((p) => p.variant));
    expect(rows).toHaveLength(3 * variants.size * 2);
    expect(rows.length).toBe(run.collectives?.length);
    expect(r.out).toMatch(/SIMULATED/);
    expect(r.out).toMatch(/^# saved: .*run\.ndjson$/m);
    for (const p of run.collectives ?? [])
      expect(r.out).toContain(
        p.busbwGbps >= 100
          ? p.busbwGbps.toFixed(1)
          : p.busbwGbps >= 10
            ? p.busbwGbps.toFixed(2)
            : p.busbwGbps.toFixed(3),
      );
  });

  it("collective --json prints the panel's view of the saved run", async () => {
    const r = await cli('collective', '--backend', 'sim', '-b', '1M', '-e', '1M', '--json');
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as {
      runId: string;
      runFile: string;
      command: string;
      simulated: boolean;
      curves: unknown[];
    };
    const run = await onlyRun();
    expect(json).toMatchObject({ runId: run.header.id, command: 'collective', simulated: true });
    expect(json.runFile).toBe(new RunStore(dir).fileOf(run.header.id));
    expect(json.curves.length).toBeGreaterThan(0);
  });

  it('a flag value the helper refuses exits 2 with its reason and keeps no run', async () => {
    const r = await cli('collective', '--backend', 'sim', '--ops', 'reduce');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /^sdma-lens collective: the helper refused the arguments: --ops: unknown operation 'reduce'.*\nsee sdma-lens collective --help\n$/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a flag the command does not have is a usage error before anything runs', async () => {
    const r = await cli('overlap', '--ops', 'allgather');
    expect(r.code).toBe(2);
    expect(r.err).toBe('sdma-lens overlap: unknown option --ops\nsee sdma-lens overlap --help\n');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('overlap prints the compute kept beside each copy path', async () => {
    const r = await cli('overlap', '--backend', 'sim', '--compute', 'gemm', '--phase-ms', '50');
    expect(r.code, r.err).toBe(0);
    const run = await onlyRun();
    expect(run.header.helper.args).toEqual(['overlap', '--backend', 'sim', '--compute', 'gemm', '--phase-ms', '50']);
    const rows = r.out.split('\n').filter((l) => /^\s+gemm\s/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((l) => /\d+%/.test(l))).toBe(true);
  });

  it('import reads a rocprofv3 CSV folder and a rocpd database into runs and prints their kernels', async () => {
    const csv = await cli('import', fixture('rocprofv3'));
    expect(csv.code, csv.err).toBe(0);
    const run = await onlyRun();
    expect(run.header.command).toBe('import');
    expect(run.header.helper.args).toEqual(['import', '--rocprofv3-csv', fixture('rocprofv3')]);
    expect(csv.out).toMatch(/^\s+2 x divide_kernel\(.*\): avg /m);
    rmSync(join(dir, run.header.id), { recursive: true });
    const db = await cli('import', fixture('rocpd', 'fixture.db'), '--json');
    expect(db.code, db.err).toBe(0);
    const json = JSON.parse(db.out) as { status: string; kernels: { name: string; launches: number }[] };
    expect(json.status).toBe('ok');
    expect(json.kernels.length).toBeGreaterThan(0);
    expect((await onlyRun()).header.helper.args).toEqual(['import', '--rocpd', fixture('rocpd', 'fixture.db')]);
  });

  it('import of a path that does not exist is a usage error that names it', async () => {
    const r = await cli('import', join(dir, 'nothing.db'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('nothing.db does not exist');
    expect(readdirSync(dir)).toEqual([]);
  });
});
