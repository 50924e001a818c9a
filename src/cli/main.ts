/**
 * `sdma-lens`: the headless front on the same core as the extension, for batch jobs and
 * CI pipelines on clusters. It prints a table (or JSON with --json) and writes the same run
 * files the extension opens. Each command is a file in commands/; every one that runs the
 * helper goes through the core run flow (console.ts).
 */
import { RunFileError } from '../core/runs/runStore';
import { HelperError } from '../core/runtime/helper';
import { escapeControls } from '../core/text';
import { collective } from './commands/collective';
import { compare } from './commands/compare';
import { fleet } from './commands/fleet';
import { importFiles } from './commands/import';
import { matrix } from './commands/matrix';
import { advise, runs } from './commands/saved';
import { sweep } from './commands/sweep';
import { UsageError } from './options';
import { USAGE } from './usage';

/** The commands that start the helper: a signal cancels their run. */
const RUNS: Record<string, (argv: string[], signal: AbortSignal) => Promise<number>> = {
  sweep,
  matrix,
  collective: (argv, signal) => collective('collective', argv, signal),
  overlap: (argv, signal) => collective('overlap', argv, signal),
  import: importFiles,
  fleet,
};

/** The commands that only read saved runs: a signal ends them as it ends any program. */
const READS: Record<string, (argv: string[]) => Promise<number>> = { advise, runs, compare };

/**
 * SIGINT/SIGTERM cancel the run: the helper gets its grace period to write `done`, then is
 * killed, and the partial run is kept. A second signal does not cut that short into a CLI
 * that dies with the helper still running: it is said, and the cancel goes on.
 */
function cancelOnSignals(controller: AbortController): () => void {
  let count = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) controller.abort();
    else process.stderr.write(`\nsdma-lens: ${signal} again; still stopping the helper (it is killed within seconds) and keeping the partial run\n`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const controller = new AbortController();
  const stop = Object.hasOwn(RUNS, command ?? '') ? cancelOnSignals(controller) : () => {};
  try {
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    if (Object.hasOwn(RUNS, command)) return await RUNS[command]!(rest, controller.signal);
    if (Object.hasOwn(READS, command)) return await READS[command]!(rest);
    throw new UsageError(`unknown command "${command}"`);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`sdma-lens: ${escapeControls((err as Error).message)}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof RunFileError) {
      process.stderr.write(`sdma-lens: ${escapeControls(err.message)}\n`);
      return 1;
    }
    if (err instanceof HelperError) {
      process.stderr.write(`sdma-lens: ${escapeControls(err.message)}\n  ${escapeControls(err.remedy, { newlines: true })}\n`);
      return 1;
    }
    throw err;
  } finally {
    stop();
  }
}
