/**
 * Runs on disk: one folder per run holding `run.ndjson` (append-only: a header line, every
 * helper record as it arrived, then a `run-end` line) and any files the helper wrote for it,
 * such as a timeline. Appending as records arrive means a crash or kill of the helper loses
 * nothing already received; a corrupt line costs only that line.
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Run, RunHeader } from '../run';
import { RUN_FILE_NAME, applySavedValue, newRun } from '../run';
import { MAX_LINE_CHARS } from './lineSplitter';
import { openSafeFile } from './safeFile';
import { writeRunsGitignore } from './gitignore';
import type { RunDeleteOutcome } from './runFolder';
import { RunFolderError, checkRunFolder, deleteRunFolder } from './runFolder';
import type { RunSummary } from './runList';
import { RUN_ID, listRuns, parseRunHeader } from './runList';

export class RunFileError extends Error {}

/** Reading a run was cancelled (its `signal` aborted): nothing of it is kept. */
export class RunReadCancelled extends RunFileError {
  constructor(readonly file: string) {
    super(`reading ${file} was cancelled`);
  }
}

/** A write to a run file failed (a full disk, a quota, an I/O error); the file holds whole lines only. */
export class RunWriteError extends RunFileError {
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    cause: string,
  ) {
    super(
      code === 'ENOSPC' ? `the disk holding ${dirname(file)} is full (ENOSPC)` : `could not write ${file}: ${cause}`,
    );
  }
}

/** Makes a sortable, file-system-safe id: 2026-11-30T01-02-03-456Z-sweep-sim-k3f9. */
export function makeRunId(command: string, backend: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const safe = (s: string) => s.replace(/[^A-Za-z0-9]/g, '').slice(0, 16) || 'x';
  const suffix = Math.random().toString(36).slice(2, 6).padEnd(4, '0');
  return `${stamp}-${safe(command)}-${safe(backend)}-${suffix}`;
}

/**
 * Appends lines to a run file. Writes are buffered until `flush()`, which callers invoke once
 * per chunk received. Only whole lines reach the file: when a write fails part-way (a full
 * disk), the file is cut back to its last whole line and the writer takes nothing more but
 * one last try at a closing line (`appendLast`).
 */
export class RunWriter {
  private fd: number | undefined;
  private buffer: string[] = [];
  private size: number;
  /** The failure that stopped this writer, if one did. */
  failed: RunWriteError | undefined;

  /** `device`: where the lines go instead of `file` (a test stands /dev/full in for a full disk). */
  constructor(
    readonly file: string,
    device?: string,
  ) {
    this.fd = openSync(device ?? file, 'a');
    this.size = fstatSync(this.fd).size;
  }

  appendLine(line: string): void {
    if (!this.failed) this.buffer.push(line, '\n');
  }

  appendValue(value: object): void {
    this.appendLine(JSON.stringify(value));
  }

  /** Writes what was appended; throws RunWriteError once when that fails (later calls do nothing). */
  flush(): void {
    if (this.fd === undefined || this.buffer.length === 0 || this.failed) return;
    const data = Buffer.from(this.buffer.join(''));
    this.buffer = [];
    this.write(this.fd, data);
  }

  /** One line written whole or not at all, even after a failure (the run's end, when it fits). */
  appendLast(value: object): boolean {
    if (this.fd === undefined) return false;
    this.buffer = [];
    try {
      this.write(this.fd, Buffer.from(`${JSON.stringify(value)}\n`));
      return true;
    } catch {
      return false;
    }
  }

  /** Flushes and closes; a failed flush still closes the file, then throws. */
  close(): void {
    if (this.fd === undefined) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private write(fd: number, data: Buffer): void {
    let written = 0;
    try {
      while (written < data.length) written += writeSync(fd, data, written, data.length - written);
      this.size += written;
    } catch (err) {
      const whole = written === 0 ? 0 : data.lastIndexOf(10, written - 1) + 1;
      if (whole < written) {
        try {
          ftruncateSync(fd, this.size + whole);
        } catch {
          // Not a file that can be cut (a device): nothing of the torn line stays in a file.
        }
      }
      this.size += whole;
      const e = err as NodeJS.ErrnoException;
      this.failed ??= new RunWriteError(this.file, e.code, e.message);
      throw this.failed;
    }
  }
}

export type { RunSummary } from './runList';

export class RunStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  dirOf(id: string): string {
    if (!RUN_ID.test(id) || id === '.' || id === '..') throw new RunFileError(`"${id}" is not a run id`);
    return join(this.root, id);
  }

  fileOf(id: string): string {
    return join(this.dirOf(id), RUN_FILE_NAME);
  }

  /** Creates the run's folder and writes its header; the writer then takes the records. */
  create(header: RunHeader): RunWriter {
    const dir = this.dirOf(header.id);
    const made = mkdirSync(dir, { recursive: true });
    // The first run makes the runs folder: `.sdma-lens/.gitignore` then (gitignore.ts), once.
    if (made !== undefined && made !== dir) {
      try {
        writeRunsGitignore(this.root);
      } catch {
        // A .gitignore that cannot be written (a read-only parent) never costs the run.
      }
    }
    if (existsSync(join(dir, RUN_FILE_NAME))) throw new RunFileError(`run ${header.id} already exists`);
    const writer = new RunWriter(join(dir, RUN_FILE_NAME));
    writer.appendValue(header);
    try {
      writer.flush();
    } catch (err) {
      writer.close();
      throw err;
    }
    return writer;
  }

  /**
   * Lists runs, newest first: the folders (not links) holding a `run.ndjson`; any other folder
   * is not a run and is not listed. A run whose file is unreadable is listed as corrupt, never thrown (runList.ts).
   */
  list(): Promise<RunSummary[]> {
    return listRuns(this.root);
  }

  /** Reads a whole run. Throws RunFileError when it cannot (a linked run folder, an unusable header); bad lines become problems. */
  async open(id: string, options: Pick<ReadRunOptions, 'signal' | 'onProgress'> = {}): Promise<Run> {
    const dir = this.dirOf(id);
    const st = await lstat(dir).catch(() => undefined);
    if (st?.isSymbolicLink())
      throw new RunFileError(
        `${dir} is a symbolic link; SDMA Lens reads runs only from folders in the runs folder, never through links`,
      );
    return readRunFile(this.fileOf(id), options);
  }

  /**
   * Deletes a run: the files SDMA Lens writes in its folder, then the folder if that emptied
   * it (runFolder.ts). A folder that is not a run, a link, or one outside the runs folder is
   * refused (RunFileError); files the user put there stay and are named in `kept`.
   */
  async delete(id: string): Promise<RunDeleteOutcome> {
    try {
      return await deleteRunFolder(this.root, this.dirOf(id));
    } catch (err) {
      if (err instanceof RunFolderError) throw new RunFileError(err.message);
      throw err;
    }
  }

  /** Throws RunFileError, with the reason, unless `id` is a run `delete` would delete: before a user is asked to confirm. */
  async checkDeletable(id: string): Promise<void> {
    try {
      await checkRunFolder(this.root, this.dirOf(id));
    } catch (err) {
      if (err instanceof RunFolderError) throw new RunFileError(err.message);
      throw err;
    }
  }
}

/** A header line is small: a first line longer than this is not one, and the rest of the file is not read. */
const HEADER_MAX_CHARS = 1024 * 1024;

export interface ReadRunOptions {
  /**
   * Checked after each chunk read: true stops the read there and gives back the run as read so
   * far (a caller with a size limit, e.g. compare, need not read a run it will refuse whole).
   */
  stopWhen?(run: Run): boolean;
  /** Polled after each chunk read: once aborted, the read stops and throws RunReadCancelled. */
  signal?: AbortSignal;
  /** Called after each chunk read (a megabyte) with the bytes read so far and the file's size when opened. */
  onProgress?(bytesRead: number, totalBytes: number): void;
}

/**
 * Reads a run file as a stream of lines, a megabyte at a time (no cap on the file; a line over
 * 64 Mi characters is skipped as a problem): no string longer than a line is ever built, and
 * the samples are kept as columns (sampleTable.ts), so a run of any size the disk holds opens
 * in memory proportional to its samples, under 200 bytes each. Every line is validated as
 * when it arrived (run.ts `applySavedValue`): a saved run is outside data. Throws
 * RunFileError when the file is refused (safeFile.ts) or its first line is not a run header,
 * RunReadCancelled when `signal` aborts.
 */
export async function readRunFile(file: string, options: ReadRunOptions = {}): Promise<Run> {
  let opened;
  try {
    opened = await openSafeFile(file, 'run');
  } catch (err) {
    throw new RunFileError((err as Error).message);
  }
  const { handle, size } = opened;
  let run: Run | undefined;
  let bytesSoFar = 0;
  let lineNo = 0;
  const onLine = (line: string) => {
    lineNo++;
    if (!run) {
      run = newRun(parseHeader(line, file));
      return;
    }
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      run.problems.push(`line ${lineNo} of ${RUN_FILE_NAME} is not valid JSON (cut off or damaged); skipped`);
      return;
    }
    applySavedValue(run, value);
  };
  const tooLong = () => {
    lineNo++;
    if (!run) parseHeader('', file);
    run!.problems.push(`line ${lineNo} of ${RUN_FILE_NAME} is longer than ${MAX_LINE_CHARS} characters; skipped`);
  };
  try {
    const decoder = new StringDecoder('utf8');
    // A megabyte at a time; a smaller file (a fleet node's sweep) takes a buffer its size, so
    // reading thousands of them does not allocate a megabyte each.
    const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, Math.max(64 * 1024, size + 1)));
    let parts: string[] = [];
    let pending = 0;
    let dropping = false;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      bytesSoFar += bytesRead;
      const text = decoder.write(chunk.subarray(0, bytesRead));
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        if (dropping) tooLong();
        else {
          parts.push(text.slice(start, nl));
          onLine(parts.join(''));
        }
        parts = [];
        pending = 0;
        dropping = false;
        start = nl + 1;
      }
      if (options.signal?.aborted) throw new RunReadCancelled(file);
      options.onProgress?.(bytesSoFar, size);
      if (run && options.stopWhen?.(run)) return run;
      if (dropping || start === text.length) continue;
      const rest = text.slice(start);
      parts.push(rest);
      pending += rest.length;
      if (!run && pending > HEADER_MAX_CHARS) parseHeader('', file);
      if (pending > MAX_LINE_CHARS) {
        parts = [];
        pending = 0;
        dropping = true;
      }
    }
    const tail = parts.join('') + decoder.end();
    if (dropping) tooLong();
    else if (tail.length > 0 || !run) onLine(tail);
  } catch (err) {
    if (err instanceof RunFileError) throw err;
    throw new RunFileError(`cannot read ${file}: ${(err as Error).message}`);
  } finally {
    await handle.close();
  }
  run!.samples.trim();
  return run!;
}

function parseHeader(line: string, file: string): RunHeader {
  try {
    return parseRunHeader(line, file);
  } catch (err) {
    throw new RunFileError((err as Error).message);
  }
}
