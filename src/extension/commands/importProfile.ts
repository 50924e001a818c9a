/**
 * "SDMA Lens: Import rocprofv3 Profile": a profile the user already has (rocprofv3's rocpd
 * database, or the folder of its CSV traces) read by the helper (`sdma-probe import`), kept
 * as a run, and shown as a Profile run is: the summary in the output channel and the facts
 * above the kernels.
 */
import * as vscode from 'vscode';
import type { Run } from '../../core/run';
import { importArgs } from '../../core/runtime/importArgs';
import { LocalTarget } from '../../core/runtime/localTarget';
import { summarizeProfile } from '../../core/profile/profileSummary';
import { runWithProgress } from '../runWithProgress';
import { reportError, requireTrust } from './guards';
import type { ProfileDeps } from './profile';
import { openProfileCommand } from './profile';

export interface ImportArgs {
  /** Scripted use: a .db file or a CSV folder, instead of asking. */
  path?: string;
}

async function askForProfile(): Promise<string | undefined> {
  // Linux and Windows dialogs pick files or folders, not both: ask which first.
  type Choice = vscode.QuickPickItem & { folders: boolean };
  const choice = await vscode.window.showQuickPick<Choice>(
    [
      {
        label: vscode.l10n.t('$(database) A rocpd database (.db)'),
        detail: vscode.l10n.t("rocprofv3's default output since ROCm 7.0, e.g. HOST/PID_results.db"),
        folders: false,
      },
      {
        label: vscode.l10n.t('$(folder) A folder of rocprofv3 CSV files'),
        detail: vscode.l10n.t('Written with --output-format csv: *kernel_trace.csv, *memory_copy_trace.csv'),
        folders: true,
      },
    ],
    { title: vscode.l10n.t('SDMA Lens: import which rocprofv3 profile?') },
  );
  if (!choice) return undefined;
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: !choice.folders,
    canSelectFolders: choice.folders,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Import this profile'),
    ...(choice.folders
      ? {}
      : { filters: { [vscode.l10n.t('rocpd database')]: ['db'], [vscode.l10n.t('All files')]: ['*'] } }),
  });
  return picked?.[0]?.fsPath;
}

export async function importProfileCommand(deps: ProfileDeps, args?: ImportArgs): Promise<Run | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not import a profile in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const path = typeof args?.path === 'string' && args.path !== '' ? args.path : await askForProfile();
    if (!path) return undefined;
    const helperArgs = await importArgs(path);
    // The file was picked where the extension runs: the helper reads it there too.
    const result = await runWithProgress(deps, {
      what: vscode.l10n.t('profile import'),
      target: new LocalTarget(),
      request: { command: 'import', idTag: 'rocprofv3', args: () => helperArgs },
      onStderr: (line) => deps.log.info(line),
    });
    if (result.kind !== 'ended') return undefined;
    const run = result.run;
    if (run.end?.status !== 'ok') return run;
    const summary = summarizeProfile(run.dispatches, run.copies);
    deps.lenses.setProfile({ runId: run.header.id, summary });
    await openProfileCommand(deps, { runId: run.header.id });
    const [kernels, launches, copies] = [summary.kernels.length, run.dispatches.length, run.copies.length];
    const said =
      run.warnings.length > 0
        ? vscode.l10n.t(
            'SDMA Lens: imported {0} kernels, {1} launches and {2} copies ({3}).',
            kernels,
            launches,
            copies,
            run.warnings.map((w) => w.message).join('; '),
          )
        : vscode.l10n.t('SDMA Lens: imported {0} kernels, {1} launches and {2} copies.', kernels, launches, copies);
    void vscode.window.showInformationMessage(said);
    return run;
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The profile could not be imported'), err);
    return undefined;
  }
}
