/**
 * The advice on imported runs (TransferBench, nvbandwidth: one size per path, summaries
 * without per-iteration times, CU counts the tool did not print) says only what they
 * measured: in the sweep panel's words (`comparisonsAt`, each setting's `basisLabel`) and in
 * the CLI's text, at every pair and CU count the panel can show.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Advice } from '../../src/core/advice/advice';
import { adviseAllPairs, adviseFromRun } from '../../src/core/advice/advice';
import { adviceText } from '../../src/core/advice/adviceText';
import { adviceView, basisLabel, comparisonsAt } from '../../src/core/advice/adviceView';
import type { Crossover } from '../../src/core/advice/crossover';
import type { ImportedRun } from '../../src/core/imports/importedRun';
import { parseImport } from '../../src/core/imports/importRun';
import type { Run } from '../../src/core/run';
import { applyRecord, newRun, runHeader } from '../../src/core/run';
import { readRunFile } from '../../src/core/runs/runStore';
import { sweepView } from '../../src/core/sweep/sweepView';

/** A run as `sdma-lens import` saves it, without the store. */
function imported(file: string): Run {
  const parsed = parseImport(readFileSync(join(__dirname, '../fixtures/imports', file)), file) as ImportedRun;
  const run = newRun({ ...runHeader(`import-${file}`, parsed.command, '', []), source: parsed.source });
  for (const r of [...(parsed.topology ? [parsed.topology] : []), ...parsed.samples, ...parsed.notes])
    applyRecord(run, r);
  return run;
}

/** Every pair's advice and every CU count the panel offers (and none picked). */
function panelStates(run: Run): { advice: Advice; cus: number | undefined }[] {
  const counts = [undefined, ...sweepView(run).cuCounts];
  return adviseAllPairs(run).flatMap((advice) => counts.map((cus) => ({ advice, cus })));
}

const IMPORTS = [
  'transferbench/h200x1-64K.txt',
  'transferbench/h200x1-1M.txt',
  'transferbench/h200x1-16M.csv',
  'transferbench/mi300x-show-iterations.txt',
  'nvbandwidth/h200x1.txt',
  'nvbandwidth/h200x1.json',
];

describe.each(IMPORTS)('the advice on an import of %s', (file) => {
  const run = imported(file);

  it('the panel never puts a heading over an empty list: with no comparison at the CU count shown, one sentence says so and what the run has', () => {
    for (const { advice, cus } of panelStates(run)) {
      const view = adviceView(advice);
      const { sentence, items } = comparisonsAt(view, cus);
      expect(sentence).not.toMatch(/^Crossovers at/);
      if (items.length === 0) {
        expect(sentence, `${advice.pairLabel} at ${cus} CUs`).toMatch(
          /^This run has no comparison of the engine with load\/store\b[^:]*(;|:) .+\.$/,
        );
        expect(sentence.endsWith(':')).toBe(false);
      } else {
        expect(sentence.endsWith(':')).toBe(true);
        expect(items.every((c) => c.cus === (cus ?? view.focus[0]?.cus ?? view.loadStoreCus))).toBe(true);
      }
    }
  });

  it('nothing is labelled "measured crossover" where no crossover was found', () => {
    for (const advice of adviseAllPairs(run)) {
      const found = advice.crossovers.some((c) => c.kind === 'crossover');
      for (const r of adviceView(advice).recommendations) {
        if (!found) expect(r.basisLabel, r.knob).not.toMatch(/crossover/);
        if (r.basis === 'measured-crossover') expect(r.basisLabel, r.knob).not.toBe('measured crossover');
      }
    }
  });

  it('the CLI text has no heading over an empty list, no "0 CUs" and no range from a size to itself', () => {
    for (const advice of adviseAllPairs(run)) {
      const lines = adviceText(advice).split('\n');
      for (const [i, line] of lines.entries()) {
        // A line ending in ':' is a heading: the next line must be under it.
        if (/:$/.test(line)) expect(lines[i + 1], `after "${line}"`).toMatch(/^# {2}/);
      }
      const text = lines.join('\n');
      expect(text).not.toMatch(/\b0 CUs?\b/);
      expect(text).not.toMatch(/from (\S+ \S+) to \1\b/);
    }
  });
});

describe('the advice on imports, case by case', () => {
  it('TransferBench on one H200, GPU 0 local at 8 CUs (not measured for that pair): the sentence names the counts it has', () => {
    const run = imported('transferbench/h200x1-1M.txt');
    const local = adviceView(adviseFromRun(run, { pair: { src: 0, dst: 0 } }));
    expect(comparisonsAt(local, 8)).toEqual({
      sentence:
        'This run has no comparison of the engine with load/store on 8 CUs for this pair; it compares them host-initiated at 32 and 132 CUs (the settings follow host-initiated at 32 CUs, the CU count measured nearest sdmaLens.advice.loadStoreCus).',
      items: [],
    });
    expect(comparisonsAt(local, 132).items.map((c) => c.kind)).toEqual(['insufficient']);
    // One size measured for both paths places nothing: the pair's one setting gets no value, and says why.
    expect(local.recommendations.map((r) => [r.knob, r.basisLabel])).toEqual([
      ['HSA_FORCE_SDMA_SIZE', 'no value (too few sizes measured to compare)'],
    ]);
  });

  it('TransferBench on two MI300X: host → GPU 0 has no load/store path, and the text says so in one sentence each', () => {
    const run = imported('transferbench/mi300x-show-iterations.txt');
    const host = adviseFromRun(run, { pair: { src: -1, dst: 0 } });
    expect(comparisonsAt(adviceView(host), undefined).sentence).toBe(
      'This run has no comparison of the engine with load/store for this pair: no initiator has both an engine path and a load/store path measured.',
    );
    const text = adviceText(host);
    expect(text).toMatch(
      /^# crossovers: none, since no initiator has both an engine path and a load\/store path measured for this pair\.$/m,
    );
    expect(text).toMatch(/^# settings: none suggested for this pair\.$/m);
    // GPU 0 → GPU 1: ROC_P2P_SDMA_SIZE gets no value, and its basis says why.
    const peer = adviceView(adviseFromRun(run, { pair: { src: 0, dst: 1 } }));
    expect(peer.recommendations.find((r) => r.knob === 'ROC_P2P_SDMA_SIZE')?.basisLabel).toBe(
      'no value (too few sizes measured to compare)',
    );
    // No device-initiated path measured: NCCL_GIN_TYPE and the GIN prerequisites serve none of it.
    expect(peer.recommendations.map((r) => r.knob)).toEqual(['ROC_P2P_SDMA_SIZE']);
  });

  it('nvbandwidth: its SM copies have no CU count, and the advice never says "0 CUs"', () => {
    const run = imported('nvbandwidth/h200x1.txt');
    const view = adviceView(adviseFromRun(run));
    expect(comparisonsAt(view, 0).sentence).toBe('The engine against load/store (CU count not recorded):');
    expect(view.crossovers[0]!.explanation).toMatch(
      /^Not enough sizes measured for both engine\/host and cu\/host \(CU count not recorded\) to find a crossover\./,
    );
    expect(adviceText(adviseFromRun(run))).toMatch(/host-initiated, against load\/store \(CU count not recorded\): /);
  });
});

describe('basis labels', () => {
  const focus = (kind: Crossover['kind'], initiator: 'host' | 'device' = 'device') =>
    ({ initiator, engine: `engine/${initiator}`, cu: `cu/${initiator}`, kind }) as Crossover;
  const measured = {
    basis: 'measured-crossover' as const,
    evidence: 'against cu/device on 64 CUs',
    value: '1',
    confidence: 'clear' as const,
  };

  it('say what the comparison the setting follows found', () => {
    expect(basisLabel({ focus: [focus('crossover')] }, measured)).toBe('measured crossover');
    expect(basisLabel({ focus: [focus('engine-always')] }, measured)).toBe('measured: engine ahead at every size');
    expect(basisLabel({ focus: [focus('cu-always')] }, measured)).toBe('measured: load/store ahead at every size');
    expect(
      basisLabel({ focus: [focus('no-clear-winner')] }, { ...measured, value: undefined, confidence: 'none' }),
    ).toBe('no value (measured: no clear winner)');
    expect(basisLabel({ focus: [focus('crossover')] }, { ...measured, confidence: 'uncertain' })).toBe(
      'measured crossover, uncertain',
    );
    expect(basisLabel({ focus: [] }, measured)).toBe('nothing measured to compare');
    expect(basisLabel({ focus: [focus('crossover')] }, { ...measured, basis: 'prerequisite' })).toBe('prerequisite');
  });

  it('with two comparisons, follow the one whose paths the evidence names', () => {
    const both = { focus: [focus('engine-always', 'host'), focus('crossover', 'device')] };
    expect(basisLabel(both, measured)).toBe('measured crossover');
    expect(basisLabel(both, { ...measured, evidence: 'cu/host on 64 CUs beat engine/host' })).toBe(
      'measured: engine ahead at every size',
    );
    expect(basisLabel(both, { ...measured, evidence: 'names neither' })).toBe('measured');
  });

  it('on a simulator sweep, the device-initiated thresholds follow its measured crossover', async () => {
    const run = await readRunFile(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'));
    const view = adviceView(adviseFromRun(run, { loadStoreCus: 8 }));
    expect(view.recommendations.find((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD')?.basisLabel).toBe(
      'measured crossover',
    );
    expect(view.recommendations.find((r) => r.knob === 'NCCL_GIN_ENABLE')?.basisLabel).toBe('prerequisite');
  });
});
