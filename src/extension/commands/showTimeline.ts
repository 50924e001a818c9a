/**
 * "SDMA Lens: Show Timeline": the timeline of a run, or of one sweep point (a click on the
 * bandwidth chart). The run's own timeline is used when it shows that point; otherwise a small
 * timeline-only helper invocation records one next to the run (same backend and GPUs), once:
 * later clicks reuse the file. A Profile run has no timeline file: its timeline is
 * built from its launch and copy records, opened filtered to one kernel from the code lens.
 */
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { PathName } from '../../core/protocol';
import { PATHS } from '../../core/protocol';
import type { Run } from '../../core/run';
import {
  checkTargetOfRun,
  placePointTimeline,
  pointTimelineCommand,
  pointTimelineStore,
} from '../../core/runtime/pointTimeline';
import { LocalTarget } from '../../core/runtime/localTarget';
import { SshTarget } from '../../core/ssh/sshTarget';
import { runWithProgress } from '../runWithProgress';
import type { RunSummary } from '../../core/runs/runStore';
import { RunStore } from '../../core/runs/runStore';
import type { TimelineLocation, TimelinePoint } from '../../core/runs/timelineSource';
import {
  loadTimeline,
  runTimeline,
  runTimelineCovers,
  runTimelineCus,
  timelineEventCount,
  timelineFileName,
  timelineMeta,
} from '../../core/runs/timelineSource';
import type { KernelFocus } from '../../core/profile/profileTimeline';
import {
  parseProfileTimelineKey,
  profileTimelineKey,
  profileTimeline,
  profileTimelineMeta,
} from '../../core/profile/profileTimeline';
import { entryExists } from '../../core/runs/safeFile';
import { kernelFilter } from '../../core/timeline/timelineFilter';
import { checkPair, isEndpoint, parseEndpoint } from '../../core/endpoints';
import { runsFolder } from '../settings';
import { SweepPanel } from '../sweepPanel';
import type { TimelineSource } from '../timelinePanel';
import { TimelinePanel } from '../timelinePanel';
import { reportError, requireTrust } from './guards';
import type { RunDeps } from '../runWithProgress';

export interface ShowTimelineArgs {
  runId?: string;
  sizeBytes?: number;
  path?: PathName;
  cus?: number;
  /** The point's endpoint pair (-1 = host); absent: the run's first pair. */
  src?: number;
  dst?: number;
  /** Profile: open filtered to the launches of these printed kernel names (the code lens). */
  kernelNames?: string[];
  /** Profile: the kernel as the source names it, for the title. */
  kernel?: string;
  /** Profile: why the names may be another kernel too (kernelFacts' ambiguous note). */
  ambiguous?: string;
}

const MAX_NAME = 4000;

/** Runs of launches and copies: a profiled program, or an imported rocprofv3 profile. */
const isProfileRun = (run: Run) => run.header.command === 'run' || run.header.command === 'import';

function checkKernelArgs(args: ShowTimelineArgs | undefined): KernelFocus | undefined {
  if (!args || args.kernelNames === undefined) return undefined;
  const names = args.kernelNames;
  if (
    !Array.isArray(names) ||
    names.length === 0 ||
    names.length > 64 ||
    !names.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_NAME)
  ) {
    throw new Error(vscode.l10n.t('kernelNames must be 1 to 64 kernel names as the profiler printed them'));
  }
  const kernel = typeof args.kernel === 'string' && args.kernel.length > 0 ? args.kernel.slice(0, MAX_NAME) : names[0]!;
  const focus: KernelFocus = { filter: kernelFilter(names), kernel };
  if (typeof args.ambiguous === 'string' && args.ambiguous.length > 0)
    focus.ambiguous = args.ambiguous.slice(0, MAX_NAME);
  return focus;
}

function profileTimelineSource(run: Run, runDir: string, log: RunDeps['log'], focus?: KernelFocus): TimelineSource {
  const key = profileTimelineKey(run.header.id, focus);
  return {
    meta: profileTimelineMeta(run, key, focus),
    traceFile: join(runDir, 'run-timeline.trace.json'),
    load: () => {
      const { columns, hostOnlyCopies } = profileTimeline(run);
      if (hostOnlyCopies > 0)
        log.info(`run ${run.header.id}: ${hostOnlyCopies} host-to-host copies have no GPU lane and are not drawn`);
      return Promise.resolve(columns);
    },
  };
}

/** The panel's restore key: `<run id>/<timeline file name or "inline">[#<path>@<cus>@<size bytes>]`. */
export function timelineKey(runId: string, location: TimelineLocation, focus?: TimelinePoint): string {
  const file = location.kind === 'file' ? basename(location.file) : 'inline';
  return `${runId}/${file}${focus ? `#${focus.path}@${focus.cus}@${focus.sizeBytes}` : ''}`;
}

const KEY =
  /^([A-Za-z0-9._-]{1,128})\/(inline|[A-Za-z0-9._-]{1,200}\.sdmatl)(?:#([a-z]+\/[a-z]+)@(\d{1,4})@(\d{1,12}))?$/;

/** A point's own timeline file names its pair (`timeline-1M-cu-host-64-host-0.sdmatl`), so a restored panel keeps it in the title. */
function pairOfFile(location: TimelineLocation): { src: number; dst: number } | undefined {
  if (location.kind !== 'file') return undefined;
  const m = /-(host|\d{1,4})-(host|\d{1,4})\.sdmatl$/.exec(basename(location.file));
  if (!m || !/^timeline-[^-]+-[a-z]+-[a-z]+-\d+-/.test(basename(location.file))) return undefined;
  try {
    return checkPair({ src: parseEndpoint(m[1]!), dst: parseEndpoint(m[2]!) });
  } catch {
    return undefined;
  }
}

/** A timeline file of a run, with the run's facts, as its panel reads it (also the .sdmatl editor's). */
export function source(run: Run, runDir: string, location: TimelineLocation, focus?: TimelinePoint): TimelineSource {
  const key = timelineKey(run.header.id, location, focus);
  const sizeBytes = focus?.sizeBytes ?? run.timeline?.sizeBytes ?? 0;
  const base = location.kind === 'file' ? basename(location.file).replace(/\.sdmatl$/, '') : 'timeline';
  return {
    meta: timelineMeta(
      run,
      key,
      sizeBytes,
      focus?.path,
      focus?.cus,
      focus && isEndpoint(focus.src) && isEndpoint(focus.dst)
        ? { src: focus.src, dst: focus.dst }
        : pairOfFile(location),
    ),
    traceFile: join(runDir, `${base}.trace.json`),
    load: (signal) => loadTimeline(run, location, signal),
    count: () => timelineEventCount(run, location),
    ...(location.kind === 'file' ? { file: location.file } : {}),
  };
}

function checkArgs(args: ShowTimelineArgs | undefined): TimelinePoint | undefined {
  if (!args || args.sizeBytes === undefined) return undefined;
  if (!Number.isInteger(args.sizeBytes) || args.sizeBytes < 1)
    throw new Error(vscode.l10n.t('sizeBytes must be a whole number of bytes'));
  if (!args.path || !(PATHS as readonly string[]).includes(args.path))
    throw new Error(vscode.l10n.t('path must be one of {0}', PATHS.join(', ')));
  const point: TimelinePoint = {
    sizeBytes: args.sizeBytes,
    path: args.path,
    cus: Number.isInteger(args.cus) ? args.cus! : 0,
  };
  if (args.src !== undefined || args.dst !== undefined) {
    if (!isEndpoint(args.src) || !isEndpoint(args.dst))
      throw new Error(vscode.l10n.t('src and dst must both be endpoints: a GPU index 0..1023, or -1 for host'));
    checkPair({ src: args.src, dst: args.dst });
    point.src = args.src;
    point.dst = args.dst;
  }
  return point;
}

export async function showTimelineCommand(deps: RunDeps, args?: ShowTimelineArgs): Promise<TimelinePanel | undefined> {
  if (
    !requireTrust(
      vscode.l10n.t(
        'SDMA Lens does not show a timeline in an untrusted workspace: it would run a native helper binary. Trust the workspace to use it.',
      ),
    )
  )
    return undefined;
  try {
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    // The run named, else the sweep the user is looking at, else one they pick.
    const runId =
      typeof args?.runId === 'string' ? args.runId : (SweepPanel.activeRunId() ?? (await pickRunWithTimeline(store)));
    if (!runId) return undefined;
    const run = await store.open(runId);
    const runDir = store.dirOf(runId);
    if (isProfileRun(run)) {
      if (run.dispatches.length === 0 && run.copies.length === 0) {
        void vscode.window.showWarningMessage(
          vscode.l10n.t(
            "SDMA Lens: run {0} recorded no kernel launches or copies, so its timeline would be empty. Profile the program again; the run's warnings say what the profiler missed.",
            runId,
          ),
        );
        return undefined;
      }
      return TimelinePanel.show(
        deps.context.extensionUri,
        profileTimelineSource(run, runDir, deps.log, checkKernelArgs(args)),
        deps.log,
      );
    }
    if (args?.kernelNames !== undefined)
      throw new Error(
        vscode.l10n.t('run {0} is a {1} run: kernel filters apply to Profile runs', runId, run.header.command),
      );
    let point = checkArgs(args);
    if (point && point.path.startsWith('cu/') && point.cus < 1) point = { ...point, cus: runTimelineCus(run) };
    let location: TimelineLocation | undefined;
    if (!point || runTimelineCovers(run, point)) {
      location = runTimeline(run, runDir);
      if (!location && !point) {
        const choice = await vscode.window.showWarningMessage(
          vscode.l10n.t(
            'SDMA Lens: run {0} has no timeline. Sweeps record one when the setting sdmaLens.sweep.timelineSize is set; or click a point of the sweep chart to record one for that point.',
            runId,
          ),
          vscode.l10n.t('Open Settings'),
        );
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'sdmaLens.sweep.timelineSize');
        return undefined;
      }
    }
    if (!location && point) {
      const file = join(runDir, timelineFileName(point));
      // Anything at that name (a link too) is read, and refused there if it is not a timeline file: never recorded over.
      if (!entryExists(file) && !(await recordTimeline(deps, run, runDir, point, file))) return undefined;
      location = { kind: 'file', file };
    }
    return TimelinePanel.show(deps.context.extensionUri, source(run, runDir, location!, point), deps.log);
  } catch (err) {
    reportError(deps.log, vscode.l10n.t('The timeline could not be shown'), err);
    return undefined;
  }
}

/** Rebuilds a timeline panel VS Code restored after a reload, from the key the page kept. */
export async function reviveTimelinePanel(deps: RunDeps, panel: vscode.WebviewPanel, state: unknown): Promise<void> {
  const key = typeof state === 'object' && state !== null ? (state as { key?: unknown }).key : undefined;
  const runMode = typeof key === 'string' ? parseProfileTimelineKey(key) : undefined;
  if (runMode && vscode.workspace.isTrusted) {
    try {
      const store = new RunStore(runsFolder(deps.context.globalStorageUri));
      const run = await store.open(runMode.runId);
      TimelinePanel.revive(
        panel,
        deps.context.extensionUri,
        profileTimelineSource(run, store.dirOf(runMode.runId), deps.log, runMode.focus),
        deps.log,
      );
    } catch (err) {
      deps.log.warn(`could not restore the timeline panel ${String(key)}: ${(err as Error).message}`);
      panel.dispose();
    }
    return;
  }
  const m = typeof key === 'string' ? KEY.exec(key) : null;
  if (!m || !vscode.workspace.isTrusted) {
    panel.dispose();
    return;
  }
  const [, runId, file, path, cus, size] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  try {
    const store = new RunStore(runsFolder(deps.context.globalStorageUri));
    const run = await store.open(runId);
    const runDir = store.dirOf(runId);
    const location: TimelineLocation =
      file === 'inline' ? { kind: 'inline' } : { kind: 'file', file: join(runDir, file) };
    const focus =
      path && (PATHS as readonly string[]).includes(path)
        ? { sizeBytes: Number(size), path: path as PathName, cus: Number(cus) }
        : undefined;
    TimelinePanel.revive(panel, deps.context.extensionUri, source(run, runDir, location, focus), deps.log);
  } catch (err) {
    deps.log.warn(`could not restore the timeline panel ${key}: ${(err as Error).message}`);
    panel.dispose();
  }
}

async function pickRunWithTimeline(store: RunStore): Promise<string | undefined> {
  const runs = (await store.list()).filter(
    (r) =>
      r.status !== 'corrupt' &&
      (r.header?.command === 'sweep' || r.header?.command === 'run' || r.header?.command === 'import'),
  );
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'SDMA Lens: no runs in {0} yet. Run "SDMA Lens: Run Transfer Sweep", or Profile a kernel, first.',
        store.root,
      ),
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    runs.map((r) => ({
      label: `${r.header ? new Date(r.header.createdAt).toLocaleString() : r.id}`,
      description: timelineRunDescription(r),
      detail: r.id,
      id: r.id,
    })),
    {
      title: vscode.l10n.t('SDMA Lens: Show Timeline'),
      placeHolder: vscode.l10n.t('The run whose timeline to show'),
      matchOnDetail: true,
    },
  );
  return picked?.id;
}

/** What a run with a timeline is, beside its status: "profiled program · ok". */
function timelineRunDescription(r: RunSummary): string {
  if (r.header?.command === 'run') return vscode.l10n.t('profiled program · {0}', r.status);
  if (r.header?.command === 'import') return vscode.l10n.t('imported profile · {0}', r.status);
  return r.status;
}

/** One timeline-only helper run on the run's own target, saved under `<run>/timelines/`, with progress and cancel. */
async function recordTimeline(
  deps: RunDeps,
  run: Run,
  runDir: string,
  point: TimelinePoint,
  file: string,
): Promise<boolean> {
  const host = run.header.target.kind === 'ssh' ? run.header.target.host : undefined;
  if (host !== undefined && !deps.targets)
    throw new Error(
      vscode.l10n.t('run {0} was measured over SSH on {1}, but its node is not known', run.header.id, host),
    );
  const target =
    host !== undefined && deps.targets
      ? new SshTarget(deps.targets.runConnection(host, run.header.id))
      : new LocalTarget();
  checkTargetOfRun(run, target);
  const store = pointTimelineStore(runDir);
  const result = await runWithProgress(deps, {
    what: host
      ? vscode.l10n.t('recording of the timeline of {0} at {1} on {2}', point.path, basename(file), host)
      : vscode.l10n.t('recording of the timeline of {0} at {1}', point.path, basename(file)),
    target,
    store,
    quiet: true,
    request: pointTimelineCommand(run, point, file),
  });
  return placePointTimeline(result, store, file);
}
