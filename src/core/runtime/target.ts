/**
 * Where the helper runs. A target starts a program from an argument array (never a shell
 * string) and gives back its streams and how it ended. Cancellation goes through the
 * AbortSignal and must take the whole process tree with it.
 */
import type { Readable } from 'node:stream';

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the program could not be started at all (not found, not executable). */
  spawnError?: string;
  /** Set when the way to the program broke (a dropped SSH connection): what happened, in a sentence. */
  lost?: string;
}

export interface HelperProcess {
  readonly pid: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exit: Promise<ProcessExit>;
}

export interface SpawnOptions {
  signal?: AbortSignal;
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * The files one run writes besides its records (a timeline): where the helper writes them on
 * the target, and how they reach the run's folder afterwards. The target owns both.
 */
export interface RunOutputs {
  /** Where the helper is told to write the file `name` (a path on the target). */
  path(name: string): string;
  /**
   * Brings each named file into the run's folder and clears what the run left on the target,
   * whether or not the run went well. Gives back the names that were not there; a failure to
   * copy one is logged through `onProblem` and counts as not there.
   */
  collect(names: readonly string[], onProblem?: (message: string) => void): Promise<string[]>;
}

export interface Target {
  readonly kind: 'local' | 'ssh';
  /** Shown to users: "local", "gpu-node-3". */
  readonly label: string;
  spawn(file: string, args: readonly string[], options: SpawnOptions): HelperProcess;
  /** Prepares the place where run `runId` writes its files; `localDir` is the run's folder. */
  outputs(runId: string, localDir: string): Promise<RunOutputs>;
}
