/**
 * `sdma-lens compare` through the CLI's own entry point (runCli): the real H200 runs saved in a
 * runs folder, the table and --json with the run-to-run tolerance and where it came from (the
 * default, --tolerance, --baseline-runs), --fail-below as a CI gate (exit 1 only for a ratio
 * below it beyond noise), runs named by path, and the errors: an unknown run, runs of
 * different kinds, a file that is not a run, a baseline run that is no repeat of A, bad flags.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Comparison } from '../../src/core/compare/compare';
import { belowBeyondNoise } from '../../src/core/compare/compare';
import { DEFAULT_TOLERANCE } from '../../src/core/compare/noise';
import type { Sample } from '../../src/core/protocol';
import { benchOutput, benchRun, benchRunText, runText, saveRun } from '../support/benchRuns';
import { runCli } from '../support/cli';
import { SampleTable } from '../../src/core/sampleTable';

let dir: string;
let firstFile: string;
const cli = (...args: string[]) => runCli(['compare', ...args, '--runs-dir', dir]);

const engine1G = (s: Sample) =>
  s.mover === 'engine' && s.initiator === 'host' && s.sizeBytes === 1 << 30 && s.mode === 'pipelined';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-compare-cli-'));
  firstFile = saveRun(dir, 'first', benchRunText('sweep', 'first'));
  saveRun(dir, 'rerun', benchRunText('sweepRerun', 'rerun'));
  saveRun(dir, 'matrix', benchRunText('matrix', 'matrix'));
  // The 1x H200 sweeps, each measured twice (the same node, an hour apart).
  saveRun(dir, 'x1-default', benchRunText('h200x1Default', 'x1-default'));
  saveRun(dir, 'x1-default-rerun', benchRunText('h200x1DefaultRerun', 'x1-default-rerun'));
  saveRun(dir, 'x1-full', benchRunText('h200x1Full', 'x1-full'));
  saveRun(dir, 'x1-full-rerun', benchRunText('h200x1FullRerun', 'x1-full-rerun'));
  // The first sweep with the copy engine's 1 GiB point 10 % slower, every time of it.
  const doctored = benchRun('sweep', 'doctored');
  const at = doctored.samples.findIndex(engine1G);
  doctored.samples = doctored.samples.mapped((s, i) => {
    if (i !== at) return s;
    s.timesNs = s.timesNs!.map((t) => t / 0.9);
    s.medianNs = s.medianNs! / 0.9;
    s.meanNs /= 0.9;
    s.gbps *= 0.9;
    s.gbpsMedian = s.gbpsMedian! * 0.9;
    return s;
  });
  saveRun(dir, 'doctored', runText(doctored));
  // An import of a summary: means only.
  const summary = benchRun('sweepRerun', 'summary');
  summary.samples = SampleTable.from(
    summary.samples.map(
      ({ timesNs: _t, medianNs: _m, gbpsMedian: _g, minNs: _n, maxNs: _x, stdevNs: _s, gbpsMax: _gm, ...rest }) => rest,
    ),
  );
  saveRun(dir, 'summary', runText(summary));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rows = (out: string) => out.split('\n').filter((l) => l.length > 0 && !l.startsWith('#'));

describe('sdma-lens compare', () => {
  it('prints one row per common point (point, A GB/s, B GB/s, ratio [low, high], verdict), the tolerance and the summary; exit 0', async () => {
    const r = await cli('first', 'rerun');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^# SDMA Lens comparison of two sweep runs: B against A\n# A: first · NVIDIA H200 · /);
    expect(r.out).toMatch(
      /^# run-to-run tolerance 6\.3 % \(default: 95th percentile of \|ratio − 1\| of the same point in two runs of one node \(1x H200, bench\/results h200x1-2026-12-01 and h200x1-rerun-2026-12-01, 1,371 points\)\)$/m,
    );
    expect(r.out).toMatch(/^# point\s+A GB\/s\s+B GB\/s\s+ratio \[low, high\]\s+verdict$/m);
    expect(rows(r.out)).toHaveLength(84);
    expect(rows(r.out).every((l) => /\s(same|regression|improvement)$/.test(l))).toBe(true);
    // 5 % slower beyond both runs' spread, within what two runs of one node differ by.
    expect(r.out).toMatch(
      /^ {2}cu\/host · GPU 0 → GPU 1 · 132 CUs · pipelined · 4 KiB\s+1\.498\s+1\.420\s+0\.948 \[0\.941, 0\.956\]\s+same$/m,
    );
    expect(r.out).toContain(
      '# 84 points in common: 84 same, 0 regressions, 0 improvements, 0 unknown noise; 0 only in A, 0 only in B',
    );
    expect(r.out).toContain('# no regression beyond noise');
    expect(r.out).toMatch(/^# geometric mean of the ratios: 0\.99\d$/m);
  });

  it("--tolerance 0 judges by each run's spread alone: 21 regressions and 4 improvements", async () => {
    const r = await cli('first', 'rerun', '--tolerance', '0');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('# run-to-run tolerance 0 % (given)\n');
    expect(r.out).toMatch(
      /^ {2}cu\/host · GPU 0 → GPU 1 · 132 CUs · pipelined · 4 KiB\s+1\.498\s+1\.420\s+0\.948 \[0\.941, 0\.956\]\s+regression$/m,
    );
    expect(r.out).toContain(
      '# 84 points in common: 59 same, 21 regressions, 4 improvements, 0 unknown noise; 0 only in A, 0 only in B',
    );
    expect(r.out).toContain(
      '# worst regression: cu/host · GPU 0 → GPU 1 · 132 CUs · pipelined · 4 KiB: 0.948 [0.941, 0.956]',
    );
  });

  it('--json prints the comparison: every point with both sides, ratio, interval, tolerance, widened interval and verdict, the method and the noise model', async () => {
    const r = await cli('first', 'rerun', '--json');
    expect(r.code, r.err).toBe(0);
    const c = JSON.parse(r.out) as Comparison & { files: { a: string; b: string } };
    expect(c.kind).toBe('sweep');
    expect(c.summary).toMatchObject({ common: 84, same: 84, regressions: 0, improvements: 0, unknownNoise: 0 });
    expect(c.method).toMatch(/interquartile range/);
    expect(c.method).toMatch(/widened by the run-to-run tolerance/);
    expect(c.noise).toMatchObject({ source: 'default', tolerance: DEFAULT_TOLERANCE });
    expect(c.noise.description).toMatch(/h200x1-2026-12-01 and h200x1-rerun-2026-12-01/);
    expect(c.tolerance).toBe(DEFAULT_TOLERANCE);
    expect(c.files.a).toBe(firstFile);
    for (const p of c.points) {
      expect(p.interval).toHaveLength(2);
      expect(p.ratio).toBeCloseTo(p.b.gbps / p.a.gbps, 12);
      expect(p.tolerance).toBe(DEFAULT_TOLERANCE);
      expect(p.widened![1]).toBeCloseTo(p.interval![1] * (1 + DEFAULT_TOLERANCE), 12);
    }
  });

  it('--tolerance 0.01 leaves the five small pipelined cu/host regressions', async () => {
    const r = await cli('first', 'rerun', '--tolerance', '0.01');
    expect(r.code, r.err).toBe(0);
    expect(rows(r.out).filter((l) => l.endsWith('regression'))).toHaveLength(5);
    expect(r.out).toContain(
      "# run-to-run tolerance 1 % (given); a regression or improvement must clear it as well as both runs' spread",
    );
  });

  it('--baseline-runs: the tolerance per path and size band from A and its repeats, a column of it, and where it came from', async () => {
    const r = await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'x1-full,x1-full-rerun');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      "# run-to-run tolerance from 3 runs of A's setup (A and 2 baseline runs), per path and size band: the 95th percentile of |ratio − 1| of the same point across them (",
    );
    expect(r.out).toMatch(/^# run-to-run tolerance of cu\/host, below 1 MiB: \d+\.?\d* % \(\d+ pairs\)$/m);
    expect(r.out).toMatch(/^# point\s+A GB\/s\s+B GB\/s\s+ratio \[low, high\]\s+tolerance\s+verdict$/m);
    expect(rows(r.out).every((l) => /\s\d+(\.\d+)? %\s+(same|regression|improvement)$/.test(l))).toBe(true);
    const c = JSON.parse(
      (await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'x1-full,x1-full-rerun', '--json')).out,
    ) as Comparison & { files: { baselines: string[] } };
    expect(c.noise.source).toBe('baseline runs');
    expect(c.noise.runs).toEqual(['x1-default', 'x1-full', 'x1-full-rerun']);
    expect(c.files.baselines).toHaveLength(2);
    expect(new Set(c.points.map((p) => p.tolerance)).size).toBeGreaterThan(1);
  });

  it('--baseline-runs refuses B, A itself, another kind, and --tolerance beside it', async () => {
    expect((await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'x1-default-rerun')).err).toBe(
      'sdma-lens: baseline run x1-default-rerun is B: the run-to-run tolerance comes from repeats of A, not from the run it judges\n',
    );
    expect((await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'x1-default')).err).toBe(
      'sdma-lens: baseline run x1-default is A itself: each baseline run must be another repeat of A\n',
    );
    const kind = await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'matrix');
    expect(kind.code).toBe(1);
    expect(kind.err).toBe(
      "sdma-lens: baseline run matrix is a matrix, A a sweep: a baseline run repeats A's measurement\n",
    );
    // The 2x H200 sweep is no repeat of the 1x H200's, though both are NVIDIA H200 measured with cuda.
    const node = await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'first');
    expect(node.code).toBe(1);
    expect(node.err).toBe(
      "sdma-lens: baseline run first is not a repeat of A's setup: its GPU count is 2, A's 1; the run-to-run tolerance must come from runs of A's node and backend\n",
    );
    const both = await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'x1-full', '--tolerance', '0.01');
    expect(both.code).toBe(2);
    expect(both.err).toContain('--tolerance and --baseline-runs both set the run-to-run tolerance: give one of them');
    expect((await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'x1-full,')).code).toBe(2);
    expect((await cli('x1-default', 'x1-default-rerun', '--baseline-runs', 'no-such-run')).code).toBe(2);
  });

  it('names runs by run.ndjson file or run folder as well as by id', async () => {
    const byId = await cli('first', 'rerun');
    const byPath = await cli(firstFile, dirname(firstFile).replace(/first$/, 'rerun'));
    expect(byPath.code, byPath.err).toBe(0);
    expect(byPath.out).toBe(byId.out);
  });

  it('--fail-below: exit 1 only when a point is below the ratio beyond noise, naming the points', async () => {
    const pass = await cli('first', 'rerun', '--fail-below', '0.95');
    expect(pass.code, pass.err).toBe(0);
    expect(pass.out).toContain('# --fail-below 0.95: no point below 0.95 beyond noise');
    // By default the rerun's 5 % slower small copies are within the run-to-run tolerance: they pass a gate at 0.97.
    expect((await cli('first', 'rerun', '--fail-below', '0.97')).code).toBe(0);

    // By each run's spread alone they fail it.
    const c = JSON.parse((await cli('first', 'rerun', '--json', '--tolerance', '0')).out) as Comparison;
    const expected = belowBeyondNoise(c, 0.97);
    expect(expected.length).toBeGreaterThan(0);
    const fail = await cli('first', 'rerun', '--fail-below', '0.97', '--tolerance', '0');
    expect(fail.code).toBe(1);
    expect(fail.out).toContain(`# --fail-below 0.97: ${expected.length} points below 0.97 beyond noise: `);
    expect(fail.err).toMatch(
      /^sdma-lens: \d+ points below 0\.97 beyond noise \(lowest: cu\/host · GPU 0 → GPU 1 · 132 CUs · pipelined · 4 KiB 0\.948 \[0\.941, 0\.956\]\)\n$/,
    );

    const json = await cli('first', 'rerun', '--fail-below', '0.97', '--json', '--tolerance', '0');
    expect(json.code).toBe(1);
    expect((JSON.parse(json.out) as { failBelow: { below: string[] } }).failBelow.below).toEqual(
      expected.map((p) => p.key),
    );
  });

  it('--fail-below 0.95 catches the copy with one point 10 % slower by default, and not the reverse', async () => {
    const r = await cli('first', 'doctored', '--fail-below', '0.95');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^sdma-lens: 1 point below 0\.95 beyond noise \(lowest: engine\/host · GPU 0 → GPU 1 · pipelined · 1 GiB 0\.900 \[0\.900, 0\.900\]\)\n$/,
    );
    expect(rows(r.out).filter((l) => !l.endsWith(' same'))).toEqual([
      expect.stringMatching(
        /engine\/host · GPU 0 → GPU 1 · pipelined · 1 GiB .* 0\.900 \[0\.900, 0\.900\]\s+regression$/,
      ),
    ]);
    expect((await cli('doctored', 'first', '--fail-below', '0.95')).code).toBe(0);
  });

  it('summary-only points cannot fail the gate: they are named as not judged', async () => {
    const r = await cli('first', 'summary', '--fail-below', '0.97');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^# --fail-below 0\.97: \d+ points below 0\.97 with unknown noise, not judged: /m);
    expect(r.out).toContain('# --fail-below 0.97: no common point has a known spread, so none could fail');
    expect(rows(r.out).every((l) => l.endsWith('unknown noise'))).toBe(true);
  });

  it('an unknown run id is a usage error (exit 2) that says where it looked', async () => {
    const r = await cli('first', 'no-such-run');
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `sdma-lens compare: "no-such-run" is neither a run in ${dir} (sdma-lens runs lists them) nor a run.ndjson file or run folder`,
    );
    expect(r.out).toBe('');
  });

  it('runs of different kinds: exit 1 with the reason', async () => {
    const r = await cli('first', 'matrix');
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'sdma-lens: run A (first) is a sweep (84 samples) and run B (matrix) a matrix (8 cells): runs of different kinds have no point in common\n',
    );
    expect(r.out).toBe('');
  });

  it("a file that is not a run (the helper's own output, no run header) is refused by name", async () => {
    const file = saveRun(dir, 'raw-holder', benchOutput('sweep'));
    const r = await cli('first', file);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `sdma-lens: ${file} has an unreadable run header: Invalid type: Expected "run" but received "hello"\n`,
    );
  });

  it('bad arguments exit 2', async () => {
    expect((await cli('first')).code).toBe(2);
    expect((await cli('first', 'rerun', 'doctored')).code).toBe(2);
    const below = await cli('first', 'rerun', '--fail-below', 'most');
    expect(below.code).toBe(2);
    expect(below.err).toContain('--fail-below needs a ratio above 0, e.g. 0.95 (got "most")');
    expect((await cli('first', 'rerun', '--fail-below', '0')).code).toBe(2);
    expect((await cli('first', 'rerun', '--tolerance', '1')).code).toBe(2);
    expect((await cli('first', 'rerun', '--bogus')).code).toBe(2);
  });
});
