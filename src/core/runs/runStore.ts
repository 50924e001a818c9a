/**
 * Runs on disk: one folder per run holding `run.ndjson` (append-only: a header line, every
 * helper record as it arrived, then a `run-end` line) and any files the helper wrote for it,
 * such as a timeline. Appending as records arrive means a crash or kill of the helper loses
 * nothing already received; a corrupt line costs only that line.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { lstat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Run, RunHeader } from '../run';
import { RUN_FILE_NAME, applySavedValue, newRun } from '../run';
import type { Sample, Topology } from '../protocol';
import { ProgressSchema, isPlainSample } from '../protocol';
import { MAX_LINE_CHARS } from './lineSplitter';
import { SAMPLE_LINE_START, SampleLineReader } from './sampleLine';
import { deepFreeze } from '../sampleTable';
import { openSafeFile, openSafeFileSync } from './safeFile';
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

  /** `open` with `readRunFileSync`: for the many small runs of a fleet's nodes. */
  openSync(id: string, options: Pick<ReadRunOptions, 'signal'> = {}): Run {
    const dir = this.dirOf(id);
    let st;
    try {
      st = lstatSync(dir, { throwIfNoEntry: false });
    } catch {
      // As `open`: what cannot be looked at is left to the file's own open to say.
    }
    if (st?.isSymbolicLink())
      throw new RunFileError(
        `${dir} is a symbolic link; SDMA Lens reads runs only from folders in the runs folder, never through links`,
      );
    return readRunFileSync(this.fileOf(id), options);
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
 * when it arrived (run.ts `applySavedValue`; a sample the plain check `isPlainSample` vouches
 * for goes straight to the table, and a progress line `isPlainProgress` vouches for sets the
 * progress, as `applySavedValue` would; the sample and progress lines of the helper's own form
 * are read without JSON.parse, sampleLine.ts and `readPlainProgress`, to the same effect): a
 * saved run is outside data. Throws RunFileError when the file is refused (safeFile.ts) or its first line is not a
 * run header, RunReadCancelled when `signal` aborts.
 */
export async function readRunFile(file: string, options: ReadRunOptions = {}): Promise<Run> {
  let opened;
  try {
    opened = await openSafeFile(file, 'run');
  } catch (err) {
    throw new RunFileError((err as Error).message);
  }
  const { handle, size } = opened;
  const lines = new RunFileLines(file, size);
  let bytesSoFar = 0;
  let next: Promise<{ bytesRead: number }> | undefined;
  try {
    // A megabyte at a time; a smaller file (a fleet node's sweep) takes a buffer its size, so
    // reading thousands of them does not allocate a megabyte each. A file of more than one
    // chunk takes two: the next chunk is read into one while the other's lines are parsed.
    const chunkBytes = Math.min(READ_CHUNK, Math.max(64 * 1024, size + 1));
    let chunk = Buffer.allocUnsafe(chunkBytes);
    let spare = size >= chunkBytes ? Buffer.allocUnsafe(chunkBytes) : undefined;
    next = handle.read(chunk, 0, chunk.length, null);
    for (;;) {
      const { bytesRead } = await next;
      next = undefined;
      if (bytesRead === 0) break;
      bytesSoFar += bytesRead;
      const data = bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead);
      if (spare) {
        [chunk, spare] = [spare, chunk];
        next = handle.read(chunk, 0, chunk.length, null);
      }
      lines.push(data);
      if (options.signal?.aborted) throw new RunReadCancelled(file);
      options.onProgress?.(bytesSoFar, size);
      if (lines.run && options.stopWhen?.(lines.run)) return lines.run;
      next ??= handle.read(chunk, 0, chunk.length, null);
    }
    lines.end();
  } catch (err) {
    if (err instanceof RunFileError) throw err;
    throw new RunFileError(`cannot read ${file}: ${(err as Error).message}`);
  } finally {
    // A read still under way (the read stopped or failed early) ends before the file is closed.
    await next?.catch(() => undefined);
    await handle.close();
    // The chunks of this file are not held past its read.
    sampleLineReader.release();
  }
  const run = lines.run!;
  run.samples.trim();
  return run;
}

const READ_CHUNK = 1024 * 1024;
/** The most bytes of whole lines decoded as one string (a longer line is decoded alone). */
const DECODE_WINDOW = 32 * 1024;
/**
 * From this size a file's sample count is estimated ahead; a smaller one read whole in one chunk has
 * its sample lines counted, and one in more chunks grows its columns as it goes.
 */
const EXPECT_FROM_BYTES = 4 * 1024 * 1024;
/** The sample lines an estimate is made from, at the least (a chunk holds about two thousand of the helper's). */
const EXPECT_AFTER_SAMPLES = 256;
/**
 * The estimate's headroom: the rest of a sweep's lines are as long as its first chunk's on
 * average to well within this; a table left with less slack than `trim` gives back is not copied.
 */
const EXPECT_MARGIN = 1.01;
/** How a sample line starts as the helper writes it: the lines of a whole small file that do are counted ahead. */
const SAMPLE_LINE_BYTES = Buffer.from('\n{"type":"sample",');

/** The lines of `data` that start as a helper's sample line does (the first line, a header, is not one). */
function countSampleLines(data: Buffer): number {
  let n = 0;
  for (let at = data.indexOf(SAMPLE_LINE_BYTES); at !== -1; at = data.indexOf(SAMPLE_LINE_BYTES, at + 1)) n++;
  return n;
}

/**
 * The sample line reader of every run file read in this thread: a line is read whole before the
 * next is given to it, so one serves every file, and what it keeps (a sweep's evidence, its
 * movers' and modes' strings, parsed and compared once) serves the files after too.
 */
const sampleLineReader = new SampleLineReader();

/**
 * The last topology line read in this thread and the record it gave, frozen: a fleet's nodes
 * write the same topology line (about 10 KB) word for word, and a line equal to it is that
 * record again, without JSON.parse and the schema (shared by the runs, so frozen: none can
 * change another's).
 */
const lastTopology: { line: string; record: Topology | undefined } = { line: '', record: undefined };

/** The buffer `readRunFileSync` reads into (one at a time, so one serves every call). */
let syncChunk: Buffer | undefined;

/**
 * `readRunFile` for a caller that reads many small runs (a fleet's nodes, tens of kilobytes
 * each): the same reading and checks, with synchronous calls, which cost a fraction of the
 * asynchronous ones' round trips for a file this small. It holds the thread for the whole file:
 * not for a run that may be large. Throws as `readRunFile` does.
 */
export function readRunFileSync(file: string, options: Pick<ReadRunOptions, 'signal'> = {}): Run {
  let opened;
  try {
    opened = openSafeFileSync(file, 'run');
  } catch (err) {
    throw new RunFileError((err as Error).message);
  }
  const { fd, size } = opened;
  const lines = new RunFileLines(file, size);
  try {
    const chunk = (syncChunk ??= Buffer.allocUnsafe(READ_CHUNK));
    for (;;) {
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      lines.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      if (options.signal?.aborted) throw new RunReadCancelled(file);
    }
    lines.end();
  } catch (err) {
    if (err instanceof RunFileError) throw err;
    throw new RunFileError(`cannot read ${file}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
  const run = lines.run!;
  run.samples.trim();
  return run;
}

/**
 * The lines of a run file, fed its bytes a chunk at a time: split on the byte '\n' and each line
 * decoded once, whole (a line cut by a chunk's end waits as bytes, so a character split between
 * two chunks is decoded whole). The first line is the header; each other is folded into `run`.
 */
class RunFileLines {
  run: Run | undefined;
  private lineNo = 0;
  /** The bytes of the line not yet ended (copies: the chunk they came from is read into again). */
  private parts: Buffer[] = [];
  /** Its length in UTF-16 units, as decoded (MAX_LINE_CHARS counts those). */
  private pendingChars = 0;
  /** Set while the rest of an over-long line (already reported) is being dropped. */
  private dropping = false;
  /** Whether the table was told how many samples to expect (after the first chunk of a big file). */
  private expected = false;
  /** Until `expected`: the characters of the lines read (newlines counted), and of those before the first sample. */
  private lineChars = 0;
  private beforeSamples = -1;
  /** Until `expected`: the sample lines read, and their iteration times. */
  private sampleCount = 0;
  private sampleTimes = 0;
  /** A whole file read in one chunk: its sample lines, counted ahead (0 when not); the table is told at the first sample. */
  private countedSamples = 0;
  /** A plain progress line's done and total, as `readPlainProgress` reads them. */
  private readonly progress = [0, 0];
  /** Reads the sample lines of the helper's form without JSON.parse (sampleLine.ts). */
  private readonly sampleLines = sampleLineReader;

  constructor(
    private readonly file: string,
    /** The file's size when opened (0 when unknown): the samples expected are estimated from it. */
    private readonly size: number,
  ) {}

  push(data: Buffer): void {
    let start = 0;
    // A small file that came whole in one chunk (a fleet node's sweep): its sample lines are
    // counted now, so its columns are made once at the first sample, neither regrown nor trimmed.
    if (!this.expected && !this.run && this.size > 0 && this.size <= EXPECT_FROM_BYTES && data.length >= this.size) {
      this.expected = true;
      this.countedSamples = countSampleLines(data);
    }
    // The header, and a line begun in the last chunk (or one being dropped), on their own.
    while (!this.run || this.dropping || this.parts.length > 0) {
      const nl = data.indexOf(10, start);
      if (nl === -1) break;
      if (this.dropping) {
        this.dropping = false;
        this.tooLong();
      } else if (this.parts.length === 0) this.line(data.toString('utf8', start, nl));
      else {
        this.parts.push(data.subarray(start, nl));
        this.line(this.take());
      }
      start = nl + 1;
    }
    // The chunk's whole lines, a window of them at a time: when all ASCII (as the helper writes
    // them), decoded as one string and cut into lines (each a slice of it, no copy; JSON.parse
    // copies what it keeps), else each line decoded on its own. A window stays under V8's
    // large-object size: a string past it is mapped afresh each time, page by page.
    const last = data.lastIndexOf(10);
    while (start <= last) {
      let end = start + DECODE_WINDOW >= last ? last : data.lastIndexOf(10, start + DECODE_WINDOW);
      if (end < start) end = data.indexOf(10, start);
      if (isAscii(data.subarray(start, end))) {
        const text = data.toString('latin1', start, end);
        let from = 0;
        for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
          this.windowLine(data, text, start, from, nl);
          from = nl + 1;
        }
        this.windowLine(data, text, start, from, text.length);
      } else
        for (let nl = data.indexOf(10, start); nl !== -1 && nl <= end; nl = data.indexOf(10, start)) {
          this.line(data.toString('utf8', start, nl));
          start = nl + 1;
        }
      start = end + 1;
    }
    if (!this.expected && this.run) this.expectFromSoFar(this.run);
    if (this.dropping || start === data.length) return;
    const rest = Buffer.from(data.subarray(start));
    this.parts.push(rest);
    this.pendingChars += utf16Length(rest);
    if (!this.run && this.pendingChars > HEADER_MAX_CHARS) parseHeader('', this.file);
    if (this.pendingChars > MAX_LINE_CHARS) {
      this.parts = [];
      this.pendingChars = 0;
      this.dropping = true;
    }
  }

  /**
   * Once a chunk's worth of samples is read from a big file, its columns are made as big as the
   * rest of the file implies (the bytes left at the rate of samples a byte since the first
   * sample), so they are made once and neither regrown nor trimmed: each of those copies every
   * column into memory touched for the first time, which costs more than the copy itself once a
   * column is past the allocator's reuse threshold (tens of megabytes, from about 10^7 samples).
   */
  private expectFromSoFar(run: Run): void {
    if (this.size <= EXPECT_FROM_BYTES) {
      this.expected = true;
      return;
    }
    if (this.sampleCount < EXPECT_AFTER_SAMPLES) return;
    this.expected = true;
    const perSample = (this.lineChars - this.beforeSamples) / this.sampleCount;
    const left = Math.max(0, this.size - this.lineChars);
    run.samples.expect(run.samples.length + (left / perSample) * EXPECT_MARGIN, this.sampleTimes / this.sampleCount);
  }

  /**
   * The line `text[from, to)` of an ASCII window of `data` that starts at byte `start`: a sample
   * line of the helper's form is read from its bytes (sampleLine.ts), any other as text.
   */
  private windowLine(data: Buffer, text: string, start: number, from: number, to: number): void {
    const run = this.run;
    // A progress line of the helper's form, from its bytes too (as `line` would read it).
    if (
      run &&
      data[start + from + 9] === 112 &&
      readPlainProgressBytes(data, start + from, start + to, this.progress)
    ) {
      this.lineNo++;
      if (!this.expected) this.lineChars += to - from + 1;
      run.progress = { done: this.progress[0]!, total: this.progress[1]! };
      return;
    }
    // `{"type":"sample"`: its 's' tells it from the other records' lines at once.
    if (run && data[start + from + 9] === 115) {
      const sample = this.sampleLines.readBytes(data, start + from, start + to, text, from);
      if (sample) {
        this.lineNo++;
        if (!this.expected) this.lineChars += to - from + 1;
        this.addSample(run, sample, to - from);
        return;
      }
    }
    this.line(text.slice(from, to), run !== undefined && data[start + from + 9] === 115);
  }

  /** The file ended: its last line, if it had no newline (a line cut off by a crash or kill). */
  end(): void {
    if (this.dropping) this.tooLong();
    else if (this.parts.length > 0 || !this.run) this.line(this.take());
  }

  /** The pending bytes as one decoded line; the pending list is emptied. */
  private take(): string {
    const line = this.parts.length === 1 ? this.parts[0]!.toString('utf8') : Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.pendingChars = 0;
    return line;
  }

  /** `sampleTried`: the line was given to the sample line reader already (`windowLine`), which declined it. */
  private line(line: string, sampleTried = false): void {
    this.lineNo++;
    if (!this.expected) this.lineChars += line.length + 1;
    const run = this.run;
    if (!run) {
      this.run = newRun(parseHeader(line, this.file));
      return;
    }
    // A record starts with "{"; anything else is looked at closer (a blank line is skipped).
    if (line.charCodeAt(0) !== 123 && line.trim().length === 0) return;
    // A progress line as the helper writes it (half a sweep's lines) is read without JSON.parse:
    // what it sets is what parsing it would set; any other form is parsed below.
    if (line.startsWith(PROGRESS_START) && readPlainProgress(line, this.progress)) {
      run.progress = { done: this.progress[0]!, total: this.progress[1]! };
      return;
    }
    // The other half, a sample line as the helper writes it, likewise (sampleLine.ts): the sample
    // it gives is what JSON.parse would make of the line, and the plain check has vouched for it.
    if (!sampleTried && line.startsWith(SAMPLE_LINE_START)) {
      const sample = this.sampleLines.read(line);
      if (sample) {
        this.addSample(run, sample, line.length);
        return;
      }
    }
    if (lastTopology.record && line === lastTopology.line) {
      run.topology = lastTopology.record;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      run.problems.push(`line ${this.lineNo} of ${RUN_FILE_NAME} is not valid JSON (cut off or damaged); skipped`);
      return;
    }
    // The bulk of a sweep: a sample the plain check vouches for is what applySavedValue would add
    // (and a progress line, one a sample, what it would set).
    if (isPlainSample(value)) this.addSample(run, value, line.length);
    else if (isPlainProgress(value)) run.progress = { done: value.done, total: value.total };
    else {
      const before = run.topology;
      applySavedValue(run, value);
      // A topology this line gave, kept for the next file's equal line.
      if (run.topology !== before && run.topology && (value as { type?: unknown }).type === 'topology') {
        lastTopology.line = line;
        lastTopology.record = deepFreeze(run.topology);
      }
    }
  }

  /** A sample the plain check vouched for, added to the table (copied: `sample` may be the line reader's); `lineLength`: its line's. */
  private addSample(run: Run, sample: Sample, lineLength: number): void {
    // What the columns' size is estimated from (see expectFromSoFar).
    if (!this.expected) {
      if (this.beforeSamples < 0) this.beforeSamples = this.lineChars - lineLength - 1;
      this.sampleCount++;
      this.sampleTimes += sample.timesNs?.length ?? 0;
    } else if (this.countedSamples > 0) {
      // Room for the samples counted ahead, with as many iteration times each as this first one.
      run.samples.expect(this.countedSamples, sample.timesNs?.length ?? 0);
      this.countedSamples = 0;
    }
    run.samples.push(sample);
  }

  private tooLong(): void {
    this.lineNo++;
    if (!this.run) parseHeader('', this.file);
    this.run!.problems.push(
      `line ${this.lineNo} of ${RUN_FILE_NAME} is longer than ${MAX_LINE_CHARS} characters; skipped`,
    );
  }
}

/** The longest `message` a progress record may carry (protocol.ts, ProgressSchema's `text`). */
const PROGRESS_MESSAGE_MAX = 4096;
/** Off (every progress line goes through the schema) should the schema gain, lose or reorder a field. */
const PLAIN_PROGRESS_CURRENT = Object.keys(ProgressSchema.entries).join() === 'type,done,total,message';

/**
 * A progress record (a sweep writes one a sample) that `applySavedValue` would take, checked
 * plainly: it then sets `run.progress` to the same `{ done, total }`. Anything else (false) goes
 * through the schema, which gives the reason it is refused.
 */
export function isPlainProgress(value: unknown): value is { type: 'progress'; done: number; total: number } {
  if (!PLAIN_PROGRESS_CURRENT || typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  if (p.type !== 'progress') return false;
  const { done, total, message } = p;
  return (
    Number.isInteger(done) &&
    (done as number) >= 0 &&
    Number.isInteger(total) &&
    (total as number) >= 0 &&
    (message === undefined || (typeof message === 'string' && message.length <= PROGRESS_MESSAGE_MAX))
  );
}

/** How a progress line starts as the helper writes it; then come its count, `,"total":`, and an optional message. */
const PROGRESS_START = '{"type":"progress","done":';
const PROGRESS_TOTAL = ',"total":';
const PROGRESS_MESSAGE = ',"message":"';
/** Digits of a count read plainly: at most 15, so that it is an exact integer (a longer one is parsed). */
const PLAIN_COUNT_DIGITS = 15;

/**
 * A progress line of exactly the helper's form, `{"type":"progress","done":D,"total":T}` with
 * an optional `"message":"..."` last, read without JSON.parse: true, with `done` and `total` in
 * `out`, only for a line that JSON.parse would read as such a record and `isPlainProgress`
 * accept: counts as plain digits (no sign, no leading zero, no fraction or exponent, at most
 * PLAIN_COUNT_DIGITS), no space anywhere, a message of printable ASCII without a quote or a
 * backslash (its JSON is its text) and at most PROGRESS_MESSAGE_MAX long, nothing after the
 * closing brace. Anything else (false) is parsed and checked as any other line.
 */
export function readPlainProgress(line: string, out: number[]): boolean {
  // Such a line is ASCII: read from its bytes, as a window of a run file is (readPlainProgressBytes).
  if (!line.startsWith(PROGRESS_START)) return false;
  const n = line.length;
  // Longer than the longest such line (two counts, the longest message): parsed, and the scratch
  // buffer stays small.
  if (n > PLAIN_PROGRESS_MAX_CHARS || Buffer.byteLength(line, 'utf8') !== n) return false;
  if (progressScratch.length < n) progressScratch = Buffer.alloc(Math.max(n, 2 * progressScratch.length));
  progressScratch.write(line, 0, 'latin1');
  return readPlainProgressBytes(progressScratch, 0, n, out);
}

/** The longest progress line of the helper's form: its start, two counts, the `total` key and the longest message with its key, quote and brace. */
const PLAIN_PROGRESS_MAX_CHARS =
  PROGRESS_START.length +
  2 * PLAIN_COUNT_DIGITS +
  PROGRESS_TOTAL.length +
  PROGRESS_MESSAGE.length +
  PROGRESS_MESSAGE_MAX +
  2;
let progressScratch = Buffer.alloc(256);
const PROGRESS_START_BYTES = Buffer.from(PROGRESS_START, 'latin1');
const PROGRESS_TOTAL_BYTES = Buffer.from(PROGRESS_TOTAL, 'latin1');
const PROGRESS_MESSAGE_BYTES = Buffer.from(PROGRESS_MESSAGE, 'latin1');

/** Whether `bytes` hold `text` at `at`, before `to`. */
function holdsBytes(bytes: Uint8Array, at: number, to: number, text: Uint8Array): boolean {
  const n = text.length;
  if (at + n > to) return false;
  for (let k = 0; k < n; k++) if (bytes[at + k] !== text[k]) return false;
  return true;
}

/** `readPlainProgress` of the line in `bytes` from `from` to `to` (its newline not included). */
export function readPlainProgressBytes(bytes: Uint8Array, from: number, to: number, out: number[]): boolean {
  let at = from + PROGRESS_START_BYTES.length;
  const count = (): number => {
    const start = at;
    let n = 0;
    for (let c = bytes[at]!; at < to && c >= 48 && c <= 57; c = bytes[at]!) {
      n = n * 10 + (c - 48);
      at++;
    }
    const digits = at - start;
    // None, too many, or a leading zero: not read plainly.
    if (digits === 0 || digits > PLAIN_COUNT_DIGITS || (digits > 1 && bytes[start] === 48)) return -1;
    return n;
  };
  if (!PLAIN_PROGRESS_CURRENT || !holdsBytes(bytes, from, to, PROGRESS_START_BYTES)) return false;
  const done = count();
  if (done < 0 || !holdsBytes(bytes, at, to, PROGRESS_TOTAL_BYTES)) return false;
  at += PROGRESS_TOTAL_BYTES.length;
  const total = count();
  if (total < 0) return false;
  if (holdsBytes(bytes, at, to, PROGRESS_MESSAGE_BYTES)) {
    at += PROGRESS_MESSAGE_BYTES.length;
    const start = at;
    for (let c = bytes[at]!; at < to && c >= 0x20 && c <= 0x7e && c !== 34 && c !== 92; c = bytes[at]!) at++;
    if (at >= to || bytes[at] !== 34 || at - start > PROGRESS_MESSAGE_MAX) return false;
    at++;
  }
  if (at !== to - 1 || bytes[at] !== 125) return false;
  out[0] = done;
  out[1] = total;
  return true;
}

/** The UTF-16 length of UTF-8 bytes once decoded: a unit per character, two for a 4-byte one (a character cut at the end counts as one). */
function utf16Length(bytes: Buffer): number {
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
  }
  return n;
}

function parseHeader(line: string, file: string): RunHeader {
  try {
    return parseRunHeader(line, file);
  } catch (err) {
    throw new RunFileError((err as Error).message);
  }
}
