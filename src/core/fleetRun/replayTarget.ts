/**
 * The nodes of a queued fleet (batch.ts) read back as if they ran now: a target whose spawn
 * replays what the node's step wrote (`<node>.ndjson` as stdout, `<node>.stderr` as stderr)
 * and ends as srun ended (`<node>.exit`). Through it, `collect` puts each node through the
 * same run flow as a live run: every line validated, problems kept, the end described the
 * same way. A node whose step never finished (the job cancelled or out of time) has no exit
 * file: it ends as a lost connection does, with what it wrote kept.
 */
import { createReadStream, existsSync, lstatSync } from 'node:fs';
import { openSafeFileSync, readSafeFileSync } from '../runs/safeFile';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import type { HelperProcess, ProcessExit, RunOutputs, SpawnOptions, Target } from '../runtime/target';

export class ReplayTarget implements Target {
  readonly kind = 'local' as const;
  readonly label: string;

  constructor(
    private readonly dir: string,
    readonly node: string,
    job: string,
  ) {
    this.label = `${node} (Slurm batch job ${job})`;
  }

  private file(ext: string): string {
    return join(this.dir, `${this.node}.${ext}`);
  }

  /** Regular files only: a link or FIFO put in the folder is not read. */
  private readable(ext: string): boolean {
    const st = lstatSync(this.file(ext), { throwIfNoEntry: false });
    return st?.isFile() === true;
  }

  /** The node's stream through the one safe open (no link, no FIFO, no device), else an empty one. */
  private stream(ext: string): Readable {
    if (!this.readable(ext)) return endedStream();
    try {
      const { fd } = openSafeFileSync(this.file(ext), 'run');
      return createReadStream('', { fd });
    } catch {
      return endedStream();
    }
  }

  spawn(_file: string, _args: readonly string[], options: SpawnOptions): HelperProcess {
    const stdout = this.stream('ndjson');
    const stderr = this.stream('stderr');
    const exit = Promise.all([ended(stdout), ended(stderr)]).then((): ProcessExit => {
      if (options.signal?.aborted) return { exitCode: null, signal: 'SIGTERM' };
      if (!this.readable('ndjson') && !existsSync(this.file('exit')))
        return {
          exitCode: null,
          signal: null,
          lost: `node ${this.node} wrote nothing: its step did not start (the job was cancelled or failed before it)`,
        };
      if (!this.readable('exit'))
        return {
          exitCode: null,
          signal: null,
          lost: `the batch job ended before the step on ${this.node} did (cancelled, or out of time)`,
        };
      let text: string;
      try {
        text = readSafeFileSync(this.file('exit'), 'step-exit').toString('utf8').trim();
      } catch (err) {
        return { exitCode: null, signal: null, lost: (err as Error).message };
      }
      const code = /^[0-9]{1,3}$/.test(text) ? Number(text) : NaN;
      return Number.isInteger(code) && code >= 0 && code <= 255
        ? { exitCode: code, signal: null }
        : { exitCode: null, signal: null, lost: `${this.file('exit')} does not hold an exit status` };
    });
    return { pid: undefined, stdout, stderr, exit };
  }

  async outputs(): Promise<RunOutputs> {
    return { path: (name) => join(this.dir, name), collect: async (names) => [...names] };
  }
}

function endedStream(): PassThrough {
  const s = new PassThrough();
  s.end();
  return s;
}

function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
