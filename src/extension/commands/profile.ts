/**
 * "Profile" above a kernel: runs the configured program under the helper's `run` subcommand
 * (`sdma-probe run -- program args`), with progress and cancel, the program's output in an
 * output channel, and the per-kernel facts placed back above the kernels.
 */
import * as vscode from 'vscode';
import { rememberRun } from '../lastRun';
import type { Run } from '../../core/run';
import { RunStore } from '../../core/runs/runStore';
import { libraryCallLines } from '../../core/profile/libraryCalls';
import { profileLines, profileTitle } from '../../core/profile/profileText';
import { summarizeProfile } from '../../core/profile/profileSummary';
import type { RunDeps } from '../runWithProgress';
import { PROFILE_RECORDED_KEY } from '../contextKeys';
import { runWithProgress, targetOf } from '../runWithProgress';
import type { KernelLensProvider } from '../kernelLens';
import type { ProgramSpec } from '../profileProgram';
import {
  askForProgram,
  libraryLogFromSettings,
  profileWorkspaceEntries,
  programFromSettings,
  programSettingValues,
  rememberProgram,
  spanRecordsFromSettings,
} from '../profileProgram';
import { runsFolder, sweepSettings } from '../settings';
import { showable, workspaceConsent } from '../workspaceConsent';
import { reportError, requireTrust } from './guards';

export interface ProfileArgs {
  uri?: string;
  kernel?: string;
  /** Scripted use: run this instead of the configured program. */
  program?: ProgramSpec;
  /** Demos and tests: the simulator adds this many labelled-simulated launches (forces --backend sim). */
  simDispatches?: number;
}

export interface ProfileDeps extends RunDeps {
  lenses: KernelLensProvider;
  programOutput: vscode.OutputChannel;
}

function folderFor(uri: string | undefined): vscode.WorkspaceFolder | undefined {
  const parsed = uri ? vscode.Uri.parse(uri) : vscode.window.activeTextEditor?.document.uri;
  return (parsed && vscode.workspace.getWorkspaceFolder(parsed)) ?? vscode.workspace.workspaceFolders?.[0];
}

/**
 * The program to run: the one the caller gave, the configured one (confirmed first where the
 * workspace's settings chose it), or one the user picks now. Undefined: nothing runs.
 */
async function resolveProgram(
  deps: ProfileDeps,
  folder: vscode.WorkspaceFolder,
  given: ProgramSpec | undefined,
): Promise<ProgramSpec | undefined> {
  if (given) return given;
  const consent = workspaceConsent(deps.context, deps.log);
  const place = folder.uri.toString();
  const configured = programFromSettings(folder);
  if (configured) {
    const confirmed = await consent.confirm({
      kind: 'profile',
      place,
      entries: profileWorkspaceEntries(folder),
      message: vscode.l10n.t('SDMA Lens: the settings of this workspace choose the program Profile runs. Run it?'),
      more: [
        vscode.l10n.t(
          'Runs: {0}',
          showable([configured.program, ...configured.args].map((a) => JSON.stringify(a)).join(' ')),
        ),
        vscode.l10n.t('In: {0}', showable(configured.cwd)),
      ],
      accept: vscode.l10n.t('Run'),
    });
    return confirmed ? configured : undefined;
  }
  const picked = await askForProgram(folder);
  // Remembering is offered as an edit to review; declining still profiles this once. What the
  // user picked here is theirs: once saved unchanged, it is not asked about.
  if (picked && (await rememberProgram(picked, folder)))
    await consent.remember({
      kind: 'profile',
      place,
      entries: profileWorkspaceEntries(folder, programSettingValues(picked, folder)),
    });
  return picked;
}

export async function profileCommand(deps: ProfileDeps, args?: ProfileArgs): Promise<Run | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not run a program in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const folder = folderFor(args?.uri);
    if (!folder) throw new Error(vscode.l10n.t('open a folder first: Profile runs a program of the workspace'));
    const spec = await resolveProgram(deps, folder, args?.program);
    if (!spec) return undefined;
    rememberRun(
      'sdmaLens.profile',
      { ...args, uri: folder.uri.toString(), program: spec },
      vscode.l10n.t('Profile run'),
    );
    const libraryLogArgs = libraryLogFromSettings(folder) ? ['--library-log'] : [];
    const spanArgs = ['--span-records', String(spanRecordsFromSettings(folder))];
    const target = targetOf(deps);
    const simDispatches =
      typeof args?.simDispatches === 'number' && Number.isInteger(args.simDispatches) && args.simDispatches > 0
        ? Math.min(args.simDispatches, 10_000)
        : undefined;
    const backend = simDispatches !== undefined ? 'sim' : sweepSettings().backend;
    const simArgs = simDispatches !== undefined ? ['--sim-dispatches', String(simDispatches)] : [];
    const output = deps.programOutput;
    output.clear();
    output.appendLine(
      `$ ${[spec.program, ...spec.args].join(' ')}   (cwd ${spec.cwd}${target.kind === 'ssh' ? `, on ${target.label}` : ''})`,
    );
    output.show(true);
    const result = await runWithProgress(deps, {
      what: vscode.l10n.t('profile of {0}', args?.kernel ?? spec.program),
      target,
      request: {
        command: 'run',
        idTag: backend,
        backend,
        cwd: spec.cwd,
        env: spec.env,
        args: () => [
          'run',
          '--backend',
          backend,
          ...simArgs,
          ...libraryLogArgs,
          ...spanArgs,
          '--',
          spec.program,
          ...spec.args,
        ],
      },
      onRecord: (_live, record, progress) => {
        if (record.type === 'program' && record.event === 'start')
          progress.report({ message: vscode.l10n.t('running (pid {0})', record.pid) });
        if (record.type === 'program' && record.event === 'exit')
          progress.report({ message: vscode.l10n.t('reading the trace') });
      },
      onStderr: (line) => output.appendLine(line),
    });
    if (result.kind !== 'ended') return undefined;
    const profileRun = result.run;
    const summary = summarizeProfile(profileRun.dispatches, profileRun.copies);
    deps.lenses.setProfile({ runId: profileRun.header.id, summary });
    if (profileRun.dispatches.length + profileRun.copies.length > 0)
      void vscode.commands.executeCommand('setContext', PROFILE_RECORDED_KEY, true);
    const exit = profileRun.program?.exit;
    // The output channel stays English, like the core's profile lines beside it; the notification is localized (noLaunchesMessage).
    const how = exit
      ? exit.signal
        ? `ended by ${exit.signal}`
        : `exited with ${exit.exitCode}`
      : 'did not report an exit';
    if (profileRun.end?.status === 'ok') {
      output.appendLine(
        `\n[SDMA Lens] the program ${how}; ${summary.kernels.length} kernels, ${profileRun.dispatches.length} launches, ${profileRun.copies.length} copies (run ${profileRun.header.id})`,
      );
      for (const line of libraryCallLines(profileRun.libraryCalls)) output.appendLine(`  ${line}`);
      for (const w of profileRun.warnings)
        if (w.code.startsWith('library-log')) output.appendLine(`  library log: ${w.message}`);
      if (summary.kernels.length === 0) void vscode.window.showWarningMessage(noLaunchesMessage(profileRun));
    }
    return profileRun;
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The program could not be profiled'), err);
    return undefined;
  }
}

/** "The program exited with 0 but no kernel launches were recorded": one whole sentence per way the program ended. */
function noLaunchesMessage(profileRun: Run): string {
  const exit = profileRun.program?.exit;
  const warnings = profileRun.warnings.map((w) => w.message).join('; ');
  if (!exit)
    return warnings
      ? vscode.l10n.t(
          'SDMA Lens: the program did not report an exit but no kernel launches were recorded: {0}.',
          warnings,
        )
      : vscode.l10n.t('SDMA Lens: the program did not report an exit but no kernel launches were recorded.');
  if (exit.signal)
    return warnings
      ? vscode.l10n.t(
          'SDMA Lens: the program ended by {0} but no kernel launches were recorded: {1}.',
          exit.signal,
          warnings,
        )
      : vscode.l10n.t('SDMA Lens: the program ended by {0} but no kernel launches were recorded.', exit.signal);
  return warnings
    ? vscode.l10n.t(
        'SDMA Lens: the program exited with {0} but no kernel launches were recorded: {1}.',
        String(exit.exitCode),
        warnings,
      )
    : vscode.l10n.t(
        'SDMA Lens: the program exited with {0} but no kernel launches were recorded.',
        String(exit.exitCode),
      );
}

/** The summary lens: the run's kernels and copy paths, in the output channel. */
export async function openProfileCommand(deps: ProfileDeps, args?: { runId?: string; kernel?: string }): Promise<void> {
  try {
    if (typeof args?.runId !== 'string') return;
    const run = await new RunStore(runsFolder(deps.context.globalStorageUri)).open(args.runId);
    const out = deps.programOutput;
    out.appendLine(`\n[SDMA Lens] ${profileTitle(run)}`);
    for (const line of profileLines(run, args.kernel)) out.appendLine(line);
    out.show(true);
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The profile run could not be opened'), err);
  }
}
