/**
 * The advice names the user's options as the front that prints it does: the CLI (`advise`'s
 * text and JSON, `sweep`'s advice) names flags and never a VS Code setting, the panel and the
 * extension's log name settings and the panel's controls, never a CLI flag.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Advice } from '../../src/core/advice/advice';
import { adviseAllPairs } from '../../src/core/advice/advice';
import { adviceText } from '../../src/core/advice/adviceText';
import { adviceView } from '../../src/core/advice/adviceView';
import { FRONT_OPTIONS, adviceFor, bothFronts, forFront, optionName } from '../../src/core/advice/fronts';
import type { Run } from '../../src/core/run';
import { readRunFile } from '../../src/core/runs/runStore';
import { benchRun } from '../support/benchRuns';
import { runCli } from '../support/cli';
import { SampleTable } from '../../src/core/sampleTable';

const SETTING = /sdmaLens\.[A-Za-z]/;
const FLAG = /sdma-lens \w+ --|(^|[\s(])--[a-z]/m;

/** Every string of a value, for checks on JSON and views. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** Runs whose advice names options: a sim sweep of several pairs (the pair note, GIN type without a version), one repetition a point (the repetitions' flag). */
async function runs(): Promise<Run[]> {
  const sim = await readRunFile(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'));
  const onePair = benchRun('sweep');
  const oneRep = {
    ...onePair,
    samples: SampleTable.from(onePair.samples.map((s) => ({ ...s, iters: 1, timesNs: [s.medianNs ?? s.meanNs] }))),
  };
  return [sim, onePair, oneRep];
}

describe('forFront', () => {
  it('resolves an option named both ways to the flag for the CLI and the setting for the extension', () => {
    const text = `Give the version (${bothFronts('rcclVersion', 'X')}), or run on the node.`;
    expect(text).toBe(
      'Give the version (sdma-lens advise --rccl-version X, or the sdmaLens.advice.rcclVersion setting), or run on the node.',
    );
    expect(forFront(text, 'cli')).toBe('Give the version (sdma-lens advise --rccl-version X), or run on the node.');
    expect(forFront(text, 'extension')).toBe(
      'Give the version (the sdmaLens.advice.rcclVersion setting), or run on the node.',
    );
    const pair = `the run also measured GPU 0 → host (${bothFronts('pair', 'SRC:DST')}).`;
    expect(forFront(pair, 'cli')).toBe('the run also measured GPU 0 → host (sdma-lens advise --pair SRC:DST).');
    expect(forFront(pair, 'extension')).toBe("the run also measured GPU 0 → host (the panel's pair switcher).");
  });

  it('names a setting given alone as its flag for the CLI, and a flag given alone as its setting for the extension', () => {
    expect(
      forFront('compared at sdmaLens.advice.loadStoreCus CUs; set the sdmaLens.advice.rcclVersion setting.', 'cli'),
    ).toBe('compared at sdma-lens advise --cus CUs; set sdma-lens advise --rccl-version.');
    expect(forFront('measure with sdma-lens sweep --iters 10 or more', 'extension')).toBe(
      'measure with the sdmaLens.sweep.iterations setting at 10 or more',
    );
    expect(forFront('(sdma-lens advise --pair SRC:DST)', 'extension')).toBe("(the panel's pair switcher)");
    // Text that names no option is left as it is, and a second pass changes nothing.
    for (const front of ['cli', 'extension'] as const) {
      expect(forFront('NCCL_GIN_TYPE=7 (RCCL 2.31.0).', front)).toBe('NCCL_GIN_TYPE=7 (RCCL 2.31.0).');
      const once = forFront(`x (${bothFronts('loadStoreCus', 'N')}) y`, front);
      expect(forFront(once, front)).toBe(once);
    }
  });

  it('names every option with the command that takes it, and every flag is a real flag of that command', () => {
    const usage = readFileSync(join(__dirname, '../../src/cli/usage.ts'), 'utf8');
    for (const option of Object.keys(FRONT_OPTIONS) as (keyof typeof FRONT_OPTIONS)[]) {
      const flag = optionName(option, 'cli').split(' ').at(-1)!;
      expect(usage, `${flag} in the usage text`).toContain(flag);
      expect(optionName(option, 'extension')).not.toMatch(FLAG);
    }
  });
});

describe('the advice as each front prints it', () => {
  let dir: string | undefined;
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("the CLI text names no setting; the extension's log names no flag", async () => {
    for (const run of await runs()) {
      for (const advice of adviseAllPairs(run)) {
        const cli = adviceText(advice);
        expect(cli, cli).not.toMatch(SETTING);
        const log = adviceText(advice, { front: 'extension' });
        expect(
          log.split('\n').filter((l) => FLAG.test(l)),
          "lines of the extension's text that name a flag",
        ).toEqual([]);
      }
    }
  });

  it("the panel names no flag and the CLI's --json no setting", async () => {
    dir = mkdtempSync(join(tmpdir(), 'sdma-fronts-'));
    for (const [i, run] of (await runs()).entries()) {
      for (const advice of adviseAllPairs(run)) {
        expect(strings(adviceView(advice)).filter((s) => FLAG.test(s))).toEqual([]);
        expect(strings(adviceFor(advice, 'cli')).filter((s) => SETTING.test(s))).toEqual([]);
      }
      const id = `run-${i}`;
      mkdirSync(join(dir, id));
      writeFileSync(
        join(dir, id, 'run.ndjson'),
        [
          JSON.stringify({ ...run.header, id }),
          ...[run.topology, ...run.samples].filter(Boolean).map((r) => JSON.stringify(r)),
        ].join('\n') + '\n',
      );
      for (const extra of [[], ['--json']]) {
        const r = await runCli(['advise', id, '--runs-dir', dir, ...extra]);
        expect(r.code, r.err).toBe(0);
        expect(r.out).not.toMatch(SETTING);
      }
    }
  });

  it("the options the advice tells the user to give, in each front's words", async () => {
    const [sim, , oneRep] = await runs();
    const advice: Advice = adviseAllPairs(sim!)[0]!;
    const gin = (a: Advice) => a.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')!.evidence;
    expect(gin(adviceFor(advice, 'cli'))).toMatch(
      /Give the version \(sdma-lens advise --rccl-version X\), or run on the node\.$/,
    );
    expect(gin(adviceFor(advice, 'extension'))).toMatch(
      /Give the version \(the sdmaLens\.advice\.rcclVersion setting\), or run on the node\.$/,
    );
    const few = adviseAllPairs(oneRep!)[0]!.focus[0]!;
    expect(adviceFor({ ...advice, focus: [few] }, 'cli').focus[0]!.uncertainty[0]).toMatch(
      /too few to judge the spread \(measure with 10 repetitions or more: sdma-lens sweep --iters 10\)$/,
    );
    expect(adviceFor({ ...advice, focus: [few] }, 'extension').focus[0]!.uncertainty[0]).toMatch(
      /too few to judge the spread \(measure with 10 repetitions or more: the sdmaLens\.sweep\.iterations setting\)$/,
    );
  });
});
