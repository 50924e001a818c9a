/**
 * "SDMA Lens: Refine Crossover": measure a saved sweep closer around its crossovers
 * (core/sweep/refine.ts), each round a run of the helper with progress and cancel, saved in
 * the sweep's folder; then the sweep's panel with the refined points and one message that
 * says what it placed and what it cost.
 */
import * as vscode from 'vscode';
import { adviseFromRun } from '../../core/advice/advice';
import type { Run } from '../../core/run';
import { SampleTable } from '../../core/sampleTable';
import { openAdvisedRun, refinementStore } from '../../core/runs/refinements';
import type { RefineResult } from '../../core/sweep/refine';
import { probeOptions, refineCrossovers, refineRoundCommand, refinementSummary } from '../../core/sweep/refine';
import type { RunDeps } from '../runWithProgress';
import { runWithProgress, storeOf } from '../runWithProgress';
import { SweepPanel } from '../sweepPanel';
import { adviceSettings } from '../settings';
import { reportError, requireTrust } from './guards';

export interface RefineArgs {
  /** The sweep to refine; default: pick one (newest first). */
  runId?: string;
  /** ±fraction the crossings are placed within (default 0.1). */
  tolerance?: number;
  /** Seconds after which no new round starts (default 300). */
  budgetSeconds?: number;
}

async function pickSavedSweep(deps: RunDeps): Promise<string | undefined> {
  const sweeps = (await storeOf(deps).list()).filter((s) => s.header?.command === 'sweep' && s.status === 'ok');
  if (sweeps.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('SDMA Lens: no finished sweep to refine yet. Run "SDMA Lens: Run Transfer Sweep" first.'),
    );
    return undefined;
  }
  const items = sweeps.map((s) => ({
    label: s.id,
    description: s.header ? new Date(s.header.createdAt).toLocaleString() : '',
    id: s.id,
  }));
  return (
    await vscode.window.showQuickPick(items, { title: vscode.l10n.t('SDMA Lens: Refine Crossover: which sweep?') })
  )?.id;
}

export async function refineCrossoverCommand(
  deps: RunDeps,
  args: RefineArgs = {},
): Promise<(Run & { refinement?: RefineResult }) | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not refine a sweep in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const tolerance =
      typeof args.tolerance === 'number' && args.tolerance >= 0.01 && args.tolerance <= 0.5 ? args.tolerance : 0.1;
    const budgetMs =
      (typeof args.budgetSeconds === 'number' && args.budgetSeconds >= 1 && args.budgetSeconds <= 86_400
        ? args.budgetSeconds
        : 300) * 1000;
    const id = typeof args.runId === 'string' ? args.runId : await pickSavedSweep(deps);
    if (!id) return undefined;
    const store = storeOf(deps);
    // Earlier rounds count: a second refinement goes on from where the first stopped.
    const grid = await openAdvisedRun(store, id);
    if (grid.header.command !== 'sweep')
      throw new Error(vscode.l10n.t('run {0} is a {1} run, not a sweep', id, grid.header.command));
    // The crossovers the advice compares: at the waves per CU of sdmaLens.advice.wavesPerCu (0: the default threads).
    const { wavesPerCu } = adviceSettings();
    const cus = Object.fromEntries(adviseFromRun(grid, { wavesPerCu }).focus.map((c) => [c.initiator, c.cus]));
    const iters = grid.samples.at(0)?.iters ?? 20;
    const result = await refineCrossovers(
      grid,
      { tolerance, budgetMs, cus, iters, maxIters: iters * 16, wavesPerCu },
      async (probe, round) => {
        const roundResult = await runWithProgress(deps, {
          what: vscode.l10n.t('refinement round {0} ({1}-initiated)', round, probe.initiator),
          quiet: true,
          store: refinementStore(store, id),
          request: refineRoundCommand(probeOptions(grid.header.helper.args, probe), round, id),
        });
        if (roundResult.kind === 'ended') return roundResult.run;
        return {
          ...grid,
          samples: new SampleTable(),
          end: {
            type: 'run-end',
            status: roundResult.kind === 'not-started' ? 'cancelled' : 'error',
            exitCode: null,
            signal: null,
            message: roundResult.kind === 'refused' ? roundResult.message : 'cancelled before it started',
            endedAt: new Date().toISOString(),
          },
        };
      },
    );
    const merged = await openAdvisedRun(store, id);
    SweepPanel.show(deps.context.extensionUri, merged, deps.log);
    const { summary } = refinementSummary(grid, result, grid.done?.elapsedMs ?? 0, tolerance);
    deps.log.info(`run ${id}: ${summary}`);
    // The summary is the core's (shared with the CLI): shown as it is.
    if (result.stopped === 'failed') void vscode.window.showWarningMessage(vscode.l10n.t('SDMA Lens: {0}', summary));
    else void vscode.window.showInformationMessage(vscode.l10n.t('SDMA Lens: {0}', summary));
    return { ...merged, refinement: result };
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The sweep could not be refined'), err);
    return undefined;
  }
}
