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
      { label: '$(database) A rocpd database (.db)', detail: "rocprofv3's default output since ROCm 7.0, e.g. HOST/PID_results.db", folders: false },
      { label: '$(folder) A folder of rocprofv3 CSV files', detail: 'Written with --output-format csv: *kernel_trace.csv, *memory_copy_trace.csv', folders: true },
    ],
    { title: 'SDMA Lens: import which rocprofv3 profile?' },
  );
  if (!choice) return undefined;
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: !choice.folders,
    canSelectFolders: choice.folders,
    canSelectMany: false,
    openLabel: 'Import this profile',
    ...(choice.folders ? {} : { filters: { 'rocpd database': ['db'], 'All files': ['*'] } }),
  });
  return picked?.[0]?.fsPath;
}

export async function importProfileCommand(deps: ProfileDeps, args?: ImportArgs): Promise<Run | undefined> {
  if (!requireTrust('import a profile')) return undefined;
  try {
    const path = typeof args?.path === 'string' && args.path !== '' ? args.path : await askForProfile();
    if (!path) return undefined;
    const helperArgs = await importArgs(path);
    // The file was picked where the extension runs: the helper reads it there too.
    const result = await runWithProgress(deps, {
      what: 'profile import',
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
    const warned = run.warnings.length > 0 ? ` (${run.warnings.map((w) => w.message).join('; ')})` : '';
    void vscode.window.showInformationMessage(`SDMA Lens: imported ${summary.kernels.length} kernels, ${run.dispatches.length} launches and ${run.copies.length} copies${warned}.`);
    return run;
  } catch (err) {
    reportError(deps.log, 'The profile could not be imported', err);
    return undefined;
  }
}
