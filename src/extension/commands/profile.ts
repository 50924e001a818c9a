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
import { runWithProgress, targetOf } from '../runWithProgress';
import type { KernelLensProvider } from '../kernelLens';
import type { ProgramSpec } from '../profileProgram';
import { askForProgram, libraryLogFromSettings, programFromSettings, rememberProgram, spanRecordsFromSettings } from '../profileProgram';
import { runsFolder, sweepSettings } from '../settings';
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

async function resolveProgram(folder: vscode.WorkspaceFolder, given: ProgramSpec | undefined): Promise<ProgramSpec | undefined> {
  if (given) return given;
  const configured = programFromSettings(folder);
  if (configured) return configured;
  const picked = await askForProgram(folder);
  // Remembering is offered as an edit to review; declining still profiles this once.
  if (picked) await rememberProgram(picked, folder);
  return picked;
}

export async function profileCommand(deps: ProfileDeps, args?: ProfileArgs): Promise<Run | undefined> {
  if (!requireTrust('run a program')) return undefined;
  try {
    const folder = folderFor(args?.uri);
    if (!folder) throw new Error('open a folder first: Profile runs a program of the workspace');
    const spec = await resolveProgram(folder, args?.program);
    if (!spec) return undefined;
    rememberRun('sdmaLens.profile', { ...args, uri: folder.uri.toString(), program: spec }, 'Profile run');
    const libraryLogArgs = libraryLogFromSettings(folder) ? ['--library-log'] : [];
    const spanArgs = ['--span-records', String(spanRecordsFromSettings(folder))];
    const target = targetOf(deps);
    const simDispatches = typeof args?.simDispatches === 'number' && Number.isInteger(args.simDispatches) && args.simDispatches > 0 ? Math.min(args.simDispatches, 10_000) : undefined;
    const backend = simDispatches !== undefined ? 'sim' : sweepSettings().backend;
    const simArgs = simDispatches !== undefined ? ['--sim-dispatches', String(simDispatches)] : [];
    const output = deps.programOutput;
    output.clear();
    output.appendLine(`$ ${[spec.program, ...spec.args].join(' ')}   (cwd ${spec.cwd}${target.kind === 'ssh' ? `, on ${target.label}` : ''})`);
    output.show(true);
    const result = await runWithProgress(deps, {
      what: `profile of ${args?.kernel ?? spec.program}`,
      target,
      request: {
        command: 'run',
        idTag: backend,
        backend,
        cwd: spec.cwd,
        env: spec.env,
        args: () => ['run', '--backend', backend, ...simArgs, ...libraryLogArgs, ...spanArgs, '--', spec.program, ...spec.args],
      },
      onRecord: (_live, record, progress) => {
        if (record.type === 'program' && record.event === 'start') progress.report({ message: `running (pid ${record.pid})` });
        if (record.type === 'program' && record.event === 'exit') progress.report({ message: 'reading the trace' });
      },
      onStderr: (line) => output.appendLine(line),
    });
    if (result.kind !== 'ended') return undefined;
    const run = result.run;
    const summary = summarizeProfile(run.dispatches, run.copies);
    deps.lenses.setProfile({ runId: run.header.id, summary });
    const exit = run.program?.exit;
    const how = exit ? (exit.signal ? `ended by ${exit.signal}` : `exited with ${exit.exitCode}`) : 'did not report an exit';
    if (run.end?.status === 'ok') {
      output.appendLine(`\n[SDMA Lens] the program ${how}; ${summary.kernels.length} kernels, ${run.dispatches.length} launches, ${run.copies.length} copies (run ${run.header.id})`);
      for (const line of libraryCallLines(run.libraryCalls)) output.appendLine(`  ${line}`);
      for (const w of run.warnings) if (w.code.startsWith('library-log')) output.appendLine(`  library log: ${w.message}`);
      if (summary.kernels.length === 0) void vscode.window.showWarningMessage(`SDMA Lens: the program ${how} but no kernel launches were recorded${run.warnings.length > 0 ? `: ${run.warnings.map((w) => w.message).join('; ')}` : ''}.`);
    }
    return run;
  } catch (err) {
    reportError(deps.log, 'The program could not be profiled', err);
    return undefined;
  }
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
    reportError(deps.log, 'The profile run could not be opened', err);
  }
}
