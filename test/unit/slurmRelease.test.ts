/**
 * Giving an allocation back means Slurm no longer lists the job: after `scancel` a job stays
 * COMPLETING while its nodes are cleaned, and `release` waits (bounded) until it is gone, or
 * says that it is still listed. Slurm's client here is a pair of stub programs (real processes
 * through the real LocalTarget) whose answers a test scripts: a job listed COMPLETING for a few
 * polls, one purged ("Invalid job id"), one that never leaves, one whose squeue fails.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { release, stillListed } from '../../src/core/fleetRun/slurmTools';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import type { SpawnOptions, Target } from '../../src/core/runtime/target';

const dir = mkdtempSync(join(tmpdir(), 'sdma-release-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A target whose Slurm commands are stubs in `dir`: `squeue` prints the next line of `answers`
 * (one poll each; the last repeats), `scancel` records its arguments. An answer `!purged` is
 * Slurm's reply for a job it forgot, `!down` one for a controller it cannot reach.
 */
function stubbedSlurm(
  name: string,
  answers: string[],
): { target: Target; polls: () => number; cancelled: () => string } {
  const home = join(dir, name);
  const local = new LocalTarget();
  writeFileSync(join(dir, `${name}.answers`), answers.join('\n') + '\n');
  writeFileSync(join(dir, `${name}.count`), '0');
  const squeue = join(dir, `${name}-squeue`);
  writeFileSync(
    squeue,
    `#!/bin/sh
n=$(cat "${home}.count"); n=$((n + 1)); echo "$n" > "${home}.count"
total=$(wc -l < "${home}.answers")
[ "$n" -gt "$total" ] && n=$total
a=$(sed -n "\${n}p" "${home}.answers")
case "$a" in
  '!purged') echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1 ;;
  '!down') echo "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2; exit 1 ;;
  *) [ -n "$a" ] && echo "$a"; exit 0 ;;
esac
`,
  );
  const scancel = join(dir, `${name}-scancel`);
  writeFileSync(scancel, `#!/bin/sh\necho "$@" > "${home}.cancelled"\n`);
  chmodSync(squeue, 0o755);
  chmodSync(scancel, 0o755);
  const target: Target = {
    kind: 'local',
    label: 'stub',
    spawn: (file: string, args: readonly string[], options: SpawnOptions) =>
      local.spawn(file === 'squeue' ? squeue : file === 'scancel' ? scancel : file, args, options),
    outputs: (id, localDir) => local.outputs(id, localDir),
  };
  return {
    target,
    polls: () => Number(readFileSync(`${home}.count`, 'utf8')),
    cancelled: () => readFileSync(`${home}.cancelled`, 'utf8').trim(),
  };
}

describe('release: the allocation given back once Slurm stops listing it', () => {
  it('waits while the job is COMPLETING and says so once, then reports it gone', async () => {
    const slurm = stubbedSlurm('completing', ['COMPLETING', 'COMPLETING', 'COMPLETING', '']);
    const said: string[] = [];
    const r = await release(slurm.target, '41', { waitMs: 20_000, onWaiting: (s) => said.push(s) });
    expect(slurm.cancelled()).toBe('41');
    expect(r.gone).toBe(true);
    expect(slurm.polls()).toBe(4);
    expect(said).toEqual(['COMPLETING']);
  });

  it('a job Slurm has already forgotten, or lists as ended, is gone at the first poll', async () => {
    for (const answer of ['!purged', 'CANCELLED', 'COMPLETED']) {
      const slurm = stubbedSlurm(`ended-${answer.replace('!', '')}`, [answer]);
      const r = await release(slurm.target, '42', { waitMs: 20_000 });
      expect(r, answer).toMatchObject({ gone: true });
      expect(slurm.polls(), answer).toBe(1);
    }
  });

  it('a job still listed when the wait runs out is reported with its state, never as gone', async () => {
    const slurm = stubbedSlurm('stuck', ['COMPLETING']);
    const r = await release(slurm.target, '43', { waitMs: 400 });
    expect(r).toMatchObject({ gone: false, state: 'COMPLETING' });
    expect(r.waitedMs).toBeGreaterThanOrEqual(400);
    expect(slurm.polls()).toBeGreaterThan(1);
    if (!r.gone)
      expect(stillListed('43', r)).toMatch(
        /^Slurm still lists job 43 as COMPLETING \d+ s after it was cancelled; .*squeue --jobs=43/,
      );
  });

  it('a squeue that cannot reach the controller is not taken for "gone"', async () => {
    const slurm = stubbedSlurm('down', ['!down']);
    const r = await release(slurm.target, '44', { waitMs: 300 });
    expect(r.gone).toBe(false);
    if (!r.gone) expect(r.state).toMatch(/^unknown \(squeue exited with 1: .*Unable to contact slurm controller/);
  });

  it('an abort ends the wait early and the job is reported as still listed', async () => {
    const slurm = stubbedSlurm('aborted', ['RUNNING']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const t0 = performance.now();
    const r = await release(slurm.target, '45', { waitMs: 60_000, signal: controller.signal });
    expect(r).toMatchObject({ gone: false, state: 'RUNNING' });
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});
