/**
 * One helper invocation from start to saved run: spawn on a target, read its output
 * (helperOutput.ts: stdout as protocol lines, stderr, the stall watchdog), validate each
 * line, fold it into the Run and append it to the run file as it arrives, then record how
 * the process ended. A malformed line is reported and skipped; a crash, a
 * kill or a cancel keeps every record already received. A run file that cannot be written
 * (a full disk) stops the helper as a cancel does and ends the run as an error, and so does
 * a helper that prints nothing for the stall limit: long work prints heartbeat records
 * (native/src/limits.json's heartbeatMs), so silence means it is stuck.
 */
import type { HelperRecord, LineResult } from '../protocol';
import { MOVER_MISMATCH } from '../protocol';
import type { Run, RunEnd, RunHeader } from '../run';
import { applyRecord, newRun } from '../run';
import type { RunStore } from '../runs/runStore';
import { RunWriteError } from '../runs/runStore';
import { LIMITS } from '../limits';
import { readHelperOutput } from './helperOutput';
import type { ProcessExit, Target } from './target';

export type LogLevel = 'trace' | 'info' | 'warn' | 'error';

export interface SessionOptions {
  target: Target;
  store: RunStore;
  header: RunHeader;
  signal?: AbortSignal;
  cwd?: string;
  /** Called after each accepted record with the live run. */
  onRecord?: (run: Run, record: HelperRecord) => void;
  onLog?: (level: LogLevel, message: string) => void;
  /** Each line the helper writes to stderr (its diagnostics; for Profile also the program's output). */
  onStderr?: (line: string) => void;
  /** Environment for the helper, added to the inherited one (Profile passes the user's settings through). */
  env?: Record<string, string>;
  /** Seconds of silence (no output at all) after which the helper is stopped; 0: no limit. Default STALL_LIMIT.defaultS. */
  stallTimeoutS?: number;
}

/**
 * The stall limit, in seconds. The helper is never silent for longer than its heartbeat
 * interval while it works, except inside one unit of GPU work (at most --target-ms, up to
 * limits.json's targetMsMax), so the default sits above both; the least is a few heartbeats.
 */
export const STALL_LIMIT = {
  defaultS: 120,
  minS: Math.ceil((5 * LIMITS.heartbeatMs) / 1000),
  maxS: 86_400,
} as const;

/** A stall limit from a setting or a flag: 0 (none) or a whole number of seconds in minS..maxS; throws what is wrong. */
export function checkStallTimeout(value: unknown): number {
  const ok =
    typeof value === 'number' &&
    Number.isInteger(value) &&
    (value === 0 || (value >= STALL_LIMIT.minS && value <= STALL_LIMIT.maxS));
  if (!ok)
    throw new Error(
      `must be 0 (no limit) or a whole number of seconds in ${STALL_LIMIT.minS}..${STALL_LIMIT.maxS} (got ${JSON.stringify(value)})`,
    );
  return value;
}

/** Lines of stderr kept to explain a failure. */
const STDERR_TAIL_LINES = 20;

export async function runSession(options: SessionOptions): Promise<Run> {
  const { target, store, header, signal } = options;
  const log = options.onLog ?? (() => {});
  const run = newRun(header);
  const writer = store.create(header);
  const stderrTail: string[] = [];
  let sawHello = false;
  let records = 0;
  // The helper is stopped by the caller's cancel or by a run file that cannot be written.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (signal?.aborted) stop.abort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  const persist = () => {
    try {
      writer.flush();
    } catch (err) {
      if (!(err instanceof RunWriteError)) throw err;
      log('error', `run ${header.id}: ${err.message}; stopping the helper`);
      stop.abort();
    }
  };

  const problem = (message: string) => {
    run.problems.push(message);
    writer.appendValue({ type: 'host-problem', message });
    log('warn', message);
  };

  /** Each stdout line, parsed (also a last one that came without its newline). */
  const accept = (result: LineResult, line: string) => {
    // Heartbeats only prove the helper is moving: nothing to keep.
    if (result.kind === 'record' && result.record.type === 'heartbeat') return;
    if (result.kind === 'record') {
      if (!sawHello && result.record.type !== 'hello')
        problem(`the helper sent "${result.record.type}" before "hello"`);
      if (result.record.type === 'hello') sawHello = true;
      records++;
      applyRecord(run, result.record);
      writer.appendLine(line);
      options.onRecord?.(run, result.record);
    } else if (result.kind === 'unknown-type') {
      problem(`skipped a record of unknown type "${result.type}" (newer helper?)`);
    } else {
      problem(`skipped a malformed line from the helper: ${result.reason}`);
    }
  };
  // The watchdog: any output resets it; silence for the limit stops the helper as a cancel does.
  const stallMs = (options.stallTimeoutS ?? STALL_LIMIT.defaultS) * 1000;
  let stalledMs: number | undefined;

  let exit: ProcessExit;
  try {
    const child = target.spawn(header.helper.path, header.helper.args, {
      signal: stop.signal,
      cwd: options.cwd,
      ...(options.env ? { env: options.env } : {}),
    });
    log(
      'info',
      `started ${header.helper.path} ${header.helper.args.join(' ')} on ${target.label} (pid ${child.pid ?? '?'})`,
    );
    exit = await readHelperOutput(child, {
      onLine: accept,
      onOverflow: (chars) => problem(`skipped a ${chars}-character line from the helper (too long)`),
      onCutTail: (chars) => problem(`the helper's last line was cut off (${chars} characters); skipped`),
      onChunk: persist,
      onStderr: (line, last) => {
        stderrTail.push(line);
        if (last) return;
        if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
        log('trace', `[helper] ${line}`);
        options.onStderr?.(line);
      },
      stall: {
        ms: stallMs,
        onStall: (quiet) => {
          stalledMs = quiet;
          log('error', `run ${header.id}: the helper printed nothing for ${Math.round(quiet / 1000)} s; stopping it`);
          stop.abort();
        },
      },
    });
  } catch (err) {
    exit = { exitCode: null, signal: null, spawnError: (err as Error).message };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }

  persist();
  run.end = describeEnd(run, exit, signal?.aborted ?? false, stderrTail, header.helper.path, {
    records,
    writeError: writer.failed,
    // The limit is what was promised; the log line above has the silence as measured.
    ...(stalledMs !== undefined ? { stalledS: stallMs / 1000 } : {}),
  });
  // The count and the first problem ride on the run-end line, so the run list can show them without reading the whole file.
  const problems = run.problems.length > 0 ? { problems: run.problems.length, firstProblem: run.problems[0] } : {};
  if (!writer.appendLast({ ...run.end, ...problems }))
    log('error', `run ${header.id}: its end could not be saved either (${writer.failed?.message ?? 'write failed'})`);
  try {
    writer.close();
  } catch {
    // Already said: the failure that stopped the writer ended the run.
  }
  log(run.end.status === 'ok' ? 'info' : 'warn', `run ${header.id}: ${run.end.status}: ${run.end.message}`);
  return run;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What a run has measured so far, in the words of its command. */
export function measured(run: Run): string {
  switch (run.header.command) {
    case 'run':
    case 'import':
      return `${plural(run.dispatches.length, 'kernel launch', 'kernel launches')} and ${plural(run.copies.length, 'copy', 'copies')}`;
    case 'collective':
      return plural(run.collectives?.length ?? 0, 'collective point');
    case 'overlap':
      return plural(run.overlaps?.length ?? 0, 'overlap point');
    case 'matrix':
      return plural(run.matrixCells?.length ?? 0, 'matrix cell');
    default:
      return plural(run.samples.length, 'sample');
  }
}

/** What the session saw besides the run: how many records it accepted, and the write failure that stopped it. */
export interface SessionFacts {
  records?: number;
  writeError?: RunWriteError;
  /** The helper was stopped after printing nothing for this many seconds (the stall limit). */
  stalledS?: number;
}

/** Turns a process exit and the records seen into one status and a sentence that says what to do. */
export function describeEnd(
  run: Run,
  exit: ProcessExit,
  cancelled: boolean,
  stderrTail: string[],
  helperPath: string,
  facts: SessionFacts = {},
): RunEnd {
  const base = {
    type: 'run-end' as const,
    exitCode: exit.exitCode,
    signal: exit.signal,
    endedAt: new Date().toISOString(),
  };
  const kept = `${measured(run)} kept`;
  const lastStderr = stderrTail.at(-1);
  if (facts.writeError) {
    return {
      ...base,
      status: 'error',
      message: `${facts.writeError.message}: the helper was stopped; ${facts.writeError.file} keeps the whole lines written before that. Free space there (or use another runs folder) and run again.`,
    };
  }
  if (exit.spawnError) {
    return {
      ...base,
      status: 'error',
      message: `could not start the helper ${helperPath}: ${exit.spawnError}. Check the sdmaLens.helperPath setting or rebuild the helper.`,
    };
  }
  if (cancelled) {
    return { ...base, status: 'cancelled', message: `cancelled; ${kept}` };
  }
  if (facts.stalledS !== undefined) {
    const where = lastStderr ? ` Its last stderr line: ${lastStderr}` : '';
    return {
      ...base,
      status: 'error',
      message: `the helper printed nothing for ${facts.stalledS} s, the stall limit, and was stopped; ${kept}. If the work is only slow, raise the limit (setting sdmaLens.run.stallTimeoutSeconds, CLI --stall-timeout; 0 waits without limit).${where}`,
    };
  }
  if (exit.lost) {
    return { ...base, status: 'crashed', message: `${exit.lost}; ${kept}` };
  }
  const lastError = run.errors.at(-1);
  const unusable = run.problems.length;
  if (facts.records !== undefined && unusable > facts.records) {
    const lines = `${unusable} of ${unusable + facts.records} lines from the helper were unusable (first: ${run.problems[0]})`;
    return {
      ...base,
      status: 'error',
      message: `${lines}; ${kept}. The helper and SDMA Lens may not match: rebuild the helper or update SDMA Lens.`,
    };
  }
  if (exit.exitCode === 0 && run.done?.status === 'ok') {
    return { ...base, status: 'ok', message: measured(run) };
  }
  if (lastError && exit.exitCode !== null) {
    // A label the evidence contradicts is said as such, with what to do: the run's figures are not what they claim.
    if (lastError.code === MOVER_MISMATCH)
      return {
        ...base,
        status: 'error',
        message: `mover mismatch: ${lastError.message} (exit code ${exit.exitCode}); ${kept}, the contradicting one flagged.${lastError.hint ? ` ${lastError.hint}` : ''}`,
      };
    const mismatches = run.errors.filter((e) => e.code === MOVER_MISMATCH).length;
    const flagged =
      mismatches > 0
        ? `; ${mismatches} mover mismatch${mismatches === 1 ? '' : 'es'} (error mover-mismatch: the evidence of what moved the bytes contradicts the label), flagged`
        : '';
    return {
      ...base,
      status: 'error',
      message: `${lastError.message} (exit code ${exit.exitCode}); ${kept}${flagged}`,
    };
  }
  const how = exit.signal
    ? `was killed by ${exit.signal}`
    : exit.exitCode === 0
      ? 'exited without a "done" record'
      : `exited with code ${exit.exitCode} without saying why`;
  const hint = lastStderr ? ` Last stderr line: ${lastStderr}` : '';
  return { ...base, status: 'crashed', message: `the helper ${how}; ${kept}.${hint}` };
}
