/**
 * The panel of one bandwidth-matrix run: a heat map per copy path (its own page, since its
 * axes, source and destination GPU, are neither the sweep's nor the collectives'). It posts
 * the whole view model, throttled while the run streams, and validates what the page sends.
 */
import * as vscode from 'vscode';
import type { MatrixHostMessage } from '../core/matrixMessages';
import { parseMatrixWebviewMessage } from '../core/matrixMessages';
import { matrixPageView } from '../core/matrixView';
import type { Run } from '../core/run';
import { makeNonce, panelHtml } from '../core/webviewHtml';
import { validPanelMessage } from './panelMessages';

export const MATRIX_VIEW_TYPE = 'sdmaLens.matrix';
const UPDATE_INTERVAL_MS = 150;

export class MatrixPanel implements vscode.Disposable {
  private static readonly open = new Map<string, MatrixPanel>();

  private ready = false;
  private run: Run;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** The last view VS Code confirmed it delivered, for tests that cannot see inside the page. */
  lastDelivered: MatrixHostMessage | undefined;

  static show(extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): MatrixPanel {
    const existing = MatrixPanel.open.get(run.header.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(run);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(MATRIX_VIEW_TYPE, 'SDMA Lens bandwidth matrix', vscode.ViewColumn.Active, MatrixPanel.options(extensionUri));
    return new MatrixPanel(panel, extensionUri, run, log);
  }

  /** Rebuilds a panel VS Code restored after a reload (the page saved its run id in its state). */
  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): MatrixPanel {
    panel.webview.options = MatrixPanel.options(extensionUri);
    return new MatrixPanel(panel, extensionUri, run, log);
  }

  static forRun(id: string): MatrixPanel | undefined {
    return MatrixPanel.open.get(id);
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, retainContextWhenHidden: false, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')] };
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    run: Run,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.run = run;
    MatrixPanel.open.set(run.header.id, this);
    const webview = panel.webview;
    const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', file)).toString();
    panel.title = 'SDMA Lens bandwidth matrix';
    webview.html = panelHtml({ cspSource: webview.cspSource, scriptUri: asset('matrix.js'), styleUri: asset('matrix.css'), nonce: makeNonce(), title: panel.title });
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** New records arrived: the page is refreshed at most every UPDATE_INTERVAL_MS. */
  update(run: Run): void {
    this.run = run;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, UPDATE_INTERVAL_MS);
  }

  /** Posts the current view now (the run ended). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.post();
  }

  private post(): void {
    if (this.disposed || !this.ready) return;
    const message: MatrixHostMessage = { type: 'matrix-view', view: matrixPageView(this.run) };
    void this.panel.webview.postMessage(message).then((ok) => {
      if (ok) this.lastDelivered = message;
    });
  }

  private receive(raw: unknown): void {
    const message = validPanelMessage(raw, parseMatrixWebviewMessage, this.log, 'matrix');
    if (!message) return;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.post();
        break;
      case 'webview-error':
        this.log.error(message.message);
        break;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    MatrixPanel.open.delete(this.run.header.id);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
