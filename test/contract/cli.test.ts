/** The `sdma-lens` CLI end to end: the real helper, real run files, the exit codes it documents. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';
import { runCli } from '../support/cli';

let dir: string;
let out = '';
let err = '';

async function cli(...args: string[]): Promise<number> {
  const helper = args[0] === 'sweep' ? ['--helper', inject('helperPath')] : [];
  let code: number;
  ({ code, out, err } = await runCli([...args, '--runs-dir', dir, ...helper]));
  return code;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sdma-lens CLI', () => {
  it('sweep prints a table and saves a run the store can open', async () => {
    expect(await cli('sweep', '--backend', 'sim', '--sizes', '4K,1M', '--cus', '8,64', '--iters', '3')).toBe(0);
    expect(out).toMatch(/SIMULATED/);
    expect(out).toMatch(/cu\/host(, [^:\n]+)?: GB\/s by CUs/);
    expect(out).toMatch(/^\s+4 KiB\s+[\d.]+\s+[\d.]+$/m);
    expect(out).toMatch(/engine\/host/);
    const saved = /# saved: (.*run\.ndjson)/.exec(out)?.[1];
    expect(saved).toBeDefined();
    const [id] = readdirSync(dir);
    const run = await new RunStore(dir).open(id!);
    expect(run.end?.status).toBe('ok');
    expect(run.samples).toHaveLength(2 * 2 * 2 + 2 * 2);
  });

  it('--json prints one JSON document with every series', async () => {
    expect(await cli('sweep', '--backend', 'sim', '--sizes', '64K', '--cus', '4', '--iters', '2', '--json')).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ status: 'ok', simulated: true, backend: 'sim' });
    expect(result.series.map((s: { path: string }) => s.path).sort()).toEqual([
      'cu/device',
      'cu/host',
      'engine/device',
      'engine/host',
    ]);
  });

  it('a helper crash exits 1, says so, and keeps the partial run', async () => {
    expect(
      await cli(
        'sweep',
        '--backend',
        'sim',
        '--sizes',
        '4K,1M',
        '--cus',
        '8',
        '--iters',
        '2',
        '--fault',
        'crash-after=2',
        '--json',
      ),
    ).toBe(1);
    expect(err).toMatch(/crashed: the helper was killed by SIGABRT; 2 samples kept/);
    expect(JSON.parse(out).status).toBe('crashed');
    const runs = await new RunStore(dir).list();
    expect(runs.some((r) => r.status === 'crashed')).toBe(true);
  });

  it('bad arguments exit 2 with what is wrong and where the help is, before anything runs', async () => {
    expect(await cli('sweep', '--cus', '0')).toBe(2);
    expect(err).toMatch(/^sdma-lens sweep: .*CU count 0.*\nsee sdma-lens sweep --help\n$/);
    expect(err).not.toMatch(/Usage: sdma-lens/);
    expect(await cli('sweep', '--no-such-flag')).toBe(2);
    expect(await cli('explode')).toBe(2);
  });

  it('run options a process would misread are refused before anything runs: stall and connect timeouts, --helper paths', async () => {
    const before = readdirSync(dir).length;
    const refused = async (args: string[], message: RegExp) => {
      const r = await runCli(['sweep', '--backend', 'sim', '--sizes', '4K', '--runs-dir', dir, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    };
    await refused(
      ['--helper', inject('helperPath'), '--stall-timeout', '5'],
      /--stall-timeout must be 0 \(no limit\) or a whole number of seconds in 10\.\.86400 \(got 5\)/,
    );
    await refused(['--helper', inject('helperPath'), '--stall-timeout', '1.5'], /--stall-timeout needs a whole number/);
    // ssh reads ConnectTimeout=0 as the system's own timeout, minutes long.
    await refused(
      ['--target', 'gpu-node', '--connect-timeout', '0'],
      /--connect-timeout must be a whole number of seconds in 1\.\.300 \(got 0\)/,
    );
    await refused(['--helper', 'no/such/sdma-probe'], /--helper: \/.*no\/such\/sdma-probe is not a file/);
    // On a node, a relative path would be relative to a folder the user does not see.
    await refused(
      ['--target', 'gpu-node', '--helper', 'bin/sdma-probe'],
      /--helper with --target is a path on the node and must be absolute \(got "bin\/sdma-probe"\)/,
    );
    expect(readdirSync(dir)).toHaveLength(before);
  });

  it('a relative --helper is found from the current folder', async () => {
    const cwd = process.cwd();
    const helperPath = inject('helperPath');
    process.chdir(join(helperPath, '..'));
    try {
      const r = await runCli([
        'sweep',
        '--backend',
        'sim',
        '--sizes',
        '4K',
        '--paths',
        'engine/host',
        '--iters',
        '2',
        '--runs-dir',
        dir,
        '--helper',
        './sdma-probe',
        '--json',
      ]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).status).toBe('ok');
    } finally {
      process.chdir(cwd);
    }
  });

  it('--stall-timeout stops a helper that hangs: exit 1, said once, the samples kept', async () => {
    const r = await runCli([
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '4K,1M',
      '--cus',
      '8',
      '--iters',
      '2',
      '--fault',
      'hang-after=2',
      '--stall-timeout',
      '10',
      '--runs-dir',
      dir,
      '--helper',
      inject('helperPath'),
      '--json',
    ]);
    expect(r.code).toBe(1);
    expect(r.err.match(/printed nothing for 10 s, the stall limit, and was stopped; 2 samples kept/g)).toHaveLength(1);
    expect(JSON.parse(r.out).status).toBe('error');
  }, 30_000);

  it('sweep --refine places the crossovers, says what it cost against a uniform grid, and advise reads the refined points', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'sdma-cli-refine-'));
    try {
      const r = await runCli([
        'sweep',
        '--backend',
        'sim',
        '--sizes',
        '4K,64K,1M,16M,256M',
        '--cus',
        '64',
        '--iters',
        '10',
        '--refine',
        '--runs-dir',
        runs,
        '--helper',
        inject('helperPath'),
        '--json',
      ]);
      expect(r.code, r.err).toBe(0);
      const out = JSON.parse(r.out);
      expect(out.refinement.stopped).toBe('placed');
      expect(out.refinement.summary).toMatch(
        /^refinement: 2 of 2 crossovers placed within ±10% in \d+ rounds \(\d+ new samples, [\d.]+ s; every crossover placed\); the grid took [\d.]+ s; a uniform grid fine enough for ±10% everywhere \(\d+ points\) would take about [\d.]+ s: grid and refinement took \d+% of that$/,
      );
      expect(r.err).toMatch(/refine round 1: host-initiated GPU 0 → GPU 1 at /);
      expect(readdirSync(runs)).toEqual([out.runId]);
      const refinedSizes = new Set<number>(
        out.series.flatMap((x: { points: { sizeBytes: number }[] }) => x.points.map((p) => p.sizeBytes)),
      );
      expect(refinedSizes.size).toBeGreaterThan(5);
      const advise = await runCli(['advise', out.runId, '--runs-dir', runs, '--json']);
      expect(advise.code).toBe(0);
      const focus = JSON.parse(advise.out).focus as { verdicts: { sizeBytes: number }[] }[];
      expect(new Set(focus.flatMap((c) => c.verdicts.map((v) => v.sizeBytes))).size).toBeGreaterThan(5);
      expect((await runCli(['sweep', '--refine', '--refine-tolerance', '0.9', '--runs-dir', runs])).code).toBe(2);
    } finally {
      rmSync(runs, { recursive: true, force: true });
    }
  }, 60_000);

  it('advise prints the crossovers and settings of the newest sweep, as text and JSON', async () => {
    expect(
      await cli('sweep', '--backend', 'sim', '--sizes', '4K,64K,256K,1M,4M,64M', '--cus', '8,64', '--iters', '10'),
    ).toBe(0);
    expect(out).toMatch(/# Advice/);
    expect(await cli('advise', '--cus', '8', '--rccl-version', '2.31.1')).toBe(0);
    expect(out).toMatch(/device-initiated, against 8 CUs: engine\/device stays ahead of cu\/device on 8 CUs from/);
    expect(out).toMatch(/^export NCCL_GIN_TYPE=7$/m);
    expect(await cli('advise', '--json')).toBe(0);
    const advice = JSON.parse(out);
    expect(advice.simulated).toBe(true);
    expect(advice.recommendations.find((r: { knob: string }) => r.knob === 'NCCL_GIN_TYPE').value).toBeUndefined();
    expect(await cli('advise', 'no-such-run')).toBe(1);
    expect(await cli('advise', '--cus', 'lots')).toBe(2);
  });

  it('runs lists what was saved', async () => {
    expect(await cli('runs')).toBe(0);
    expect(out).toMatch(/^\S+-sweep-sim-\w+ +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +sweep +local +ok +SIMULATED$/m);
    expect(out).toMatch(/ crashed +SIMULATED/);
  });
});
