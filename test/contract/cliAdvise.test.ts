/**
 * `sdma-lens advise` on the runs the other commands save, through the CLI as it ships (bundled
 * from src/cli/bin.ts, run with Node) and the real helper on the simulated node: a collective
 * run is advised from its collective crossovers, as a block to source and as JSON; a run kind
 * with nothing to advise from says what it is, prints nothing to source and exits 1. The
 * collective advice itself is asserted by structure (an operation's crossover, the settings'
 * knobs, the notes), not by its numbers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { knob } from '../../src/core/advice/knobs';
import { RunStore } from '../../src/core/runs/runStore';
import { bundleCli } from '../support/cliProcess';

let work: string;
let cli: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sdma-cli-advise-'));
  cli = bundleCli(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function sdmaLens(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs one command into a runs folder of its own; returns the folder and the id of the run it saved. */
function saved(command: string[]): { runs: string; id: string } {
  const runs = mkdtempSync(join(work, 'runs-'));
  const r = sdmaLens([...command, '--runs-dir', runs, '--helper', inject('helperPath')]);
  expect(r.code, r.err).toBe(0);
  const ids = readdirSync(runs);
  expect(ids).toHaveLength(1);
  return { runs, id: ids[0]! };
}

interface CollectiveJson {
  runId: string;
  command: string;
  simulated: boolean;
  crossovers: { op: string; kind: string; text: string }[];
  recommendations: { knob: string; value?: string; evidence: string }[];
  cuBudget: string[];
  notes: string[];
}

describe('sdma-lens advise on a collective run', () => {
  let runs: string;
  let id: string;
  beforeAll(() => {
    ({ runs, id } = saved(['collective', '--backend', 'sim', '-b', '1M', '-e', '256M', '-f', '4']));
  });

  it("prints the collective advice as the sweep's: a crossover per operation, the settings, the notes, then the exports; exit 0", async () => {
    const r = sdmaLens(['advise', id, '--runs-dir', runs]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/no samples/);
    const lines = r.out.trimEnd().split('\n');
    // A block to source: comments, then `# shell:` and export lines.
    const shell = lines.indexOf('# shell:');
    expect(shell).toBeGreaterThan(0);
    expect(lines.slice(0, shell).every((l) => l.startsWith('#'))).toBe(true);
    expect(lines.slice(shell + 1).every((l) => /^export [A-Z][A-Z0-9_]*=\S+$|^# note: /.test(l))).toBe(true);
    expect(lines[0]).toBe(`# run ${id}, collective, rank-per-process`);
    expect(r.out).toMatch(/^# SIMULATED: /m);
    // One crossover line per operation the run measured, under its heading.
    const run = await new RunStore(runs).open(id);
    const ops = [...new Set((run.collectives ?? []).map((p) => p.op))];
    expect(ops.length).toBeGreaterThan(0);
    const heading = lines.indexOf('# crossovers, the engine variant against the default path:');
    expect(heading).toBeGreaterThan(0);
    expect(lines.slice(heading + 1, heading + 1 + ops.length).map((l) => /^# {3}(\w+): /.exec(l)?.[1])).toEqual(ops);
    // The settings: every recommendation of the JSON, by its knob, and an export for each value.
    const json = JSON.parse(sdmaLens(['advise', id, '--runs-dir', runs, '--json']).out) as CollectiveJson;
    const settings = lines.indexOf('# settings:');
    expect(settings).toBeGreaterThan(heading);
    expect(json.recommendations.length).toBeGreaterThan(0);
    for (const rec of json.recommendations) {
      const said =
        rec.value !== undefined
          ? new RegExp(`^# {3}${rec.knob}=${rec.value}( \\[uncertain\\])?$`)
          : new RegExp(`^# {3}${rec.knob}: no value$`);
      expect(
        lines.some((l) => said.test(l)),
        `${rec.knob} in the settings`,
      ).toBe(true);
      if (rec.value !== undefined) expect(lines).toContain(`export ${rec.knob}=${rec.value}`);
    }
    for (const note of json.notes) expect(lines).toContain(`# note: ${note}`);
  });

  it('--json gives the collective advice object: the crossovers per operation, settings of catalog knobs, the notes', async () => {
    const r = sdmaLens(['advise', id, '--runs-dir', runs, '--json']);
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as CollectiveJson;
    expect(json).toMatchObject({ runId: id, command: 'collective', simulated: true });
    const run = await new RunStore(runs).open(id);
    // One crossover per engine variant that ran the operation (AMD AlltoAll: ce and gin-sdma-lib).
    expect([...new Set(json.crossovers.map((c) => c.op))]).toEqual([
      ...new Set((run.collectives ?? []).map((p) => p.op)),
    ]);
    for (const c of json.crossovers) expect(c.text.length).toBeGreaterThan(0);
    expect(json.recommendations.map((x) => x.knob)).toContain('NCCL_GIN_TYPE');
    for (const rec of json.recommendations) {
      expect(knob(rec.knob), rec.knob).toBeDefined();
      expect(rec.evidence.length).toBeGreaterThan(0);
    }
    expect(Array.isArray(json.notes)).toBe(true);
    expect(Array.isArray(json.cuBudget)).toBe(true);
  });

  it("refuses the flags of a sweep's advice with a usage error", () => {
    const r = sdmaLens(['advise', id, '--runs-dir', runs, '--pair', '0:1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /--pair: for a sweep's advice; run \S+ is a collective run, advised from its own measurements/,
    );
  });
});

describe('sdma-lens advise on a run it cannot advise from', () => {
  it.each([
    [
      'an overlap run',
      ['overlap', '--backend', 'sim', '--compute', 'gemm', '--phase-ms', '50'],
      /is a compute overlap run: it measures how much compute is kept beside each copy path/,
    ],
    [
      'a bandwidth matrix',
      ['matrix', '--backend', 'sim'],
      /is a bandwidth matrix: it measures each GPU pair at one size/,
    ],
  ])('%s: says what the run is and why, prints nothing to source, exits 1', (_what, command, said) => {
    const { runs, id } = saved(command);
    const r = sdmaLens(['advise', id, '--runs-dir', runs]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(said);
    expect(r.err).toMatch(/advise works on a sweep .* or a collective run .*; nothing was advised/);
    expect(r.err).not.toMatch(/no samples/);
  });
});
