/**
 * What a shell sees of the CLI's own use, through the CLI as it ships (bundled from
 * src/cli/bin.ts, run with Node) and the real helper on the simulated node: a command's help
 * and the overview's, the version, a bad argument as two lines and exit 2 with the command or
 * flag meant, size ranges taken and empty list items refused, and the run list with and
 * without runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { commandHelp } from '../../src/cli/usage';
import { RunStore } from '../../src/core/runs/runStore';
import { bundleCli } from '../support/cliProcess';

let work: string;
let cli: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sdma-cli-usage-'));
  cli = bundleCli(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sdmaLens(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const MiB = 1024 ** 2;

describe('sdma-lens help and version', () => {
  it("sweep --help prints the sweep's help only, exit 0", () => {
    const r = sdmaLens(['sweep', '--help']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toBe(`${commandHelp('sweep')}\n`);
    expect(r.out).toMatch(/^Usage: sdma-lens sweep \[options\]\n/);
    expect(r.out).toMatch(/^ {2}--sizes LIST {2,}/m);
    expect(r.out).toMatch(/^Exit codes:\n {2}0 {4}/m);
    for (const other of [
      '--fail-below',
      '--concurrent',
      '--buffer-size',
      '--nodelist',
      '--rccl-version',
      'Matrix options',
      'Usage: sdma-lens <command>',
    ])
      expect(r.out).not.toContain(other);
  });

  it('help compare, and advise, compare, import with -h: their help, no hint about positional arguments', () => {
    const r = sdmaLens(['help', 'compare']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${commandHelp('compare')}\n`);
    expect(r.out).toMatch(/^Usage: sdma-lens compare A B \[/);
    for (const command of ['advise', 'compare', 'import'] as const) {
      const h = sdmaLens([command, '-h']);
      expect(h.code, command).toBe(0);
      expect(h.out).toBe(`${commandHelp(command)}\n`);
      expect(h.err).toBe('');
    }
  });

  it('--version prints the version of package.json, exit 0', () => {
    const { version } = JSON.parse(readFileSync(join(inject('repoRoot'), 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const r = sdmaLens([flag]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`sdma-lens ${version}\n`);
    }
  });
});

describe('sdma-lens bad arguments', () => {
  it('an unknown flag: two lines, the flag meant, exit 2, nothing run', () => {
    const runs = mkdtempSync(join(work, 'runs-'));
    const r = sdmaLens([
      'sweep',
      '--backend',
      'sim',
      '--sizs',
      '4K',
      '--runs-dir',
      runs,
      '--helper',
      inject('helperPath'),
    ]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('sdma-lens sweep: unknown option --sizs (did you mean --sizes?)\nsee sdma-lens sweep --help\n');
    expect(readdirSync(runs)).toEqual([]);
  });

  it('swep: the command meant', () => {
    const r = sdmaLens(['swep', '--backend', 'sim']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('sdma-lens: unknown command "swep" (did you mean sweep?)\nsee sdma-lens --help\n');
  });

  it('--sizes 4K,,1M is refused before anything runs', () => {
    const runs = mkdtempSync(join(work, 'runs-'));
    const r = sdmaLens([
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '4K,,1M',
      '--runs-dir',
      runs,
      '--helper',
      inject('helperPath'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'sdma-lens sweep: --sizes: "4K,,1M" has an empty item (two commas in a row); list sizes separated by single commas (e.g. 4K,64K,1M or 1M:64M)\nsee sdma-lens sweep --help\n',
    );
    expect(readdirSync(runs)).toEqual([]);
  });

  it('--paths cu/host,,engine/host is refused too (it was dropped silently)', () => {
    const runs = mkdtempSync(join(work, 'runs-'));
    const r = sdmaLens([
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'cu/host,,engine/host',
      '--runs-dir',
      runs,
      '--helper',
      inject('helperPath'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'sdma-lens sweep: --paths: "cu/host,,engine/host" has an empty item (two commas in a row); separate items with single commas\nsee sdma-lens sweep --help\n',
    );
    expect(readdirSync(runs)).toEqual([]);
  });
});

describe('sdma-lens sizes and runs', () => {
  let runs: string;
  beforeAll(() => {
    runs = mkdtempSync(join(work, 'runs-'));
  });

  it('runs with no run says where it looked and how to make one, exit 0', () => {
    const r = sdmaLens(['runs', '--runs-dir', runs]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `sdma-lens runs: no runs in ${runs}; make one with sdma-lens sweep (--backend sim: the simulator) or sdma-lens import FILE, or name another folder with --runs-dir DIR\n`,
    );
  });

  it('--sizes 1M:64M measures 1 MiB to 64 MiB, doubling', async () => {
    const r = sdmaLens([
      'sweep',
      '--backend',
      'sim',
      '--sizes',
      '1M:64M',
      '--paths',
      'cu/host',
      '--cus',
      '8',
      '--iters',
      '1',
      '--runs-dir',
      runs,
      '--helper',
      inject('helperPath'),
    ]);
    expect(r.code, r.err).toBe(0);
    const [id] = readdirSync(runs);
    const run = await new RunStore(runs).open(id!);
    expect(run.header.helper.args).toContain('1M,2M,4M,8M,16M,32M,64M');
    expect([...new Set(run.samples.map((s) => s.sizeBytes))].sort((a, b) => a - b)).toEqual(
      [1, 2, 4, 8, 16, 32, 64].map((n) => n * MiB),
    );
    expect(r.out).toMatch(/^ +64 MiB +[\d.]+$/m);
  });

  it('runs lists the run: id, local date, command, node, status, SIMULATED', () => {
    const r = sdmaLens(['runs', '--runs-dir', runs]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const [id] = readdirSync(runs);
    expect(r.out).toMatch(
      new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  sweep  local  ok  SIMULATED\\n$`),
    );
    const json = JSON.parse(sdmaLens(['runs', '--runs-dir', runs, '--json']).out) as {
      id: string;
      status: string;
      simulated: boolean;
    }[];
    expect(json).toMatchObject([{ id, status: 'ok', simulated: true }]);
  });
});
