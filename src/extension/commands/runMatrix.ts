/**
 * "SDMA Lens: Run Bandwidth Matrix": every ordered GPU pair of the node, one at a time or all
 * at once (all-to-all), per copy path (docs/MATRIX.md) -> the matrix panel, live, with progress and cancel. The run
 * is saved as it streams, like a sweep.
 */
import * as vscode from 'vscode';
import { rememberRun } from '../lastRun';
import type { MatrixOptions } from '../../core/matrix/matrixOptions';
import { matrixCommand } from '../../core/matrix/matrixCommand';
import { DEFAULT_MATRIX } from '../../core/matrix/matrixOptions';
import type { Run } from '../../core/run';
import { MatrixPanels } from '../matrixPanel';
import type { RunDeps } from '../runWithProgress';
import { runWithProgress } from '../runWithProgress';
import { sweepSettings } from '../settings';
import { reportError, requireTrust } from './guards';

export interface RunMatrixArgs {
  /** Skips the preset pick; fields left out take the defaults (backend: the sweep setting). */
  options?: Partial<MatrixOptions>;
  cancellation?: vscode.CancellationToken;
}

interface Preset extends vscode.QuickPickItem {
  options: Partial<MatrixOptions>;
}

/** The presets of the pick (localized, so built when asked). */
function presets(): Preset[] {
  return [
    {
      label: vscode.l10n.t('256 MiB, all four paths'),
      description: vscode.l10n.t('every ordered GPU pair, one at a time (as nvbandwidth does)'),
      options: {},
    },
    {
      label: vscode.l10n.t('256 MiB, copy-engine paths only'),
      description: vscode.l10n.t('engine/host and engine/device'),
      options: { paths: ['engine/host', 'engine/device'] },
    },
    {
      label: vscode.l10n.t('64 MiB, all four paths, 5 iterations'),
      description: vscode.l10n.t('a quicker look'),
      options: { sizeBytes: 64 * 1024 ** 2, iters: 5 },
    },
    {
      label: vscode.l10n.t('256 MiB, all pairs at once (all-to-all), host-initiated paths'),
      description: vscode.l10n.t(
        'cu/host and engine/host: shared links, engines and CUs show as lower per-pair GB/s, with per-GPU totals',
      ),
      options: { paths: ['cu/host', 'engine/host'], concurrent: true },
    },
  ];
}

export async function runMatrixCommand(deps: RunDeps, args?: RunMatrixArgs): Promise<Run | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not run a bandwidth matrix in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    let asked = args?.options;
    if (!asked) {
      const picked = await vscode.window.showQuickPick(presets(), {
        title: vscode.l10n.t('SDMA Lens: bandwidth matrix'),
      });
      if (!picked) return undefined;
      asked = picked.options;
    }
    const options: MatrixOptions = { ...DEFAULT_MATRIX, backend: sweepSettings().backend, ...asked };
    const what = vscode.l10n.t('bandwidth matrix');
    rememberRun('sdmaLens.runMatrix', { ...args, options: asked }, what);
    const request = matrixCommand(options);
    const result = await runWithProgress(deps, {
      what,
      unit: vscode.l10n.t('cells'),
      cancellation: args?.cancellation,
      request,
      view: (run) => MatrixPanels.show(deps.context.extensionUri, run, deps.log),
    });
    return result.kind === 'ended' ? result.run : undefined;
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The bandwidth matrix could not start'), err);
    return undefined;
  }
}
