/** The options of every SDMA Lens panel: scripts on, only the built page assets loadable, no hidden retention (pages restore from their state). */
import * as vscode from 'vscode';

export function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    retainContextWhenHidden: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}
