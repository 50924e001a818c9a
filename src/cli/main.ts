/**
 * `sdma-lens`: the headless front on the same core as the extension, for batch jobs and
 * CI pipelines on clusters. It prints a table (or JSON with --json) and writes the same run
 * files the extension opens. Each command is a file in commands/; every one that runs the
 * helper goes through the core run flow (console.ts).
 */
import { escapeControls } from '../core/text';
import type { CommandBundle } from './commandTable';
import { loadCommand } from './commandTable';
import { didYouMean } from './suggest';
import type { CommandName } from './usage';
import { COMMAND_NAMES, commandHelp, isCommand, overview } from './usage';
import { VERSION } from './version';

/** The commands that start the helper (their bundles' RUNS): a signal cancels their run. */
export const RUNS_HELPER: ReadonlySet<string> = new Set<CommandName>([
  'sweep',
  'matrix',
  'collective',
  'overlap',
  'import',
  'fleet',
]);

/** The exit status of a writer stopped by SIGPIPE (128 + 13), as a shell reports `yes | head -1`'s. */
export const EXIT_READER_GONE = 141;

/** Set at the first failed write to stdout or stderr: the exit status it calls for. */
let outputLost: number | undefined;
const onOutputLost = new Set<() => void>();

/**
 * Listens for failed writes to stdout and stderr (once, at start): without a listener one
 * would be an uncaught exception, printed with its stack. EPIPE (`sdma-lens runs | head -1`:
 * the reader has gone) is said nowhere; another failure of stdout (a full disk under a
 * redirect) is said on stderr. Either way nothing printed after it reaches anyone: a run in
 * progress is cancelled as on SIGINT (its partial run kept) and the CLI ends with
 * EXIT_READER_GONE after EPIPE, 1 otherwise. A failure of stderr alone costs nothing else.
 */
export function watchOutput(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err: NodeJS.ErrnoException) => outputFailed(stream, err));
}

function outputFailed(stream: NodeJS.WriteStream, err: NodeJS.ErrnoException): void {
  if (outputLost !== undefined) return;
  const gone = err.code === 'EPIPE';
  if (!gone && stream === process.stderr) return;
  outputLost = gone ? EXIT_READER_GONE : 1;
  if (!gone)
    process.stderr.write(
      `sdma-lens: standard output could not be written (${escapeControls(err.code ?? err.message)}); the output is incomplete\n`,
    );
  for (const lost of onOutputLost) lost();
}

/**
 * Ends the process with `code` once stdout and stderr have taken everything written to them:
 * a pipe to a slow reader gets the whole output (process.exit() at once would drop what the
 * pipe had not taken yet), and a helper, an ssh connection or a timer left behind cannot keep
 * the process alive after that. A failed write (watchOutput) decides the status instead.
 */
export function exitWhenWritten(code: number): void {
  process.exitCode = code;
  let pending = 2;
  // A write's callback runs once it and every write before it are done, or with the error that
  // stopped them: it may come before the stream's 'error' event.
  for (const stream of [process.stdout, process.stderr]) {
    const written = (err?: Error | null) => {
      if (err) outputFailed(stream, err);
      if (--pending === 0) process.exit(outputLost ?? code);
    };
    if (stream.destroyed) written();
    else stream.write('', written);
  }
}

/** What no amount of waiting fixes: a list too long for an argument list, a text too long for a string. */
function tooLarge(err: unknown): err is Error {
  return (
    err instanceof RangeError &&
    /Maximum call stack size exceeded|Invalid string length|Invalid array length|Array buffer allocation failed/.test(
      err.message,
    )
  );
}

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
    else
      process.stderr.write(
        `\nsdma-lens: ${signal} again; still stopping the helper (it is killed within seconds) and keeping the partial run\n`,
      );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * Bad arguments: one line saying what is wrong, one saying where the help is, exit 2. `command`:
 * the command they were given to (its help), or none (the overview).
 */
function usageError(message: string, command?: CommandName, said = command ?? ''): number {
  const who = said ? `sdma-lens ${said}` : 'sdma-lens';
  process.stderr.write(
    `${escapeControls(`${who}: ${message}`)}\nsee ${command ? `sdma-lens ${command}` : 'sdma-lens'} --help\n`,
  );
  return 2;
}

/** A word where a command should be, with the commands it may have meant. */
function notACommand(word: string, said?: string): number {
  if (word.startsWith('-'))
    return usageError(
      `unknown option ${word}${didYouMean(word.replace(/^-+/, ''), ['help', 'version'], (n) => `--${n}`)}; a command comes first: sdma-lens <command> [options]`,
      undefined,
      said,
    );
  return usageError(`unknown command "${word}"${didYouMean(word, [...COMMAND_NAMES, 'help'])}`, undefined, said);
}

/** `sdma-lens help [COMMAND]`. */
function help(rest: string[]): number {
  const [name] = rest;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${overview()}\n`);
    return 0;
  }
  if (rest.length > 1)
    return usageError(`takes one command (got ${rest.length} words: ${rest.join(' ')})`, undefined, 'help');
  if (!isCommand(name)) return notACommand(name, 'help');
  process.stdout.write(`${commandHelp(name)}\n`);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const controller = new AbortController();
  const runsHelper = RUNS_HELPER.has(command ?? '');
  const stop = runsHelper ? cancelOnSignals(controller) : () => {};
  // Output nobody can read any more: a run in progress stops as on the first SIGINT.
  const cancel = () => controller.abort();
  if (runsHelper) onOutputLost.add(cancel);
  // The command's bundle, loaded only when a command runs (commandTable.ts): `--help`,
  // `--version` and a word that is not a command load none.
  let table: CommandBundle | undefined;
  try {
    if (command === undefined || command === '-h' || command === '--help') {
      process.stdout.write(`${overview()}\n`);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-V') {
      process.stdout.write(`sdma-lens ${VERSION}\n`);
      return 0;
    }
    if (command === 'help') return help(rest);
    if (!isCommand(command)) return notACommand(command);
    table = await loadCommand(command);
    const { HelpRequested, UsageError } = table;
    try {
      const run = table.RUNS[command];
      const code = run ? await run(rest, controller.signal) : await table.READS[command]!(rest);
      // The command ran: the code it compiled is worth keeping (not so for its --help or bad flags).
      // Imported here: `--help` and `--version` do not load it (scripts/build.mjs requires it with a bundle).
      (await import('./requireBundle')).saveCodeCache();
      return code;
    } catch (err) {
      if (err instanceof HelpRequested) {
        process.stdout.write(`${commandHelp(command)}\n`);
        return 0;
      }
      if (err instanceof UsageError) return usageError(err.message, command);
      throw err;
    }
  } catch (err) {
    // Only a bundle throws these: before one is loaded there are none.
    if (table && err instanceof table.RunFileError) {
      process.stderr.write(`sdma-lens: ${escapeControls(err.message)}\n`);
      return 1;
    }
    if (table && err instanceof table.HelperError) {
      process.stderr.write(
        `sdma-lens: ${escapeControls(err.message)}\n  ${escapeControls(err.remedy, { newlines: true })}\n`,
      );
      return 1;
    }
    if (tooLarge(err)) {
      process.stderr.write(
        `sdma-lens: ${escapeControls(command ?? '')} stopped: the data is too large for it (${escapeControls(err.message)}); its output is missing or incomplete\n`,
      );
      return 1;
    }
    throw err;
  } finally {
    stop();
    onOutputLost.delete(cancel);
  }
}
