/**
 * "SDMA Lens: Run Bandwidth Matrix": every ordered GPU pair of the node, one at a time or all
 * at once (all-to-all), per copy path (docs/MATRIX.md) -> the matrix panel, live, with progress and cancel. The run
 * is saved as it streams, like a sweep.
 */
import * as vscode from 'vscode';
import { LocalTarget } from '../../core/runtime/localTarget';
import type { MatrixOptions } from '../../core/matrix/matrixOptions';
import { DEFAULT_MATRIX, matrixArgs } from '../../core/matrix/matrixOptions';
import type { Run } from '../../core/run';
import { runHeader } from '../../core/run';
import { RunStore, makeRunId } from '../../core/runs/runStore';
import { runSession } from '../../core/runtime/session';
import { SshTarget } from '../../core/ssh/sshTarget';
import { trackRun } from '../activeRuns';
import type { MatrixPanel } from '../matrixPanel';
import { MatrixPanels } from '../matrixPanel';
import { runsFolder, sweepSettings } from '../settings';
import { reportError, requireTrust } from './guards';
import type { SweepDeps } from './runSweep';

export interface RunMatrixArgs {
  /** Skips the preset pick; fields left out take the defaults (backend: the sweep setting). */
  options?: Partial<MatrixOptions>;
  cancellation?: vscode.CancellationToken;
}

interface Preset extends vscode.QuickPickItem {
  options: Partial<MatrixOptions>;
}

const PRESETS: Preset[] = [
  { label: '256 MiB, all four paths', description: 'every ordered GPU pair, one at a time (as nvbandwidth does)', options: {} },
  { label: '256 MiB, copy-engine paths only', description: 'engine/host and engine/device', options: { paths: ['engine/host', 'engine/device'] } },
  { label: '64 MiB, all four paths, 5 iterations', description: 'a quicker look', options: { sizeBytes: 64 * 1024 ** 2, iters: 5 } },
  {
    label: '256 MiB, all pairs at once (all-to-all), host-initiated paths',
    description: 'cu/host and engine/host: shared links, engines and CUs show as lower per-pair GB/s, with per-GPU totals',
    options: { paths: ['cu/host', 'engine/host'], concurrent: true },
  },
];

export async function runMatrixCommand(deps: SweepDeps, args?: RunMatrixArgs): Promise<Run | undefined> {
  if (!requireTrust('run a bandwidth matrix')) return undefined;
  try {
    let asked = args?.options;
    if (!asked) {
      const picked = await vscode.window.showQuickPick(PRESETS, { title: 'SDMA Lens: bandwidth matrix' });
      if (!picked) return undefined;
      asked = picked.options;
    }
    const options: MatrixOptions = { ...DEFAULT_MATRIX, backend: sweepSettings().backend, ...asked };
    const helperArgs = matrixArgs(options);
    const target = deps.targets?.target() ?? new LocalTarget();
    const ssh = target instanceof SshTarget ? target : undefined;
    const helper = ssh ? await deps.helper.getRemote(ssh.connection) : await deps.helper.get();
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const id = makeRunId('matrix', options.backend);
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SDMA Lens: bandwidth matrix', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const subscriptions = [token.onCancellationRequested(() => controller.abort()), trackRun(`matrix ${id}`, controller)];
        if (args?.cancellation) subscriptions.push(args.cancellation.onCancellationRequested(() => controller.abort()));
        let panel: MatrixPanel | undefined;
        let lastDone = 0;
        try {
          const run = await runSession({
            target,
            store,
            header: runHeader(id, 'matrix', helper.path, helperArgs, ssh?.host),
            signal: controller.signal,
            onRecord: (live, record) => {
              if (record.type === 'hello') panel = MatrixPanels.show(deps.context.extensionUri, live, deps.log);
              else panel?.update(live);
              if (record.type === 'progress' && record.total > 0) {
                progress.report({ message: `${record.done}/${record.total} cells${live.hello?.simulated ? ' (simulated)' : ''}`, increment: ((record.done - lastDone) / record.total) * 100 });
                lastDone = record.done;
              }
            },
            onLog: (level, message) => deps.log[level](message),
          });
          panel ??= MatrixPanels.show(deps.context.extensionUri, run, deps.log);
          panel.update(run);
          panel.flush();
          if (run.end && run.end.status !== 'ok' && run.end.status !== 'cancelled') {
            void vscode.window.showErrorMessage(`SDMA Lens: the bandwidth matrix ${run.end.status === 'crashed' ? 'crashed' : 'did not complete'}: ${run.end.message}. The cells measured are in the panel.`);
          }
          deps.onRun?.(run);
          return run;
        } finally {
          for (const s of subscriptions) s.dispose();
        }
      },
    );
  } catch (err) {
    reportError(deps.log, 'The bandwidth matrix could not start', err);
    return undefined;
  }
}
