import * as vscode from 'vscode';

/**
 * "SDMA Lens: Why Are Commands Missing? (Restricted Mode)", in the palette only while the
 * workspace is untrusted: why the commands that run something are hidden, and the way to trust.
 * Returns the sentence shown.
 */
export function restrictedModeCommand(): string {
  const message = vscode.workspace.isTrusted
    ? vscode.l10n.t('SDMA Lens: this workspace is trusted, so every SDMA Lens command is available.')
    : vscode.l10n.t(
        'SDMA Lens: this workspace is in Restricted Mode. SDMA Lens runs a native helper binary (and, for Profile, your program), so the commands that would run one or change saved runs (Run Transfer Sweep, Run Bandwidth Matrix, Profile Program, Show Timeline, Refine Crossover, Run Fleet Sweep, Run Again, Import rocprofv3 Profile, Delete Run) are hidden from the Command Palette, and the others refuse, until you trust the workspace.',
      );
  const manage = vscode.l10n.t('Manage Workspace Trust');
  void vscode.window.showInformationMessage(message, ...(vscode.workspace.isTrusted ? [] : [manage])).then((choice) => {
    if (choice === manage) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return message;
}
