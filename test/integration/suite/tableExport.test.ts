import * as assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import { pathName } from '../../../src/core/protocol';
import type { Run } from '../../../src/core/run';
import { seriesLabel } from '../../../src/core/sweep/sweepPanelTable';
import type { TableFormat } from '../../../src/core/tables/tableText';
import { parseCsv } from '../../support/csv';
import { SMALL_SWEEP, activeApi, spyOnWindow, waitFor } from './support';

/** What the test calls on the sweep panel: the handler the page's "Export CSV…" / "Export Markdown…" reaches. */
type Exporting = { exportTable(format: TableFormat): Promise<string | undefined>; panel: vscode.WebviewPanel };

/** Runs `body` with showSaveDialog answering `answer` (and recording what it was asked). */
async function withSaveDialog<T>(
  answer: vscode.Uri | undefined,
  body: (asked: vscode.SaveDialogOptions[]) => Promise<T>,
): Promise<T> {
  const window = vscode.window as unknown as {
    showSaveDialog: (o: vscode.SaveDialogOptions) => Thenable<vscode.Uri | undefined>;
  };
  const original = window.showSaveDialog;
  const asked: vscode.SaveDialogOptions[] = [];
  window.showSaveDialog = async (options) => {
    asked.push(options);
    return answer;
  };
  try {
    return await body(asked);
  } finally {
    window.showSaveDialog = original;
  }
}

suite('a sweep panel exports its table', () => {
  test('Export CSV… writes the file the save dialog names, and it parses to the run\u2019s numbers', async () => {
    const api = await activeApi();
    const run = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runSweep', { options: SMALL_SWEEP });
    assert.equal(run?.end?.status, 'ok', run?.end?.message);
    const panel = (await waitFor('the sweep panel', () => api.sweepPanel(run.header.id))) as unknown as Exporting;
    const dir = mkdtempSync(path.join(tmpdir(), 'sdma-lens-table-'));
    try {
      const file = path.join(dir, 'sweep.csv');
      const written = await withSaveDialog(vscode.Uri.file(file), async (asked) => {
        const result = await panel.exportTable('csv');
        assert.equal(asked.length, 1, 'the save dialog is asked once');
        assert.ok(
          asked[0]!.defaultUri?.fsPath.endsWith(`${run.header.id}.csv`),
          `the default name is the run id (${asked[0]!.defaultUri?.fsPath})`,
        );
        return result;
      });
      assert.equal(written, file);
      const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
      assert.ok(header && rows.length === SMALL_SWEEP.sizes.length, `one row per size (${rows.length})`);
      const col = (name: string) => header.indexOf(name);
      for (const s of run.samples) {
        const name = seriesLabel({ path: pathName(s.mover, s.initiator), cus: s.cus });
        const row = rows.find((r) => Number(r[col('bytes')]) === s.sizeBytes);
        assert.ok(row, `a row for ${s.sizeBytes} bytes`);
        assert.ok(col(`${name} GB/s`) > 0, `a column for ${name}`);
        assert.equal(Number(row[col(`${name} GB/s`)]), s.gbps, `${name} at ${s.sizeBytes} bytes`);
      }

      // Markdown: the same rows under a heading, SIMULATED said below.
      const md = path.join(dir, 'sweep.md');
      await withSaveDialog(vscode.Uri.file(md), () => panel.exportTable('markdown'));
      const text = readFileSync(md, 'utf8');
      assert.ok(text.startsWith(`## SDMA Lens sweep ${run.header.id}\n`), 'the title is the heading');
      assert.match(text, /\n- SIMULATED: /);

      // Cancelled: nothing written. A link at the chosen name: refused, the error says so.
      assert.equal(await withSaveDialog(undefined, () => panel.exportTable('csv')), undefined);
      const target = path.join(dir, 'elsewhere.txt');
      writeFileSync(target, 'keep me');
      const link = path.join(dir, 'link.csv');
      symlinkSync(target, link);
      const errors = spyOnWindow('showErrorMessage');
      try {
        assert.equal(await withSaveDialog(vscode.Uri.file(link), () => panel.exportTable('csv')), undefined);
      } finally {
        errors.restore();
      }
      assert.match(String(errors.calls[0]?.[0]), /could not write the table to .*link\.csv: .*symbolic link/);
      assert.ok(
        lstatSync(link).isSymbolicLink() && readFileSync(target, 'utf8') === 'keep me',
        'the link and its target are untouched',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      panel.panel.dispose();
    }
  });
});

suite('Export Table... from the Runs view', () => {
  test('a matrix run exports without its panel: the CSV holds every cell but the diagonal; a run with no table says so', async () => {
    const api = await activeApi();
    const matrix = await vscode.commands.executeCommand<Run | undefined>('sdmaLens.runMatrix', {
      options: { backend: 'sim', gpus: [0, 1, 2], paths: ['engine/host'], sizeBytes: 16 << 20, iters: 3 },
    });
    assert.equal(matrix?.end?.status, 'ok', matrix?.end?.message);
    api.matrixPanel(matrix.header.id)?.dispose();
    const dir = mkdtempSync(path.join(tmpdir(), 'sdma-lens-runs-export-'));
    try {
      const file = path.join(dir, 'matrix.csv');
      // As the tree's menu calls it: the run's node, then (here, to skip the format pick) the format.
      const node = { kind: 'run', summary: { id: matrix.header.id } };
      const written = await withSaveDialog(vscode.Uri.file(file), () =>
        Promise.resolve(vscode.commands.executeCommand<string | undefined>('sdmaLens.runs.export', node, 'csv')),
      );
      assert.equal(written, file);
      const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
      assert.deepEqual(header, [
        'path',
        'source',
        'destination',
        'GB/s',
        'state',
        'evidence source',
        'evidence observed',
        'evidence verdict',
        'evidence detail',
      ]);
      assert.equal(rows.length, 3 * 2, 'every ordered pair of 3 GPUs, the diagonal left out');
      const gbps = new Map(matrix.matrixCells!.map((c) => [`GPU ${c.src}→GPU ${c.dst}`, c.gbps]));
      for (const r of rows) {
        assert.equal(Number(r[3]), gbps.get(`${r[1]}→${r[2]}`), `${r[1]} → ${r[2]} as the helper printed it`);
        assert.notEqual(r[5], '', `${r[1]} → ${r[2]}: the evidence source is always written (a run without says so)`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const none = await vscode.commands.executeCommand<string | undefined>('sdmaLens.runs.export', 'no-such-run', 'csv');
    assert.equal(none, undefined, 'a run that is not there exports nothing');
  });
});
