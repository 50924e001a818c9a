/**
 * Every command's run, in VS Code: the core run flow (core/runtime/runFlow.ts) under one
 * cancellable progress notification, registered for "Cancel Run" and for deactivation, with
 * one way to say how it ended. Commands add only what they ask and what they show.
 */
import * as vscode from 'vscode';
import type { HelperRecord } from '../core/protocol';
import type { Run } from '../core/run';
import { RunStore } from '../core/runs/runStore';
import { LocalTarget } from '../core/runtime/localTarget';
import type { HelperCommand, NodeInfoRequest, PreStart, RunFlowResult } from '../core/runtime/runFlow';
import { endSentence, runHelperCommand } from '../core/runtime/runFlow';
import type { Target } from '../core/runtime/target';
import { trackRun } from './activeRuns';
import type { HelperService } from './helperService';
import { runsFolder, stallTimeoutSetting } from './settings';
import type { TargetService } from './targets';

/** What a command needs to run the helper. */
export interface RunDeps {
  context: vscode.ExtensionContext;
  helper: HelperService;
  log: vscode.LogOutputChannel;
  /** Where runs go; without it, this machine. */
  targets?: TargetService;
  /** Told about every run that finished or was opened (e.g. to learn the node's library versions). */
  onRun?: (run: Run) => void;
}

/** A panel that draws a run while it streams and once more when it has ended. */
export interface LiveView {
  update(run: Run, live?: boolean): void;
  flush(): void;
}

/** A helper command to run under the progress notification, and how the front takes part. */
export interface ProgressCommand {
  /** In the notification's title and the messages: "transfer sweep", "bandwidth matrix" (localized by the command). */
  what: string;
  request: HelperCommand;
  /** Cancels like the notification's Cancel button, for callers that show no notification UI. */
  cancellation?: vscode.CancellationToken;
  /** Default: the workspace's target (local or SSH). */
  target?: Target;
  /** Default: the runs folder of the settings. */
  store?: RunStore;
  /** The caller says how it ended (it throws on failure): no message from here. */
  quiet?: boolean;
  /** After "n/m" in the progress message, e.g. "cells" (localized by the command). */
  unit?: string;
  /** The node's `info` before the start, inside the run (its notification, its cancel); see RunFlowOptions. */
  nodeInfo?: NodeInfoRequest;
  /** The command chosen with the helper and the node in hand (a quick pick); undefined: the user stepped back, nothing is said. */
  choose?: (ready: PreStart) => Promise<HelperCommand | undefined>;
  beforeStart?: (ready: PreStart) => Promise<void>;
  /** Opens the run's panel: on the helper's `hello` (live), or at the end if no record came. */
  view?: (run: Run, live: boolean) => LiveView;
  onRecord?: (run: Run, record: HelperRecord, progress: vscode.Progress<{ message?: string }>) => void;
  onStderr?: (line: string) => void;
}

export function targetOf(deps: RunDeps): Target {
  return deps.targets?.target() ?? new LocalTarget();
}

export function storeOf(deps: RunDeps): RunStore {
  return new RunStore(runsFolder(deps.context.globalStorageUri));
}

/** Runs one helper command with progress and cancel; says how it ended. Start failures throw (see guards.reportError). */
export async function runWithProgress(deps: RunDeps, spec: ProgressCommand): Promise<RunFlowResult> {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('SDMA Lens: {0}', spec.what),
      cancellable: true,
    },
    async (progress, token) => {
      const controller = new AbortController();
      const abort = () => controller.abort();
      const subscriptions: vscode.Disposable[] = [
        token.onCancellationRequested(abort),
        trackRun(spec.what, controller),
      ];
      if (spec.cancellation) subscriptions.push(spec.cancellation.onCancellationRequested(abort));
      if (spec.cancellation?.isCancellationRequested) abort();
      let lastDone = 0;
      let view: LiveView | undefined;
      try {
        const result = await runHelperCommand(spec.request, {
          target: spec.target ?? targetOf(deps),
          helpers: deps.helper,
          store: spec.store ?? storeOf(deps),
          signal: controller.signal,
          ...(spec.nodeInfo ? { nodeInfo: spec.nodeInfo } : {}),
          choose: spec.choose,
          beforeStart: spec.beforeStart,
          stallTimeoutS: stallTimeoutSetting(),
          onRecord: (live, record) => {
            if (record.type === 'progress' && record.total > 0) {
              progress.report({
                message: progressMessage(record.done, record.total, spec.unit, live.hello?.simulated === true),
                increment: ((record.done - lastDone) / record.total) * 100,
              });
              lastDone = record.done;
            }
            if (spec.view && record.type === 'hello') view = spec.view(live, true);
            else view?.update(live, true);
            spec.onRecord?.(live, record, progress);
          },
          onStderr: spec.onStderr,
          onLog: (level, message) => deps.log[level](message),
        });
        if (result.kind === 'ended' && spec.view) {
          view ??= spec.view(result.run, false);
          view.update(result.run, false);
          view.flush();
        }
        if (!spec.quiet) announce(deps, spec, result);
        if (result.kind === 'ended') deps.onRun?.(result.run);
        return result;
      } finally {
        for (const s of subscriptions) s.dispose();
      }
    },
  );
}

/** "3/12 cells (simulated)": one key per shape, so a translation can order the parts. */
function progressMessage(done: number, total: number, unit: string | undefined, simulated: boolean): string {
  if (unit)
    return simulated
      ? vscode.l10n.t('{0}/{1} {2} (simulated)', done, total, unit)
      : vscode.l10n.t('{0}/{1} {2}', done, total, unit);
  return simulated ? vscode.l10n.t('{0}/{1} (simulated)', done, total) : vscode.l10n.t('{0}/{1}', done, total);
}

function announce(deps: RunDeps, spec: ProgressCommand, result: RunFlowResult): void {
  const showLog = vscode.l10n.t('Show Log');
  if (result.kind === 'not-started') {
    // A quick pick dismissed is no cancel to report.
    if (result.declined) return;
    void vscode.window.showInformationMessage(
      vscode.l10n.t({
        message: 'SDMA Lens: the {0} was cancelled before it started; nothing was run.',
        args: [spec.what],
        comment: ['{0} is what ran, e.g. "transfer sweep"'],
      }),
    );
    return;
  }
  if (result.kind === 'refused') {
    deps.log.error(`the helper refused the ${spec.what}'s arguments: ${result.message}`);
    void vscode.window
      .showErrorMessage(
        vscode.l10n.t({
          message: "SDMA Lens: the helper refused the {0}'s arguments: {1}",
          args: [spec.what, result.message],
          comment: ['{0} is what ran, e.g. "transfer sweep"'],
        }),
        showLog,
      )
      .then((c) => c && deps.log.show());
    return;
  }
  // The end is worded by the core (shared with the CLI, English); only its subject is ours.
  const sentence = endSentence(
    result.run,
    vscode.l10n.t({ message: 'the {0}', args: [spec.what], comment: ['{0} is what ran, e.g. "transfer sweep"'] }),
  );
  if (!sentence) return;
  if (result.run.end?.status === 'cancelled') {
    void vscode.window.showInformationMessage(vscode.l10n.t('SDMA Lens: {0}', sentence));
    return;
  }
  void vscode.window
    .showErrorMessage(vscode.l10n.t('SDMA Lens: {0}', sentence), showLog)
    .then((c) => c && deps.log.show());
}
