/**
 * Edits the user reviews before they take effect: the change is made in an editor and left
 * unsaved (a new file is an untitled document at its path), so nothing reaches the disk
 * until the user saves; "Compare with Saved" shows the diff and Revert drops it.
 */
import * as vscode from 'vscode';
import type { TextEdit } from '../core/advice/envFiles';
import { applyTextEdits } from '../core/advice/envFiles';

export async function reviewableEdit(uri: vscode.Uri, edits: TextEdit[], what: string): Promise<boolean> {
  let doc: vscode.TextDocument;
  let exists = true;
  try {
    doc = await vscode.workspace.openTextDocument(uri);
  } catch {
    exists = false;
    doc = await vscode.workspace.openTextDocument(uri.with({ scheme: 'untitled' }));
  }
  const edit = new vscode.WorkspaceEdit();
  if (exists) {
    for (const e of edits) edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.text);
  } else {
    edit.insert(doc.uri, new vscode.Position(0, 0), applyTextEdits('', edits));
  }
  if (!(await vscode.workspace.applyEdit(edit))) return false;
  await vscode.window.showTextDocument(doc, { preview: false });
  const actions = exists ? ['Save', 'Compare with Saved'] : ['Save'];
  void vscode.window.showInformationMessage(`SDMA Lens: ${what} in ${vscode.workspace.asRelativePath(uri)}, not saved yet: review, then save.`, ...actions).then(async (choice) => {
    if (choice === 'Save') await doc.save();
    if (choice === 'Compare with Saved') await vscode.commands.executeCommand('workbench.files.action.compareWithSaved', doc.uri);
  });
  return true;
}
