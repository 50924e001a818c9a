/**
 * The one way a helper command runs, for every command of the extension and the CLI: find
 * and check the helper on the target, ask the node's `info` when the command needs it (the
 * same helper, the same cancel), let the front choose or check with both in hand, check the
 * backend, start, stream into the run file, cancel (also before anything started), bring
 * back the files the command wrote (the target knows how), and say how it ended. Fronts only
 * add how they ask and how they show.
 */
import type { HelperRecord } from '../protocol';
import type { Run, RunHeader } from '../run';
import { runHeader } from '../run';
import type { RunStore } from '../runs/runStore';
import { makeRunId } from '../runs/runStore';
import { HelperError } from './helper';
import type { NodeInfo } from './nodeInfo';
import { readNodeInfo } from './nodeInfo';
import type { BackendChoice } from '../backendChoice';
import type { LogLevel } from './session';
import { measured, runSession } from './session';
import type { Target } from './target';

/** A helper as found on one target: enough to start it and to check what it can do. */
export interface TargetHelper {
  path: string;
  backends: string[];
  /** How it was found: a setting, shipped, built, cached on a node, on the node's PATH. */
  source: string;
}

/** Finds the helper on a target (building it there if needed) and forgets what it found. */
export interface HelperProvider {
  helperFor(target: Target, signal?: AbortSignal): Promise<TargetHelper>;
  /** The helper was not where it was remembered (a node's cache was cleared): look again next time. */
  forget(target: Target): void;
}

/** What to run: a helper subcommand and the files it writes. */
export interface HelperCommand {
  command: RunHeader['command'];
  /** The run id's first part, when not the command (a point's timeline: "timeline"). */
  idPrefix?: string;
  /** The second part of the run id: the backend, or what was imported. */
  idTag: string;
  /** Checked against the helper's backends before anything starts ('auto' and 'sim' always pass). */
  backend?: string;
  /** The helper's arguments; `out(name)` is where the target wants a file the command writes. */
  args(out: (name: string) => string): string[];
  /** Names of the files the command writes (given to `out`), copied into the run's folder afterwards. */
  produces?: readonly string[];
  cwd?: string;
  env?: Record<string, string>;
  /** A refinement round: the id of the sweep it refines (saved in the header). */
  refines?: string;
  /** One node's run of a fleet (saved in the header). */
  fleet?: { id: string; node: string; job: string };
}

/** `sdma-probe info` before the start: on this backend (and simulated GPU count). */
export interface NodeInfoRequest {
  backend: BackendChoice;
  simGpus?: number;
}

/** What `info` gave: the node, or why it could not describe it (the front decides what a failure means). */
export type NodeInfoAnswer = { info: NodeInfo } | { error: Error };

/** What the pre-start step has in hand: the helper found on the target and, when asked, the node's `info`. */
export interface PreStart {
  helper: TargetHelper;
  node?: NodeInfoAnswer;
  /** The run's cancel: a question the front asks here (a quick pick) closes on it. */
  signal?: AbortSignal;
}

export interface RunFlowOptions {
  target: Target;
  helpers: HelperProvider;
  store: RunStore;
  signal?: AbortSignal;
  /** Seconds the helper may print nothing before it is stopped (0: no limit); the session's default when unset. */
  stallTimeoutS?: number;
  /**
   * Ask the node's `info` (through the helper found for this command, under the same cancel)
   * before the run exists; its answer reaches `choose` and `beforeStart`. A cancel while it
   * runs ends the command `not-started`.
   */
  nodeInfo?: NodeInfoRequest;
  /**
   * The front's choice of what to run, with the helper and the node's info in hand (the
   * sweep's quick pick offers the node's endpoints): the command to run instead of the one
   * given, or undefined when the user stepped back (`not-started`, `declined`: nothing is run
   * or saved). The backend is checked on the command chosen.
   */
  choose?(ready: PreStart): Promise<HelperCommand | undefined>;
  /** A check with the helper (and the node's info) in hand, before the run exists (e.g. endpoints against the node's GPUs). Throwing stops the run. */
  beforeStart?(ready: PreStart): Promise<void>;
  /** The run's header is written and the helper is about to start. */
  onStart?(header: RunHeader): void;
  onRecord?(run: Run, record: HelperRecord): void;
  onLog?(level: LogLevel, message: string): void;
  onStderr?(line: string): void;
}

export type RunFlowResult =
  /** Cancelled before the helper started: nothing was saved. `declined`: the front's `choose` chose nothing (nothing to say). */
  | { kind: 'not-started'; declined?: true }
  /** The helper refused its arguments (usage error) before measuring anything: said, and no run kept. */
  | { kind: 'refused'; message: string }
  /** The run ended (well or not) and is saved; `missing` names the files the command should have written but did not. */
  | { kind: 'ended'; run: Run; missing: string[] };

/** The helper's exit code for a usage error (docs/PROTOCOL.md). */
const EXIT_USAGE = 2;
/** The shell's "command not found": the remembered helper is no longer there. */
const EXIT_NOT_FOUND = 127;

export async function runHelperCommand(given: HelperCommand, o: RunFlowOptions): Promise<RunFlowResult> {
  const log = o.onLog ?? (() => {});
  if (o.signal?.aborted) return { kind: 'not-started' };
  const helper = await o.helpers.helperFor(o.target, o.signal);
  if (o.signal?.aborted) return { kind: 'not-started' };
  const ready: PreStart = { helper, ...(o.signal ? { signal: o.signal } : {}) };
  const askNode = async () => {
    if (!o.nodeInfo || ready.node) return;
    ready.node = await readNodeInfo(o.target, helper.path, o.nodeInfo.backend, o.nodeInfo.simGpus, o.signal).then(
      (info) => ({ info }),
      (error: Error) => ({ error }),
    );
  };
  let request = given;
  if (o.choose) {
    // The choice may change the backend: the node is asked first, the backend checked after.
    await askNode();
    if (o.signal?.aborted) return { kind: 'not-started' };
    const chosen = await o.choose(ready);
    if (o.signal?.aborted) return { kind: 'not-started' };
    if (!chosen) return { kind: 'not-started', declined: true };
    request = chosen;
  }
  if (request.backend !== undefined) checkBackend(helper, request.backend, o.target.label);
  await askNode();
  if (o.signal?.aborted) return { kind: 'not-started' };
  await o.beforeStart?.(ready);
  if (o.signal?.aborted) return { kind: 'not-started' };

  const id = makeRunId(request.idPrefix ?? request.command, request.idTag);
  const produces = request.produces ?? [];
  const outputs = produces.length > 0 ? await o.target.outputs(id, o.store.dirOf(id)) : undefined;
  const args = request.args((name) => {
    if (!outputs || !produces.includes(name))
      throw new Error(`the ${request.command} command does not declare the file ${name}`);
    return outputs.path(name);
  });
  const header = {
    ...runHeader(id, request.command, helper.path, args, o.target.kind === 'ssh' ? o.target.label : undefined),
    ...(request.refines ? { refines: request.refines } : {}),
    ...(request.fleet ? { fleet: request.fleet } : {}),
  };
  o.onStart?.(header);
  let missing: string[] = [];
  let run: Run;
  try {
    run = await runSession({
      target: o.target,
      store: o.store,
      header,
      signal: o.signal,
      cwd: request.cwd,
      ...(request.env ? { env: request.env } : {}),
      ...(o.stallTimeoutS !== undefined ? { stallTimeoutS: o.stallTimeoutS } : {}),
      onRecord: o.onRecord,
      onLog: o.onLog,
      onStderr: o.onStderr,
    });
  } finally {
    // Files come back (or are cleared on the node) whatever the end; a failure costs only them.
    if (outputs) missing = await outputs.collect(produces, (message) => log('warn', `run ${id}: ${message}`));
  }
  if (o.target.kind === 'ssh' && run.end?.exitCode === EXIT_NOT_FOUND) o.helpers.forget(o.target);
  if (refusedArguments(run)) {
    // The run folder was made by this run: only the files it wrote go, through the one delete.
    await o.store.delete(id).catch((err: unknown) => log('warn', `run ${id}: ${(err as Error).message}`));
    // The helper's own words: nothing was measured or kept, so "0 samples kept" would only confuse.
    const said = run.errors.at(-1);
    return {
      kind: 'refused',
      message: said
        ? `${said.message}${said.hint ? ` (${said.hint})` : ''}`
        : (run.end?.message ?? 'the helper refused the arguments'),
    };
  }
  if (run.end?.status === 'ok') for (const name of missing) log('warn', `run ${id}: the helper wrote no ${name}`);
  return { kind: 'ended', run, missing };
}

/** A usage error that measured nothing: there is nothing to keep. */
function refusedArguments(run: Run): boolean {
  if (run.end?.status !== 'error' || run.end.exitCode !== EXIT_USAGE) return false;
  return (
    run.samples.length === 0 &&
    (run.matrixCells?.length ?? 0) === 0 &&
    (run.collectives?.length ?? 0) === 0 &&
    (run.overlaps?.length ?? 0) === 0 &&
    run.dispatches.length === 0
  );
}

/** A named backend the helper on the target was built without: say so before anything runs, and how to get it. */
export function checkBackend(helper: TargetHelper, backend: string, where: string): void {
  if (backend === 'auto' || backend === 'sim' || helper.backends.includes(backend)) return;
  const toolkit =
    backend === 'hip' ? 'ROCm (hipcc in /opt/rocm/bin or on PATH)' : 'CUDA (nvcc in /usr/local/cuda/bin or on PATH)';
  const built = helper.source === 'built' || helper.source === 'cached';
  throw new HelperError(
    `the helper on ${where} has no ${backend} backend (it has: ${helper.backends.join(', ')})`,
    built
      ? `Install ${toolkit} there; the next run rebuilds the helper with it. Or choose the backend "auto" or "sim".`
      : `The helper at ${helper.path} was built without it: point the helper path setting at a build with it, or choose "auto" or "sim".`,
  );
}

/** How the run ended, in one sentence for a notification or stderr; undefined when it went well. */
export function endSentence(run: Run, what: string): string | undefined {
  const end = run.end;
  if (!end || end.status === 'ok') return undefined;
  if (end.status === 'cancelled') {
    const kept = measured(run);
    return `${what} was cancelled; ${kept} ${/^1 /.test(kept) && !kept.includes(' and ') ? 'was' : 'were'} kept in the run.`;
  }
  return `${what} ${end.status === 'crashed' ? 'crashed' : 'failed'}: ${end.message}`;
}
