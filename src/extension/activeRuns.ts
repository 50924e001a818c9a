/**
 * Runs in progress, so "SDMA Lens: Cancel Run" can stop them from the keyboard as the
 * progress notification's Cancel button does (same AbortController, same process-group kill).
 */
import * as vscode from 'vscode';

interface ActiveRun {
  label: string;
  controller: AbortController;
}

const active = new Set<ActiveRun>();

/** Registers a run until the returned disposable is disposed (when the run ends). */
export function trackRun(label: string, controller: AbortController): vscode.Disposable {
  const entry = { label, controller };
  active.add(entry);
  return new vscode.Disposable(() => active.delete(entry));
}

export async function cancelRunCommand(): Promise<number> {
  const runs = [...active];
  if (runs.length === 0) {
    void vscode.window.showInformationMessage('SDMA Lens: no run is in progress.');
    return 0;
  }
  const chosen =
    runs.length === 1
      ? runs
      : ((await vscode.window.showQuickPick(runs.map((r) => ({ label: r.label, run: r })), { title: 'Cancel which run?', canPickMany: true })) ?? []).map((p) => p.run);
  for (const r of chosen) r.controller.abort();
  return chosen.length;
}
