/**
 * `sdma-lens compare` on simulated sweeps from the real helper: the same simulated node with
 * seeds 1 to 5 is within noise everywhere by default (every pair, no regression or
 * improvement), while `--sim-weak engine=0.5` (the engines at half their bandwidth) is found
 * on the engine paths and nowhere else, by default, with --baseline-runs, and by
 * --fail-below. The default sweep: 260 points of 20 iterations each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Comparison } from '../../src/core/compare/compare';
import { runCli } from '../support/cli';

let dir: string;

/** A simulated sweep saved in the runs folder; its run id. */
async function sweep(...args: string[]): Promise<string> {
  const r = await runCli([
    'sweep',
    '--backend',
    'sim',
    ...args,
    '--runs-dir',
    dir,
    '--helper',
    inject('helperPath'),
    '--json',
  ]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { runId: string }).runId;
}

async function compare(...args: string[]): Promise<{ code: number; c: Comparison; err: string }> {
  const r = await runCli(['compare', ...args, '--runs-dir', dir, '--json']);
  return { code: r.code, c: JSON.parse(r.out || 'null') as Comparison, err: r.err };
}

/** Seeds 1 to 5, by index. */
const ids: string[] = [];
let weak = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-compare-noise-'));
  for (let seed = 1; seed <= 5; seed++) ids.push(await sweep('--seed', String(seed)));
  weak = await sweep('--seed', '6', '--sim-weak', 'engine=0.5');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the same simulated node, seeds 1 to 5', () => {
  it('every pair is within noise by default: no regression or improvement among 260 points', async () => {
    for (let i = 0; i < 5; i++) {
      for (let j = i + 1; j < 5; j++) {
        const { code, c } = await compare(ids[i]!, ids[j]!);
        expect(code).toBe(0);
        expect(c.summary.common).toBe(260);
        expect(c.noise.source).toBe('default');
        expect({
          seeds: [i + 1, j + 1],
          regressions: c.summary.regressions,
          improvements: c.summary.improvements,
        }).toEqual({ seeds: [i + 1, j + 1], regressions: 0, improvements: 0 });
      }
    }
  });

  it('and with two other seeds as baseline runs of A', async () => {
    const { code, c } = await compare(ids[0]!, ids[3]!, '--baseline-runs', `${ids[1]},${ids[2]}`);
    expect(code).toBe(0);
    expect(c.noise.source).toBe('baseline runs');
    expect(c.summary).toMatchObject({ common: 260, regressions: 0, improvements: 0 });
  });
});

describe('a real change: the engines at half their bandwidth (--sim-weak engine=0.5)', () => {
  const isEngine = (label: string) => label.startsWith('engine/');

  it('is a regression on every engine point of 1 MiB and more, and nowhere else', async () => {
    for (const args of [[], ['--baseline-runs', `${ids[1]},${ids[2]}`]]) {
      const { code, c } = await compare(ids[0]!, weak, ...args);
      expect(code).toBe(0);
      const changed = c.points.filter((p) => p.verdict !== 'same');
      expect(changed.every((p) => p.verdict === 'regression' && isEngine(p.label))).toBe(true);
      const large = c.points.filter((p) => isEngine(p.label) && p.sizeBytes >= 1 << 20);
      expect(large.length).toBeGreaterThan(0);
      expect(large.every((p) => p.verdict === 'regression')).toBe(true);
      // At 1 GiB the copy takes twice as long.
      for (const p of c.points.filter((x) => isEngine(x.label) && x.sizeBytes === 1 << 30))
        expect(p.ratio).toBeCloseTo(0.5, 1);
    }
  });

  it('fails a gate at 0.9 and passes the same gate between two seeds', async () => {
    const fail = await runCli(['compare', ids[0]!, weak, '--fail-below', '0.9', '--runs-dir', dir]);
    expect(fail.code).toBe(1);
    expect(fail.err).toMatch(/^sdma-lens: \d+ points below 0\.9 beyond noise \(lowest: engine\//);
    const pass = await runCli(['compare', ids[0]!, ids[1]!, '--fail-below', '0.9', '--runs-dir', dir]);
    expect(pass.code, pass.err).toBe(0);
  });
});
