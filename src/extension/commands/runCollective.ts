/**
 * "SDMA Lens: Run Collective Sweep" and "SDMA Lens: Run Compute Overlap": a preset (or the
 * arguments a script passes) -> helper -> the collective panel, live, with progress and
 * cancel. The run is saved as it streams, like a sweep. A collective sweep runs its ranks as
 * `sdmaLens.collective.mode` says (`--mode`).
 */
import * as vscode from 'vscode';
import { rememberRun } from '../lastRun';
import type { Run } from '../../core/run';
import { CollectivePanels } from '../collectivePanel';
import type { RunDeps } from '../runWithProgress';
import { runWithProgress } from '../runWithProgress';
import { collectiveSettings, sweepSettings } from '../settings';
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

/** The presets of the pick (localized, so built when asked). */
function presets(command: CollectiveCommand): Preset[] {
  if (command === 'overlap') {
    return [
      {
        label: vscode.l10n.t('GEMM, FMA and STREAM triad beside every path'),
        description: vscode.l10n.t('cu/host on 8, 16, 32 CUs; engine/host; engine/device'),
        args: [],
      },
      {
        label: vscode.l10n.t('Three copy sizes'),
        description: vscode.l10n.t('64 MiB, 256 MiB and 1 GiB: where the CU arithmetic holds, size by size'),
        args: ['--size', '64M,256M,1G'],
      },
      {
        label: vscode.l10n.t('GEMM only, longer phases'),
        description: vscode.l10n.t('3 s per phase'),
        args: ['--compute', 'gemm', '--phase-ms', '3000'],
      },
    ];
  }
  return [
    {
      label: vscode.l10n.t('64 KiB to 1 GiB, x4'),
      description: vscode.l10n.t(
        'AllGather and AlltoAll: default, ce and gin-sdma-lib on AMD; default and ce on NVIDIA',
      ),
      args: ['-b', '64K', '-e', '1G', '-f', '4'],
    },
    {
      label: vscode.l10n.t('1 KiB to 256 MiB, x2'),
      description: vscode.l10n.t('finer steps around the crossover'),
      args: ['-b', '1K', '-e', '256M', '-f', '2'],
    },
    {
      label: vscode.l10n.t('256 MiB only, 50 iterations'),
      description: vscode.l10n.t('one large size, repeated'),
      args: ['-b', '256M', '-e', '256M', '-n', '50'],
    },
  ];
}

export async function runCollectiveCommand(
  deps: RunDeps,
  command: CollectiveCommand,
  options?: RunCollectiveArgs,
): Promise<Run | undefined> {
  const overlap = command === 'overlap';
  const untrusted = overlap
    ? vscode.l10n.t(
        'SDMA Lens does not run a compute overlap run in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      )
    : vscode.l10n.t(
        'SDMA Lens does not run a collective sweep in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      );
  if (!requireTrust(untrusted)) return undefined;
  try {
    let extra = options?.args;
    if (!extra) {
      const picked = await vscode.window.showQuickPick(presets(command), {
        title: overlap ? vscode.l10n.t('SDMA Lens: compute overlap') : vscode.l10n.t('SDMA Lens: collective sweep'),
      });
      if (!picked) return undefined;
      extra = picked.args;
    }
    const backend = options?.backend ?? sweepSettings().backend;
    // How the ranks run (sdmaLens.collective.mode), unless the arguments given name it already.
    const mode = !overlap && !extra.includes('--mode') ? ['--mode', collectiveSettings().mode] : [];
    const what = overlap ? vscode.l10n.t('compute overlap run') : vscode.l10n.t('collective sweep');
    rememberRun(overlap ? 'sdmaLens.runOverlap' : 'sdmaLens.runCollective', { ...options, args: extra }, what);
    const helperArgs = [command, '--backend', backend, ...mode, ...extra];
    const result = await runWithProgress(deps, {
      what,
      cancellation: options?.cancellation,
      request: { command, idTag: backend, backend, args: () => helperArgs },
      view: (run) => CollectivePanels.show(deps.context.extensionUri, run, deps.log),
    });
    return result.kind === 'ended' ? result.run : undefined;
  } catch (err) {
    reportError(
      deps.log,
      overlap ? vscode.l10n.t('The overlap run could not start') : vscode.l10n.t('The collective run could not start'),
      err,
    );
    return undefined;
  }
}
