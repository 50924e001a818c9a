/**
 * The CLI's one way to run a helper command: the core run flow on this machine or an SSH
 * node, progress on a terminal, warnings unless --json, and an exit code from how it ended.
 * The CLI's own progress wrapper, as runWithProgress is the extension's.
 */
import { join, resolve } from 'node:path';
import type { Run } from '../core/run';
import type { RunStore } from '../core/runs/runStore';
import { bundledHelperPaths, locateHelper } from '../core/runtime/helper';
import { LocalTarget } from '../core/runtime/localTarget';
import type { HelperCommand, HelperProvider, NodeInfoRequest, PreStart, TargetHelper } from '../core/runtime/runFlow';
import { endSentence, runHelperCommand } from '../core/runtime/runFlow';
import type { Target } from '../core/runtime/target';
import { escapeControls } from '../core/text';
import { deployHelper } from '../core/ssh/deploy';
import { SshTarget } from '../core/ssh/sshTarget';
import type { RunValues } from './options';
import { helperOption, sshConnection, stallTimeout, storeOf } from './options';
import { isCommand } from './commandNames';
import { FileVersionCache, userCacheDir } from './versionCache';

const packageRoot = resolve(__dirname, '..');

const say = (message: string) => process.stderr.write(`sdma-lens: ${escapeControls(message)}...\n`);

/** The helper: `--helper` (on the node with --target), $SDMA_LENS_HELPER, the packaged build, or one built from the shipped sources. */
export function cliHelpers(configured: string | undefined): HelperProvider {
  return {
    async helperFor(target: Target, signal?: AbortSignal): Promise<TargetHelper> {
      if (target instanceof SshTarget) {
        return deployHelper(target.connection, {
          sourceDir: join(packageRoot, 'native'),
          configuredPath: configured ?? '',
          signal,
          onProgress: say,
        });
      }
      return locateHelper({
        configuredPath: configured ?? process.env.SDMA_LENS_HELPER,
        bundledPaths: bundledHelperPaths(packageRoot),
        build: { sourceDir: join(packageRoot, 'native'), cacheDir: userCacheDir(), onProgress: say },
        signal,
        versionCache: new FileVersionCache(),
      });
    },
    forget: () => {},
  };
}

/** How a command runs on the console: where, what the run flow asks before the start, and how loud. */
export interface ConsoleOptions {
  /** Where and how, from the command's options. */
  values: RunValues;
  signal: AbortSignal;
  /** Only commands that read local files run only here (import). */
  localOnly?: boolean;
  /** The node's `info` before the start, inside the run flow (the same helper, the same cancel). */
  nodeInfo?: NodeInfoRequest;
  /** A check with the helper and the node's info in hand; throwing stops the command. */
  beforeStart?: (ready: PreStart) => Promise<void>;
  /** Where the run is saved; default: the runs folder of the options. */
  store?: RunStore;
  /** No progress or end sentence on stderr (the caller sums up, e.g. refinement rounds). */
  quiet?: boolean;
  /**
   * Work the output needs later that depends on nothing the run says (e.g. parsing a static
   * table), done once the helper has started: it runs while the helper measures, in place of
   * after it. It must not print, and what it throws is dropped (the caller, doing
   * the same work again later, meets the same error).
   */
  whileRunning?: () => void;
}

/** Exit codes: 0 ok, 1 failed or crashed (the partial run is kept), 2 refused arguments, 130 cancelled. */
export type ConsoleOutcome = { code: number; run?: Run };

/** Runs the command and says how it ended on stderr; the caller prints the result of a run. */
export async function runOnConsole(request: HelperCommand, o: ConsoleOptions): Promise<ConsoleOutcome> {
  const helper = helperOption(o.values, o.localOnly);
  const stallTimeoutS = stallTimeout(o.values);
  const conn = o.localOnly ? undefined : sshConnection(o.values);
  const target: Target = conn ? new SshTarget(conn) : new LocalTarget();
  const json = o.values.json === true;
  const interactive = !json && !o.quiet && process.stderr.isTTY;
  const whileRunning = o.whileRunning;
  try {
    const result = await runHelperCommand(request, {
      target,
      helpers: cliHelpers(helper),
      store: o.store ?? storeOf(o.values),
      signal: o.signal,
      stallTimeoutS,
      ...(o.nodeInfo ? { nodeInfo: o.nodeInfo } : {}),
      beforeStart: o.beforeStart,
      // Called just before the helper is started (synchronously with it): the work comes after.
      ...(whileRunning ? { onStart: () => setImmediate(dropErrors, whileRunning) } : {}),
      onRecord: (_live, record) => {
        if (interactive && record.type === 'progress') process.stderr.write(`\r${record.done}/${record.total} `);
        if (record.type === 'warning' && !json)
          process.stderr.write(`${interactive ? '\n' : ''}warning: ${escapeControls(record.message)}\n`);
      },
      onLog: (level, message) => {
        // Files a run should have written and did not are said once, below, from the result.
        if (level === 'error') process.stderr.write(`${escapeControls(message)}\n`);
      },
    });
    if (interactive) process.stderr.write('\r');
    if (result.kind === 'not-started') {
      process.stderr.write('sdma-lens: cancelled before the helper started; nothing was saved\n');
      return { code: 130 };
    }
    if (result.kind === 'refused') {
      // A usage error as the CLI's own are said: what is wrong, and where the command's help is.
      const who = isCommand(request.command) ? `sdma-lens ${request.command}` : 'sdma-lens';
      process.stderr.write(
        `${who}: the helper refused the arguments: ${escapeControls(result.message)}; nothing was measured or saved\nsee ${who} --help\n`,
      );
      return { code: 2 };
    }
    for (const name of result.missing)
      if (result.run.end?.status === 'ok')
        process.stderr.write(
          `sdma-lens: the run wrote no ${escapeControls(name)}${conn ? ` (or it could not be copied from ${escapeControls(conn.label)})` : ''}\n`,
        );
    return { code: exitCodeOf(result.run, o.quiet), run: result.run };
  } finally {
    // A batch job leaves no background ssh behind.
    await conn?.close();
  }
}

function dropErrors(work: () => void): void {
  try {
    work();
  } catch {
    // Said where the caller does the work itself.
  }
}

/** 0 ok, 130 cancelled, 1 otherwise; anything but ok is said on stderr. */
function exitCodeOf(run: Run, quiet = false): number {
  const status = run.end?.status;
  const sentence = endSentence(run, 'the run');
  if (sentence && !quiet) process.stderr.write(`sdma-lens: ${escapeControls(sentence)}\n`);
  return status === 'ok' ? 0 : status === 'cancelled' ? 130 : 1;
}

/** The lines every run's printout ends with. */
export function savedLines(runFile: string): string {
  return `# saved: ${runFile}\n# open it in VS Code: "SDMA Lens: Open Run" (or: code . then run that command)\n`;
}
