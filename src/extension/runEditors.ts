/**
 * Run files that open where they are drawn: a `run.ndjson` opens in its run's panel (sweep,
 * matrix, collective or overlap) and a `.sdmatl` timeline in the timeline panel, by
 * double-click in the Explorer, from Quick Open or a link. Read-only custom editors: the
 * file is read (special files and links refused, as everywhere), never changed; "Reopen
 * Editor With... > Text Editor" shows the lines. Nothing is run to open one.
 */
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { Run } from '../core/run';
import { openAdvisedRun } from '../core/runs/refinements';
import { RunReadCancelled, RunStore, readRunFile } from '../core/runs/runStore';
import { withOpenProgress } from './openProgress';
import { checkSafeFile } from '../core/runs/safeFile';
import { escapeControls } from '../core/text';
import { CollectivePanels } from './collectivePanel';
import { source } from './commands/showTimeline';
import { MatrixPanels } from './matrixPanel';
import { SweepPanel } from './sweepPanel';
import { TimelinePanel } from './timelinePanel';

export const RUN_FILE_EDITOR = 'sdmaLens.runFile';
export const TIMELINE_FILE_EDITOR = 'sdmaLens.timelineFile';

/** A static page that says why the file cannot be drawn and what to do: no scripts, nothing loaded. */
function messagePage(title: string, text: string): string {
  const esc = (s: string) =>
    escapeControls(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);padding:1.5em;max-width:48em}</style></head><body><h2>${esc(title)}</h2><p>${esc(text)}</p></body></html>`;
}

/** The run of a run file: with its refinement rounds when it sits in a runs folder. */
async function readRun(file: string): Promise<Run> {
  const dir = dirname(file);
  return withOpenProgress(file, basename(dir), async (o) => {
    try {
      return await openAdvisedRun(new RunStore(dirname(dir)), basename(dir), o);
    } catch (err) {
      if (err instanceof RunReadCancelled) throw err;
      return readRunFile(file, o);
    }
  });
}

/** A read-only editor of a file: the document is its URI; each kind draws it in its own panel. */
abstract class FileEditor implements vscode.CustomReadonlyEditorProvider {
  constructor(
    protected readonly extensionUri: vscode.Uri,
    protected readonly log: vscode.LogOutputChannel,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => {} };
  }

  abstract resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void>;
}

class RunFileEditor extends FileEditor {
  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const file = document.uri.fsPath;
    try {
      const run = await readRun(file);
      switch (run.header.command) {
        case 'sweep':
          SweepPanel.revive(panel, this.extensionUri, run, this.log);
          return;
        case 'matrix':
          MatrixPanels.revive(panel, this.extensionUri, run, this.log);
          return;
        case 'collective':
        case 'overlap':
          CollectivePanels.revive(panel, this.extensionUri, run, this.log);
          return;
        default:
          panel.webview.html = messagePage(
            vscode.l10n.t('SDMA Lens: {0} run {1}', run.header.command, run.header.id),
            vscode.l10n.t(
              'A Profile or imported profile shows its facts above your kernels and in its timeline: open it with "SDMA Lens: Open Run" (or the Runs view). "Reopen Editor With... > Text Editor" shows the file.',
            ),
          );
      }
    } catch (err) {
      this.log.warn(`could not open ${file} as a run: ${(err as Error).message}`);
      panel.webview.html = messagePage(
        vscode.l10n.t('SDMA Lens could not read this run file'),
        vscode.l10n.t('{0}. "Reopen Editor With... > Text Editor" shows its lines.', (err as Error).message),
      );
    }
  }
}

class TimelineFileEditor extends FileEditor {
  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const file = document.uri.fsPath;
    const runDir = dirname(file);
    try {
      // Said here, before a panel opens: a link, a FIFO, a device or a file larger than any timeline is not read (safeFile.ts).
      await checkSafeFile(file, 'timeline');
      // A timeline is drawn with its run's facts (node, pair, paths): the run file beside it.
      const run = await readRun(join(runDir, 'run.ndjson'));
      TimelinePanel.revive(panel, this.extensionUri, source(run, runDir, { kind: 'file', file }), this.log);
    } catch (err) {
      this.log.warn(`could not open ${file} as a timeline: ${(err as Error).message}`);
      panel.webview.html = messagePage(
        vscode.l10n.t('SDMA Lens could not open this timeline'),
        vscode.l10n.t(
          '{0}. A .sdmatl file opens with the run.ndjson of the run that recorded it beside it.',
          (err as Error).message,
        ),
      );
    }
  }
}

export function registerRunEditors(extensionUri: vscode.Uri, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.window.registerCustomEditorProvider(RUN_FILE_EDITOR, new RunFileEditor(extensionUri, log), {
      supportsMultipleEditorsPerDocument: false,
    }),
    vscode.window.registerCustomEditorProvider(TIMELINE_FILE_EDITOR, new TimelineFileEditor(extensionUri, log), {
      supportsMultipleEditorsPerDocument: false,
    }),
  );
}
