/**
 * Activation: one log channel, one helper service, the commands, and the panel serializer.
 * Each command lives in its own file and adapts the editor-free core to VS Code.
 */
import * as vscode from 'vscode';
import { COLLECTIVE_VIEW_TYPE, CollectivePanels } from './collectivePanel';
import { MATRIX_VIEW_TYPE, MatrixPanels } from './matrixPanel';
import type { RunMatrixArgs } from './commands/runMatrix';
import { runMatrixCommand } from './commands/runMatrix';
import type { Run } from '../core/run';
import { openAdvisedRun } from '../core/runs/refinements';
import { RunStore } from '../core/runs/runStore';
import { HelperService } from './helperService';
import { deleteRunCommand, openRunCommand } from './commands/runs';
import type { RunSweepArgs } from './commands/runSweep';
import type { RunDeps } from './runWithProgress';
import { runSweepCommand } from './commands/runSweep';
import type { RefineArgs } from './commands/refine';
import { refineCrossoverCommand } from './commands/refine';
import type { CompareRunsArgs } from './commands/compareRuns';
import { COMPARE_VIEW_TYPE, compareRunsCommand, reviveComparePanel } from './commands/compareRuns';
import type { RunFleetArgs } from './commands/runFleet';
import { openFleetCommand, reviveFleetPanel, runFleetCommand } from './commands/runFleet';
import { FLEET_VIEW_TYPE, FleetPanel } from './fleetPanel';
import { exportRunCommand } from './commands/exportRun';
import { runCollectiveCommand } from './commands/runCollective';
import type { RunCollectiveArgs } from './commands/runCollective';
import { restrictedModeCommand } from './commands/restrictedMode';
import { selectTargetCommand } from './commands/selectTarget';
import type { SuggestArgs } from './commands/suggestSettings';
import { suggestSettingsCommand } from './commands/suggestSettings';
import { KnobDiagnostics } from './knobDiagnostics';
import { abortAllRuns, cancelRunCommand } from './activeRuns';
import { KERNEL_SELECTOR, KernelLensProvider } from './kernelLens';
import type { ProfileArgs, ProfileDeps } from './commands/profile';
import { openProfileCommand, profileCommand } from './commands/profile';
import type { ImportArgs } from './commands/importProfile';
import { importProfileCommand } from './commands/importProfile';
import type { ImportResultsArgs } from './commands/importResults';
import { importResultsCommand } from './commands/importResults';
import { runsFolder } from './settings';
import { SWEEP_VIEW_TYPE, SweepPanel } from './sweepPanel';
import { TargetService } from './targets';
import type { ShowTimelineArgs } from './commands/showTimeline';
import { reviveTimelinePanel, showTimelineCommand } from './commands/showTimeline';
import { TIMELINE_VIEW_TYPE, TimelinePanel } from './timelinePanel';
import { RunsViewProvider, runIdOf } from './runsView';
import { runAgainCommand } from './lastRun';
import { RUN_FILE_EDITOR, registerRunEditors } from './runEditors';

export function activate(context: vscode.ExtensionContext) {
  const log = vscode.window.createOutputChannel('SDMA Lens', { log: true });
  const helper = new HelperService(context, log);
  const knobs = new KnobDiagnostics(log);
  const targets = new TargetService(context, log);
  const runsView = new RunsViewProvider(context.globalStorageUri);
  const deps: RunDeps = {
    context,
    helper,
    log,
    targets,
    onRun: (run) => {
      knobs.rememberVersions(run);
      runsView.refresh();
    },
  };
  const runFolderUri = (id: string) => vscode.Uri.file(new RunStore(runsFolder(context.globalStorageUri)).dirOf(id));
  const lenses = new KernelLensProvider();
  const programOutput = vscode.window.createOutputChannel(vscode.l10n.t('SDMA Lens: Program'));
  const profileDeps: ProfileDeps = { ...deps, lenses, programOutput };
  /** The run a restored panel showed (the page keeps its id in its state), if it can be read. */
  const restorableRun = async (state: unknown): Promise<Run | undefined> => {
    const id = typeof state === 'object' && state !== null ? (state as { runId?: unknown }).runId : undefined;
    if (typeof id !== 'string' || !vscode.workspace.isTrusted) return undefined;
    try {
      // As the live panel showed it: a refined sweep with its refined points.
      return await openAdvisedRun(new RunStore(runsFolder(context.globalStorageUri)), id);
    } catch (err) {
      log.warn(`could not restore the panel of run ${id}: ${(err as Error).message}`);
      return undefined;
    }
  };
  /** Every run panel kind restores the same way: the run the page saved, or no panel. */
  const runPanelSerializer = (panels: {
    revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, run: Run, log: vscode.LogOutputChannel): unknown;
  }): vscode.WebviewPanelSerializer => ({
    async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
      const run = await restorableRun(state);
      if (run) panels.revive(panel, context.extensionUri, run, log);
      else panel.dispose();
    },
  });
  const sweepSerializer = runPanelSerializer(SweepPanel);
  context.subscriptions.push(
    log,
    helper,
    vscode.commands.registerCommand('sdmaLens.runSweep', (args?: RunSweepArgs) => runSweepCommand(deps, args)),
    vscode.commands.registerCommand('sdmaLens.refineCrossover', (args?: RefineArgs) =>
      refineCrossoverCommand(deps, args),
    ),
    vscode.commands.registerCommand('sdmaLens.compareRuns', (args?: CompareRunsArgs) => compareRunsCommand(deps, args)),
    vscode.commands.registerCommand('sdmaLens.runFleet', (args?: RunFleetArgs) => runFleetCommand(deps, args)),
    vscode.commands.registerCommand('sdmaLens.openFleet', (id?: string) =>
      openFleetCommand(deps, typeof id === 'string' ? id : undefined),
    ),
    vscode.window.registerWebviewPanelSerializer(COMPARE_VIEW_TYPE, {
      deserializeWebviewPanel: (panel: vscode.WebviewPanel, state: unknown) => reviveComparePanel(deps, panel, state),
    }),
    vscode.window.registerWebviewPanelSerializer(FLEET_VIEW_TYPE, {
      deserializeWebviewPanel: (panel: vscode.WebviewPanel, state: unknown) => reviveFleetPanel(deps, panel, state),
    }),
    vscode.commands.registerCommand('sdmaLens.runCollective', (args?: RunCollectiveArgs) =>
      runCollectiveCommand(deps, 'collective', args),
    ),
    vscode.commands.registerCommand('sdmaLens.runOverlap', (args?: RunCollectiveArgs) =>
      runCollectiveCommand(deps, 'overlap', args),
    ),
    vscode.commands.registerCommand('sdmaLens.runMatrix', (args?: RunMatrixArgs) => runMatrixCommand(deps, args)),
    vscode.commands.registerCommand('sdmaLens.openRun', (id?: string) => openRunCommand(deps, id)),
    vscode.commands.registerCommand('sdmaLens.deleteRun', () => deleteRunCommand(deps)),
    runsView,
    vscode.window.createTreeView('sdmaLens.runs', { treeDataProvider: runsView, showCollapseAll: true }),
    vscode.commands.registerCommand('sdmaLens.runs.refresh', () => runsView.refresh()),
    registerRunEditors(context.extensionUri, log),
    // Menu entries hand a Uri: these adapt it to the commands' own arguments.
    vscode.commands.registerCommand('sdmaLens.explorer.openRun', (uri?: vscode.Uri) =>
      uri instanceof vscode.Uri ? vscode.commands.executeCommand('vscode.openWith', uri, RUN_FILE_EDITOR) : undefined,
    ),
    vscode.commands.registerCommand('sdmaLens.explorer.importProfile', (uri?: vscode.Uri) =>
      importProfileCommand(profileDeps, uri instanceof vscode.Uri ? { path: uri.fsPath } : undefined),
    ),
    vscode.commands.registerCommand('sdmaLens.explorer.importResults', (uri?: vscode.Uri, uris?: vscode.Uri[]) =>
      importResultsCommand(profileDeps, {
        paths: (uris && uris.length > 0 ? uris : uri instanceof vscode.Uri ? [uri] : []).map((u) => u.fsPath),
      }),
    ),
    vscode.commands.registerCommand('sdmaLens.editor.profile', (uri?: vscode.Uri) =>
      profileCommand(profileDeps, uri instanceof vscode.Uri ? { uri: uri.toString() } : undefined),
    ),
    vscode.commands.registerCommand('sdmaLens.runs.delete', async (node?: unknown) => {
      await deleteRunCommand(deps, runIdOf(node));
      runsView.refresh();
    }),
    vscode.commands.registerCommand('sdmaLens.runs.reveal', (node?: unknown) => {
      const id = runIdOf(node);
      return id ? vscode.commands.executeCommand('revealFileInOS', runFolderUri(id)) : undefined;
    }),
    vscode.commands.registerCommand('sdmaLens.runs.compare', (node?: unknown) => {
      const id = runIdOf(node);
      return compareRunsCommand(deps, id ? { a: id } : {});
    }),
    vscode.commands.registerCommand('sdmaLens.runs.export', (node?: unknown, format?: unknown) =>
      exportRunCommand(deps, runIdOf(node), format === 'csv' || format === 'markdown' ? format : undefined),
    ),
    knobs,
    lenses,
    programOutput,
    vscode.languages.registerCodeLensProvider(KERNEL_SELECTOR, lenses),
    vscode.languages.registerHoverProvider(KERNEL_SELECTOR, lenses),
    vscode.commands.registerCommand('sdmaLens.profile', (args?: ProfileArgs) => profileCommand(profileDeps, args)),
    // The command's earlier id, kept for keybindings and tasks that name it; not in the palette.
    vscode.commands.registerCommand('sdmaLens.profileKernel', (args?: ProfileArgs) =>
      profileCommand(profileDeps, args),
    ),
    vscode.commands.registerCommand('sdmaLens.importProfile', (args?: ImportArgs) =>
      importProfileCommand(profileDeps, args),
    ),
    vscode.commands.registerCommand('sdmaLens.importResults', (args?: ImportResultsArgs) =>
      importResultsCommand(profileDeps, args),
    ),
    vscode.commands.registerCommand('sdmaLens.openProfile', (args?: { runId?: string; kernel?: string }) =>
      openProfileCommand(profileDeps, args),
    ),
    vscode.commands.registerCommand('sdmaLens.suggestSettings', (args?: SuggestArgs) =>
      suggestSettingsCommand(deps, args),
    ),
    vscode.commands.registerCommand('sdmaLens.showLog', () => log.show()),
    vscode.commands.registerCommand('sdmaLens.cancelRun', () => cancelRunCommand()),
    vscode.commands.registerCommand('sdmaLens.restrictedMode', () => restrictedModeCommand()),
    vscode.commands.registerCommand('sdmaLens.runAgain', () => runAgainCommand()),
    targets,
    vscode.commands.registerCommand('sdmaLens.selectTarget', (destination?: string) =>
      selectTargetCommand(targets, log, destination),
    ),
    vscode.commands.registerCommand('sdmaLens.showTimeline', (args?: ShowTimelineArgs) =>
      showTimelineCommand(deps, args),
    ),
    vscode.window.registerWebviewPanelSerializer(TIMELINE_VIEW_TYPE, {
      deserializeWebviewPanel: (panel: vscode.WebviewPanel, state: unknown) => reviveTimelinePanel(deps, panel, state),
    }),
    vscode.window.registerWebviewPanelSerializer(COLLECTIVE_VIEW_TYPE, runPanelSerializer(CollectivePanels)),
    vscode.window.registerWebviewPanelSerializer(MATRIX_VIEW_TYPE, runPanelSerializer(MatrixPanels)),
    vscode.window.registerWebviewPanelSerializer(SWEEP_VIEW_TYPE, sweepSerializer),
  );
  log.info(
    `SDMA Lens ${String(context.extension.packageJSON.version)} activated (${vscode.env.remoteName ? `remote: ${vscode.env.remoteName}` : 'local'})`,
  );
  // Returned for integration tests and other extensions; the commands are the public surface.
  // `restoreSweepPanel` is what VS Code calls for a sweep panel after a reload.
  return {
    deps,
    runsView,
    restoreSweepPanel: (panel: vscode.WebviewPanel, state: unknown) =>
      sweepSerializer.deserializeWebviewPanel(panel, state),
    sweepPanel: (runId: string) => SweepPanel.forRun(runId),
    matrixPanel: (runId: string) => MatrixPanels.forRun(runId),
    collectivePanel: (runId: string) => CollectivePanels.forRun(runId),
    timelinePanel: (key: string) => TimelinePanel.forKey(key),
    fleetPanel: (id: string) => FleetPanel.forFleet(id),
  };
}

/** A window reload or shutdown mid-run leaves nothing running: every run is aborted and waited for. */
export function deactivate(): Promise<void> {
  return abortAllRuns();
}
