/**
 * "SDMA Lens: Run Transfer Sweep": settings + quick pick -> helper -> live panel, with
 * progress and cancel. The run is saved as it streams; a failure says what happened and
 * keeps what was measured.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LocalTarget } from '../../core/runtime/localTarget';
import type { NodeInfo } from '../../core/runtime/nodeInfo';
import { checkPairsOnTopology, readNodeInfo } from '../../core/runtime/nodeInfo';
import type { Target } from '../../core/runtime/target';
import type { Run } from '../../core/run';
import { runHeader } from '../../core/run';
import { RunStore, makeRunId } from '../../core/runs/runStore';
import { runSession } from '../../core/runtime/session';
import { SshError } from '../../core/ssh/connection';
import { checkBackendOnNode } from '../../core/ssh/deploy';
import { fetchRemoteRunFile, makeRemoteRunDir, removeRemoteRunDir } from '../../core/ssh/remoteFiles';
import { SshTarget } from '../../core/ssh/sshTarget';
import type { SweepOptions } from '../../core/sweep/sweepOptions';
import { checkSweepOptions, sweepArgs } from '../../core/sweep/sweepOptions';
import type { HelperService } from '../helperService';
import type { TargetService } from '../targets';
import { runsFolder, sweepSettings } from '../settings';
import { SweepPanel } from '../sweepPanel';
import { trackRun } from '../activeRuns';
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
  /** Where runs go; without it, this machine. */
  targets?: TargetService;
  /** Told about every run that finished or was opened (e.g. to learn the node's library versions). */
  onRun?: (run: Run) => void;
}

export async function runSweepCommand(deps: SweepDeps, args?: RunSweepArgs): Promise<Run | undefined> {
  if (!requireTrust('run a transfer sweep')) return undefined;
  try {
    const fromSettings = sweepSettings();
    const merged = checkSweepOptions({ ...fromSettings, ...(args?.options ?? {}) });
    const target = deps.targets?.target() ?? new LocalTarget();
    const ssh = target instanceof SshTarget ? target : undefined;
    const remote = ssh ? await deps.helper.getRemote(ssh.connection) : undefined;
    const helper = remote ?? (await deps.helper.get());
    const interactive = !(args?.interactive === false || args?.options);
    // The node's GPUs: the quick pick offers its endpoints, and named endpoints are checked before anything runs.
    const node = interactive || merged.pairs.length > 0 ? await describeNode(target, helper.path, merged, deps.log) : undefined;
    const options = interactive ? await pickSweep(merged, node?.topology) : merged;
    if (!options) return undefined;
    if (node && options.pairs.length > 0) checkPairsOnTopology(options.pairs, node.topology);
    if (remote) checkBackendOnNode(remote, options.backend);
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const id = makeRunId('sweep', options.backend);
    let timelineOut = options.timelineSizeBytes !== undefined ? path.join(store.dirOf(id), 'timeline.sdmatl') : undefined;
    // The helper writes the timeline on the node; it is copied into the run folder afterwards.
    if (ssh && timelineOut) timelineOut = `${await makeRemoteRunDir(ssh.connection, id)}/timeline.sdmatl`;
    const withTimeline: SweepOptions = timelineOut ? { ...options, timelineOut } : options;
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SDMA Lens: transfer sweep', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        const tracked = trackRun(`transfer sweep ${id}`, controller);
        const scripted = args?.cancellation?.onCancellationRequested(() => controller.abort());
        if (args?.cancellation?.isCancellationRequested) controller.abort();
        let panel: SweepPanel | undefined;
        let lastDone = 0;
        try {
          const run = await runSession({
            target,
            store,
            header: runHeader(id, 'sweep', helper.path, sweepArgs(withTimeline), ssh?.host),
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
          if (ssh && timelineOut) await fetchTimeline(ssh, id, store.dirOf(id), deps.log);
          // 127: the node's shell found no helper at the remembered path (cache cleared); look again next time.
          if (ssh && run.end?.exitCode === 127) deps.helper.forgetRemote(ssh.connection);
          panel ??= SweepPanel.show(deps.context.extensionUri, run, deps.log);
          panel.update(run);
          panel.flush();
          announce(run);
          deps.onRun?.(run);
          return run;
        } finally {
          sub.dispose();
          tracked.dispose();
          scripted?.dispose();
        }
      },
    );
  } catch (err) {
    if (err instanceof SshError) {
      deps.log.error(`The transfer sweep could not start: ${err.message}`);
      void vscode.window.showErrorMessage(`SDMA Lens: ${err.message}. ${err.remedy}`, 'Select Target', 'Show Log').then((c) => {
        if (c === 'Select Target') void vscode.commands.executeCommand('sdmaLens.selectTarget');
        if (c === 'Show Log') deps.log.show();
      });
    } else {
      reportError(deps.log, 'The transfer sweep could not start', err);
    }
    return undefined;
  }
}

/**
 * `sdma-probe info` on the target. When it fails the quick pick still lets the user type
 * endpoints and the helper checks them; the failure is logged, not hidden.
 */
async function describeNode(target: Target, helperPath: string, options: SweepOptions, log: vscode.LogOutputChannel): Promise<NodeInfo | undefined> {
  try {
    return await readNodeInfo(target, helperPath, options.backend, options.simGpus);
  } catch (err) {
    log.warn(`the endpoints could not be checked against the node: ${(err as Error).message}`);
    return undefined;
  }
}

/** Copies the run's timeline from the node into the run folder, then clears it there; a failure costs only the timeline. */
async function fetchTimeline(ssh: SshTarget, id: string, runDir: string, log: vscode.LogOutputChannel): Promise<void> {
  try {
    if (!(await fetchRemoteRunFile(ssh.connection, id, 'timeline.sdmatl', path.join(runDir, 'timeline.sdmatl')))) log.warn(`run ${id}: no timeline file on ${ssh.host}`);
  } catch (err) {
    log.warn(`run ${id}: could not copy the timeline from ${ssh.host}: ${(err as Error).message}`);
  } finally {
    await removeRemoteRunDir(ssh.connection, id).catch(() => {});
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
