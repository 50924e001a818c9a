/**
 * The queued fleet's parts that need no Slurm: sbatch's argument array (the same checks as
 * salloc's, the constant script first and data after it), the job id sbatch prints, and a
 * node's captured output replayed through the real run flow (replayTarget.ts): a whole one
 * ends ok with its samples; a step the job's end cut short is kept and said; garbage is counted
 * as problems; a link in the folder is not read.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BATCH_SCRIPT, batchArgs, parsableJobId } from '../../src/core/fleetRun/batch';
import { ReplayTarget } from '../../src/core/fleetRun/replayTarget';
import { RunStore } from '../../src/core/runs/runStore';
import { runHelperCommand } from '../../src/core/runtime/runFlow';

const dir = mkdtempSync(join(tmpdir(), 'sdma-fleet-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The helper's own lines of a real simulator sweep (the fixture without its run header and end). */
const helperLines = readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8')
  .trim()
  .split('\n')
  .filter((l) => !/^\{"type":"(run|run-end)"/.test(l));

describe('sbatch arguments', () => {
  it('ask for whole nodes like salloc, then the constant script, then only data', () => {
    const args = batchArgs({ nodes: 4, partition: 'gpu' }, '/f/batch.sh', '/f/nodes', '/f/job.log', '/opt/sdma-probe', [
      'sweep',
      '--backend',
      'sim',
    ]);
    expect(args).toEqual([
      '--parsable',
      '--job-name=sdma-lens-fleet',
      '--exclusive',
      '--ntasks-per-node=1',
      '--nodes=4',
      '--partition=gpu',
      '--output=/f/job.log',
      '/f/batch.sh',
      '/f/nodes',
      '/opt/sdma-probe',
      'sweep',
      '--backend',
      'sim',
    ]);
    expect(() => batchArgs({ nodes: 2, partition: '-x' }, 's', 'o', 'l', 'h', [])).toThrow(/not a Slurm name/);
    expect(parsableJobId('42\n')).toBe('42');
    expect(parsableJobId('43;cluster1\n')).toBe('43');
    expect(parsableJobId('sbatch: error: Batch job submission failed\n')).toBeUndefined();
  });

  it('the script takes its data as positional parameters only and quotes every use', () => {
    expect(BATCH_SCRIPT.startsWith('#!/bin/sh\n')).toBe(true);
    expect(BATCH_SCRIPT).toContain('-- "$@"');
    expect(BATCH_SCRIPT).toContain('"$out/$node.ndjson"');
    expect(BATCH_SCRIPT).not.toMatch(/eval|\$\*/);
  });
});

async function replay(node: string, files: Record<string, string>) {
  const nodes = join(dir, `nodes-${node}`);
  mkdirSync(nodes, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(nodes, name), text);
  const store = new RunStore(join(dir, 'runs'));
  const result = await runHelperCommand(
    {
      command: 'sweep',
      idTag: 'slurm',
      args: () => ['sweep', '--backend', 'sim'],
      fleet: { id: 'f1', node, job: '9' },
    },
    {
      target: new ReplayTarget(nodes, node, '9'),
      helpers: { helperFor: async () => ({ path: '/opt/sdma-probe', backends: [], source: 'test' }), forget: () => {} },
      store,
      stallTimeoutS: 0,
    },
  );
  if (result.kind !== 'ended') throw new Error(`not ended: ${result.kind}`);
  return { run: result.run, saved: await store.open(result.run.header.id) };
}

describe('a node replayed through the run flow', () => {
  it('a whole output and exit 0: ok, every sample, the fleet in the header, the same when read back', async () => {
    const { run, saved } = await replay('n1', { 'n1.ndjson': `${helperLines.join('\n')}\n`, 'n1.exit': '0\n' });
    expect(run.end?.status).toBe('ok');
    expect(run.samples.length).toBe(helperLines.filter((l) => l.includes('"type":"sample"')).length);
    expect(run.header.fleet).toEqual({ id: 'f1', node: 'n1', job: '9' });
    expect(saved.samples.length).toBe(run.samples.length);
  });

  it('no exit file (the job ended first): crashed, said, what was written kept', async () => {
    const half = helperLines.slice(0, Math.floor(helperLines.length / 2));
    const { run } = await replay('n2', { 'n2.ndjson': `${half.join('\n')}\n` });
    expect(run.end?.status).toBe('crashed');
    expect(run.end?.message).toMatch(/the batch job ended before the step on n2 did/);
    expect(run.samples.length).toBe(half.filter((l) => l.includes('"type":"sample"')).length);
  });

  it("garbage lines are problems, and srun's exit status is the end", async () => {
    const { run } = await replay('n3', {
      'n3.ndjson': `${helperLines.slice(0, 5).join('\n')}\nnot json\n{"type":"sample"}\n`,
      'n3.exit': '137\n',
      'n3.stderr': 'srun: error: n3: task 0: Killed\n',
    });
    expect(run.problems.length).toBe(2);
    expect(run.end?.status).toBe('crashed');
    expect(run.end?.message).toMatch(/exited with code 137.*srun: error: n3: task 0: Killed/);
  });

  it('a link planted as a node file is not read', async () => {
    const nodes = join(dir, 'nodes-n4');
    mkdirSync(nodes, { recursive: true });
    writeFileSync(join(dir, 'secret'), 'not for the run\n');
    symlinkSync(join(dir, 'secret'), join(nodes, 'n4.ndjson'));
    const { run } = await replay('n4', { 'n4.exit': '0\n' });
    expect(run.problems).toEqual([]);
    expect(run.samples.toArray()).toEqual([]);
    expect(run.end?.status).not.toBe('ok');
  });
});
