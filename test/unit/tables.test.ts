/**
 * The panels' tables as CSV and Markdown: the writers (quoting, escaping, numbers that read
 * back exactly) and each kind's table model from real runs, read back from the CSV and
 * checked against the run's own records, not against the view the model was built from.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectivePageView } from '../../src/core/collective/collectiveView';
import { compareRuns } from '../../src/core/compare/compare';
import { comparePageView } from '../../src/core/compare/compareView';
import { endpointName } from '../../src/core/endpoints';
import { matrixPageView } from '../../src/core/matrix/matrixView';
import { pathName } from '../../src/core/protocol';
import { sweepView } from '../../src/core/sweep/sweepView';
import { collectiveTableModel } from '../../src/core/collective/collectivePanelTable';
import { compareTableModel } from '../../src/core/compare/comparePanelTable';
import { matrixTableModel } from '../../src/core/matrix/matrixPanelTable';
import { seriesLabel, sweepTableModel } from '../../src/core/sweep/sweepPanelTable';
import type { TableModel } from '../../src/core/tables/tableText';
import { csvSafeText, tableCsv, tableFileName, tableMarkdown } from '../../src/core/tables/tableText';
import { benchRun, runFromText } from '../support/benchRuns';
import { parseCsv } from '../support/csv';

const fixture = (name: string) => runFromText(readFileSync(join(__dirname, '../fixtures/runs', name), 'utf8'));

/** The CSV read back by the test-only RFC 4180 reader: header, then rows keyed by column. */
function readBack(table: TableModel): { header: string[]; rows: Record<string, string>[] } {
  const [header, ...rows] = parseCsv(tableCsv(table));
  expect(header).toEqual(table.columns);
  return { header: header!, rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))) };
}

/** Splits a Markdown table row at its unescaped pipes and undoes the cell escaping. */
function markdownCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < line.length - 1; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length - 1) {
      cell += line[++i];
    } else if (c === '|') {
      cells.push(cell);
      cell = '';
    } else {
      cell += c;
    }
  }
  cells.push(cell);
  return cells.map((c) => c.trim().replace(/<br>/g, '\n'));
}

describe('CSV writer', () => {
  it('quotes a field with a quote, a comma, CR or LF, doubles its quotes, and ends every record with CRLF', () => {
    const table: TableModel = {
      title: 't',
      columns: ['name', 'GB/s'],
      rows: [
        ['plain', 1],
        ['a,b', 2],
        ['say "hi"', 3],
        ['two\nlines', 4],
        ['cr\rhere', 5],
        ['pipe|ok', null],
      ],
    };
    expect(tableCsv(table)).toBe(
      'name,GB/s\r\nplain,1\r\n"a,b",2\r\n"say ""hi""",3\r\n"two\nlines",4\r\n"cr\rhere",5\r\npipe|ok,\r\n',
    );
  });

  it('has no title or comment line: the header is the first record', () => {
    const csv = tableCsv({
      title: '# SIMULATED',
      columns: ['x'],
      rows: [[1]],
      notes: ['SIMULATED: not a measurement'],
    });
    expect(csv).toBe('x\r\n1\r\n');
  });

  it('writes text a spreadsheet would run as a formula with a leading quote, and leaves numbers, negative ones too, as they are', () => {
    const crafted = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
    const table: TableModel = {
      title: 't',
      columns: ['=name', 'value'],
      rows: [...crafted.map((c, i) => [c, -i - 0.5]), ['a=b', 1], ['plain-name', 2]],
    };
    const [header, ...rows] = parseCsv(tableCsv(table));
    expect(header).toEqual(["'=name", 'value']);
    expect(rows.map((r) => r[0])).toEqual([...crafted.map((c) => `'${c}`), 'a=b', 'plain-name']);
    expect(rows.map((r) => Number(r[1]))).toEqual([...crafted.map((_, i) => -i - 0.5), 1, 2]);
    for (const row of rows) expect(row[0]).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('reads back every string (formula-like ones with their leading quote) and every finite number exactly', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', ',', '"', '\n', '\r', '|', ' ', 'µ', '\\', '=', '-', '+', '@', '\t'),
    });
    const number = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0));
    fc.assert(
      fc.property(fc.array(fc.tuple(text, number), { minLength: 1, maxLength: 20 }), (pairs) => {
        const table: TableModel = { title: 't', columns: ['text', 'value'], rows: pairs.map(([s, x]) => [s, x]) };
        const back = parseCsv(tableCsv(table)).slice(1);
        // A row whose only field is empty reads as a blank line in any CSV reader; the header keeps rows at two fields.
        expect(back.map((r) => r[0])).toEqual(pairs.map(([s]) => csvSafeText(s)));
        expect(back.map((r) => Number(r[1]))).toEqual(pairs.map(([, x]) => x));
      }),
      { numRuns: 300 },
    );
  });
});

describe('Markdown writer', () => {
  const table: TableModel = {
    title: 'Sweep\nof a node',
    columns: ['name', 'a|b'],
    rows: [
      ['x|y', 1.5],
      ['line one\nline two', null],
      ['back\\slash', 0.1 + 0.2],
      ['say "hi", ok', -3],
    ],
    notes: ['SIMULATED: not a measurement', 'second\nnote'],
  };
  const md = tableMarkdown(table);
  const lines = md.split('\n');

  it('puts the title as a heading, then the table, then the notes', () => {
    expect(lines[0]).toBe('## Sweep of a node');
    expect(lines[1]).toBe('');
    expect(lines[3]).toBe('| --- | --- |');
    expect(lines.slice(-4)).toEqual(['', '- SIMULATED: not a measurement', '- second note', '']);
  });

  it('escapes | and line breaks, so every row has as many cells as there are columns and reads back as written', () => {
    const rows = lines.slice(2, 4 + table.rows.length).filter((l) => l !== lines[3]);
    expect(rows).toHaveLength(1 + table.rows.length);
    for (const row of rows) expect(row.split('\n')).toHaveLength(1);
    expect(markdownCells(rows[0]!)).toEqual(['name', 'a|b']);
    expect(rows.slice(1).map(markdownCells)).toEqual(
      table.rows.map((r) => r.map((c) => (c === null ? '' : String(c)))),
    );
  });
});

describe('file names', () => {
  it('keep a run id, drop what a path could use, and take the format extension', () => {
    expect(tableFileName('2026-11-30T01-02-03-456Z-sweep-sim-k3f9', 'csv')).toBe(
      '2026-11-30T01-02-03-456Z-sweep-sim-k3f9.csv',
    );
    expect(tableFileName('../../etc/passwd', 'markdown')).toBe('etc-passwd.md');
    expect(tableFileName('', 'csv')).toBe('table.csv');
  });
});

describe('table models from real runs', () => {
  it('sweep: one row per size, GB/s and the spread of every series, equal to the samples of the run', () => {
    const run = fixture('sim-sweep-seed1.ndjson');
    const view = sweepView(run);
    const table = sweepTableModel(view);
    const { rows } = readBack(table);
    const sizes = new Set(run.samples.map((s) => s.sizeBytes));
    expect(rows).toHaveLength(sizes.size);
    // GB/s, low, high, and the four columns of the sample's mover evidence per series.
    expect(table.columns).toHaveLength(2 + 7 * view.series.length);
    expect(table.notes?.[0]).toMatch(/^SIMULATED/);
    for (const s of run.samples) {
      const name = seriesLabel({ path: pathName(s.mover, s.initiator), cus: s.cus });
      const row = rows.find((r) => Number(r.bytes) === s.sizeBytes);
      expect(row, `a row for ${s.sizeBytes} bytes`).toBeDefined();
      expect(Number(row![`${name} GB/s`])).toBe(s.gbps);
      // The slowest and fastest timed iteration, as bandwidth.
      expect(Number(row![`${name} low GB/s`])).toBe(s.sizeBytes / s.maxNs!);
      expect(Number(row![`${name} high GB/s`])).toBe(s.sizeBytes / s.minNs!);
      // A run saved before the helper printed mover evidence: "not recorded", the rest empty.
      expect(s.moverEvidence).toBeUndefined();
      expect(row![`${name} evidence source`]).toBe('not recorded');
      expect(row![`${name} evidence verdict`]).toBe('');
    }
  });

  it('matrix: one row per src x dst cell of each path, the diagonal left out, GB/s as the helper printed it', () => {
    const run = fixture('sim-matrix-seed1.ndjson');
    const table = matrixTableModel(matrixPageView(run));
    const { rows } = readBack(table);
    const cells = run.matrixCells ?? [];
    expect(cells.length).toBeGreaterThan(0);
    const gpus = new Set(cells.flatMap((c) => [c.src, c.dst]));
    const paths = new Set(cells.map((c) => pathName(c.mover, c.initiator)));
    expect(rows).toHaveLength(paths.size * gpus.size * (gpus.size - 1));
    expect(rows.every((r) => r.source !== r.destination)).toBe(true);
    for (const c of cells) {
      const path = pathName(c.mover, c.initiator);
      const row = rows.find(
        (r) =>
          (r.path ?? '').startsWith(path) && r.source === endpointName(c.src) && r.destination === endpointName(c.dst),
      );
      expect(row, `${path} ${c.src} -> ${c.dst}`).toBeDefined();
      expect(Number(row!['GB/s'])).toBe(c.gbps);
      expect(row!.state).toMatch(/^measured/);
    }
  });

  it('collective: one row per point of the 2x H200 collective sweep, busbw and algbw as measured', () => {
    const run = benchRun('collective');
    const table = collectiveTableModel(collectivePageView(run));
    const { rows } = readBack(table);
    const points = run.collectives ?? [];
    expect(points.length).toBeGreaterThan(0);
    expect(rows).toHaveLength(points.length);
    for (const p of points) {
      const row = rows.find(
        (r) =>
          r.op === p.op &&
          r.variant === p.variant &&
          r.form === (p.inPlace ? 'in-place' : 'out-of-place') &&
          Number(r.bytes) === p.sizeBytes,
      );
      expect(row, `${p.op} ${p.variant} ${p.sizeBytes}`).toBeDefined();
      expect(Number(row!['busbw GB/s'])).toBe(p.busbwGbps);
      expect(Number(row!['algbw GB/s'])).toBe(p.algbwGbps);
      expect(Number(row!['time µs'])).toBe(p.timeUs);
    }
  });

  it('compare: one row per point of two real 2x H200 sweeps, the ratio, its interval and the verdict of the comparison', () => {
    const comparison = compareRuns(benchRun('sweep', 'A'), benchRun('sweepRerun', 'B'));
    const table = compareTableModel(comparePageView(comparison));
    const { rows } = readBack(table);
    expect(rows).toHaveLength(comparison.points.length + comparison.onlyInA.length + comparison.onlyInB.length);
    expect(comparison.points.length).toBeGreaterThan(0);
    for (const p of comparison.points) {
      const row = rows.find((r) => r.curve === p.groupLabel && r.point === p.label);
      expect(row, p.key).toBeDefined();
      expect(Number(row!['A GB/s'])).toBe(p.a.gbps);
      expect(Number(row!['B GB/s'])).toBe(p.b.gbps);
      expect(Number(row!['ratio B/A'])).toBe(p.ratio);
      expect(row!['ratio low']).toBe(p.interval ? String(p.interval[0]) : '');
      expect(row!['ratio high']).toBe(p.interval ? String(p.interval[1]) : '');
      expect(Number(row!['run-to-run tolerance'])).toBe(p.tolerance);
      expect(row!.verdict).toBe(p.verdict);
    }
    expect(tableMarkdown(table)).toContain(comparison.method);
    expect(tableMarkdown(table)).toContain('run-to-run tolerance 6.3 % (default: ');
  });
});
