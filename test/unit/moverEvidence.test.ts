/**
 * Mover evidence (docs/PROTOCOL.md, `moverEvidence`, `series`, `mover-mismatch`): the records'
 * validation, valid and hostile; the words every view uses; the sweep's Evidence columns, its
 * exports (CSV formula injection, Markdown) and CLI table; the runtime-default series kept
 * apart from the helper's paths; the matrix cells; compare's "moved differently"; the page
 * messages; and how a run that ends with mover-mismatch is said.
 */
import { describe, expect, it } from 'vitest';
import { adviseFromRun } from '../../src/core/advice/advice';
import { compareRuns } from '../../src/core/compare/compare';
import { parseCompareHostMessage } from '../../src/core/compare/compareMessages';
import { compareTableModel } from '../../src/core/compare/comparePanelTable';
import { compareTable } from '../../src/core/compare/compareTable';
import { comparePageView } from '../../src/core/compare/compareView';
import { fastPredicate } from '../../src/core/fastCheck';
import { parseMatrixHostMessage } from '../../src/core/matrix/matrixMessages';
import { matrixTableModel } from '../../src/core/matrix/matrixPanelTable';
import { matrixTable } from '../../src/core/matrix/matrixTable';
import { matrixPageView } from '../../src/core/matrix/matrixView';
import {
  evidenceSummary,
  evidenceTitle,
  evidenceWord,
  movedDifferently,
  standsForItsPath,
} from '../../src/core/moverEvidence';
import type { MatrixCell, MoverEvidence, Sample } from '../../src/core/protocol';
import { MatrixCellSchema, SampleSchema, parseLine, validateRecord } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { applyRecord, applySavedValue, newRun } from '../../src/core/run';
import { describeEnd } from '../../src/core/runtime/session';
import { parseHostMessage } from '../../src/core/sweep/sweepMessages';
import { seriesLabel, sweepTableModel } from '../../src/core/sweep/sweepPanelTable';
import { sweepTable } from '../../src/core/sweep/sweepTable';
import { contradictingPoints, seriesForCus, sweepView } from '../../src/core/sweep/sweepView';
import { tableCsv, tableMarkdown } from '../../src/core/tables/tableText';
import { parseCsv } from '../support/csv';
import { done, header, hello, sample } from '../support/records';

const simulated = (mover: 'cu' | 'engine'): MoverEvidence => ({
  source: 'simulated',
  observed: mover,
  verdict: 'matches',
  detail: 'simulated: the model carried the bytes as labelled',
});
const mislabelled: MoverEvidence = {
  source: 'simulated',
  observed: 'cu',
  verdict: 'contradicts',
  detail: 'simulated: a CU copy kernel carried the bytes (--fault mislabel-after)',
};
const cupti: MoverEvidence = {
  source: 'cupti',
  observed: 'engine',
  verdict: 'matches',
  detail: '4 memcpy records on an async-memcpy channel',
  copyKind: 'PtoP',
  channelType: 'async-memcpy',
  channelId: 4294967295,
  kernel: 'copyKernel<float>',
  records: 4,
};
const kfd: MoverEvidence = {
  source: 'kfd-sdma',
  observed: 'engine',
  verdict: 'matches',
  detail: "the KFD's SDMA activity counters moved by 12 us",
  sdmaUs: 12,
  engineUs: 11.4,
};

const engineSample = (over: Partial<Sample> = {}) => sample({ mover: 'engine', cus: 0, engines: 1, ...over });

function cell(over: Partial<MatrixCell> = {}): MatrixCell {
  return {
    type: 'matrix-cell',
    mover: 'engine',
    initiator: 'host',
    src: 0,
    dst: 1,
    sizeBytes: 1 << 20,
    cus: 0,
    engines: 1,
    iters: 20,
    medianNs: 20_000,
    meanNs: 20_100,
    minNs: 19_000,
    maxNs: 22_000,
    gbps: 52.4288,
    gbpsMean: 52.17,
    validated: true,
    ...over,
  };
}

function runOf(records: unknown[], id = 'ev-run', command: 'sweep' | 'matrix' = 'sweep'): Run {
  const run = newRun({ ...header(id), command });
  for (const r of [hello, ...records, done]) applySavedValue(run, JSON.parse(JSON.stringify(r)));
  return run;
}

describe('protocol: moverEvidence and series', () => {
  it('accepts each source, with and without its facts, on samples and matrix cells', () => {
    for (const e of [
      simulated('cu'),
      cupti,
      kfd,
      { ...simulated('cu'), source: 'none', observed: 'unknown', verdict: 'not-observed' },
    ]) {
      const s =
        e.observed === 'engine'
          ? engineSample({ moverEvidence: e as MoverEvidence })
          : sample({ moverEvidence: e as MoverEvidence });
      expect(parseLine(JSON.stringify(s))).toMatchObject({ kind: 'record', record: { moverEvidence: e } });
    }
    expect(parseLine(JSON.stringify(cell({ moverEvidence: kfd })))).toMatchObject({ kind: 'record' });
    expect(parseLine(JSON.stringify(engineSample({ series: 'runtime-default' })))).toMatchObject({
      kind: 'record',
      record: { series: 'runtime-default' },
    });
  });

  it('a sample without either field (a run saved before them) reads as it always did', () => {
    const r = parseLine(JSON.stringify(sample()));
    expect(r.kind).toBe('record');
    expect(r.kind === 'record' && 'moverEvidence' in r.record).toBe(false);
  });

  it('keeps the ingest fast path: the sample and matrix-cell schemas still compile to a plain check', () => {
    expect(fastPredicate(SampleSchema)).toBeDefined();
    expect(fastPredicate(MatrixCellSchema)).toBeDefined();
  });

  const hostile: [string, unknown][] = [
    ['an unknown verdict', { ...mislabelled, verdict: 'maybe' }],
    ['an unknown source', { ...cupti, source: 'nvml' }],
    ['an unknown observed mover', { ...cupti, observed: 'sm' }],
    ['a detail of 257 characters', { ...cupti, detail: 'x'.repeat(257) }],
    ['a detail of a megabyte', { ...cupti, detail: '\u202e'.repeat(1 << 20) }],
    ['a copy kind of 17 characters', { ...cupti, copyKind: 'HtoDHtoDHtoDHtoDH' }],
    ['a channel type of 17 characters', { ...cupti, channelType: 'async-memcpy-long' }],
    ['a kernel name of 257 characters', { ...cupti, kernel: 'k'.repeat(257) }],
    ['a number as detail', { ...cupti, detail: 42 }],
    ['no detail', { source: 'cupti', observed: 'engine', verdict: 'matches' }],
    ['a negative channel id', { ...cupti, channelId: -1 }],
    ['a channel id past uint32', { ...cupti, channelId: 2 ** 32 }],
    ['a fractional record count', { ...cupti, records: 1.5 }],
    ['a string record count', { ...cupti, records: '4' }],
    ['negative SDMA microseconds', { ...kfd, sdmaUs: -1 }],
    ['negative engine time', { ...kfd, engineUs: -0.1 }],
    ['NaN engine time', { ...kfd, engineUs: Number.NaN }],
    ['infinite engine time', { ...kfd, engineUs: Infinity }],
    ['an array', [cupti]],
    ['a string', 'engine'],
    ['null', null],
    ['a verdict that is not the evidence against the mover', { ...cupti, observed: 'cu', verdict: 'matches' }],
    ['"matches" for nothing observed', { ...cupti, observed: 'unknown', verdict: 'matches' }],
    ['"not-observed" for an observed mover', { ...cupti, verdict: 'not-observed' }],
  ];

  it.each(hostile)('refuses a sample with %s, naming the field (fast path or not)', (_what, e) => {
    const r = validateRecord({ ...engineSample(), moverEvidence: e });
    expect(r.kind).toBe('malformed');
    expect(r.kind === 'malformed' && r.reason).toMatch(/^sample\.moverEvidence/);
    const m = validateRecord({ ...cell(), moverEvidence: e });
    expect(m.kind === 'malformed' && m.reason).toMatch(/^matrix-cell\.moverEvidence/);
  });

  it('refuses an unknown series, and NaN or Infinity written as JSON numbers', () => {
    expect(validateRecord({ ...engineSample(), series: 'user-default' })).toMatchObject({ kind: 'malformed' });
    expect(validateRecord({ ...engineSample(), series: 1 })).toMatchObject({ kind: 'malformed' });
    const text = JSON.stringify(engineSample({ moverEvidence: { ...kfd, engineUs: 1 } })).replace(
      '"engineUs":1',
      '"engineUs":1e999',
    );
    expect(parseLine(text)).toMatchObject({ kind: 'malformed' });
  });

  it('accepts a detail of exactly 256 characters: the helper cuts at 256 bytes', () => {
    const detail = 'é'.repeat(128);
    expect(new TextEncoder().encode(detail).length).toBe(256);
    expect(validateRecord(engineSample({ moverEvidence: { ...cupti, detail } })).kind).toBe('record');
  });

  it('a saved run keeps a sample with bad evidence out and says why, and keeps the rest', () => {
    const run = runOf([sample(), { ...engineSample(), moverEvidence: { ...cupti, verdict: 'unknown' } }]);
    expect(run.samples).toHaveLength(1);
    expect(run.problems[0]).toMatch(/sample\.moverEvidence\.verdict/);
  });
});

describe('the words', () => {
  it('one word per state, and "not recorded" without evidence', () => {
    expect(evidenceWord(cupti)).toBe('✓ engine (CUPTI)');
    expect(evidenceWord(kfd)).toBe('✓ engine (KFD)');
    expect(evidenceWord(mislabelled)).toBe('✗ contradicts');
    expect(evidenceWord({ ...kfd, observed: 'unknown', verdict: 'not-observed' })).toBe('not observed');
    expect(evidenceWord(simulated('cu'))).toBe('simulated');
    expect(evidenceWord(undefined)).toBe('not recorded');
  });

  it('the tooltip has the detail and the facts, its controls and bidi marks as escapes', () => {
    const title = evidenceTitle('engine', { ...cupti, detail: 'seen\u202e\nthere' });
    expect(title).toContain('seen\\u202e\\x0athere');
    expect(title).toContain('copy kind PtoP');
    expect(title).toContain('channel async-memcpy #4294967295');
    expect(title).toContain('kernel copyKernel<float>');
    expect(title).toMatch(/source: CUPTI · observed: engine · matches the label engine/);
    expect(evidenceTitle('engine', kfd)).toMatch(/SDMA counters \+12 µs · engine time 11\.4 µs/);
  });

  it('stands for its path: not the runtime-default series, not a contradicting sample', () => {
    expect(standsForItsPath(sample())).toBe(true);
    expect(standsForItsPath(engineSample({ moverEvidence: kfd }))).toBe(true);
    expect(standsForItsPath(engineSample({ moverEvidence: mislabelled }))).toBe(false);
    expect(standsForItsPath(engineSample({ series: 'runtime-default' }))).toBe(false);
  });
});

describe('the sweep: Evidence columns, exports, the runtime-default series', () => {
  const injected = { ...mislabelled, detail: '=HYPERLINK("http://x","y")|pipe' };
  const run = runOf([
    sample({ sizeBytes: 1 << 20, moverEvidence: simulated('cu') }),
    engineSample({ sizeBytes: 1 << 20, moverEvidence: injected }),
    engineSample({
      sizeBytes: 4 << 20,
      series: 'runtime-default',
      mover: 'cu',
      cus: 8,
      moverEvidence: simulated('cu'),
    }),
    engineSample({ sizeBytes: 8 << 20, series: 'runtime-default', moverEvidence: simulated('engine') }),
    engineSample({ sizeBytes: 8 << 20, moverEvidence: simulated('engine') }),
  ]);
  const view = sweepView(run);

  it('the runtime-default samples are one series of their own, whatever mover the runtime used', () => {
    const labels = view.series.map(seriesLabel);
    expect(labels).toEqual(['cu/host · 8 CUs', 'engine/host', 'runtime default (engine/host)']);
    const own = view.series.find((s) => !s.series && s.path === 'engine/host')!;
    const runtime = view.series.find((s) => s.series === 'runtime-default')!;
    expect(own.points.map((p) => p.sizeBytes)).toEqual([1 << 20, 8 << 20]);
    expect(runtime.points.map((p) => [p.sizeBytes, p.mover])).toEqual([
      [4 << 20, 'cu'],
      [8 << 20, 'engine'],
    ]);
    // A blit the runtime chose is no CU count of the sweep's, and the series is drawn at every count.
    expect(view.cuCounts).toEqual([8]);
    expect(seriesForCus(view, 8)).toContain(runtime);
  });

  it('a contradicting sample is flagged, and says so in the exports', () => {
    expect(contradictingPoints(view).map(({ series, point }) => [seriesLabel(series), point.sizeBytes])).toEqual([
      ['engine/host', 1 << 20],
    ]);
    const table = sweepTableModel(view);
    expect(table.notes?.some((n) => n.startsWith('✗ contradicts') && n.includes('engine/host at 1 MiB'))).toBe(true);
    expect(table.notes?.some((n) => n.startsWith('runtime default:'))).toBe(true);
  });

  it('CSV: the four evidence columns per series, the outside detail neutralised as a formula', () => {
    const table = sweepTableModel(view);
    const [head, ...rows] = parseCsv(tableCsv(table));
    const at = (row: string[], column: string) => row[head!.indexOf(column)];
    const mib = rows.find((r) => r[1] === String(1 << 20))!;
    expect(at(mib, 'engine/host evidence source')).toBe('simulated');
    expect(at(mib, 'engine/host evidence observed')).toBe('cu');
    expect(at(mib, 'engine/host evidence verdict')).toBe('contradicts');
    expect(at(mib, 'engine/host evidence detail')).toBe(`'${injected.detail}`);
    expect(at(mib, 'cu/host · 8 CUs evidence verdict')).toBe('matches');
    const four = rows.find((r) => r[1] === String(4 << 20))!;
    expect(at(four, 'runtime default (engine/host) runtime mover')).toBe('cu');
    expect(at(four, 'engine/host evidence source')).toBe('');
    // Markdown: the pipe in the detail stays inside its cell.
    const md = tableMarkdown(table)
      .split('\n')
      .find((l) => l.includes('HYPERLINK'))!;
    expect(md).toContain('=HYPERLINK("http://x","y")\\|pipe');
    expect(md.split(/(?<!\\)\|/).length - 2).toBe(table.columns.length);
  });

  it('a run without evidence exports "not recorded", and its CLI table says so once', () => {
    const old = runOf([sample(), engineSample()]);
    const [head, row] = parseCsv(tableCsv(sweepTableModel(sweepView(old))));
    expect(row![head!.indexOf('engine/host evidence source')]).toBe('not recorded');
    const text = sweepTable(old);
    expect(text).toMatch(/^# mover evidence: not recorded/m);
    expect(text).not.toMatch(/evidence\s*$/m);
  });

  it('the CLI table: an evidence column where the words differ, ✗ beside a contradicting figure', () => {
    const text = sweepTable(run);
    expect(text).toMatch(/^#\s+size\s+engine\/host\s+evidence$/m);
    expect(text).toMatch(/^\s+1 MiB\s+[\d.]+ ✗\s+✗ contradicts$/m);
    expect(text).toMatch(/^# runtime default, GPU 0 → GPU 1/m);
    expect(text).toMatch(/^\s+4 MiB\s+cu [\d.]+\s+simulated$/m);
    expect(text).toMatch(/^# ✗ engine\/host 1 MiB, GPU 0 → GPU 1: =HYPERLINK/m);
  });

  it('a simulated run whose samples all say the same prints its tables as before, and one line', () => {
    const text = sweepTable(
      runOf([sample({ moverEvidence: simulated('cu') }), engineSample({ moverEvidence: simulated('engine') })]),
    );
    expect(text).toMatch(/^# mover evidence: simulated \(every sample\)$/m);
    expect(text).toMatch(/^\s+1 MiB\s+[\d.]+$/m);
  });

  it('advice reads neither the runtime-default series nor the contradicting sample', () => {
    const a = runOf([engineSample({ series: 'runtime-default', moverEvidence: simulated('engine') })]);
    expect(adviseFromRun(a).pairLabel).toBe(adviseFromRun(runOf([])).pairLabel);
  });

  it('the page message carries the evidence and the series, and refuses what is out of bounds', () => {
    const message = { type: 'sweep', view, evidenceNote: 'One sample is flagged.' };
    const parsed = parseHostMessage(JSON.parse(JSON.stringify(message)));
    expect(parsed?.view.series.find((s) => s.series)?.points[0]?.mover).toBe('cu');
    expect(parsed?.view.series[1]?.points[0]?.evidence?.state).toBe('contradicts');
    const bad = (mutate: (v: Record<string, unknown>) => void) => {
      const copy = JSON.parse(JSON.stringify(message));
      mutate(copy.view.series[1].points[0].evidence);
      return parseHostMessage(copy);
    };
    expect(bad((e) => (e.state = 'fine'))).toBeUndefined();
    expect(bad((e) => (e.verdict = 'maybe'))).toBeUndefined();
    expect(bad((e) => (e.detail = 'x'.repeat(257)))).toBeUndefined();
    expect(bad((e) => (e.word = 'w'.repeat(65)))).toBeUndefined();
    const series = JSON.parse(JSON.stringify(message));
    series.view.series[2].series = 'user-default';
    expect(parseHostMessage(series)).toBeUndefined();
  });
});

describe('the matrix', () => {
  const run = runOf(
    [
      cell({ src: 0, dst: 1, moverEvidence: simulated('engine') }),
      cell({ src: 1, dst: 0, gbps: 80, moverEvidence: mislabelled }),
      {
        type: 'error',
        code: 'mover-mismatch',
        message: 'engine/host GPU 1 -> GPU 0: labelled engine, but ...',
        cell: { mover: 'engine', initiator: 'host', src: 1, dst: 0 },
      },
    ],
    'ev-matrix',
    'matrix',
  );
  run.header.helper.args = ['matrix', '--gpus', '0,1', '--paths', 'engine/host'];
  const view = matrixPageView(run);

  it('each measured cell carries its evidence; a contradicting one is flagged and out of the stats', () => {
    const path = view.paths[0]!;
    const flagged = path.rows[1]![0]!;
    expect(flagged).toMatchObject({
      state: 'measured',
      gbps: 80,
      evidence: { state: 'contradicts', word: '✗ contradicts' },
    });
    expect(path.rows[0]![1]!.evidence?.word).toBe('simulated');
    expect(path.contradicts).toBe(1);
    expect(path.stats?.maxGbps).toBe(52.4288);
    expect(path.evidenceText).toBe('1 simulated, 1 ✗ contradicts');
    expect(parseMatrixHostMessage({ type: 'matrix-view', view: JSON.parse(JSON.stringify(view)) })).toBeDefined();
  });

  it('its table and CLI text carry the evidence', () => {
    const [head, ...rows] = parseCsv(tableCsv(matrixTableModel(view)));
    expect(head!.slice(-4)).toEqual(['evidence source', 'evidence observed', 'evidence verdict', 'evidence detail']);
    expect(rows.find((r) => r[1] === 'GPU 1')!.slice(-3)).toEqual(['cu', 'contradicts', mislabelled.detail]);
    const text = matrixTable(run);
    expect(text).toMatch(/80\.00✗/);
    expect(text).toMatch(/^# mover evidence: 1 simulated, 1 ✗ contradicts$/m);
  });
});

describe('compare: points whose bytes were moved differently', () => {
  const times = (n: number) => Array.from({ length: 10 }, (_, i) => n * (1 + i / 1000));
  const point = (e: MoverEvidence | undefined, over: Partial<Sample> = {}) =>
    engineSample({ timesNs: times(20_000), iters: 10, ...(e ? { moverEvidence: e } : {}), ...over });

  it('sentences: a different observed mover, one contradicting; none for the same or a side without', () => {
    expect(movedDifferently(kfd, { ...kfd, observed: 'cu', verdict: 'contradicts' })).toMatch(/A: engine, B: cu/);
    expect(
      movedDifferently(simulated('engine'), { ...simulated('engine'), verdict: 'contradicts', observed: 'cu' }),
    ).toMatch(/moved differently/);
    expect(movedDifferently({ ...kfd, observed: 'unknown', verdict: 'not-observed' }, kfd)).toBeUndefined();
    expect(movedDifferently(kfd, cupti)).toBeUndefined();
    expect(movedDifferently(undefined, mislabelled)).toBeUndefined();
  });

  it('flags the point in the comparison, its table, page view and export; the verdict stands', () => {
    const a = runOf([point(kfd), point(kfd, { sizeBytes: 2 << 20 })], 'a');
    const b = runOf([point(mislabelled), point(kfd, { sizeBytes: 2 << 20 })], 'b');
    const c = compareRuns(a, b);
    expect(c.points.map((p) => Boolean(p.movedDifferently))).toEqual([true, false]);
    expect(c.points[0]!.evidence).toEqual({ a: '✓ engine (KFD)', b: '✗ contradicts' });
    expect(c.points[0]!.verdict).toBe('same');
    expect(c.summary.movedDifferently).toBe(1);
    expect(c.notes.some((n) => /B \(b\) has 1 sample whose mover evidence contradicts its label/.test(n))).toBe(true);
    const text = compareTable(c);
    expect(text).toMatch(/✓ engine \(KFD\) \/ ✗ contradicts\s+same ≠ moved differently$/m);
    expect(text).toMatch(/^# ≠ moved differently \(1 point\): /m);
    const page = comparePageView(c);
    expect(parseCompareHostMessage({ type: 'compare-view', view: JSON.parse(JSON.stringify(page)) })).toBeDefined();
    const [head, ...rows] = parseCsv(tableCsv(compareTableModel(page)));
    expect(head!.slice(-3)).toEqual(['A mover evidence', 'B mover evidence', 'moved differently']);
    expect(rows[0]!.slice(-3, -1)).toEqual(['✓ engine (KFD)', '✗ contradicts']);
    expect(rows[0]!.at(-1)).toMatch(/not a like-for-like change/);
    expect(rows[1]!.at(-1)).toBe('');
  });

  it('runs without evidence compare as before: no column, no flag, no note', () => {
    const c = compareRuns(runOf([point(undefined)], 'a'), runOf([point(undefined)], 'b'));
    expect(c.points[0]).not.toHaveProperty('evidence');
    expect(c.points[0]).not.toHaveProperty('movedDifferently');
    expect(c.summary).not.toHaveProperty('movedDifferently');
    expect(compareTable(c)).not.toMatch(/evidence|moved differently/);
  });

  it('the runtime-default series is compared with its own kind only', () => {
    const a = runOf([point(kfd)], 'a');
    const b = runOf([point(kfd, { series: 'runtime-default' })], 'b');
    const c = compareRuns(a, b);
    expect(c.points).toHaveLength(0);
    expect(c.onlyInB[0]!.groupLabel).toMatch(/^runtime default \(engine\/host\)/);
  });
});

describe('a run that ends with mover-mismatch', () => {
  it('is said as a mover mismatch, with the hint, exit code and what was kept', () => {
    const run = newRun(header('mm'));
    for (const r of [
      hello,
      sample({ moverEvidence: simulated('cu') }),
      engineSample({ moverEvidence: mislabelled }),
      {
        type: 'error',
        code: 'mover-mismatch',
        message: 'engine/host 1M, GPU 0 -> GPU 1: labelled engine, but ...',
        hint: 'check the runtime',
      },
      { ...done, status: 'error', samples: 2 },
    ])
      applyRecord(run, r as never);
    const end = describeEnd(run, { exitCode: 4, signal: null }, false, [], 'sdma-probe');
    expect(end.status).toBe('error');
    expect(end.message).toMatch(
      /^mover mismatch: engine\/host 1M, GPU 0 -> GPU 1: labelled engine, but \.\.\. \(exit code 4\); 2 samples kept, the contradicting one flagged\. check the runtime$/,
    );
  });

  it('in a matrix, the cells-failed end names the mismatches', () => {
    const run = newRun({ ...header('mx'), command: 'matrix' });
    for (const r of [
      {
        type: 'error',
        code: 'mover-mismatch',
        message: 'x',
        cell: { mover: 'engine', initiator: 'host', src: 0, dst: 1 },
      },
      { type: 'error', code: 'cells-failed', message: '1 of 2 cells could not be measured' },
    ])
      applyRecord(run, r as never);
    const end = describeEnd(run, { exitCode: 4, signal: null }, false, [], 'sdma-probe');
    expect(end.message).toMatch(/1 mover mismatch \(error mover-mismatch: .*\), flagged$/);
  });

  it('evidenceSummary keeps the four export fields and nothing when not recorded', () => {
    expect(evidenceSummary('engine', undefined)).toEqual({
      state: 'not-recorded',
      word: 'not recorded',
      title: expect.stringMatching(/not recorded/),
    });
    expect(evidenceSummary('engine', kfd)).toMatchObject({
      source: 'kfd-sdma',
      observed: 'engine',
      verdict: 'matches',
    });
  });
});
