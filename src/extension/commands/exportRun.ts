/**
 * "Export Table..." on a run of the Runs view: the run's table as its panel shows it
 * (extension/runTable.ts), written as CSV or Markdown where the user says, without
 * opening the panel. The same writer as the panels' own export buttons (`exportTable`).
 */
import * as vscode from 'vscode';
import type { TableFormat } from '../../core/tables/tableText';
import { runTableModel } from '../runTable';
import { exportTable } from '../runViewPanel';
import type { RunDeps } from '../runWithProgress';
import { storeOf } from '../runWithProgress';
import { reportError } from './guards';

export async function exportRunCommand(
  deps: RunDeps,
  runId: string | undefined,
  format?: TableFormat,
): Promise<string | undefined> {
  if (!runId) return undefined;
  try {
    const run = await storeOf(deps).open(runId);
    const table = runTableModel(run);
    if (!table) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'SDMA Lens: run {0} has no table to export (a {1} run); open it to see what it holds.',
          runId,
          run.header.command,
        ),
      );
      return undefined;
    }
    let chosen = format;
    if (!chosen) {
      const csv = vscode.l10n.t('CSV');
      const markdown = vscode.l10n.t('Markdown');
      const picked = await vscode.window.showQuickPick([csv, markdown], {
        title: vscode.l10n.t('SDMA Lens: export the table of run {0} as', runId),
      });
      if (!picked) return undefined;
      chosen = picked === csv ? 'csv' : 'markdown';
    }
    return await exportTable(table, chosen, runId, deps.log);
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('the export of run {0}', runId), err);
    return undefined;
  }
}
