/**
 * "SDMA Lens: Run Collective Sweep" and "SDMA Lens: Run Compute Overlap": a preset (or the
 * arguments a script passes) -> helper -> the collective panel, live, with progress and
 * cancel. The run is saved as it streams, like a sweep.
 */
import * as vscode from 'vscode';
import { rememberRun } from '../lastRun';
import type { Run } from '../../core/run';
import { CollectivePanels } from '../collectivePanel';
import type { RunDeps } from '../runWithProgress';
import { runWithProgress } from '../runWithProgress';
import { sweepSettings } from '../settings';
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

export async function runCollectiveCommand(deps: RunDeps, command: CollectiveCommand, options?: RunCollectiveArgs): Promise<Run | undefined> {
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
    rememberRun(command === 'overlap' ? 'sdmaLens.runOverlap' : 'sdmaLens.runCollective', { ...options, args: extra }, command === 'overlap' ? 'compute overlap run' : 'collective sweep');
    const helperArgs = [command, '--backend', backend, ...extra];
    const result = await runWithProgress(deps, {
      what: command === 'overlap' ? 'compute overlap run' : 'collective sweep',
      cancellation: options?.cancellation,
      request: { command, idTag: backend, backend, args: () => helperArgs },
      view: (run) => CollectivePanels.show(deps.context.extensionUri, run, deps.log),
    });
    return result.kind === 'ended' ? result.run : undefined;
  } catch (err) {
    reportError(deps.log, `The ${command} run could not start`, err);
    return undefined;
  }
}
