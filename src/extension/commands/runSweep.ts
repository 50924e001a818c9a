/**
 * "SDMA Lens: Run Transfer Sweep": settings + quick pick -> helper -> live panel, with
 * progress and cancel. The run is saved as it streams; a failure says what happened and
 * keeps what was measured.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LocalTarget } from '../../core/localTarget';
import type { Run } from '../../core/run';
import { RUN_FORMAT, RUN_FORMAT_VERSION } from '../../core/run';
import { RunStore, makeRunId } from '../../core/runStore';
import { runSession } from '../../core/session';
import type { SweepOptions } from '../../core/sweepOptions';
import { checkSweepOptions, sweepArgs } from '../../core/sweepOptions';
import type { HelperService } from '../helperService';
import { runsFolder, sweepSettings } from '../settings';
import { SweepPanel } from '../sweepPanel';
import { pickSweep } from './sweepPicker';
import { reportError, requireTrust } from './guards';

/** Arguments for scripted use (tests, keybindings, tasks): skip the quick pick and override settings. */
export interface RunSweepArgs {
  options?: Partial<SweepOptions>;
  interactive?: boolean;
  /** Cancels like the notification's Cancel button, for callers that show no notification UI. */
  cancellation?: vscode.CancellationToken;
}

export interface SweepDeps {
  context: vscode.ExtensionContext;
  helper: HelperService;
  log: vscode.LogOutputChannel;
  /** Told about every run that finished or was opened (e.g. to learn the node's library versions). */
  onRun?: (run: Run) => void;
}

export async function runSweepCommand(deps: SweepDeps, args?: RunSweepArgs): Promise<Run | undefined> {
  if (!requireTrust('run a transfer sweep')) return undefined;
  try {
    const fromSettings = sweepSettings();
    const merged = checkSweepOptions({ ...fromSettings, ...(args?.options ?? {}) });
    const options = args?.interactive === false || args?.options ? merged : await pickSweep(merged);
    if (!options) return undefined;
    const helper = await deps.helper.get();
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const id = makeRunId('sweep', options.backend);
    const withTimeline: SweepOptions = options.timelineSizeBytes !== undefined ? { ...options, timelineOut: path.join(store.dirOf(id), 'timeline.sdmatl') } : options;
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SDMA Lens: transfer sweep', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        const scripted = args?.cancellation?.onCancellationRequested(() => controller.abort());
        if (args?.cancellation?.isCancellationRequested) controller.abort();
        let panel: SweepPanel | undefined;
        let lastDone = 0;
        try {
          const run = await runSession({
            target: new LocalTarget(),
            store,
            header: {
              type: 'run',
              format: RUN_FORMAT,
              version: RUN_FORMAT_VERSION,
              id,
              command: 'sweep',
              createdAt: new Date().toISOString(),
              target: { kind: 'local' },
              helper: { path: helper.path, args: sweepArgs(withTimeline) },
            },
            signal: controller.signal,
            onRecord: (live, record) => {
              if (record.type === 'hello') panel = SweepPanel.show(deps.context.extensionUri, live, deps.log, true);
              else panel?.update(live, true);
              if (record.type === 'progress' && record.total > 0) {
                progress.report({ message: `${record.done}/${record.total}${live.hello?.simulated ? ' (simulated)' : ''}`, increment: ((record.done - lastDone) / record.total) * 100 });
                lastDone = record.done;
              }
            },
            onLog: (level, message) => deps.log[level](message),
          });
          panel ??= SweepPanel.show(deps.context.extensionUri, run, deps.log);
          panel.update(run);
          panel.flush();
          announce(run);
          deps.onRun?.(run);
          return run;
        } finally {
          sub.dispose();
          scripted?.dispose();
        }
      },
    );
  } catch (err) {
    reportError(deps.log, 'The transfer sweep could not start', err);
    return undefined;
  }
}

function announce(run: Run): void {
  const end = run.end;
  if (!end || end.status === 'ok') return;
  if (end.status === 'cancelled') {
    void vscode.window.showInformationMessage(`SDMA Lens: sweep cancelled; ${run.samples.length} samples were kept in the run.`);
    return;
  }
  void vscode.window.showErrorMessage(`SDMA Lens: the sweep ${end.status === 'crashed' ? 'crashed' : 'failed'}: ${end.message}`, 'Show Log').then((choice) => {
    if (choice === 'Show Log') void vscode.commands.executeCommand('sdmaLens.showLog');
  });
}
