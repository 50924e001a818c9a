/**
 * The runs of a runs folder as a list of summaries, newest first (`sdma-lens runs`, the Runs
 * view, the pickers). A summary needs only the ends of a run file: the header line, the
 * helper's `hello` that follows it (simulated or not), and the last line (the `run-end`, with
 * the run's status and its problem count). So each file is read at its head (a few KiB, more
 * only when its first two lines are longer) and its tail (a few KiB), never scanned whole.
 *
 * A `RunList` keeps each run's summary with the identity of its file (size, modification and
 * change times, inode and device, from one `lstat`, compared as numbers): a later `list`
 * re-reads only the files that changed, so an unchanged folder of thousands of runs is listed
 * from its `readdir` and one `lstat` a run, and, when `readdir` gives the same names in the same
 * order, in the order of the last listing (no sort).
 * What makes a folder a run (a folder, not a link, holding a `run.ndjson`) is checked on every
 * listing, cached or not; a `run.ndjson` that is not a regular file is never cached and is
 * listed as corrupt through safeFile.ts as before. Each run costs a synchronous `lstat`, and a
 * new or changed file's ends are read synchronously (a few KiB from the page cache: quicker
 * than a hop through the thread pool); the event loop gets a turn every 20 ms, when cancel is
 * checked.
 */
import { closeSync, lstatSync, readSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import * as v from 'valibot';
import type { RunEnd, RunHeader } from '../run';
import { RUN_FILE_NAME, RunHeaderSchema, applySavedValue, isSimulated, newRun, runStatus } from '../run';
import { openSafeFileSync } from './safeFile';

export interface RunSummary {
  id: string;
  dir: string;
  header?: RunHeader;
  status: RunEnd['status'] | 'incomplete' | 'running' | 'corrupt';
  /** Why a corrupt run could not be read. */
  error?: string;
  /**
   * Lines the host could not use (malformed or unknown helper lines, a torn line): how many
   * and the first. From the run's end when it says (a run that ended always does); otherwise
   * those seen in the file's head and its last line, a lower bound.
   */
  problems?: { count: number; first: string };
  /** The helper said its numbers come from the simulated node (its `hello`, at the top of the file). */
  simulated?: boolean;
  bytes: number;
}

/** A run's folder name: what `makeRunId` makes, and nothing that walks out of the runs folder. */
export const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The head read first: a header and a hello line fit in it many times over. */
export const HEAD_BYTES = 4 * 1024;
/** The head read when the first two lines are longer than HEAD_BYTES; longer still, the header is not one. */
export const HEAD_MAX_BYTES = 64 * 1024;
/** The tail read for the last line (a run-end line is well under 1 KiB). */
export const TAIL_BYTES = 4 * 1024;
/** The tail read when the last line is longer than TAIL_BYTES; longer still, it is taken as cut off. */
export const TAIL_MAX_BYTES = 64 * 1024;

/** The first line of a run file as its header; throws a message naming `file` when it is not one. */
export function parseRunHeader(line: string, file: string): RunHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`${file} does not start with a run header (not an SDMA Lens run, or damaged)`);
  }
  const header = v.safeParse(RunHeaderSchema, value);
  if (!header.success) throw new Error(`${file} has an unreadable run header: ${header.issues[0].message}`);
  return header.output;
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * The head and the tail of a run file as bytes (a link, a FIFO, a device are refused:
 * safeFile.ts): `head` from offset 0, `tail` ending at the file's end and starting at
 * `tailAt`. A file no larger than head + tail is read once, whole (`tail` is `head` then).
 */
export function readEnds(file: string): { head: Buffer; tail: Buffer; tailAt: number; bytes: number } {
  // A refused file (SafeFileError) is thrown as is: the summary lists the run as corrupt with its message.
  const { fd, size: bytes } = openSafeFileSync(file, 'run');
  try {
    const part = (length: number, position: number) => {
      const buffer = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const n = readSync(fd, buffer, got, length - got, position + got);
        if (n === 0) break;
        got += n;
      }
      return buffer.subarray(0, got);
    };
    if (bytes <= HEAD_BYTES + TAIL_BYTES) {
      const all = part(bytes, 0);
      return { head: all, tail: all, tailAt: 0, bytes: all.length };
    }
    let head = part(HEAD_BYTES, 0);
    // The header and the hello line whole: read further only when the second newline is not in the head.
    const nl = head.indexOf(10);
    if (nl === -1 || head.indexOf(10, nl + 1) === -1) head = part(Math.min(HEAD_MAX_BYTES, bytes), 0);
    let tailAt = bytes - TAIL_BYTES;
    let tail = part(TAIL_BYTES, tailAt);
    // The last line whole: read further back only when the tail holds no line's start (a long run-end message).
    if (tail.lastIndexOf(10, tail.length - 2) === -1) {
      tailAt = Math.max(0, bytes - TAIL_MAX_BYTES);
      tail = part(bytes - tailAt, tailAt);
    }
    return { head, tail, tailAt, bytes };
  } finally {
    closeSync(fd);
  }
}

/** Where the file's last line starts (trailing newlines and spaces aside), or -1 when the tail holds no line start. */
function lastLineStart(tail: Buffer, tailAt: number, whole: boolean): number {
  let end = tail.length;
  while (end > 0 && (tail[end - 1] === 10 || tail[end - 1] === 13 || tail[end - 1] === 32)) end--;
  if (end === 0) return -1;
  const nl = tail.lastIndexOf(10, end - 1);
  if (nl === -1) return whole ? 0 : -1;
  return tailAt + nl + 1;
}

/**
 * The summary of one run file, from its ends: the header (the first line), the `hello` and any
 * `host-problem` among the head's whole lines, and the last line (the `run-end`, whose
 * `problems` and `firstProblem` count every problem of the run). Never throws: an unreadable
 * run is listed as corrupt.
 */
export function summarizeRunFile(id: string, dir: string, file: string): RunSummary {
  try {
    const { head, tail, tailAt, bytes } = readEnds(file);
    const whole = tailAt === 0;
    const lastAt = lastLineStart(tail, tailAt, whole);
    const firstNl = head.indexOf(10);
    const header = parseRunHeader(head.subarray(0, firstNl === -1 ? head.length : firstNl).toString('utf8'), file);
    const run = newRun(header);
    // The head's whole lines after the header, short of the last line (read once, below).
    let at = firstNl + 1;
    while (firstNl !== -1 && at < head.length) {
      const nl = head.indexOf(10, at);
      if (nl === -1 || (lastAt !== -1 && at >= lastAt)) break;
      const l = head.subarray(at, nl).toString('utf8');
      if (l.includes('"host-problem"') || l.startsWith('{"type":"hello"')) applySavedValue(run, safeJson(l));
      at = nl + 1;
    }
    let ended: { problems?: unknown; firstProblem?: unknown } | undefined;
    // A last line longer than the tail: torn when the file does not end its line.
    if (lastAt === -1 && !whole && tail.at(-1) !== 10)
      run.problems.push(`the last line of ${RUN_FILE_NAME} is cut off`);
    // The header's own line is not a last line to read (a run that has written nothing else yet).
    if (lastAt > 0) {
      const last = tail
        .subarray(lastAt - tailAt)
        .toString('utf8')
        .trimEnd();
      try {
        ended = JSON.parse(last) as typeof ended;
        applySavedValue(run, ended);
      } catch {
        // A torn last line says the run did not end cleanly; status stays incomplete.
        run.problems.push(`the last line of ${RUN_FILE_NAME} is cut off`);
      }
    }
    const count = typeof ended?.problems === 'number' ? ended.problems : run.problems.length;
    const first = typeof ended?.firstProblem === 'string' ? ended.firstProblem : run.problems[0];
    return {
      id,
      dir,
      header,
      status: runStatus(run),
      ...(count > 0 && first ? { problems: { count, first } } : {}),
      ...(run.hello ? { simulated: isSimulated(run) } : {}),
      bytes,
    };
  } catch (err) {
    return { id, dir, status: 'corrupt', error: (err as Error).message, bytes: 0 };
  }
}

/** lstat, or undefined when there is nothing to stat (or it cannot be). */
function lstatQuiet(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What a summary was made from: a file that differs in any of these is read again. */
interface Identity {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

const sameIdentity = (a: Identity, st: Stats) =>
  a.size === st.size && a.mtimeMs === st.mtimeMs && a.ctimeMs === st.ctimeMs && a.ino === st.ino && a.dev === st.dev;

interface Cached extends Identity {
  summary: RunSummary;
  /** The listing that last saw it: an entry not seen by the latest is a run gone. */
  seen: number;
}

/** Newest first: the ids (a time stamp first) in descending order. */
const newestFirst = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/** Whether two lists hold the same strings in the same order. */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export interface RunListOptions {
  /** Keep summaries between calls (the Runs view); false: each `list` reads every run (the CLI). */
  cache?: boolean;
  signal?: AbortSignal;
}

/** The runs of one runs folder; with `cache`, a later `list` reads only what changed. */
export class RunList {
  readonly root: string;
  /** `root` and a separator: a run's folder is this and its id (an id is one plain name, RUN_ID). */
  private readonly prefix: string;
  private readonly cache: Map<string, Cached> | undefined;
  /** The listings made: the `seen` of the cache entries. */
  private listings = 0;
  /** The folder's run-like names as the last `readdir` gave them, and sorted newest first. */
  private lastNames: string[] = [];
  private lastOrder: string[] = [];
  /** Run files read (not taken from the cache) by the last `list`: for tests and the benchmark. */
  lastRead = 0;

  /** Summaries kept (the runs of the last `list` whose file is a regular file): for tests. */
  get cached(): number {
    return this.cache?.size ?? 0;
  }

  constructor(root: string, options: Omit<RunListOptions, 'signal'> = {}) {
    this.root = resolve(root);
    this.prefix = this.root.endsWith(sep) ? this.root : this.root + sep;
    this.cache = options.cache ? new Map() : undefined;
  }

  /** The names sorted newest first; the last order again when `readdir` gave the same names in the same order. */
  private order(names: string[]): string[] {
    if (sameList(names, this.lastNames)) return this.lastOrder;
    const order = [...names].sort(newestFirst);
    if (this.cache) {
      this.lastNames = names;
      this.lastOrder = order;
    }
    return order;
  }

  /**
   * Lists runs, newest first: the folders (not links) holding a `run.ndjson`; any other folder
   * is not a run and is not listed. A run whose file is unreadable is listed as corrupt, never thrown.
   */
  async list(signal?: AbortSignal): Promise<RunSummary[]> {
    let entries: Dirent[];
    try {
      entries = await readdir(this.root, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.cache?.clear();
        this.lastNames = this.lastOrder = [];
        return [];
      }
      throw err;
    }
    // A run is a folder, not a link to one (the entry's own type, as lstat says it).
    const names: string[] = [];
    for (const e of entries) if (e.isDirectory() && RUN_ID.test(e.name)) names.push(e.name);
    const listing = ++this.listings;
    let read = 0;
    let cachedSeen = 0;
    const summaries: RunSummary[] = [];
    let slice = performance.now();
    let n = 0;
    // In order, newest first: the summaries need no sort of their own.
    for (const id of this.order(names)) {
      // A synchronous lstat is a few microseconds from the kernel's cache, where a promise's trip
      // through the thread pool costs ten times that: the loop gives the event loop a turn every
      // 20 ms instead (the clock read every 64 runs), and stops there when cancelled.
      if ((++n & 63) === 0 && performance.now() - slice > 20) {
        await new Promise((ok) => setImmediate(ok));
        signal?.throwIfAborted();
        slice = performance.now();
      }
      const dir = this.prefix + id;
      const file = dir + sep + RUN_FILE_NAME;
      const st = lstatQuiet(file);
      if (!st) continue; // no run.ndjson: not a run
      // Only a regular file is cached; a link, a FIFO or a device there is read (refused) every time.
      const regular = st.isFile();
      const had = this.cache?.get(id);
      if (regular && had && sameIdentity(had, st)) {
        had.seen = listing;
        cachedSeen++;
        summaries.push(had.summary);
        continue;
      }
      read++;
      const summary = summarizeRunFile(id, dir, file);
      if (this.cache) {
        if (regular) {
          const { size, mtimeMs, ctimeMs, ino, dev } = st;
          this.cache.set(id, { size, mtimeMs, ctimeMs, ino, dev, summary, seen: listing });
          cachedSeen++;
        } else this.cache.delete(id);
      }
      summaries.push(summary);
    }
    signal?.throwIfAborted();
    this.lastRead = read;
    // Runs gone (or no longer runs) leave the cache: only when some entry was not seen.
    if (this.cache && this.cache.size > cachedSeen)
      for (const [id, entry] of this.cache) if (entry.seen !== listing) this.cache.delete(id);
    return summaries;
  }
}

/** The runs of `root`, read afresh (no cache kept). */
export function listRuns(root: string, signal?: AbortSignal): Promise<RunSummary[]> {
  return new RunList(root).list(signal);
}
