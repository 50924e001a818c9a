/**
 * The one way SDMA Lens opens a file it did not create itself: a run file, a timeline, a file
 * to import, a fleet index, a settings or thresholds file. Such a path may name anything: a
 * link to /dev/zero (a read without end), a FIFO (an open that never returns), a link to a
 * file elsewhere (read as if it were a run's). So every one is opened the same way:
 *
 * 1. `lstat` first: a symbolic link, a FIFO, a socket, a device or a folder is refused by name;
 * 2. `open` with `O_NOFOLLOW | O_NONBLOCK`: a link put there since is not followed, a FIFO put
 *    there since cannot block the open;
 * 3. `fstat` of what was opened: it must still be a regular file, no larger than its kind's cap;
 * 4. reads stop at the cap even when the file grows while it is read (or reports a size of 0,
 *    as /proc files do).
 *
 * The caps are one table, `FILE_KINDS`: each kind with its cap and why. A run file has none: it
 * is read line by line as a stream, never whole.
 */
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, open } from 'node:fs/promises';
import { LIMITS } from '../limits';
import { timelineFileBytes } from '../timeline/timelineFile';
import { formatBytes } from '../units';

const MiB = 1024 * 1024;
/** The most one asynchronous read asks for: a cancelled read of a large file stops within one of these. */
const READ_CHUNK = 64 * MiB;

/** The helper's largest timeline: a 32-byte header and 50 bytes of columns per event (sdmatl version 2), each column padded to 8 bytes (docs/PROTOCOL.md). */
export const TIMELINE_MAX_BYTES = timelineFileBytes(LIMITS.timelineEventsMax, 2);

export interface FileKind {
  /** The most bytes read; undefined: no cap (the file is streamed, never held whole). */
  readonly maxBytes: number | undefined;
  /** Why a larger file is not one of this kind: "more than ..." */
  readonly tooBig: string;
  /** What the user can do when the file is refused, in the words of this kind. */
  readonly remedy: string;
}

/** Every kind of outside file SDMA Lens reads, with its cap and why. */
export const FILE_KINDS = {
  /** `run.ndjson` (a run, a refinement round, a point's timeline recording): read line by line, so no cap. */
  run: { maxBytes: undefined, tooBig: '', remedy: 'SDMA Lens reads only regular files in a run folder' },
  /** `.sdmatl`: read whole into typed arrays, as large as the helper writes and no larger. */
  timeline: {
    maxBytes: TIMELINE_MAX_BYTES,
    tooBig: `more than the helper writes for a timeline (at most ${LIMITS.timelineEventsMax} events)`,
    remedy: 'SDMA Lens reads only regular files in a run folder',
  },
  /** TransferBench, nvbandwidth, nccl-tests/rccl-tests text or JSON (`sdma-lens import`, "Import Results"). */
  import: { maxBytes: 64 * MiB, tooBig: 'more than any output these tools write', remedy: 'import the file itself' },
  /** `fleets/<id>/fleet.json`: a line per node. */
  'fleet-index': {
    maxBytes: 64 * MiB,
    tooBig: 'more than a fleet index can be',
    remedy: 'SDMA Lens reads only regular files in a fleet folder',
  },
  /** `sdma-lens fleet --thresholds FILE`: a few lines per figure. */
  thresholds: {
    maxBytes: 1 * MiB,
    tooBig: 'more than a thresholds file can be',
    remedy: 'name the thresholds file itself',
  },
  /** launch.json and .env files that Suggest Settings and the knob diagnostics read and edit. */
  'knob-file': {
    maxBytes: 8 * MiB,
    tooBig: 'more than a launch.json or .env file can be',
    remedy: 'SDMA Lens edits only regular files',
  },
  /** A queued fleet's `nodes/<node>.exit`: srun's exit status, a number on a line. */
  'step-exit': {
    maxBytes: 4096,
    tooBig: 'more than an exit status',
    remedy: 'SDMA Lens reads only regular files in a fleet folder',
  },
  /** ~/.ssh/config and the files it Includes, read for host names. */
  'ssh-config': {
    maxBytes: 1 * MiB,
    tooBig: 'more than an ssh config file can be',
    remedy: 'SDMA Lens reads only regular ssh config files',
  },
} as const satisfies Record<string, FileKind>;

export type FileKindName = keyof typeof FILE_KINDS;
/** The kinds read whole, with a cap. */
export type CappedKind = {
  [K in FileKindName]: (typeof FILE_KINDS)[K]['maxBytes'] extends number ? K : never;
}[FileKindName];

export type SafeFileProblem = 'missing' | 'refused' | 'too-big' | 'unreadable';

/** A file that was not read, and why, in a sentence that names it. */
export class SafeFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: SafeFileProblem,
    message: string,
  ) {
    super(message);
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

type Kindish = Pick<Stats, 'isFile' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isDirectory'>;

function describe(st: Kindish): string {
  return st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isFIFO()
      ? 'a FIFO (named pipe)'
      : st.isSocket()
        ? 'a socket'
        : st.isDirectory()
          ? 'a folder'
          : 'a device';
}

function refused(file: string, kind: FileKindName, what: string): SafeFileError {
  return new SafeFileError(
    file,
    'refused',
    `${file} is ${what}, not a regular file; refused (${FILE_KINDS[kind].remedy})`,
  );
}

function checkStats(file: string, kind: FileKindName, st: Kindish & { size: number }): void {
  if (!st.isFile()) throw refused(file, kind, describe(st));
  checkSize(file, kind, st.size);
}

function checkSize(file: string, kind: FileKindName, bytes: number): void {
  const { maxBytes, tooBig } = FILE_KINDS[kind];
  if (maxBytes !== undefined && bytes > maxBytes)
    throw new SafeFileError(file, 'too-big', `${file} is larger than ${formatBytes(maxBytes)}, ${tooBig}; refused`);
}

function failed(file: string, kind: FileKindName, err: unknown): SafeFileError {
  if (err instanceof SafeFileError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new SafeFileError(file, 'missing', `${file} does not exist`);
  // O_NOFOLLOW on a link put there after the lstat; ENXIO: a socket.
  if (code === 'ELOOP') return refused(file, kind, 'a symbolic link');
  if (code === 'ENXIO') return refused(file, kind, 'a socket');
  return new SafeFileError(file, 'unreadable', `cannot read ${file}: ${(err as Error).message}`);
}

/** Whether something (of any type, a dangling link too) is at `file`. */
export function entryExists(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
}

/** The checks without opening: what is at `file` is a regular file within its kind's cap. Throws SafeFileError. */
export async function checkSafeFile(file: string, kind: FileKindName): Promise<void> {
  try {
    checkStats(file, kind, await lstat(file));
  } catch (err) {
    throw failed(file, kind, err);
  }
}

/** Opens `file` for reading (the four steps above); the caller closes the handle. Throws SafeFileError. */
export async function openSafeFile(file: string, kind: FileKindName): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle | undefined;
  try {
    checkStats(file, kind, await lstat(file));
    handle = await open(file, READ_FLAGS);
    const st = await handle.stat();
    checkStats(file, kind, st);
    return { handle, size: st.size };
  } catch (err) {
    await handle?.close().catch(() => {});
    throw failed(file, kind, err);
  }
}

/** `openSafeFile` for synchronous callers; the caller closes the descriptor. */
export function openSafeFileSync(file: string, kind: FileKindName): { fd: number; size: number } {
  let fd: number | undefined;
  try {
    checkStats(file, kind, lstatSync(file));
    fd = openSync(file, READ_FLAGS);
    const st = fstatSync(fd);
    checkStats(file, kind, st);
    return { fd, size: st.size };
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    throw failed(file, kind, err);
  }
}

/**
 * Reads a whole file of a capped kind: never more than its cap plus one byte, whatever the file
 * does meanwhile. `signal` is polled between reads of at most READ_CHUNK bytes: an aborted read
 * stops there and rejects with the signal's reason.
 */
export async function readSafeFile(file: string, kind: CappedKind, signal?: AbortSignal): Promise<Buffer> {
  signal?.throwIfAborted();
  const { handle, size } = await openSafeFile(file, kind);
  try {
    return await readBounded(file, kind, size, (buffer, offset, length, position) => {
      signal?.throwIfAborted();
      return handle.read(buffer, offset, Math.min(length, READ_CHUNK), position).then((r) => r.bytesRead);
    });
  } catch (err) {
    if (signal?.aborted && err === signal.reason) throw err;
    throw failed(file, kind, err);
  } finally {
    await handle.close();
  }
}

/** `readSafeFile` for synchronous callers. */
export function readSafeFileSync(file: string, kind: CappedKind): Buffer {
  const { fd, size } = openSafeFileSync(file, kind);
  try {
    const cap = FILE_KINDS[kind].maxBytes;
    const first = Buffer.allocUnsafe(Math.min(size, cap) + 1);
    let total = fill(first, (b, o, l, p) => readSync(fd, b, o, l, p), 0);
    if (total < first.length) return first.subarray(0, total);
    // Filled: the file grew since its fstat (or reports no size); read on, to the cap and one byte.
    const chunks: Buffer[] = [first];
    for (;;) {
      checkSize(file, kind, total);
      const chunk = Buffer.allocUnsafe(Math.min(MiB, cap + 1 - total));
      const n = fill(chunk, (b, o, l, p) => readSync(fd, b, o, l, p), total);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
    }
    return Buffer.concat(chunks, total);
  } catch (err) {
    throw failed(file, kind, err);
  } finally {
    closeSync(fd);
  }
}

type SyncRead = (buffer: Buffer, offset: number, length: number, position: number) => number;
type AsyncRead = (buffer: Buffer, offset: number, length: number, position: number) => Promise<number>;

/** Reads into `buffer` from `position` until it is full or the file ends; returns the bytes read. */
function fill(buffer: Buffer, read: SyncRead, position: number): number {
  let got = 0;
  while (got < buffer.length) {
    const n = read(buffer, got, buffer.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

async function fillAsync(buffer: Buffer, read: AsyncRead, position: number): Promise<number> {
  let got = 0;
  while (got < buffer.length) {
    const n = await read(buffer, got, buffer.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

async function readBounded(file: string, kind: CappedKind, size: number, read: AsyncRead): Promise<Buffer> {
  const cap = FILE_KINDS[kind].maxBytes;
  const first = Buffer.allocUnsafe(Math.min(size, cap) + 1);
  let total = await fillAsync(first, read, 0);
  if (total < first.length) return first.subarray(0, total);
  // Filled: the file grew since its fstat (or reports no size); read on, to the cap and one byte.
  const chunks: Buffer[] = [first];
  for (;;) {
    checkSize(file, kind, total);
    const chunk = Buffer.allocUnsafe(Math.min(MiB, cap + 1 - total));
    const n = await fillAsync(chunk, read, total);
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    total += n;
  }
  return Buffer.concat(chunks, total);
}
