/**
 * "SDMA Lens: Import Results": outputs of TransferBench, nvbandwidth and nccl-tests /
 * rccl-tests, several picked at once, each saved as a run by the same core as `sdma-lens
 * import` (src/core/imports) and opened where it is drawn (Open Run: a sweep in the sweep
 * panel, a collective in the collective panel). Reading a text file runs nothing, so this
 * asks no trust of its own; a rocpd database among the files goes to "Import rocprofv3
 * Profile", whose helper run does (requireTrust there).
 */
import * as vscode from 'vscode';
import { ImportError, importResults } from '../../core/imports/importRun';
import type { Run } from '../../core/run';
import { RunStore } from '../../core/runs/runStore';
import { escapeControls } from '../../core/text';
import { runsFolder } from '../settings';
import { reportError } from './guards';
import { importProfileCommand } from './importProfile';
import type { ProfileDeps } from './profile';
import { openRunCommand } from './runs';

export interface ImportResultsArgs {
  /** Scripted use: the files, instead of asking. */
  paths?: string[];
}

async function askForFiles(): Promise<string[] | undefined> {
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: true,
    openLabel: vscode.l10n.t('Import these results'),
    title: vscode.l10n.t('SDMA Lens: TransferBench, nvbandwidth, nccl-tests or rccl-tests output (text, CSV or JSON)'),
    filters: {
      [vscode.l10n.t('Tool outputs')]: ['txt', 'log', 'out', 'csv', 'json'],
      [vscode.l10n.t('All files')]: ['*'],
    },
  });
  return picked?.map((u) => u.fsPath);
}

/** Imports each file and opens its run; returns the runs imported (those from rocpd databases included). */
export async function importResultsCommand(deps: ProfileDeps, args?: ImportResultsArgs): Promise<Run[]> {
  const given =
    Array.isArray(args?.paths) && args.paths.length > 0 && args.paths.every((p) => typeof p === 'string')
      ? args.paths
      : undefined;
  const paths = given ?? (await askForFiles());
  if (!paths || paths.length === 0) return [];
  const store = new RunStore(runsFolder(deps.context.globalStorageUri));
  const runs: Run[] = [];
  const failures: string[] = [];
  /** Run files of SDMA Lens given to import: offered to open as runs instead. */
  const runFiles: string[] = [];
  for (const path of paths) {
    try {
      const outcome = await importResults(path, store);
      if (outcome.kind === 'helper') {
        const run = await importProfileCommand(deps, { path: outcome.path });
        if (run) runs.push(run);
        continue;
      }
      const { run } = outcome;
      deps.log.info(`imported ${path} as run ${run.header.id}: ${run.end?.message ?? ''}`);
      for (const w of run.warnings) deps.log.info(`run ${run.header.id}: ${w.code}: ${w.message}`);
      runs.push((await openRunCommand(deps, run.header.id)) ?? run);
    } catch (err) {
      if (!(err instanceof ImportError)) {
        reportError(deps.log, vscode.l10n.t('{0} could not be imported', path), err);
        continue;
      }
      deps.log.warn(err.message);
      failures.push(err.message);
      if (err.failure === 'sdma-lens-run') runFiles.push(path);
    }
  }
  // What each import says of itself (the core's sentences, English), under one message.
  const done = runs.filter((r) => r.header.source).map((r) => r.end?.message ?? r.header.id);
  const showLog = vscode.l10n.t('Show Log');
  if (done.length > 0) {
    const noted = runs.some((r) => r.header.source && r.warnings.length > 0);
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t('SDMA Lens: {0}.', escapeControls(done.join('; '))),
        ...(noted ? [showLog] : []),
      )
      .then((c) => c && deps.log.show());
  }
  if (failures.length > 0) {
    const openRun = vscode.l10n.t('Open Run');
    void vscode.window
      .showErrorMessage(
        vscode.l10n.t('SDMA Lens: {0}', escapeControls(failures.join(' '))),
        ...(runFiles.length > 0 ? [openRun] : []),
        showLog,
      )
      .then((c) => {
        if (c === showLog) deps.log.show();
        if (c === openRun)
          for (const f of runFiles)
            void vscode.commands.executeCommand('sdmaLens.explorer.openRun', vscode.Uri.file(f));
      });
  }
  return runs;
}
