/**
 * "SDMA Lens: Run Again": the last run this window started, again, with the same choices
 * (the sweep's options as picked, not the quick pick again). Kept for the window only: a run
 * is a decision about a node at a moment, not a setting.
 */
import * as vscode from 'vscode';

interface LastRun {
  command: string;
  args: unknown;
  /** What ran, as the user reads it (localized by the command). */
  what: string;
}

let last: LastRun | undefined;

/** Called by a run command once it knows what it will run. */
export function rememberRun(command: string, args: unknown, what: string): void {
  last = { command, args, what };
}

export async function runAgainCommand(): Promise<unknown> {
  if (!last) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('SDMA Lens: nothing has run in this window yet. Run a sweep, matrix, collective or Profile first.'),
    );
    return undefined;
  }
  return vscode.commands.executeCommand(last.command, last.args);
}

/** What Run Again would do, for tests and the command's tooltip. */
export function lastRun(): LastRun | undefined {
  return last;
}
