/**
 * Runs in progress, so "SDMA Lens: Cancel Run" can stop them from the keyboard as the
 * progress notification's Cancel button does (same AbortController, same process-group kill).
 */
import * as vscode from 'vscode';

interface ActiveRun {
  label: string;
  controller: AbortController;
  /** Settles when the run has ended (its process is gone and its file closed). */
  ended: Promise<void>;
  end: () => void;
}

const active = new Set<ActiveRun>();

/** The context key menus read: true while a run is in progress, so "Cancel Run" shows only then. */
export const RUN_IN_PROGRESS_KEY = 'sdmaLens.runInProgress';

function publish(): void {
  void vscode.commands.executeCommand('setContext', RUN_IN_PROGRESS_KEY, active.size > 0);
}

/** How many runs are in progress (tests and the status of the context key). */
export function activeRunCount(): number {
  return active.size;
}

/** Registers a run until the returned disposable is disposed (when the run ends). */
export function trackRun(label: string, controller: AbortController): vscode.Disposable {
  let end = () => {};
  const ended = new Promise<void>((resolve) => (end = resolve));
  const entry = { label, controller, ended, end };
  active.add(entry);
  publish();
  return new vscode.Disposable(() => {
    active.delete(entry);
    publish();
    entry.end();
  });
}

/** How long deactivation waits for aborted runs to end: past the helper's kill grace, below VS Code's deactivate limit. */
export const DEACTIVATE_WAIT_MS = 4000;

/**
 * Aborts every run in progress (SIGTERM to each helper's process group, SIGKILL after the
 * grace period) and waits until they have ended, or DEACTIVATE_WAIT_MS.
 */
export async function abortAllRuns(waitMs = DEACTIVATE_WAIT_MS): Promise<void> {
  const runs = [...active];
  if (runs.length === 0) return;
  for (const r of runs) r.controller.abort();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
  await Promise.race([Promise.all(runs.map((r) => r.ended)), timeout]);
  clearTimeout(timer);
}

export async function cancelRunCommand(): Promise<number> {
  const runs = [...active];
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('SDMA Lens: no run is in progress.'));
    return 0;
  }
  const chosen =
    runs.length === 1
      ? runs
      : (
          (await vscode.window.showQuickPick(
            runs.map((r) => ({ label: r.label, run: r })),
            { title: vscode.l10n.t('Cancel which run?'), canPickMany: true },
          )) ?? []
        ).map((p) => p.run);
  for (const r of chosen) r.controller.abort();
  return chosen.length;
}
