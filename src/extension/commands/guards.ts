/** Checks and error reporting shared by the commands. */
import * as vscode from 'vscode';
import { HelperError } from '../../core/runtime/helper';
import { SettingError } from '../settings';
import { ConsentDeclined } from '../workspaceConsent';

/**
 * Nothing runs in an untrusted workspace; says so instead of failing silently. `message` is
 * the whole localized sentence (one per command, so a translation words each as a whole).
 */
export function requireTrust(message: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(message, vscode.l10n.t('Manage Workspace Trust')).then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}

/**
 * Shows an error with the action that fixes it, and logs the details. `what` is the localized
 * clause the message starts with ("The run could not be opened"); `err`'s message is shown as
 * it is (the core's and the helper's words stay English). A declined confirmation
 * (ConsentDeclined) is only logged.
 */
export function reportError(log: vscode.LogOutputChannel, what: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  // The user said no to the workspace's values a moment ago: nothing ran, and no error is due.
  if (err instanceof ConsentDeclined) {
    log.info(`${what}: ${message}`);
    return;
  }
  log.error(`${what}: ${message}`);
  const showLog = vscode.l10n.t('Show Log');
  const openSettings = vscode.l10n.t('Open Settings');
  if (err instanceof SettingError) {
    void vscode.window.showErrorMessage(vscode.l10n.t('SDMA Lens: {0}', message), openSettings).then((c) => {
      if (c) void vscode.commands.executeCommand('workbench.action.openSettings', `sdmaLens.${err.setting}`);
    });
  } else if (err instanceof HelperError && err.fixedBy === 'target') {
    const selectTarget = vscode.l10n.t('Select Target');
    void vscode.window
      .showErrorMessage(vscode.l10n.t('SDMA Lens: {0}. {1}', message, err.remedy), selectTarget, showLog)
      .then((c) => {
        if (c === selectTarget) void vscode.commands.executeCommand('sdmaLens.selectTarget');
        if (c === showLog) log.show();
      });
  } else if (err instanceof HelperError) {
    void vscode.window
      .showErrorMessage(vscode.l10n.t('SDMA Lens: {0}. {1}', message, err.remedy), openSettings, showLog)
      .then((c) => {
        if (c === openSettings)
          void vscode.commands.executeCommand('workbench.action.openSettings', 'sdmaLens.helperPath');
        if (c === showLog) log.show();
      });
  } else {
    void vscode.window.showErrorMessage(vscode.l10n.t('SDMA Lens: {0}: {1}', what, message), showLog).then((c) => {
      if (c) log.show();
    });
  }
}
