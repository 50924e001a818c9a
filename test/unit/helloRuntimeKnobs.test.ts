/**
 * hello.runtimeKnobs (docs/PROTOCOL.md): the variables the helper set before the backend opened.
 * Optional, so older runs still read; bounded, so a hello cannot carry an unbounded list or odd names.
 */
import { describe, expect, it } from 'vitest';
import { RUNTIME_KNOBS_MAX, parseLine } from '../../src/core/protocol';
import { applySavedValue, newRun, runHeader, runtimeKnobs } from '../../src/core/run';
import { hello } from '../support/records';

const knobs = [
  { name: 'ROC_P2P_SDMA_SIZE', value: '0', previous: '4096', setBy: 'helper' },
  { name: 'GPU_FORCE_BLIT_COPY_SIZE', value: '0', previous: null, setBy: 'helper' },
];

function knob(name: string) {
  return { name, value: '0', previous: null, setBy: 'helper' };
}

function reopened(...records: object[]) {
  const run = newRun(runHeader('r1', 'sweep', '/bin/sdma-probe', ['sweep']));
  for (const r of records) applySavedValue(run, JSON.parse(JSON.stringify(r)));
  return run;
}

describe('hello.runtimeKnobs', () => {
  it('a hello without it (a run saved before it, an import) still parses, and the run has no knobs', () => {
    expect(parseLine(JSON.stringify(hello))).toMatchObject({ kind: 'record', record: { type: 'hello' } });
    const run = reopened(hello);
    expect(run.problems).toEqual([]);
    expect(run.hello?.command).toBe('sweep');
    expect(runtimeKnobs(run)).toBeUndefined();
  });

  it('is kept by the reducer, so a reopened run has it, previous null included', () => {
    const r = parseLine(JSON.stringify({ ...hello, runtimeKnobs: knobs }));
    expect(r).toMatchObject({ kind: 'record', record: { runtimeKnobs: knobs } });
    const run = reopened({ ...hello, runtimeKnobs: knobs });
    expect(run.problems).toEqual([]);
    expect(runtimeKnobs(run)).toEqual(knobs);
  });

  it(`takes up to ${RUNTIME_KNOBS_MAX} entries and refuses ${RUNTIME_KNOBS_MAX + 1}`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => knob(`KNOB_${i}`));
    expect(parseLine(JSON.stringify({ ...hello, runtimeKnobs: list(RUNTIME_KNOBS_MAX) })).kind).toBe('record');
    const r = parseLine(JSON.stringify({ ...hello, runtimeKnobs: list(RUNTIME_KNOBS_MAX + 1) }));
    expect(r.kind).toBe('malformed');
    expect(r.kind === 'malformed' && r.reason).toMatch(/^hello\.runtimeKnobs: /);
  });

  it.each([
    ['lower case', 'roc_p2p_sdma_size'],
    ['a leading digit', '1ROC'],
    ['a leading underscore', '_ROC'],
    ['an equals sign', 'ROC=1'],
    ['a space', 'ROC P2P'],
    ['empty', ''],
    ['65 characters', `A${'B'.repeat(64)}`],
  ])('refuses a name with %s', (_what, name) => {
    const r = parseLine(JSON.stringify({ ...hello, runtimeKnobs: [knob(name)] }));
    expect(r.kind).toBe('malformed');
    expect(r.kind === 'malformed' && r.reason).toMatch(/^hello\.runtimeKnobs\.0\.name: /);
  });

  it('takes a 64-character name', () => {
    expect(parseLine(JSON.stringify({ ...hello, runtimeKnobs: [knob(`A${'B'.repeat(63)}`)] })).kind).toBe('record');
  });

  it.each([
    ['a value longer than protocol text', { value: '7'.repeat(4097) }],
    ['a number as value', { value: 0 }],
    ['a previous longer than protocol text', { previous: '7'.repeat(4097) }],
    ['a missing previous', { previous: undefined }],
    ['another setBy', { setBy: 'user' }],
    ['not a list', null],
  ])('refuses %s', (_what, change) => {
    const runtime = change === null ? { name: 'ROC_P2P_SDMA_SIZE' } : [{ ...knob('ROC_P2P_SDMA_SIZE'), ...change }];
    expect(parseLine(JSON.stringify({ ...hello, runtimeKnobs: runtime })).kind).toBe('malformed');
  });

  it('a refused hello leaves the reopened run without one, and says why', () => {
    const run = reopened({ ...hello, runtimeKnobs: [knob('bad name')] });
    expect(run.hello).toBeUndefined();
    expect(run.problems[0]).toMatch(/hello\.runtimeKnobs\.0\.name/);
  });
});
