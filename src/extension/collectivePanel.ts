/**
 * The panel of one collective or overlap run: a separate page from the sweep panel, since its
 * axes (collective size, variant; compute kept per path) are not the sweep's. It posts the
 * whole view model (throttled while the run streams) and validates what the page sends back.
 */
import * as vscode from 'vscode';
import { validPanelMessage } from './panelMessages';
import type { CollectiveHostMessage } from '../core/collectiveMessages';
import { parseCollectiveWebviewMessage } from '../core/collectiveMessages';
import { collectivePageView } from '../core/collectiveView';
import type { Run } from '../core/run';
import { makeNonce, panelHtml } from '../core/webviewHtml';

export const COLLECTIVE_VIEW_TYPE = 'sdmaLens.collective';
const UPDATE_INTERVAL_MS = 150;

export class CollectivePanel implements vscode.Disposable {
  private static readonly open = new Map<string, CollectivePanel>();

  private ready = false;
  private run: Run;
  private timer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** The last view VS Code confirmed it delivered, for tests that cannot see inside the page. */
  lastDelivered: CollectiveHostMessage | undefined;

  static show(extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): CollectivePanel {
    const existing = CollectivePanel.open.get(run.header.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(run);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(COLLECTIVE_VIEW_TYPE, 'SDMA Lens collectives', vscode.ViewColumn.Active, CollectivePanel.options(extensionUri));
    return new CollectivePanel(panel, extensionUri, run, log);
  }

  /** Rebuilds a panel VS Code restored after a reload (the page saved its run id in its state). */
  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): CollectivePanel {
    panel.webview.options = CollectivePanel.options(extensionUri);
    return new CollectivePanel(panel, extensionUri, run, log);
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, retainContextWhenHidden: false, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')] };
  }

  static forRun(id: string): CollectivePanel | undefined {
    return CollectivePanel.open.get(id);
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    run: Run,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.run = run;
    CollectivePanel.open.set(run.header.id, this);
    const webview = panel.webview;
    const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', file)).toString();
    panel.title = run.header.command === 'overlap' ? 'SDMA Lens overlap' : 'SDMA Lens collectives';
    webview.html = panelHtml({ cspSource: webview.cspSource, scriptUri: asset('collective.js'), styleUri: asset('collective.css'), nonce: makeNonce(), title: panel.title });
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
    const message: CollectiveHostMessage = { type: 'collective-view', view: collectivePageView(this.run) };
    void this.panel.webview.postMessage(message).then((ok) => {
      if (ok) this.lastDelivered = message;
    });
  }

  private receive(raw: unknown): void {
    const message = validPanelMessage(raw, parseCollectiveWebviewMessage, this.log, 'collective');
    if (!message) return;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.post();
        break;
      case 'copy-exports': {
        const text = collectivePageView(this.run).exports;
        void vscode.env.clipboard.writeText(text).then(() => vscode.window.setStatusBarMessage('SDMA Lens: exports copied', 3000));
        break;
      }
      case 'webview-error':
        this.log.error(message.message);
        break;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    CollectivePanel.open.delete(this.run.header.id);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
