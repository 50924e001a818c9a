/**
 * "SDMA Lens: Run Transfer Sweep": settings + quick pick -> helper -> live panel, with
 * progress and cancel. The quick pick is the run flow's pre-start step: it opens once the
 * helper is found and the node's `info` read, under the run's notification and cancel. The run is saved as it streams; a failure says what happened and
 * keeps what was measured.
 */
import * as vscode from 'vscode';
import type { Topology } from '../../core/protocol';
import { checkPairsOnTopology } from '../../core/runtime/nodeInfo';
import type { NodeInfoAnswer, PreStart } from '../../core/runtime/runFlow';
import type { Run } from '../../core/run';
import { sweepCommand } from '../../core/sweep/sweepCommand';
import type { SweepOptions } from '../../core/sweep/sweepOptions';
import { checkSweepOptions } from '../../core/sweep/sweepOptions';
import { SWEEP_MEASURED_KEY } from '../contextKeys';
import type { RunDeps } from '../runWithProgress';
import { runWithProgress } from '../runWithProgress';
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
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not run a transfer sweep in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const fromSettings = sweepSettings();
    const merged = checkSweepOptions({ ...fromSettings, ...(args?.options ?? {}) });
    const interactive = !(args?.interactive === false || args?.options);
    const what = vscode.l10n.t('transfer sweep');
    let options = merged;
    // Run Again repeats these choices, not the quick pick.
    if (!interactive) rememberRun('sdmaLens.runSweep', { options }, what);
    const result = await runWithProgress(deps, {
      what,
      cancellation: args?.cancellation,
      request: sweepCommand(merged),
      // The node's GPUs, asked inside the run (same helper, same cancel): the quick pick offers its endpoints, and named endpoints are checked before anything runs.
      ...(interactive || merged.pairs.length > 0
        ? {
            nodeInfo: { backend: merged.backend, ...(merged.simGpus !== undefined ? { simGpus: merged.simGpus } : {}) },
          }
        : {}),
      ...(interactive
        ? {
            choose: async ({ node, signal }: PreStart) => {
              const picked = await pickSweep(merged, topologyOf(node, deps.log), signal);
              if (!picked || signal?.aborted) return undefined;
              options = picked;
              rememberRun('sdmaLens.runSweep', { options }, what);
              return sweepCommand(options);
            },
          }
        : {}),
      beforeStart: async ({ node }) => {
        if (options.pairs.length === 0) return;
        // An `info` that failed was said in the log; the helper checks the endpoints itself then.
        const topology = interactive
          ? node && 'info' in node
            ? node.info.topology
            : undefined
          : topologyOf(node, deps.log);
        if (topology) checkPairsOnTopology(options.pairs, topology);
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
 * The node as `sdma-probe info` described it. When it could not, the quick pick still lets
 * the user type endpoints and the helper checks them; the failure is logged, not hidden.
 */
function topologyOf(node: NodeInfoAnswer | undefined, log: vscode.LogOutputChannel): Topology | undefined {
  if (!node) return undefined;
  if ('info' in node) return node.info.topology;
  log.warn(`the endpoints could not be checked against the node: ${node.error.message}`);
  return undefined;
}
