/**
 * Runs the helper on this machine. The child gets its own process group so that cancelling
 * kills everything it started (a later `run -- <program>` mode starts the user's program as
 * its child): SIGTERM to the group first, so the helper can write `done`, then SIGKILL.
 *
 * It starts the child with node:child_process itself, not through execa: a run on this
 * machine (the CLI's simulated sweep above all) then never loads execa and its dependencies,
 * which cost a fifth of the CLI's start-up.
 */
import { spawn as spawnChild } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { HelperProcess, ProcessExit, RunOutputs, SpawnOptions, Target } from './target';

/** How long a cancelled helper gets to finish its `done` record before it is killed. */
export const KILL_GRACE_MS = 2000;

/** The process groups of helpers still running: killed if this process exits before them. */
const running = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** A helper never outlives the process that started it (the CLI ended, the extension host closed). */
function killOnExit(pid: number): void {
  running.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of running) killGroup(group, 'SIGKILL');
  });
}

export class LocalTarget implements Target {
  readonly kind = 'local';
  readonly label = 'local';

  spawn(file: string, args: readonly string[], options: SpawnOptions): HelperProcess {
    const child = spawnChild(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid !== undefined) killOnExit(pid);
    let forceTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      killGroup(pid, 'SIGTERM');
      forceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
      forceTimer.unref();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    let startError: string | undefined;
    const exit = new Promise<ProcessExit>((resolve) => {
      let settled = false;
      const settle = (code: number | null, signal: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        options.signal?.removeEventListener('abort', onAbort);
        if (forceTimer) clearTimeout(forceTimer);
        // Descendants may outlive the helper; a finished run leaves nothing behind.
        killGroup(pid, 'SIGKILL');
        if (pid !== undefined) running.delete(pid);
        resolve({
          exitCode: startError !== undefined ? null : code,
          signal: startError !== undefined ? null : signal,
          ...(startError !== undefined ? { spawnError: startError } : {}),
        });
      };
      child.once('error', (err: NodeJS.ErrnoException) => {
        // Not started at all (not found, not executable): no 'close' may follow.
        if (child.pid === undefined) {
          startError = `${file} could not be started (${err.code ?? err.message})`;
          settle(null, null);
        }
      });
      child.once('close', (code, signal) => settle(code, signal));
    });
    if (!child.stdout || !child.stderr) throw new Error('helper streams are not piped');
    return { pid, stdout: child.stdout, stderr: child.stderr, exit };
  }

  /** The helper writes straight into the run's folder: nothing to copy. */
  async outputs(_runId: string, localDir: string): Promise<RunOutputs> {
    await mkdir(localDir, { recursive: true });
    return {
      path: (name) => join(localDir, name),
      collect: async (names) => names.filter((name) => !existsSync(join(localDir, name))),
    };
  }
}
