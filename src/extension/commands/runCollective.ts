/**
 * "SDMA Lens: Run Collective Sweep" and "SDMA Lens: Run Compute Overlap": a preset (or the
 * arguments a script passes) -> helper -> the collective panel, live, with progress and
 * cancel. The run is saved as it streams, like a sweep.
 */
import { trackRun } from '../activeRuns';
import * as vscode from 'vscode';
import { LocalTarget } from '../../core/runtime/localTarget';
import type { Run } from '../../core/run';
import { runHeader } from '../../core/run';
import { RunStore, makeRunId } from '../../core/runs/runStore';
import { runSession } from '../../core/runtime/session';
import { SshTarget } from '../../core/ssh/sshTarget';
import type { CollectivePanel } from '../collectivePanel';
import { CollectivePanels } from '../collectivePanel';
import { runsFolder, sweepSettings } from '../settings';
import type { SweepDeps } from './runSweep';
import { reportError, requireTrust } from './guards';

export type CollectiveCommand = 'collective' | 'overlap';

export interface RunCollectiveArgs {
  /** Helper arguments after the subcommand (e.g. ["-b", "1M", "-e", "256M"]); skips the preset pick. */
  args?: string[];
  backend?: string;
  cancellation?: vscode.CancellationToken;
}

interface Preset extends vscode.QuickPickItem {
  args: string[];
}

const PRESETS: Record<CollectiveCommand, Preset[]> = {
  collective: [
    { label: '64 KiB to 1 GiB, x4', description: 'AllGather and AlltoAll, default and engine variant', args: ['-b', '64K', '-e', '1G', '-f', '4'] },
    { label: '1 KiB to 256 MiB, x2', description: 'finer steps around the crossover', args: ['-b', '1K', '-e', '256M', '-f', '2'] },
    { label: '256 MiB only, 50 iterations', description: 'one large size, repeated', args: ['-b', '256M', '-e', '256M', '-n', '50'] },
  ],
  overlap: [
    { label: 'GEMM and FMA beside every path', description: 'cu/host on 8, 16, 32 CUs; engine/host; engine/device', args: [] },
    { label: 'GEMM only, longer phases', description: '3 s per phase', args: ['--compute', 'gemm', '--phase-ms', '3000'] },
  ],
};

export async function runCollectiveCommand(deps: SweepDeps, command: CollectiveCommand, options?: RunCollectiveArgs): Promise<Run | undefined> {
  const what = command === 'overlap' ? 'a compute overlap run' : 'a collective sweep';
  if (!requireTrust(`run ${what}`)) return undefined;
  try {
    let extra = options?.args;
    if (!extra) {
      const picked = await vscode.window.showQuickPick(PRESETS[command], { title: `SDMA Lens: ${command === 'overlap' ? 'compute overlap' : 'collective sweep'}` });
      if (!picked) return undefined;
      extra = picked.args;
    }
    const backend = options?.backend ?? sweepSettings().backend;
    const target = deps.targets?.target() ?? new LocalTarget();
    const ssh = target instanceof SshTarget ? target : undefined;
    const helper = ssh ? await deps.helper.getRemote(ssh.connection) : await deps.helper.get();
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const id = makeRunId(command, backend);
    const args = [command, '--backend', backend, ...extra];
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SDMA Lens: ${command}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        const tracked = trackRun(`${command} ${id}`, controller);
        const scripted = options?.cancellation?.onCancellationRequested(() => controller.abort());
        let panel: CollectivePanel | undefined;
        let lastDone = 0;
        try {
          const run = await runSession({
            target,
            store,
            header: runHeader(id, command, helper.path, args, ssh?.host),
            signal: controller.signal,
            onRecord: (live, record) => {
              if (record.type === 'hello') panel = CollectivePanels.show(deps.context.extensionUri, live, deps.log);
              else panel?.update(live);
              if (record.type === 'progress' && record.total > 0) {
                progress.report({ message: `${record.done}/${record.total}${live.hello?.simulated ? ' (simulated)' : ''}`, increment: ((record.done - lastDone) / record.total) * 100 });
                lastDone = record.done;
              }
            },
            onLog: (level, message) => deps.log[level](message),
          });
          panel ??= CollectivePanels.show(deps.context.extensionUri, run, deps.log);
          panel.update(run);
          panel.flush();
          if (run.end && run.end.status !== 'ok' && run.end.status !== 'cancelled') {
            void vscode.window.showErrorMessage(`SDMA Lens: the ${command} run ${run.end.status === 'crashed' ? 'crashed' : 'failed'}: ${run.end.message}`);
          }
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
    reportError(deps.log, `The ${command} run could not start`, err);
    return undefined;
  }
}
