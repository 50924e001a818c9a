/**
 * The panel that shows one timeline (not a run view: its own class on the panels' shared
 * plumbing, `PanelPage`). It reads the timeline (typed-array columns), posts it to
 * the page once the page says it is ready, validates every message the page sends back, and
 * writes the Chrome/Perfetto trace on request. Restored after a reload by the serializer in
 * extension.ts from the `key` the page keeps in its state; nothing is retained while hidden.
 */
import * as vscode from 'vscode';
import type { TimelineHostMessage, TimelineWebviewMessage } from '../core/timeline/timelineMessages';
import { HOST_HELD_EVENTS, parseTimelineWebviewMessage } from '../core/timeline/timelineMessages';
import type { FromWorker } from '../core/timeline/timelineEngineProtocol';
import { TimelineEngineHost } from '../core/runs/timelineEngineHost';
import type { TimelineColumns } from '../core/timeline/timelineFile';
import { TIMELINE_DIRECTIVES } from '../core/pages/timelineHtml';
import type { TimelineMeta } from '../core/timeline/timelineModel';
import { chromeTraceChunks } from '../core/timeline/timelineTrace';
import { timelineFits } from '../core/timeline/timelineCompact';
import { writeNewFile } from '../core/runs/newFile';
import { panelOptions } from './webviewOptions';
import { PanelPage } from './runViewPanel';

export const TIMELINE_VIEW_TYPE = 'sdmaLens.timeline';

/** The timeline page: the one panel plumbing, plus the worker its CSP lets it start (timelineHtml.ts). */
const TIMELINE_PAGE = { asset: 'timeline', parse: parseTimelineWebviewMessage, extraDirectives: TIMELINE_DIRECTIVES };

export interface TimelineSource {
  meta: TimelineMeta;
  /** Where "Export trace" writes. */
  traceFile: string;
  /** Reads the timeline; `signal` is aborted when the load is cancelled (a source may stop reading then). */
  load(signal?: AbortSignal): Promise<TimelineColumns>;
  /** Events the timeline holds, known before it is read (a file's header): decides refusal and progress. */
  count?(): Promise<number>;
  /**
   * The sdmatl file `load` reads, when it is one: a timeline of HOST_HELD_EVENTS or more is then
   * held by the host (an engine process it starts reads it) and the page asks it by message.
   */
  file?: string;
}

/** The reason a cancelled read stops with: not a failure, nothing to report. */
class TimelineLoadCancelled extends Error {
  constructor() {
    super('the timeline was not opened: cancelled');
  }
}

/** From this many events a notification shows the load's progress, with Cancel. */
const PROGRESS_EVENTS = 1_000_000;

export class TimelinePanel extends PanelPage<TimelineWebviewMessage> {
  private static readonly open = new Map<string, TimelinePanel>();

  /** Held only from the read until the page has it. */
  private columns: TimelineColumns | undefined;
  /** A host-held timeline: its engine (a process of its own), its event count and the index once built. */
  private engine: TimelineEngineHost | undefined;
  private hostHeld: { count: number; pid?: number; index?: FromWorker; answers: Record<string, number> } | undefined;
  private failure: string | undefined;
  private loading = false;
  private loadedOnce = false;
  /** Read by the integration tests, which cannot see inside the webview. */
  delivered = false;
  /** The filter the page reports it applies, and the events it keeps (integration tests). */
  appliedFilter: { filter: string; kept: number } | undefined;

  /**
   * Read by the integration tests, which cannot see the engine: a host-held timeline's event
   * count, its engine's process id, whether the engine has surveyed the file (its overview
   * index) and built its index, whether the panel still holds it (false once it closed), and the engine's
   * answers so far by type (`overview` for the survey's index, `index`, `lod`, ...);
   * undefined for a timeline the page holds, and after a failure (`loadFailure` says why).
   */
  get hostHeldState():
    | {
        count: number;
        pid: number | undefined;
        surveyed: boolean;
        indexed: boolean;
        running: boolean;
        answers: Readonly<Record<string, number>>;
      }
    | undefined {
    const held = this.hostHeld;
    if (!held) return undefined;
    const index = held.index?.type === 'index' ? held.index : undefined;
    return {
      count: held.count,
      pid: held.pid,
      surveyed: !!index,
      indexed: !!index && index.stage !== 'overview',
      running: !!this.engine,
      answers: { ...held.answers },
    };
  }

  /** Why the timeline could not be read or opened, as the page shows it (integration tests). */
  get loadFailure(): string | undefined {
    return this.failure;
  }

  static show(extensionUri: vscode.Uri, source: TimelineSource, log: vscode.LogOutputChannel): TimelinePanel {
    const existing = TimelinePanel.open.get(source.meta.key);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      TIMELINE_VIEW_TYPE,
      vscode.l10n.t('SDMA Lens timeline'),
      vscode.ViewColumn.Active,
      panelOptions(extensionUri),
    );
    return new TimelinePanel(panel, extensionUri, source, log);
  }

  static revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    source: TimelineSource,
    log: vscode.LogOutputChannel,
  ): TimelinePanel {
    panel.webview.options = panelOptions(extensionUri);
    return new TimelinePanel(panel, extensionUri, source, log);
  }

  get meta(): TimelineMeta {
    return this.source.meta;
  }

  static forKey(key: string): TimelinePanel | undefined {
    return TimelinePanel.open.get(key);
  }

  private constructor(
    panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly source: TimelineSource,
    log: vscode.LogOutputChannel,
  ) {
    super(panel, extensionUri, log, TIMELINE_PAGE, source.meta.title);
    TimelinePanel.open.set(source.meta.key, this);
    void this.load();
  }

  /** Resolves when the page has drawn the timeline (or the panel closed). */
  private shown: (() => void) | undefined;

  /**
   * Reads the timeline and hands it to the page. A timeline too large for the panel is refused
   * from its header before it is read; a large one shows a notification with Cancel until the
   * page has indexed and drawn it (the page shows its own progress too).
   */
  private async load(): Promise<void> {
    const started = performance.now();
    this.loading = true;
    try {
      const count = this.source.count ? await this.source.count() : undefined;
      if (count !== undefined) this.refuseIfTooLarge(count);
      if (count === undefined || count < PROGRESS_EVENTS) {
        this.accept(await this.source.load(), started);
        return;
      }
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('SDMA Lens: opening a timeline of {0} events', count.toLocaleString('en-US')),
          cancellable: true,
        },
        async (progress, token) => {
          // Cancel stops the read where it is (between chunks and columns) and closes the panel.
          const reading = new AbortController();
          token.onCancellationRequested(() => {
            reading.abort(new TimelineLoadCancelled());
            this.panel.dispose();
          });
          const drawn = new Promise<void>((done) => (this.shown = done));
          if (this.source.file && count >= HOST_HELD_EVENTS) {
            token.onCancellationRequested(() => this.stopEngine());
            progress.report({ message: vscode.l10n.t('reading and indexing') });
            this.holdOnHost(this.source.file, count, started);
            await drawn;
            return;
          }
          progress.report({ message: vscode.l10n.t('reading the file') });
          let columns: TimelineColumns;
          try {
            columns = await this.source.load(reading.signal);
          } catch (err) {
            if (err instanceof TimelineLoadCancelled) return;
            throw err;
          }
          if (this.disposed) return;
          progress.report({ message: vscode.l10n.t('indexing and drawing') });
          this.accept(columns, started);
          await drawn;
        },
      );
    } catch (err) {
      this.failure = `The timeline could not be read: ${(err as Error).message}`;
      this.log.error(`timeline ${this.source.meta.key}: ${this.failure}`);
      this.post();
    } finally {
      this.loading = false;
    }
  }

  private refuseIfTooLarge(count: number): void {
    const fit = timelineFits(count);
    if (fit.ok) return;
    void vscode.window.showErrorMessage(vscode.l10n.t('SDMA Lens: the timeline was not opened: {0}', fit.message!));
    throw new Error(fit.message);
  }

  private accept(columns: TimelineColumns, started: number): void {
    if (this.disposed) return;
    // A timeline whose count was not known ahead (built from a run's records) is checked here.
    this.refuseIfTooLarge(columns.count);
    this.columns = columns;
    this.loadedOnce = true;
    this.log.info(
      `timeline ${this.source.meta.key}: ${columns.count} events read in ${performance.now() - started} ms`,
    );
    this.post();
  }

  /**
   * A big timeline: an engine process reads and indexes the file and answers the page's queries;
   * the page is told the events are host-held and gets nothing per event but its answers.
   */
  private holdOnHost(file: string, count: number, started: number): void {
    if (this.disposed) return;
    this.stopEngine();
    const held: { count: number; pid?: number; index?: FromWorker; answers: Record<string, number> } = {
      count,
      answers: {},
    };
    this.hostHeld = held;
    this.loadedOnce = true;
    this.engine = new TimelineEngineHost({
      bundle: vscode.Uri.joinPath(this.extensionUri, 'dist', 'timelineEngine.js').fsPath,
      file,
      meta: { gpuCus: this.source.meta.gpuCus, vendor: this.source.meta.vendor, simulated: this.source.meta.simulated },
      onRead: (events, readMs, readers) =>
        this.log.info(
          `timeline ${this.source.meta.key}: ${events} events read by the engine process in ${readMs} ms (its overview shared with ${readers} reader threads)`,
        ),
      onAnswer: (answer) => {
        const kind = answer.type === 'index' && answer.stage === 'overview' ? 'overview' : answer.type;
        held.answers[kind] = (held.answers[kind] ?? 0) + 1;
        if (answer.type === 'index') {
          // The latest index is the one a reloaded page gets.
          held.index = answer;
          this.log.info(
            answer.stage === 'overview'
              ? `timeline ${this.source.meta.key}: surveyed in ${answer.buildMs} ms (overview), ${performance.now() - started} ms after open`
              : `timeline ${this.source.meta.key}: indexed in ${answer.buildMs} ms, ${performance.now() - started} ms after open`,
          );
        }
        if (this.ready && !this.disposed) void this.panel.webview.postMessage({ type: 'engine-answer', answer });
      },
      onFailure: (message) => {
        this.engine = undefined;
        this.hostHeld = undefined;
        this.failure = `The timeline could not be opened: ${message}`;
        this.log.error(`timeline ${this.source.meta.key}: ${this.failure}`);
        this.post();
        this.shown?.();
        this.shown = undefined;
      },
    });
    held.pid = this.engine.pid;
    this.post();
  }

  private stopEngine(): void {
    this.engine?.dispose();
    this.engine = undefined;
  }

  private post(): void {
    if (this.disposed || !this.ready) return;
    if (this.hostHeld && !this.failure) {
      void this.panel.webview.postMessage({
        type: 'timeline-host-held',
        meta: this.source.meta,
        count: this.hostHeld.count,
      });
      // A page that loaded (or reloaded) after the index was built gets it again.
      if (this.hostHeld.index)
        void this.panel.webview.postMessage({ type: 'engine-answer', answer: this.hostHeld.index });
      this.delivered = true;
      return;
    }
    let message: TimelineHostMessage;
    if (this.failure) message = { type: 'timeline-status', state: 'error', message: this.failure };
    else if (!this.columns) message = { type: 'timeline-status', state: 'loading', message: 'Reading the timeline…' };
    // The reader's arrays are over plain ArrayBuffers; the schema's type just says so more narrowly.
    else
      message = {
        type: 'timeline',
        meta: this.source.meta,
        columns: this.columns as Extract<TimelineHostMessage, { type: 'timeline' }>['columns'],
      };
    void this.panel.webview.postMessage(message).then((ok) => {
      if (!ok || message.type !== 'timeline') return;
      this.delivered = true;
      // The page owns the timeline now: the host keeps no copy (export and a reloaded page read it again).
      if (this.columns === message.columns) this.columns = undefined;
    });
  }

  protected onReady(): void {
    // A page that reloaded (hidden and shown again) after it was handed the timeline: read it again.
    if (!this.columns && !this.hostHeld && this.loadedOnce && !this.loading && !this.failure) void this.load();
    else this.post();
  }

  protected handle(message: Exclude<TimelineWebviewMessage, { type: 'ready' | 'webview-error' }>): void {
    switch (message.type) {
      case 'export-trace':
        void this.exportTrace();
        break;
      case 'filter-applied':
        this.appliedFilter = { filter: message.filter, kept: message.kept };
        break;
      case 'engine-query':
        // Validated with the page's message; the relay checks it again before the engine sees it.
        if (this.engine) this.engine.query(message.query);
        else this.log.warn(`timeline ${this.source.meta.key}: a query came but no engine holds the timeline`);
        break;
      case 'timeline-shown':
        this.shown?.();
        this.shown = undefined;
        break;
      default: {
        const never: never = message;
        this.log.warn(`unhandled timeline panel message ${JSON.stringify(never)}`);
      }
    }
  }

  protected unlist(): void {
    TimelinePanel.open.delete(this.source.meta.key);
    this.stopEngine();
    this.shown?.();
    this.shown = undefined;
  }

  /** Writes the Chrome/Perfetto trace next to the timeline and offers to reveal it. */
  async exportTrace(): Promise<string | undefined> {
    let columns = this.columns;
    if (!columns && this.loadedOnce) {
      // Read again: the host gave its copy to the page.
      try {
        columns = await this.source.load();
      } catch (err) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('SDMA Lens: could not write the trace: {0}', (err as Error).message),
        );
        return undefined;
      }
    }
    if (!columns) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('SDMA Lens: the timeline is still loading; export it once it shows.'),
      );
      return undefined;
    }
    const file = this.source.traceFile;
    try {
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('SDMA Lens: writing the trace'),
          cancellable: false,
        },
        async () => {
          await writeNewFile(file, chromeTraceChunks(columns, this.source.meta));
        },
      );
    } catch (err) {
      this.log.error(`could not write ${file}: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(
        vscode.l10n.t('SDMA Lens: could not write the trace: {0}', (err as Error).message),
      );
      return undefined;
    }
    this.log.info(`wrote ${file}`);
    const reveal = vscode.l10n.t('Reveal File');
    const perfetto = vscode.l10n.t('Open Perfetto UI');
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t('SDMA Lens: trace written to {0}. Open it in ui.perfetto.dev (Open trace file).', file),
        reveal,
        perfetto,
      )
      .then((choice) => {
        if (choice === reveal) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(file));
        if (choice === perfetto) void vscode.env.openExternal(vscode.Uri.parse('https://ui.perfetto.dev'));
      });
    return file;
  }
}
