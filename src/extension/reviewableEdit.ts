/**
 * Edits the user reviews before they take effect: the change is made in an editor and left
 * unsaved (a new file is an untitled document at its path), so nothing reaches the disk
 * until the user saves; "Compare with Saved" shows the diff and Revert drops it.
 */
import * as vscode from 'vscode';
import type { TextEdit } from '../core/advice/envFiles';
import { applyTextEdits } from '../core/advice/envFiles';
import { checkSafeFile, SafeFileError } from '../core/runs/safeFile';

/**
 * The document of a knob file the product edits (launch.json, tasks.json, .env,
 * settings.json), or undefined when there is none yet. A local file is checked by the one safe
 * open first: a link, FIFO or device put in its place, or a file larger than any such file, is
 * refused with a sentence naming it (SafeFileError), never opened.
 */
export async function openKnobFile(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  if (uri.scheme === 'file') {
    try {
      await checkSafeFile(uri.fsPath, 'knob-file');
    } catch (err) {
      if (err instanceof SafeFileError && err.problem === 'missing') return undefined;
      throw err;
    }
  }
  try {
    return await vscode.workspace.openTextDocument(uri);
  } catch {
    return undefined;
  }
}

/** `what`: what the edit does, localized by the caller ("3 settings written"); the message names the file. */
export async function reviewableEdit(uri: vscode.Uri, edits: TextEdit[], what: string): Promise<boolean> {
  const existing = await openKnobFile(uri);
  const exists = existing !== undefined;
  const doc = existing ?? (await vscode.workspace.openTextDocument(uri.with({ scheme: 'untitled' })));
  const edit = new vscode.WorkspaceEdit();
  if (exists) {
    for (const e of edits)
      edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.text);
  } else {
    edit.insert(doc.uri, new vscode.Position(0, 0), applyTextEdits('', edits));
  }
  if (!(await vscode.workspace.applyEdit(edit))) return false;
  await vscode.window.showTextDocument(doc, { preview: false });
  const save = vscode.l10n.t('Save');
  const compare = vscode.l10n.t('Compare with Saved');
  const actions = exists ? [save, compare] : [save];
  const message = vscode.l10n.t({
    message: 'SDMA Lens: {0} in {1}, not saved yet: review, then save.',
    args: [what, vscode.workspace.asRelativePath(uri)],
    comment: ['{0} is what the edit does, e.g. "3 settings written"; {1} is the file'],
  });
  void vscode.window.showInformationMessage(message, ...actions).then(async (choice) => {
    if (choice === save) await doc.save();
    if (choice === compare) await vscode.commands.executeCommand('workbench.files.action.compareWithSaved', doc.uri);
  });
  return true;
}
