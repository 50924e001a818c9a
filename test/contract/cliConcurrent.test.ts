/**
 * Eight `sdma-lens sweep` processes writing one runs folder at the same time: each run is
 * whole and its own (its sizes, nobody else's lines), every id is distinct, and the folder
 * lists and advises as after eight runs one by one.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';

const repo = resolve(__dirname, '..', '..');
const CLIS = 8;
let work: string;
let cli: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdma-cli-concurrent-'));
  cli = join(work, 'cli.js');
  await build({
    entryPoints: [join(repo, 'src', 'cli', 'bin.ts')],
    outfile: cli,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sdmaLens(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('close', (code) => done({ code, out, err }));
  });
}

describe(`${CLIS} CLIs writing one runs folder at once`, () => {
  it('keep every run whole and apart', async () => {
    const runs = join(work, 'runs');
    // CLI k sweeps one size of its own, (k + 1) x 4 KiB, so a line in the wrong run shows.
    const sizeOf = (k: number) => (k + 1) * 4096;
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: CLIS }, (_, k) =>
        sdmaLens([
          'sweep',
          '--backend',
          'sim',
          '--sizes',
          String(sizeOf(k)),
          '--cus',
          '8,64',
          '--iters',
          '3',
          '--seed',
          String(k + 1),
          '--sim-delay-ms',
          '50',
          '--runs-dir',
          runs,
          '--helper',
          inject('helperPath'),
          '--json',
        ]),
      ),
    );
    console.log(`${CLIS} concurrent CLIs finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    for (const r of results) expect(r.code, r.err).toBe(0);
    const ids = readdirSync(runs);
    expect(new Set(ids).size).toBe(CLIS);
    const store = new RunStore(runs);
    let mixed = 0;
    for (const [k, r] of results.entries()) {
      const { runId } = JSON.parse(r.out) as { runId: string };
      expect(ids).toContain(runId);
      const run = await store.open(runId);
      expect(run.end?.status).toBe('ok');
      expect(run.problems).toEqual([]);
      // 4 paths; the cu/* ones at two CU counts.
      expect(run.samples).toHaveLength(6);
      mixed += run.samples.filter((s) => s.sizeBytes !== sizeOf(k)).length;
      const lines = readFileSync(store.fileOf(runId), 'utf8').split('\n').filter(Boolean);
      expect(lines.every((l) => JSON.parse(l) !== null)).toBe(true);
      expect(lines.filter((l) => l.startsWith('{"type":"run"'))).toHaveLength(1);
      expect(JSON.parse(lines.at(-1)!).type).toBe('run-end');
    }
    expect(mixed).toBe(0);
    const listed = await store.list();
    expect(listed).toHaveLength(CLIS);
    expect(listed.every((s) => s.status === 'ok')).toBe(true);
    const advise = await sdmaLens(['advise', '--runs-dir', runs]);
    expect(advise.code, advise.err).toBe(0);
  }, 120_000);
});
