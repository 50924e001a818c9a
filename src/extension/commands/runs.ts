/** "SDMA Lens: Open Run" and "SDMA Lens: Delete Run": pick a saved run from the runs folder. */
import * as vscode from 'vscode';
import type { Run } from '../../core/run';
import type { RunSummary } from '../../core/runs/runStore';
import { openAdvisedRun } from '../../core/runs/refinements';
import { keptSentence } from '../../core/runs/runFolder';
import { RunReadCancelled, RunStore } from '../../core/runs/runStore';
import { escapeControls } from '../../core/text';
import { runsFolder } from '../settings';
import { CollectivePanels } from '../collectivePanel';
import { MatrixPanels } from '../matrixPanel';
import { SweepPanel } from '../sweepPanel';
import { reportError } from './guards';
import type { RunDeps } from '../runWithProgress';
import { withOpenProgress } from '../openProgress';

interface RunItem extends vscode.QuickPickItem {
  summary: RunSummary;
}

function item(s: RunSummary): RunItem {
  const when = s.header ? new Date(s.header.createdAt).toLocaleString() : '';
  const icon =
    s.status === 'ok'
      ? '$(pass)'
      : s.status === 'corrupt'
        ? '$(warning)'
        : s.status === 'cancelled'
          ? '$(circle-slash)'
          : '$(error)';
  // A run with lines the host could not use is not quite what it looks like: say so where it is picked.
  const description = !s.problems
    ? s.status
    : s.problems.count === 1
      ? vscode.l10n.t('{0} · 1 problem', s.status)
      : vscode.l10n.t('{0} · {1} problems', s.status, s.problems.count);
  return {
    label: `${icon} ${s.header?.command ?? 'run'} ${when}`,
    description,
    detail:
      s.error ??
      (s.problems ? vscode.l10n.t('{0} · first problem: {1}', s.id, escapeControls(s.problems.first)) : s.id),
    summary: s,
  };
}

async function pickRun(store: RunStore, title: string): Promise<RunSummary | undefined> {
  const runs = await store.list();
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('SDMA Lens: no runs in {0} yet. Run "SDMA Lens: Run Transfer Sweep" first.', store.root),
    );
    return undefined;
  }
  return (await vscode.window.showQuickPick(runs.map(item), { title, matchOnDetail: true }))?.summary;
}

/** Opens a run by id (scripted use) or from a quick pick. */
export async function openRunCommand(deps: RunDeps, id?: string): Promise<Run | undefined> {
  try {
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const runId = typeof id === 'string' ? id : (await pickRun(store, vscode.l10n.t('SDMA Lens: Open Run')))?.id;
    if (!runId) return undefined;
    // A sweep opens with its refinement rounds' points (runs/refinements.ts).
    const run = await withOpenProgress(store.fileOf(runId), runId, (o) => openAdvisedRun(store, runId, o));
    for (const p of run.problems) deps.log.warn(`run ${runId}: ${p}`);
    if (run.problems.length > 0 && typeof id !== 'string') {
      const first = escapeControls(run.problems[0]!);
      const said =
        run.problems.length === 1
          ? vscode.l10n.t(
              'SDMA Lens: run {0} has 1 line the helper wrote that could not be used (first: {1}); what it shows may be incomplete.',
              runId,
              first,
            )
          : vscode.l10n.t(
              'SDMA Lens: run {0} has {1} lines the helper wrote that could not be used (first: {2}); what it shows may be incomplete.',
              runId,
              run.problems.length,
              first,
            );
      void vscode.window.showWarningMessage(said, vscode.l10n.t('Show Log')).then((a) => a && deps.log.show());
    }
    // Each kind of run opens where it is drawn.
    switch (run.header.command) {
      case 'matrix':
        MatrixPanels.show(deps.context.extensionUri, run, deps.log);
        break;
      case 'collective':
      case 'overlap':
        CollectivePanels.show(deps.context.extensionUri, run, deps.log);
        break;
      case 'run':
      case 'import':
        // Through the command: it puts the run's facts above the kernels and shows its summary.
        await vscode.commands.executeCommand('sdmaLens.openProfile', { runId });
        break;
      default:
        SweepPanel.show(deps.context.extensionUri, run, deps.log);
    }
    deps.onRun?.(run);
    return run;
  } catch (err) {
    // Cancel pressed while a big run opened: the user stopped it, nothing to report.
    if (err instanceof RunReadCancelled) deps.log.info(err.message);
    else reportError(deps.log, vscode.l10n.t('The run could not be opened'), err);
    return undefined;
  }
}

/** Deletes a run picked from the list, or the one named (the Runs view's action); asks first. */
export async function deleteRunCommand(deps: RunDeps, id?: string): Promise<void> {
  try {
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const picked = typeof id === 'string' ? { id } : await pickRun(store, vscode.l10n.t('SDMA Lens: Delete Run'));
    if (!picked) return;
    // A folder that is not a run (or a link, or outside the runs folder) is said, not offered for deletion.
    await store.checkDeletable(picked.id);
    const del = vscode.l10n.t('Delete');
    const confirm = await vscode.window.showWarningMessage(
      vscode.l10n.t('Delete run {0} and its files?', picked.id),
      { modal: true },
      del,
    );
    if (confirm !== del) return;
    SweepPanel.forRun(picked.id)?.dispose();
    MatrixPanels.forRun(picked.id)?.dispose();
    CollectivePanels.forRun(picked.id)?.dispose();
    // Only the files SDMA Lens wrote go; the folder too when that empties it (runs/runFolder.ts).
    const outcome = await store.delete(picked.id);
    deps.log.info(
      `deleted run ${picked.id}: ${outcome.removed.join(', ') || 'nothing'} removed${outcome.kept.length > 0 ? `; kept ${outcome.kept.join(', ')}` : ''}`,
    );
    const kept = keptSentence(picked.id, outcome);
    if (kept) void vscode.window.showWarningMessage(vscode.l10n.t('SDMA Lens: {0}.', escapeControls(kept)));
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The run could not be deleted'), err);
  }
}
