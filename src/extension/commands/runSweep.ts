/**
 * "SDMA Lens: Run Transfer Sweep": settings + quick pick -> helper -> live panel, with
 * progress and cancel. The run is saved as it streams; a failure says what happened and
 * keeps what was measured.
 */
import * as vscode from 'vscode';
import type { NodeInfo } from '../../core/runtime/nodeInfo';
import { checkPairsOnTopology, readNodeInfo } from '../../core/runtime/nodeInfo';
import type { Target } from '../../core/runtime/target';
import type { Run } from '../../core/run';
import type { SweepOptions } from '../../core/sweep/sweepOptions';
import { checkSweepOptions, sweepArgs } from '../../core/sweep/sweepOptions';
import { SWEEP_MEASURED_KEY } from '../contextKeys';
import type { RunDeps } from '../runWithProgress';
import { runWithProgress, targetOf } from '../runWithProgress';
import { sweepSettings } from '../settings';
import { SweepPanel } from '../sweepPanel';
import { pickSweep } from './sweepPicker';
import { rememberRun } from '../lastRun';
import { reportError, requireTrust } from './guards';

/** Arguments for scripted use (tests, keybindings, tasks): skip the quick pick and override settings. */
export interface RunSweepArgs {
  options?: Partial<SweepOptions>;
  interactive?: boolean;
  /** Cancels like the notification's Cancel button, for callers that show no notification UI. */
  cancellation?: vscode.CancellationToken;
}

export async function runSweepCommand(deps: RunDeps, args?: RunSweepArgs): Promise<Run | undefined> {
  if (!requireTrust(vscode.l10n.t('SDMA Lens does not run a transfer sweep in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.'))) return undefined;
  try {
    const fromSettings = sweepSettings();
    const merged = checkSweepOptions({ ...fromSettings, ...(args?.options ?? {}) });
    const target = targetOf(deps);
    const interactive = !(args?.interactive === false || args?.options);
    let node: NodeInfo | undefined;
    let options = merged;
    if (interactive || merged.pairs.length > 0) {
      // The node's GPUs: the quick pick offers its endpoints, and named endpoints are checked before anything runs.
      const helper = await deps.helper.helperFor(target);
      node = await describeNode(target, helper.path, merged, deps.log);
      if (interactive) {
        const picked = await pickSweep(merged, node?.topology);
        if (!picked) return undefined;
        options = picked;
      }
    }
    // Run Again repeats these choices, not the quick pick.
    const what = vscode.l10n.t('transfer sweep');
    rememberRun('sdmaLens.runSweep', { options }, what);
    const result = await runWithProgress(deps, {
      what,
      cancellation: args?.cancellation,
      target,
      request: {
        command: 'sweep',
        idTag: options.backend,
        backend: options.backend,
        produces: options.timelineSizeBytes !== undefined ? ['timeline.sdmatl'] : [],
        args: (out) => sweepArgs(options.timelineSizeBytes !== undefined ? { ...options, timelineOut: out('timeline.sdmatl') } : options),
      },
      beforeStart: async () => {
        if (node && options.pairs.length > 0) checkPairsOnTopology(options.pairs, node.topology);
      },
      view: (run, live) => SweepPanel.show(deps.context.extensionUri, run, deps.log, live),
    });
    if (result.kind !== 'ended') return undefined;
    // The walkthrough's "Run a transfer sweep" is done when a sweep measured something, not when its quick pick opened.
    if (result.run.samples.length > 0) void vscode.commands.executeCommand('setContext', SWEEP_MEASURED_KEY, true);
    return result.run;
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The transfer sweep could not start'), err);
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
