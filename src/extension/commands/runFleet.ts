/**
 * "SDMA Lens: Run Fleet Sweep": the sweep of the settings on every node of a Slurm allocation
 * (src/core/fleetRun/fleetRun.ts), asked for from this machine or through the SSH target (a login
 * node), under one cancellable notification; then the fleet panel. "SDMA Lens: Open Fleet"
 * shows a saved one again.
 */
import * as vscode from 'vscode';
import { loadFleet } from '../../core/fleetRun/fleetLoad';
import type { FleetRequest, FleetResult } from '../../core/fleetRun/fleetRun';
import { runFleet } from '../../core/fleetRun/fleetRun';
import { FleetStore } from '../../core/fleetRun/fleetStore';
import type { FleetView } from '../../core/fleet/fleetView';
import { fleetView, judgeFleet } from '../../core/fleet/fleetView';
import { checkJobId, checkSlurmName } from '../../core/fleetRun/slurm';
import { SlurmError } from '../../core/fleetRun/slurmTools';
import type { SweepOptions } from '../../core/sweep/sweepOptions';
import { sweepCommand } from '../../core/sweep/sweepCommand';
import { checkSweepOptions } from '../../core/sweep/sweepOptions';
import type { MatrixOptions } from '../../core/matrix/matrixOptions';
import { matrixCommand } from '../../core/matrix/matrixCommand';
import { DEFAULT_MATRIX, checkMatrixOptions } from '../../core/matrix/matrixOptions';
import { trackRun } from '../activeRuns';
import { FleetPanel, fleetIdOfState } from '../fleetPanel';
import type { RunDeps } from '../runWithProgress';
import { storeOf, targetOf } from '../runWithProgress';
import { fleetSettings, stallTimeoutSetting, sweepSettings } from '../settings';
import { reportError, requireTrust } from './guards';

/** Arguments for scripted use (tests, tasks): no questions asked. */
export interface RunFleetArgs {
  /** A new allocation of this many nodes (with the partition setting), or an allocation held (`job`). */
  nodes?: number;
  job?: string;
  options?: Partial<SweepOptions>;
  /** A bandwidth matrix on every node too, with these options over the defaults (the backend: the sweep's). */
  matrix?: Partial<MatrixOptions>;
  cancellation?: vscode.CancellationToken;
}

/** Asked after the nodes: the sweep alone, or a matrix on every node too (its pairs are compared). */
async function askMatrix(): Promise<Partial<MatrixOptions> | null | undefined> {
  const sweepOnly = vscode.l10n.t('Transfer sweep');
  const both = vscode.l10n.t('Transfer sweep and bandwidth matrix');
  const choice = await vscode.window.showQuickPick(
    [
      {
        label: sweepOnly,
        detail: vscode.l10n.t('The sweep of your settings on every node: peak bandwidth and crossovers compared'),
      },
      {
        label: both,
        detail: vscode.l10n.t('Also every ordered GPU pair at 256 MiB on every node, so weak pairs are named too'),
      },
    ],
    { title: vscode.l10n.t('SDMA Lens: what to run on each node?'), ignoreFocusOut: true },
  );
  if (!choice) return undefined;
  return choice.label === both ? {} : null;
}

async function askAllocation(
  partition: string | undefined,
  nodes: number,
): Promise<FleetRequest['allocation'] | undefined> {
  const fresh = vscode.l10n.t('New allocation');
  const held = vscode.l10n.t('An allocation I hold');
  const choice = await vscode.window.showQuickPick(
    [
      {
        label: fresh,
        detail: partition
          ? vscode.l10n.t(
              'Ask Slurm for whole nodes of partition {0} (salloc), and give them back afterwards',
              partition,
            )
          : vscode.l10n.t('Ask Slurm for whole nodes of the default partition (salloc), and give them back afterwards'),
      },
      { label: held, detail: vscode.l10n.t('Use a job you already hold (salloc or sbatch), as it is') },
    ],
    { title: vscode.l10n.t('SDMA Lens: which nodes?'), ignoreFocusOut: true },
  );
  if (!choice) return undefined;
  if (choice.label === held) {
    const job = await vscode.window.showInputBox({
      title: vscode.l10n.t('SDMA Lens: Slurm job id'),
      prompt: vscode.l10n.t('The job whose nodes to measure (squeue --me lists yours)'),
      ignoreFocusOut: true,
      validateInput: (v) => (/^[0-9]{1,12}$/.test(v.trim()) ? undefined : vscode.l10n.t('A job id is digits')),
    });
    return job ? { job: checkJobId(job.trim()) } : undefined;
  }
  const count = await vscode.window.showInputBox({
    title: vscode.l10n.t('SDMA Lens: how many nodes?'),
    value: String(nodes),
    ignoreFocusOut: true,
    validateInput: (v) =>
      /^[1-9][0-9]{0,4}$/.test(v.trim()) ? undefined : vscode.l10n.t('A whole number of nodes, 1 or more'),
  });
  if (!count) return undefined;
  return { nodes: Number(count.trim()), ...(partition ? { partition } : {}) };
}

function summary(view: FleetView): string {
  const outlierNodes = [...new Set(view.outliers.map((o) => o.node))];
  const failed = view.nodes.filter((n) => n.status !== 'ok').map((n) => n.node);
  if (outlierNodes.length === 0 && failed.length === 0)
    return vscode.l10n.t('SDMA Lens: the fleet of {0} nodes ran; no node stands apart.', view.nodes.length);
  return vscode.l10n.t(
    'SDMA Lens: the fleet of {0} nodes ran; outlier nodes: {1}; nodes that did not finish: {2}.',
    view.nodes.length,
    outlierNodes.join(', ') || vscode.l10n.t('none'),
    failed.join(', ') || vscode.l10n.t('none'),
  );
}

export async function runFleetCommand(deps: RunDeps, args?: RunFleetArgs): Promise<FleetResult | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not run a fleet sweep in an untrusted workspace: it would run a native helper binary on the nodes. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const settings = fleetSettings();
    // The node default pair on every node (their GPUs need not be numbered alike), and no timeline per node.
    const { timelineSizeBytes: _timeline, ...fromSettings } = sweepSettings();
    const options = checkSweepOptions({ ...fromSettings, pairs: [], ...(args?.options ?? {}) });
    const scripted = args?.nodes !== undefined || args?.job !== undefined;
    const allocation = scripted
      ? args.job !== undefined
        ? { job: checkJobId(args.job) }
        : {
            nodes: args.nodes!,
            ...(settings.partition ? { partition: checkSlurmName('partition', settings.partition) } : {}),
          }
      : await askAllocation(settings.partition, settings.nodes);
    if (!allocation) return undefined;
    const matrixAsked = scripted ? (args.matrix ?? null) : await askMatrix();
    if (matrixAsked === undefined) return undefined;
    const matrix: MatrixOptions | undefined =
      matrixAsked === null
        ? undefined
        : checkMatrixOptions({ ...DEFAULT_MATRIX, backend: options.backend, ...matrixAsked });
    const store = storeOf(deps);
    const fleets = new FleetStore(store.root);
    const base = targetOf(deps);
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('SDMA Lens: fleet sweep'),
        cancellable: true,
      },
      async (progress, token) => {
        const controller = new AbortController();
        const subscriptions = [
          token.onCancellationRequested(() => controller.abort()),
          trackRun(vscode.l10n.t('fleet sweep'), controller),
        ];
        if (args?.cancellation) subscriptions.push(args.cancellation.onCancellationRequested(() => controller.abort()));
        try {
          return await runFleet(
            {
              allocation,
              parallel: settings.parallel,
              commands: {
                sweep: sweepCommand(options),
                ...(matrix ? { matrix: matrixCommand(matrix) } : {}),
              },
            },
            {
              base,
              helpers: deps.helper,
              store,
              fleets,
              signal: controller.signal,
              stallTimeoutS: stallTimeoutSetting(),
              onEvent: (e) => {
                if (e.kind === 'queued')
                  progress.report({ message: vscode.l10n.t('queued as Slurm job {0}, waiting for the nodes', e.job) });
                if (e.kind === 'allocated')
                  progress.report({ message: vscode.l10n.t('job {0}: {1} nodes', e.job, e.nodes.length) });
                if (e.kind === 'node-end')
                  progress.report({
                    message: vscode.l10n.t('{0}/{1} node runs ({2}: {3})', e.done, e.total, e.node, e.status),
                    increment: 100 / e.total,
                  });
                if (e.kind === 'releasing')
                  progress.report({
                    message: vscode.l10n.t('giving job {0} back: Slurm lists it as {1}', e.job, e.state),
                  });
              },
              onLog: (level, message) => deps.log[level](message),
            },
          );
        } finally {
          for (const s of subscriptions) s.dispose();
        }
      },
    );
    for (const node of result.runs.values()) for (const run of [node.sweep, node.matrix]) if (run) deps.onRun?.(run);
    const view = fleetView(result.index, result.runs);
    FleetPanel.show(deps.context.extensionUri, deps.log, { view, index: result.index });
    const released = result.index.slurm.released;
    if (released && !released.gone)
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'SDMA Lens: job {0} was cancelled, but Slurm still lists it as {1} after {2} s; its nodes are free once it leaves the queue.',
          result.index.slurm.job,
          released.state ?? '?',
          (released.waitedMs / 1000).toFixed(0),
        ),
      );
    if (result.index.status === 'cancelled')
      void vscode.window.showInformationMessage(
        released?.gone === false
          ? vscode.l10n.t('SDMA Lens: the fleet sweep was cancelled; the nodes that finished are kept.')
          : vscode.l10n.t(
              'SDMA Lens: the fleet sweep was cancelled; the nodes that finished are kept, and the allocation was given back.',
            ),
      );
    else void vscode.window.showInformationMessage(summary(view));
    return result;
  } catch (err) {
    if (err instanceof SlurmError) deps.log.error(err.message);
    reportError(deps.log, vscode.l10n.t('the fleet sweep'), err);
    return undefined;
  }
}

/** "SDMA Lens: Open Fleet": a saved fleet (newest first) in its panel. */
export async function openFleetCommand(deps: RunDeps, id?: string): Promise<FleetView | undefined> {
  try {
    const store = storeOf(deps);
    const fleets = new FleetStore(store.root);
    let chosen = id;
    if (chosen === undefined) {
      const ids = fleets.list();
      if (ids.length === 0) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t('SDMA Lens: no fleet is saved yet. Run one with "SDMA Lens: Run Fleet Sweep".'),
        );
        return undefined;
      }
      const picked = await vscode.window.showQuickPick(ids, { title: vscode.l10n.t('SDMA Lens: open a fleet') });
      if (!picked) return undefined;
      chosen = picked;
    }
    const fleetId = chosen;
    // A fleet of thousands of nodes takes seconds to read: said as it goes, and cancellable.
    const loaded = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('SDMA Lens: reading fleet {0}', fleetId),
        cancellable: true,
      },
      async (progress, token) => {
        const controller = new AbortController();
        const cancelled = token.onCancellationRequested(() => controller.abort());
        let shown = 0;
        try {
          return await loadFleet(store, fleets, fleetId, {
            signal: controller.signal,
            // The nodes read in worker threads (core/fleetRun/fleetReaders.ts), not on the extension host's thread.
            workers: { script: vscode.Uri.joinPath(deps.context.extensionUri, 'dist', 'fleetReader.js').fsPath },
            onProgress: (done, total) => {
              const step = Math.floor((done / total) * 20);
              if (step === shown) return;
              progress.report({
                increment: (step - shown) * 5,
                message: vscode.l10n.t('{0} of {1} nodes', done, total),
              });
              shown = step;
            },
          });
        } finally {
          cancelled.dispose();
        }
      },
    );
    for (const p of loaded.problems) deps.log.warn(p);
    const view = judgeFleet(loaded.index, loaded.nodes);
    FleetPanel.show(deps.context.extensionUri, deps.log, { ...loaded, view });
    return view;
  } catch (err) {
    // Cancelled from its notification: nothing to say.
    if ((err as Error | undefined)?.name === 'AbortError') return undefined;
    reportError(deps.log, vscode.l10n.t('opening the fleet'), err);
    return undefined;
  }
}

/** A fleet panel after a window reload: its fleet read again (trusted workspaces only), or the panel closed. */
export async function reviveFleetPanel(deps: RunDeps, panel: vscode.WebviewPanel, state: unknown): Promise<void> {
  try {
    if (!vscode.workspace.isTrusted) throw new Error('the workspace is not trusted');
    const id = fleetIdOfState(state);
    if (id === undefined) throw new Error('the panel kept no fleet id');
    const store = storeOf(deps);
    const loaded = await loadFleet(store, new FleetStore(store.root), id);
    FleetPanel.revive(panel, deps.context.extensionUri, deps.log, {
      ...loaded,
      view: judgeFleet(loaded.index, loaded.nodes),
    });
  } catch (err) {
    deps.log.warn(`could not restore a fleet panel: ${(err as Error).message}`);
    panel.dispose();
  }
}
