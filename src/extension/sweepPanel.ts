/**
 * The panel that shows one sweep run. It owns a webview, sends it the run's view model
 * (throttled while the run streams) and validates every message the page sends back.
 */
import * as vscode from 'vscode';
import type { EndpointPair } from '../core/endpoints';
import { pairName } from '../core/endpoints';
import { validPanelMessage } from './panelMessages';
import type { HostMessage } from '../core/sweep/sweepMessages';
import { parseWebviewMessage } from '../core/sweep/sweepMessages';
import { adviseFromRun } from '../core/advice/advice';
import type { AdviceView } from '../core/advice/adviceView';
import { adviceView } from '../core/advice/adviceView';
import { adviceSettings } from './settings';
import type { Run } from '../core/run';
import { sweepView } from '../core/sweep/sweepView';
import { makeNonce, panelHtml } from '../core/pages/webviewHtml';
import { Throttle } from './throttle';
import { panelOptions } from './webviewOptions';

export const SWEEP_VIEW_TYPE = 'sdmaLens.sweep';
const UPDATE_INTERVAL_MS = 150;

export class SweepPanel implements vscode.Disposable {
  private static readonly open = new Map<string, SweepPanel>();

  private ready = false;
  private run: Run;
  private live = false;
  private readonly refresh = new Throttle(UPDATE_INTERVAL_MS, () => this.post());
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** The endpoint pair the page shows (its pair switcher); the advice follows it. */
  private pair: EndpointPair | undefined;
  /**
   * The last update VS Code confirmed it delivered to the page, after the page said it was
   * ready. Read by the integration tests, which cannot see inside the webview.
   */
  lastDelivered: HostMessage | undefined;

  /** Shows the run in its panel, creating the panel if needed. */
  static show(extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel, live = false): SweepPanel {
    const existing = SweepPanel.open.get(run.header.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(run, live);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(SWEEP_VIEW_TYPE, 'SDMA Lens sweep', vscode.ViewColumn.Active, panelOptions(extensionUri));
    const created = new SweepPanel(panel, extensionUri, run, log);
    created.live = live;
    return created;
  }

  /** Rebuilds a panel VS Code restored after a reload. */
  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): SweepPanel {
    panel.webview.options = panelOptions(extensionUri);
    return new SweepPanel(panel, extensionUri, run, log);
  }

  static forRun(id: string): SweepPanel | undefined {
    return SweepPanel.open.get(id);
  }

  /** The run of the panel the user is looking at, if a sweep panel is active. */
  static activeRunId(): string | undefined {
    return [...SweepPanel.open.values()].find((p) => p.panel.active)?.runId;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    run: Run,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.run = run;
    SweepPanel.open.set(run.header.id, this);
    const webview = panel.webview;
    const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', file)).toString();
    panel.title = `Sweep ${shortId(run.header.id)}`;
    webview.html = panelHtml({ cspSource: webview.cspSource, scriptUri: asset('sweep.js'), styleUri: asset('sweep.css'), nonce: makeNonce(), title: panel.title });
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** Replaces the run shown; while it streams (`live`), updates are coalesced. */
  update(run: Run, live = false): void {
    this.run = run;
    this.live = live;
    if (this.ready) this.refresh.schedule();
  }

  /** Sends the latest state now (the end of a run should not wait for the throttle). */
  flush(): void {
    this.refresh.cancel();
    if (this.ready) this.post();
  }

  get runId(): string {
    return this.run.header.id;
  }

  private post(): void {
    if (this.disposed) return;
    const message: HostMessage = { type: 'sweep', view: sweepView(this.run, this.live), ...this.advice() };
    void this.panel.webview.postMessage(message).then((delivered) => {
      if (delivered) this.lastDelivered = message;
    });
  }

  /** The advice for the run as it stands; left out (and logged) when settings are invalid. */
  private advice(): { advice?: AdviceView } {
    if (this.run.samples.length === 0) return {};
    try {
      return { advice: adviceView(adviseFromRun(this.run, { ...adviceSettings(), ...(this.pair ? { pair: this.pair } : {}) })) };
    } catch (err) {
      this.log.warn(`sweep panel ${this.runId}: no advice: ${(err as Error).message}`);
      return {};
    }
  }

  private receive(raw: unknown): void {
    const message = validPanelMessage(raw, parseWebviewMessage, this.log, 'sweep');
    if (!message) return;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.flush();
        break;
      case 'cus-selected':
        this.log.trace(`sweep panel ${this.runId}: showing ${message.cus} CUs`);
        break;
      case 'webview-error':
        this.log.error(`sweep panel: ${message.message}`);
        break;
      case 'suggest-settings':
        void vscode.commands.executeCommand('sdmaLens.suggestSettings', { runId: this.runId });
        break;
      case 'open-timeline':
        // Through the command, so the timeline keeps its own trust check, progress and errors.
        void vscode.commands.executeCommand('sdmaLens.showTimeline', {
          runId: this.runId,
          sizeBytes: message.sizeBytes,
          path: message.path,
          cus: message.cus,
          ...(message.src !== undefined && message.dst !== undefined ? { src: message.src, dst: message.dst } : {}),
        });
        break;
      case 'pair-selected':
        this.log.trace(`sweep panel ${this.runId}: showing ${pairName(message)}`);
        this.pair = { src: message.src, dst: message.dst };
        if (this.ready) this.post();
        break;
      default: {
        const never: never = message;
        this.log.warn(`unhandled panel message ${JSON.stringify(never)}`);
      }
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.refresh.cancel();
    SweepPanel.open.delete(this.run.header.id);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}

function shortId(id: string): string {
  // 2026-11-30T01-02-03-456Z-sweep-sim-k3f9 -> 01:02:03 sim
  const m = /^\d{4}-\d{2}-\d{2}T(\d{2})-(\d{2})-(\d{2})-\d{3}Z-[a-z]+-([a-z]+)/i.exec(id);
  return m ? `${m[1]}:${m[2]}:${m[3]} ${m[4]}` : id;
}
