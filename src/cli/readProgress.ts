/**
 * Reading a big saved run from the CLI: its progress on stderr (a run over 64 MiB takes
 * seconds to minutes to read), and SIGINT/SIGTERM stopping the read as they stop a
 * measurement (the read ends with "reading ... was cancelled", exit 1).
 */
import type { ReadRunOptions } from '../core/runs/runStore';
import { formatBytes } from '../core/units';
import { terminalLine } from '../core/text';

/** Files at least this large say how far their read has come. */
export const READ_PROGRESS_BYTES = 64 * 1024 * 1024;

/** The progress callback of one run file's read: a line on stderr at each tenth of a big file, none for a small one. */
export function readProgress(what: string): NonNullable<ReadRunOptions['onProgress']> {
  let shown = 0;
  return (read, total) => {
    if (total < READ_PROGRESS_BYTES) return;
    const tenth = Math.min(10, Math.floor((read / total) * 10));
    if (tenth <= shown) return;
    shown = tenth;
    process.stderr.write(
      `sdma-lens: ${terminalLine(`reading ${what}: ${tenth * 10} % (${formatBytes(read)} of ${formatBytes(total)})`)}\n`,
    );
  };
}

/** Runs `f` with a signal that SIGINT or SIGTERM aborts (a signal given by the caller aborts it too). */
export async function stoppedBySignals<T>(f: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (outer?.aborted) abort();
  outer?.addEventListener('abort', abort);
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  try {
    return await f(controller.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    outer?.removeEventListener('abort', abort);
  }
}
