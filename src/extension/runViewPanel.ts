/**
 * The host side of every SDMA Lens panel.
 *
 * `PanelPage` is the webview plumbing all of them share: the page's HTML with a fresh nonce
 * and the strict CSP, its bundle from `dist/webview/`, every message from the page validated,
 * `ready` and `webview-error` handled, disposal. The timeline panel is built on it directly.
 *
 * `RunViewPanel` is one panel per run that shows the run through one view model (the sweep,
 * collectives and overlap, the bandwidth matrix): the whole view posted on `ready` and then
 * throttled while the run streams (`live`). A kind says what differs: its view type, page
 * bundle, title, view message, the per-panel state it keeps and any extra page requests.
 *
 * Every panel's table leaves the same way (`exportTable`, `copyTable`): the host builds the
 * table from its own view, asks where to save it, and writes it through a new file renamed
 * into place (`runs/newFile.ts`), so a link at the chosen name is refused, never written through.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Run } from '../core/run';
import { makeNonce, panelHtml } from '../core/pages/webviewHtml';
import { writeNewFile } from '../core/runs/newFile';
import type { TableMessage } from '../core/tables/tableMessages';
import type { TableFormat, TableModel } from '../core/tables/tableText';
import { tableFileName, tableMarkdown, tableText } from '../core/tables/tableText';
import { escapeControls } from '../core/text';
import { validPanelMessage } from './panelMessages';
import { Throttle } from './throttle';
import { panelOptions } from './webviewOptions';

const UPDATE_INTERVAL_MS = 150;

/** What every page sends; a page's parser accepts more. */
type BaseWebviewMessage = { type: 'ready' } | { type: 'webview-error'; message: string };
type Extra<W> = Exclude<W, BaseWebviewMessage>;
/** What a run view's kind handles itself: everything but the base messages and the table's. */
type KindExtra<W> = Exclude<Extra<W>, TableMessage>;

/** The save dialog of a format (localized, so built when asked) and the format's name in the log. */
function formatDialog(format: TableFormat): { logName: string; title: string; filters: Record<string, string[]> } {
  return format === 'csv'
    ? {
        logName: 'CSV',
        title: vscode.l10n.t('SDMA Lens: export the table as CSV'),
        filters: { [vscode.l10n.t('CSV')]: ['csv'] },
      }
    : {
        logName: 'Markdown',
        title: vscode.l10n.t('SDMA Lens: export the table as Markdown'),
        filters: { [vscode.l10n.t('Markdown')]: ['md'] },
      };
}

/**
 * "Export CSV…" / "Export Markdown…": asks where (first workspace folder, `<base>.csv|.md`),
 * writes the table there, and says what happened. Returns the file written, or undefined
 * (cancelled, or it failed: the message says why).
 */
export async function exportTable(
  table: TableModel,
  format: TableFormat,
  base: string,
  log: vscode.LogOutputChannel,
): Promise<string | undefined> {
  const { logName, title, filters } = formatDialog(format);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = tableFileName(base, format);
  const target = await vscode.window.showSaveDialog({
    title,
    saveLabel: vscode.l10n.t('Export'),
    filters,
    ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
  });
  if (!target) return undefined;
  if (target.scheme !== 'file') {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'SDMA Lens: the table was not exported: {0} is not a local file (SDMA Lens writes exports with the file system of the extension host).',
        escapeControls(target.toString()),
      ),
    );
    return undefined;
  }
  const file = target.fsPath;
  try {
    await writeNewFile(file, [tableText(table, format)]);
  } catch (err) {
    log.error(`could not write ${file}: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'SDMA Lens: could not write the table to {0}: {1}',
        escapeControls(file),
        escapeControls((err as Error).message),
      ),
    );
    return undefined;
  }
  log.info(`wrote the table (${table.rows.length} rows, ${logName}) to ${file}`);
  const openFile = vscode.l10n.t('Open File');
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        'SDMA Lens: table written to {0} ({1} rows).',
        escapeControls(path.basename(file)),
        table.rows.length,
      ),
      openFile,
    )
    .then((choice) => {
      if (choice === openFile) void vscode.commands.executeCommand('vscode.open', target);
    });
  return file;
}

/** "Copy table" where the page's own clipboard was refused: the Markdown through VS Code's clipboard. */
export async function copyTable(table: TableModel, log: vscode.LogOutputChannel): Promise<void> {
  try {
    await vscode.env.clipboard.writeText(tableMarkdown(table));
    vscode.window.setStatusBarMessage(
      vscode.l10n.t('SDMA Lens: table copied as Markdown ({0} rows)', table.rows.length),
      3000,
    );
  } catch (err) {
    log.error(`could not copy the table: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(
      vscode.l10n.t('SDMA Lens: could not copy the table: {0}', escapeControls((err as Error).message)),
    );
  }
}

export function isTableMessage(message: { type: string }): message is TableMessage {
  return message.type === 'export-table' || message.type === 'copy-table';
}

/** Answers the page's "Export CSV…", "Export Markdown…" or "Copy table" with its table. */
export function answerTableMessage(
  message: TableMessage,
  table: TableModel,
  base: string,
  log: vscode.LogOutputChannel,
): void {
  if (message.type === 'export-table') void exportTable(table, message.format, base, log);
  else void copyTable(table, log);
}

export interface PageAssets<W> {
  /** The page bundle `dist/webview/<asset>.js` and its `.css`; also the name used in logs. */
  asset: string;
  parse(raw: unknown): W | undefined;
  /** CSP directives beyond the strict base (the timeline's worker). */
  extraDirectives?: readonly string[];
}

export abstract class PanelPage<W extends { type: string }> implements vscode.Disposable {
  protected ready = false;
  protected disposed = false;
  private readonly disposables: vscode.Disposable[] = [];

  protected constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    protected readonly log: vscode.LogOutputChannel,
    private readonly page: PageAssets<W>,
    title: string,
  ) {
    const webview = panel.webview;
    const asset = (file: string) =>
      webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', file)).toString();
    panel.title = title;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      scriptUri: asset(`${page.asset}.js`),
      styleUri: asset(`${page.asset}.css`),
      nonce: makeNonce(),
      title,
      ...(page.extraDirectives ? { extraDirectives: page.extraDirectives } : {}),
    });
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  /** The page said it is ready: post what it shows. */
  protected abstract onReady(): void;
  /** Page requests beyond `ready` and `webview-error`. */
  protected abstract handle(message: Extra<W>): void;
  /** Forgets the panel wherever it is listed. */
  protected abstract unlist(): void;

  private receive(raw: unknown): void {
    const message = validPanelMessage(raw, (value) => this.page.parse(value), this.log, this.page.asset);
    if (!message) return;
    const base = message as unknown as BaseWebviewMessage;
    if (base.type === 'ready') {
      this.ready = true;
      this.onReady();
    } else if (base.type === 'webview-error') {
      this.log.error(`${this.page.asset} panel: ${base.message}`);
    } else {
      this.handle(message as Extra<W>);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.unlist();
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}

export interface RunPanelKind<H, W extends { type: string }, S = undefined> extends PageAssets<W> {
  viewType: string;
  title(run: Run): string;
  /** The panel's own state besides the run (the sweep's endpoint pair); undefined if none. */
  initialState?(): S;
  view(run: Run, panel: RunViewPanel<H, W, S>): H;
  /** The panel's table as its page shows it, for "Copy table" and the exports. */
  table(run: Run, panel: RunViewPanel<H, W, S>): TableModel;
  handle?(message: KindExtra<W>, panel: RunViewPanel<H, W, S>): void;
}

export class RunViewPanel<H, W extends { type: string }, S = undefined> extends PanelPage<W> {
  private readonly refresh = new Throttle(UPDATE_INTERVAL_MS, () => this.post());
  /** What the kind keeps for this panel (see RunPanelKind.initialState). */
  state: S;
  /** The last view VS Code confirmed it delivered, for tests that cannot see inside the page. */
  lastDelivered: H | undefined;

  constructor(
    private readonly kind: RunPanelKind<H, W, S>,
    private readonly open: Map<string, RunViewPanel<H, W, S>>,
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private current: Run,
    log: vscode.LogOutputChannel,
    /** The run is still streaming records. */
    public live = false,
  ) {
    super(panel, extensionUri, log, kind, kind.title(current));
    this.state = kind.initialState?.() as S;
    open.set(current.header.id, this);
  }

  get run(): Run {
    return this.current;
  }

  get runId(): string {
    return this.current.header.id;
  }

  get logger(): vscode.LogOutputChannel {
    return this.log;
  }

  /** New records arrived (or the run ended, `live` false): the page is refreshed at most every UPDATE_INTERVAL_MS. */
  update(run: Run, live = false): void {
    this.current = run;
    this.live = live;
    this.refresh.schedule();
  }

  /** Posts the current view now (the run ended, or the page's state changed what it shows). */
  flush(): void {
    this.refresh.cancel();
    this.post();
  }

  private post(): void {
    if (this.disposed || !this.ready) return;
    const message = this.kind.view(this.current, this);
    void this.panel.webview.postMessage(message).then((ok) => {
      if (ok) this.lastDelivered = message;
    });
  }

  protected onReady(): void {
    this.flush();
  }

  protected handle(message: Extra<W>): void {
    if (isTableMessage(message)) answerTableMessage(message, this.table(), this.runId, this.log);
    else this.kind.handle?.(message as unknown as KindExtra<W>, this);
  }

  /** The table the page shows, built from the run as it stands. */
  table(): TableModel {
    return this.kind.table(this.current, this);
  }

  /** What the page's "Export CSV…" / "Export Markdown…" runs (public for the tests, which cannot click inside the page). */
  exportTable(format: TableFormat): Promise<string | undefined> {
    return exportTable(this.table(), format, this.runId, this.log);
  }

  protected unlist(): void {
    this.refresh.cancel();
    this.open.delete(this.current.header.id);
  }
}

/** The open panels of one kind, by run id. */
export class RunPanels<H, W extends { type: string }, S = undefined> {
  private readonly open = new Map<string, RunViewPanel<H, W, S>>();

  constructor(private readonly kind: RunPanelKind<H, W, S>) {}

  /** Shows the run in its panel, creating the panel if needed; `live` while the run streams. */
  show(extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel, live = false): RunViewPanel<H, W, S> {
    const existing = this.open.get(run.header.id);
    if (existing) {
      existing.panel.reveal();
      existing.update(run, live);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      this.kind.viewType,
      this.kind.title(run),
      vscode.ViewColumn.Active,
      panelOptions(extensionUri),
    );
    return new RunViewPanel(this.kind, this.open, panel, extensionUri, run, log, live);
  }

  /** Rebuilds a panel VS Code restored after a reload (the page saved its run id in its state). */
  revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    run: Run,
    log: vscode.LogOutputChannel,
  ): RunViewPanel<H, W, S> {
    panel.webview.options = panelOptions(extensionUri);
    return new RunViewPanel(this.kind, this.open, panel, extensionUri, run, log);
  }

  forRun(id: string): RunViewPanel<H, W, S> | undefined {
    return this.open.get(id);
  }

  /** The run of the panel of this kind the user is looking at, if one is active. */
  activeRunId(): string | undefined {
    return [...this.open.values()].find((p) => p.panel.active)?.runId;
  }
}
