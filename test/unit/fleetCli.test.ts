/**
 * `sdma-lens fleet` before anything reaches Slurm: every flag that would become part of a
 * Slurm command is checked (exit 2, naming the rule), a thresholds file is read and checked
 * first, a machine without Slurm is told so (exit 1), and `fleet show` with nothing saved says
 * how to make one. In-process CLI; no Slurm is needed (the real cluster is test/slurm/).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'sdma-fleet-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const runs = join(dir, 'runs');

describe('sdma-lens fleet refuses before Slurm is asked', () => {
  it.each([
    [['--runs-dir', runs], /say which nodes: --nodes N/],
    [['--nodes', '2', '--partition=--uid=0', '--runs-dir', runs], /--partition "--uid=0" is not a Slurm name/],
    [['--nodes', '2', '--partition', '--uid=0', '--runs-dir', runs], /--partition/],
    [['--nodelist', 'n1;id', '--runs-dir', runs], /--nodelist "n1;id" is not a Slurm name/],
    [['--jobid', '12 ', '--runs-dir', runs], /is not a Slurm job id/],
    [['--jobid', '12', '--nodes', '2', '--runs-dir', runs], /--jobid uses an allocation as it is/],
    [['--nodes', '0', '--runs-dir', runs], /1\.\.100000/],
    [['--nodes', '2', '--parallel', '0', '--runs-dir', runs], /--parallel must be a whole number in 1\.\.1024/],
    [['--nodes', '2', '--sim-weak', 'engine=9', '--runs-dir', runs], /--sim-weak "engine=9" is not WHAT=FACTOR/],
    [
      ['--nodes', '2', '--thresholds', join(dir, 'none.json'), '--runs-dir', runs],
      /--thresholds: .*none\.json does not exist/,
    ],
  ])('fleet %j', async (args, says) => {
    const r = await runCli(['fleet', ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(says);
  });

  it('a thresholds file with a typo is refused with the key named', async () => {
    const file = join(dir, 'typo.json');
    writeFileSync(file, '{"minGbs": {"engine/host": 1}}');
    const r = await runCli(['fleet', '--nodes', '2', '--thresholds', file, '--runs-dir', runs]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/accepted: minGbps and matrixMinGbps/);
  });

  it('fleet show with no fleet saved says how to run one (exit 1)', async () => {
    const r = await runCli(['fleet', 'show', '--runs-dir', runs]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no fleet is saved in .*fleets \(run one with: sdma-lens fleet --nodes N\)/);
  });
});
