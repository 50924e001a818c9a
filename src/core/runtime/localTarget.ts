/**
 * Runs the helper on this machine. The child gets its own process group so that cancelling
 * kills everything it started (a later `run -- <program>` mode starts the user's program as
 * its child): SIGTERM to the group first, so the helper can write `done`, then SIGKILL.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { HelperProcess, ProcessExit, RunOutputs, SpawnOptions, Target } from './target';

/** How long a cancelled helper gets to finish its `done` record before it is killed. */
export const KILL_GRACE_MS = 2000;

export class LocalTarget implements Target {
  readonly kind = 'local';
  readonly label = 'local';

  spawn(file: string, args: readonly string[], options: SpawnOptions): HelperProcess {
    const child = execa(file, args, {
      cwd: options.cwd,
      env: options.env,
      extendEnv: true,
      stdin: 'ignore',
      buffer: false,
      reject: false,
      detached: true,
      // execa would also SIGTERM the child alone; the group kill below covers its descendants too.
      cleanup: true,
    });
    const pid = child.pid;
    const killGroup = (signal: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    let forceTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      killGroup('SIGTERM');
      forceTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
      forceTimer.unref();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const exit = child.then((result): ProcessExit => {
      options.signal?.removeEventListener('abort', onAbort);
      if (forceTimer) clearTimeout(forceTimer);
      // Descendants may outlive the helper; a finished run leaves nothing behind.
      killGroup('SIGKILL');
      const spawnError =
        result.failed && result.exitCode === undefined && !result.signal ? result.shortMessage : undefined;
      return {
        exitCode: result.exitCode ?? null,
        signal: result.signal ?? null,
        ...(spawnError ? { spawnError } : {}),
      };
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
