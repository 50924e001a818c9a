/** Checks and error reporting shared by the commands. */
import * as vscode from 'vscode';
import { HelperError } from '../../core/runtime/helper';
import { SettingError } from '../settings';

/** Nothing runs in an untrusted workspace; says so instead of failing silently. */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(
    `SDMA Lens does not ${what} in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.`,
    'Manage Workspace Trust',
  ).then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}

/** Shows an error with the action that fixes it, and logs the details. */
export function reportError(log: vscode.LogOutputChannel, what: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  log.error(`${what}: ${message}`);
  if (err instanceof SettingError) {
    void vscode.window.showErrorMessage(`SDMA Lens: ${message}`, 'Open Settings').then((c) => {
      if (c) void vscode.commands.executeCommand('workbench.action.openSettings', `sdmaLens.${err.setting}`);
    });
  } else if (err instanceof HelperError && err.fixedBy === 'target') {
    void vscode.window.showErrorMessage(`SDMA Lens: ${message}. ${err.remedy}`, 'Select Target', 'Show Log').then((c) => {
      if (c === 'Select Target') void vscode.commands.executeCommand('sdmaLens.selectTarget');
      if (c === 'Show Log') log.show();
    });
  } else if (err instanceof HelperError) {
    void vscode.window.showErrorMessage(`SDMA Lens: ${message}. ${err.remedy}`, 'Open Settings', 'Show Log').then((c) => {
      if (c === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'sdmaLens.helperPath');
      if (c === 'Show Log') log.show();
    });
  } else {
    void vscode.window.showErrorMessage(`SDMA Lens: ${what}: ${message}`, 'Show Log').then((c) => {
      if (c) log.show();
    });
  }
}
