/**
 * The host side of a panel that shows one run through one view model (collectives and
 * overlap, the bandwidth matrix): one panel per run, the whole view posted on `ready` and
 * then throttled while the run streams, every message from the page validated. A kind says
 * what differs: its view type, page bundle, title, view message and any extra page requests.
 */
import * as vscode from 'vscode';
import type { Run } from '../core/run';
import { makeNonce, panelHtml } from '../core/pages/webviewHtml';
import { validPanelMessage } from './panelMessages';
import { Throttle } from './throttle';
import { panelOptions } from './webviewOptions';

const UPDATE_INTERVAL_MS = 150;

/** What every page sends; a kind's parser may accept more. */
type BaseWebviewMessage = { type: 'ready' } | { type: 'webview-error'; message: string };

export interface RunPanelKind<H, W extends { type: string }> {
  viewType: string;
  /** The page bundle `dist/webview/<asset>.js` and its `.css`; also the name used in logs. */
  asset: string;
  title(run: Run): string;
  view(run: Run): H;
  parse(raw: unknown): W | undefined;
  /** Page requests beyond `ready` and `webview-error`. */
  handle?(message: W, run: Run): void;
}

export class RunViewPanel<H, W extends { type: string }> implements vscode.Disposable {
  private ready = false;
  private readonly refresh = new Throttle(UPDATE_INTERVAL_MS, () => this.post());
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** The last view VS Code confirmed it delivered, for tests that cannot see inside the page. */
  lastDelivered: H | undefined;

  constructor(
    private readonly kind: RunPanelKind<H, W>,
    private readonly open: Map<string, RunViewPanel<H, W>>,
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private run: Run,
    private readonly log: vscode.LogOutputChannel,
  ) {
    open.set(run.header.id, this);
    const webview = panel.webview;
    const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', file)).toString();
    panel.title = kind.title(run);
    webview.html = panelHtml({ cspSource: webview.cspSource, scriptUri: asset(`${kind.asset}.js`), styleUri: asset(`${kind.asset}.css`), nonce: makeNonce(), title: panel.title });
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** New records arrived: the page is refreshed at most every UPDATE_INTERVAL_MS. */
  update(run: Run): void {
    this.run = run;
    this.refresh.schedule();
  }

  /** Posts the current view now (the run ended). */
  flush(): void {
    this.refresh.cancel();
    this.post();
  }

  private post(): void {
    if (this.disposed || !this.ready) return;
    const message = this.kind.view(this.run);
    void this.panel.webview.postMessage(message).then((ok) => {
      if (ok) this.lastDelivered = message;
    });
  }

  private receive(raw: unknown): void {
    const message = validPanelMessage(raw, (value) => this.kind.parse(value), this.log, this.kind.asset);
    if (!message) return;
    const base = message as unknown as BaseWebviewMessage;
    if (base.type === 'ready') {
      this.ready = true;
      this.post();
    } else if (base.type === 'webview-error') {
      this.log.error(base.message);
    } else {
      this.kind.handle?.(message, this.run);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.refresh.cancel();
    this.open.delete(this.run.header.id);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}

/** The open panels of one kind, by run id. */
export class RunPanels<H, W extends { type: string }> {
  private readonly open = new Map<string, RunViewPanel<H, W>>();

  constructor(private readonly kind: RunPanelKind<H, W>) {}

  show(extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): RunViewPanel<H, W> {
    const existing = this.open.get(run.header.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(run);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(this.kind.viewType, this.kind.title(run), vscode.ViewColumn.Active, panelOptions(extensionUri));
    return new RunViewPanel(this.kind, this.open, panel, extensionUri, run, log);
  }

  /** Rebuilds a panel VS Code restored after a reload (the page saved its run id in its state). */
  revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): RunViewPanel<H, W> {
    panel.webview.options = panelOptions(extensionUri);
    return new RunViewPanel(this.kind, this.open, panel, extensionUri, run, log);
  }

  forRun(id: string): RunViewPanel<H, W> | undefined {
    return this.open.get(id);
  }
}
