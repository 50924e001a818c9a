/**
 * The one reader of a started helper's output, for a run (session.ts) and for `info`
 * (nodeInfo.ts): stdout split into lines however the pipe cut them and each parsed as a
 * protocol line, a last line without its newline still parsed (a whole record can arrive
 * so when the helper exits right after it), stderr as lines, and an optional watchdog on
 * silence, until the process has exited and both its streams are closed.
 */
import type { LineResult } from '../protocol';
import { parseLine } from '../protocol';
import { LineSplitter } from '../runs/lineSplitter';
import type { HelperProcess, ProcessExit } from './target';

export interface OutputReader {
  /** Each stdout line, parsed; `line` is its text as it came (a record is saved as it is). */
  onLine(result: LineResult, line: string): void;
  /** The last stdout line had no newline and is no record (a helper killed mid-line): its length. */
  onCutTail?(chars: number): void;
  /** A stdout line longer than MAX_LINE_CHARS was dropped: its length so far. */
  onOverflow?(chars: number): void;
  /** After the lines of each stdout chunk were handed over (a run file flushes here). */
  onChunk?(): void;
  /** Each stderr line; `last` is a final line without its newline, read once the streams closed. */
  onStderr?(line: string, last: boolean): void;
  /**
   * Silence: no stdout for `ms` (0: no watchdog) calls `onStall` once, with the silence as
   * measured, on the monotonic clock (a wall-clock step is not silence). The caller stops the
   * helper; the reader goes on until the process has ended.
   */
  stall?: { ms: number; onStall(quietMs: number): void };
}

/**
 * Milliseconds on the monotonic clock. process.hrtime, not performance.now: on Node 20 the
 * first use of `performance` loads perf_hooks, a few milliseconds of every CLI command's start.
 */
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

/** Reads `child` to its end as `reader` says; gives back how the process ended. */
export async function readHelperOutput(child: HelperProcess, reader: OutputReader): Promise<ProcessExit> {
  let lastOutputAt = monotonicMs();
  let stalled = false;
  const stallMs = reader.stall?.ms ?? 0;
  const watchdog =
    stallMs > 0
      ? setInterval(
          () => {
            const quiet = monotonicMs() - lastOutputAt;
            if (stalled || quiet < stallMs) return;
            stalled = true;
            reader.stall!.onStall(quiet);
          },
          Math.min(1000, stallMs / 4),
        )
      : undefined;
  try {
    const stdout = new LineSplitter((line) => reader.onLine(parseLine(line), line), reader.onOverflow);
    const stderr = new LineSplitter((line) => reader.onStderr?.(line, false));
    child.stdout.on('data', (chunk: Buffer) => {
      lastOutputAt = monotonicMs();
      stdout.push(chunk);
      reader.onChunk?.();
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const streamsClosed = Promise.all([endOf(child.stdout), endOf(child.stderr)]);
    const exit = await child.exit;
    await streamsClosed;
    const tail = stdout.end();
    if (tail !== undefined) {
      const result = parseLine(tail);
      if (result.kind === 'record') reader.onLine(result, tail);
      else reader.onCutTail?.(tail.length);
    }
    const errTail = stderr.end();
    if (errTail) reader.onStderr?.(errTail, true);
    return exit;
  } finally {
    clearInterval(watchdog);
  }
}

function endOf(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('close', resolve);
    stream.once('end', resolve);
    stream.once('error', () => resolve());
  });
}
