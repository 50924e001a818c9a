/**
 * Reader of the helper's columnar timeline file (`sdmatl` versions 1 and 2, docs/PROTOCOL.md).
 * Columns become typed arrays over the file's bytes (views where aligned, copies where not), so
 * a million events cost a few allocations, not a million objects; the same arrays can be posted
 * to a webview. `readTimelineFrom` reads a file straight into its columns, a chunk at a time.
 *
 * The file is outside data: its size bounds every allocation (a count the file cannot hold
 * is refused before anything is computed from it), and every value is checked against what
 * the format allows before a column is returned.
 */
import type { PathName, TimelineEvent } from '../protocol';
import { PACKET_OPS, PATHS, TIMELINE_EVENT_KINDS } from '../protocol';

export const TIMELINE_MAGIC = 'SDMATL\0\x01';
/** Bytes of the header, before the first column. */
export const TIMELINE_HEADER_BYTES = 32;
const HEADER_BYTES = TIMELINE_HEADER_BYTES;

/** The versions this reader knows: 1 (eleven columns), 2 (the same plus `flags`). */
export const TIMELINE_VERSIONS = [1, 2] as const;

/** `flags` bit 0: the hardware did not report this event; its times were derived from what was observed around it. */
export const FLAG_INFERRED = 1;
/** Every bit a version 2 file may set; a file with another is refused. */
export const FLAGS_KNOWN = FLAG_INFERRED;

export interface TimelineColumns {
  count: number;
  kind: Uint8Array;
  op: Uint8Array;
  path: Uint8Array;
  gpu: Uint16Array;
  lane: Uint32Array;
  id: Int32Array;
  ref: Int32Array;
  startNs: Float64Array;
  endNs: Float64Array;
  queuedNs: Float64Array;
  bytes: Float64Array;
  /**
   * Names, for timelines the extension builds (Profile: kernel names, copy labels): each
   * event's index into `labels`, -1 for none. The sdmatl file has no names; both are absent there.
   */
  label?: Int32Array;
  labels?: string[];
  /** CUs/SMs the device trace saw in each event (Profile launches); 0 when unknown. */
  cus?: Uint32Array;
  /**
   * Per event, FLAG_INFERRED when the hardware did not report it (sdmatl version 2, inline
   * `inferred`). Absent: every event was observed (version 1 files, Profile timelines).
   */
  flags?: Uint8Array;
}

/** Columns for n events, zeroed; refs and queue times start at -1 (none) when `unset` says so. */
export function emptyColumns(n: number, unset = false): TimelineColumns {
  return {
    count: n,
    kind: new Uint8Array(n),
    op: new Uint8Array(n),
    path: new Uint8Array(n),
    gpu: new Uint16Array(n),
    lane: new Uint32Array(n),
    id: new Int32Array(n),
    ref: new Int32Array(n).fill(unset ? -1 : 0),
    startNs: new Float64Array(n),
    endNs: new Float64Array(n),
    queuedNs: new Float64Array(n).fill(unset ? -1 : 0),
    bytes: new Float64Array(n),
  };
}

/** An event's name, when the timeline has names and this event has one. */
export function labelOf(t: Pick<TimelineColumns, 'label' | 'labels'>, i: number): string | undefined {
  const at = t.label?.[i] ?? -1;
  return at >= 0 ? t.labels?.[at] : undefined;
}

/** Whether the hardware did not report event `i` (its times were inferred). */
export function isInferred(t: Pick<TimelineColumns, 'flags'>, i: number): boolean {
  return ((t.flags?.[i] ?? 0) & FLAG_INFERRED) !== 0;
}

/** Whether any event of the timeline was inferred. */
export function anyInferred(t: Pick<TimelineColumns, 'flags'>): boolean {
  const flags = t.flags;
  if (!flags) return false;
  for (let i = 0; i < flags.length; i++) if ((flags[i]! & FLAG_INFERRED) !== 0) return true;
  return false;
}

export class TimelineFormatError extends Error {}

/** Rounds up to a multiple of 8 in plain arithmetic: bitwise operators would wrap at 2^31. */
const pad8 = (n: number) => Math.ceil(n / 8) * 8;

/** Byte widths of the columns in file order: version 1's eleven, then version 2's `flags`. */
const COLUMN_WIDTHS_V1 = [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8];
const COLUMN_WIDTHS_V2 = [...COLUMN_WIDTHS_V1, 1];
const widthsOf = (version: number) => (version >= 2 ? COLUMN_WIDTHS_V2 : COLUMN_WIDTHS_V1);

/** Bytes of an sdmatl file of `count` events: the header and each column padded to 8 bytes. */
export function timelineFileBytes(count: number, version: (typeof TIMELINE_VERSIONS)[number] = 2): number {
  return HEADER_BYTES + widthsOf(version).reduce((sum, w) => sum + pad8(w * count), 0);
}

/** The largest `kind` a file may hold: `transfer` (5) is the extension's own, never in files. */
const FILE_KIND_MAX = 4;
const OP_MAX = PACKET_OPS.length - 1;
const PATH_MAX = PATHS.length - 1;

/** What an sdmatl header says, checked: the version and the event count. */
export interface TimelineHeader {
  version: 1 | 2;
  count: number;
}

/**
 * The header alone (its first 32 bytes), for deciding whether a timeline can be opened before
 * reading it: `fileBytes`, when given, must hold the count's columns.
 */
export function readTimelineHeader(data: Uint8Array, fileBytes = data.byteLength): TimelineHeader {
  if (data.byteLength < HEADER_BYTES) throw new TimelineFormatError('timeline file is shorter than its header');
  const magic = String.fromCharCode(...data.subarray(0, 8));
  if (magic !== TIMELINE_MAGIC) throw new TimelineFormatError('not an sdmatl timeline file (bad magic)');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const version = view.getUint32(8, true);
  if (version !== 1 && version !== 2)
    throw new TimelineFormatError(
      `timeline file version ${version} is not supported (this reader knows versions ${TIMELINE_VERSIONS.join(' and ')}); a newer SDMA Lens may read it`,
    );
  if (view.getUint32(12, true) !== 0 || view.getBigUint64(24, true) !== 0n)
    throw new TimelineFormatError('timeline file header has non-zero reserved fields');
  const count64 = view.getBigUint64(16, true);
  if (count64 > BigInt(Number.MAX_SAFE_INTEGER)) throw new TimelineFormatError('timeline event count is implausible');
  const eventBytes = widthsOf(version).reduce((sum, w) => sum + w, 0);
  // Every event needs its columns' bytes: a count the file cannot hold is refused before any size is computed from it.
  if (count64 > BigInt(Math.floor((fileBytes - HEADER_BYTES) / eventBytes))) {
    throw new TimelineFormatError(
      `timeline file is truncated: ${fileBytes} bytes cannot hold the ${count64} events its header names`,
    );
  }
  return { version, count: Number(count64) };
}

/** Events checked between polls of the read's signal. */
const CHECK_CHUNK = 1 << 20;

/**
 * The columns of an sdmatl file. Each column is a typed array over `data` itself where its
 * offset is aligned for its width (every column starts on an 8-byte boundary of the file, so
 * all of them are when `data` starts on one, as a file read into its own buffer does): the
 * file is held once, not once as bytes and again as columns. A column that is not aligned, or
 * any column of bytes that share their buffer with other data (a small Node Buffer from the
 * pool), is copied. `signal` is polled between columns and while checking the values, so a
 * cancelled read stops there with the signal's reason.
 */
export function readTimelineFile(data: Uint8Array, signal?: AbortSignal): TimelineColumns {
  signal?.throwIfAborted();
  const { version, count } = readTimelineHeader(data);
  const widths = widthsOf(version);
  const needed = HEADER_BYTES + widths.reduce((sum, w) => sum + pad8(w * count), 0);
  checkSize(data.byteLength, needed, count, version);
  // The file's own buffer (at most a few bytes of slack, as readSafeFile's one byte past the end).
  const ownBuffer = data.buffer.byteLength - data.byteLength <= OWN_BUFFER_SLACK;
  let offset = HEADER_BYTES;
  const take = <T>(width: number, make: (buffer: ArrayBufferLike, byteOffset: number, length: number) => T): T => {
    signal?.throwIfAborted();
    const at = data.byteOffset + offset;
    offset += pad8(width * count);
    if (ownBuffer && at % width === 0) return make(data.buffer, at, count);
    // Misaligned or shared: a copy into its own buffer (made here, not by `data.slice`: a Node Buffer's slice is a view).
    const bytes = new Uint8Array(width * count);
    bytes.set(data.subarray(at - data.byteOffset, at - data.byteOffset + width * count));
    return make(bytes.buffer, 0, count);
  };
  const columns: TimelineColumns = {
    count,
    kind: take(1, (b, o, n) => new Uint8Array(b, o, n)),
    op: take(1, (b, o, n) => new Uint8Array(b, o, n)),
    path: take(1, (b, o, n) => new Uint8Array(b, o, n)),
    gpu: take(2, (b, o, n) => new Uint16Array(b, o, n)),
    lane: take(4, (b, o, n) => new Uint32Array(b, o, n)),
    id: take(4, (b, o, n) => new Int32Array(b, o, n)),
    ref: take(4, (b, o, n) => new Int32Array(b, o, n)),
    startNs: take(8, (b, o, n) => new Float64Array(b, o, n)),
    endNs: take(8, (b, o, n) => new Float64Array(b, o, n)),
    queuedNs: take(8, (b, o, n) => new Float64Array(b, o, n)),
    bytes: take(8, (b, o, n) => new Float64Array(b, o, n)),
  };
  if (version >= 2) columns.flags = take(1, (b, o, n) => new Uint8Array(b, o, n));
  checkValues(columns, signal);
  return columns;
}

/**
 * Reads `length` bytes of the file at `position` into `buffer` at `offset`; resolves to the
 * bytes read, fewer at the end of the file (0 past it). A file handle's read, wrapped.
 */
export type ReadAt = (buffer: Uint8Array, offset: number, length: number, position: number) => Promise<number>;

/**
 * Bytes read at a time by readTimelineFrom: few enough to still be in the processor's cache
 * when they are copied into their column.
 */
const STREAM_CHUNK = 1024 * 1024;

/**
 * An sdmatl file of `fileBytes` bytes (its size when opened, already within the reader's cap),
 * read through `read` a chunk at a time into one array per column: the file is held once, as
 * its columns, and each column's memory is written once, by the copy (a read straight into
 * fresh memory has the system map every page and the first look at the values map it again
 * for this process, which on some machines costs as much as the read). The header is checked
 * first, so every allocation is bounded by the file's size. Values are checked as
 * readTimelineFile checks them, with the same errors; a file that shrinks or grows while it is
 * read is refused. `signal` is polled between chunks and while checking.
 */
export async function readTimelineFrom(
  fileBytes: number,
  read: ReadAt,
  signal?: AbortSignal,
): Promise<TimelineColumns> {
  signal?.throwIfAborted();
  const chunk = new Uint8Array(Math.min(STREAM_CHUNK, Math.max(HEADER_BYTES, pad8(fileBytes))));
  const head = chunk.subarray(0, await readFully(read, chunk, HEADER_BYTES, 0));
  const { version, count } = readTimelineHeader(head, fileBytes);
  const widths = widthsOf(version);
  const needed = HEADER_BYTES + widths.reduce((sum, w) => sum + pad8(w * count), 0);
  checkSize(fileBytes, needed, count, version);
  const columns = emptyColumns(count);
  if (version >= 2) columns.flags = new Uint8Array(count);
  const order = [
    columns.kind,
    columns.op,
    columns.path,
    columns.gpu,
    columns.lane,
    columns.id,
    columns.ref,
    columns.startNs,
    columns.endNs,
    columns.queuedNs,
    columns.bytes,
    ...(columns.flags ? [columns.flags] : []),
  ];
  let position = HEADER_BYTES;
  for (const column of order) {
    const into = new Uint8Array(column.buffer, column.byteOffset, column.byteLength);
    const padded = pad8(column.byteLength);
    for (let done = 0; done < padded;) {
      signal?.throwIfAborted();
      const want = Math.min(chunk.length, padded - done);
      const got = await readFully(read, chunk, want, position);
      if (got < want)
        throw new TimelineFormatError(
          `timeline file is truncated: it ended at ${position + got} bytes while being read, ${needed} needed for ${count} events (version ${version})`,
        );
      const values = Math.min(got, column.byteLength - done);
      if (values > 0) into.set(values === got ? chunk.subarray(0, got) : chunk.subarray(0, values), done);
      done += got;
      position += got;
    }
  }
  signal?.throwIfAborted();
  if ((await read(chunk, 0, 1, position)) > 0)
    throw new TimelineFormatError(
      `timeline file has bytes after its columns: it grew while being read; ${needed} hold ${count} events of version ${version}`,
    );
  checkValues(columns, signal);
  return columns;
}

/** Reads until `length` bytes are in `buffer` or the file ends; resolves to the bytes read. */
async function readFully(read: ReadAt, buffer: Uint8Array, length: number, position: number): Promise<number> {
  let got = 0;
  while (got < length) {
    const n = await read(buffer, got, length - got, position + got);
    if (!(Number.isSafeInteger(n) && n >= 0 && n <= length - got))
      throw new TimelineFormatError(`timeline file read returned ${n} bytes where at most ${length - got} were asked`);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Where each column of a checked file starts, in file order (TIMELINE_COLUMN_NAMES). */
export interface TimelineLayout extends TimelineHeader {
  offsets: number[];
}

/** The columns in file order: version 1's eleven, then version 2's `flags`. */
export const TIMELINE_COLUMN_NAMES = [
  'kind',
  'op',
  'path',
  'gpu',
  'lane',
  'id',
  'ref',
  'startNs',
  'endNs',
  'queuedNs',
  'bytes',
  'flags',
] as const;

/**
 * The header of a file of `fileBytes` checked as the readers check it (its size exactly what
 * the count needs), and where each of its columns starts: for readers that visit the columns a
 * range of events at a time instead of reading them whole (timelineOverview.ts).
 */
export function timelineLayout(head: Uint8Array, fileBytes: number): TimelineLayout {
  const { version, count } = readTimelineHeader(head, fileBytes);
  const widths = widthsOf(version);
  const offsets: number[] = [];
  let at = HEADER_BYTES;
  for (const w of widths) {
    offsets.push(at);
    at += pad8(w * count);
  }
  checkSize(fileBytes, at, count, version);
  return { version, count, offsets };
}

/** Byte width of each column in file order, for `version`. */
export function timelineColumnWidths(version: 1 | 2): readonly number[] {
  return widthsOf(version);
}

/** Some of a timeline's columns, for a range of its events (`count` of them). */
export type TimelineRange = Partial<Omit<TimelineColumns, 'count'>> & { count: number };

/**
 * The columns present in `t`, which hold events `first..first+t.count-1` of a file, checked as
 * the whole-file readers check them: the first bad value is named by its event in the file.
 */
export function checkTimelineValues(t: TimelineRange, first: number): void {
  if (!chunkValid(t, 0, t.count)) nameFirstBad(t, 0, t.count, first);
}

/** A file of `fileBytes` must be exactly the `needed` bytes its header implies. */
function checkSize(fileBytes: number, needed: number, count: number, version: number): void {
  if (fileBytes < needed)
    throw new TimelineFormatError(
      `timeline file is truncated: ${fileBytes} bytes, ${needed} needed for ${count} events (version ${version})`,
    );
  if (fileBytes > needed)
    throw new TimelineFormatError(
      `timeline file has ${fileBytes - needed} bytes after its columns: ${needed} hold ${count} events of version ${version}`,
    );
}

/** Bytes a buffer may hold past the file's and still count as the file's own. */
const OWN_BUFFER_SLACK = 64;

/**
 * Every value against what the format allows (docs/PROTOCOL.md): small enumerations in
 * range, flag bits defined, times finite, bytes finite and not negative, ids not negative,
 * refs an id or -1. The first bad value is named with its event. Checked a chunk of events at
 * a time, one column after another in plain loops over the typed arrays (no call per value);
 * a chunk with a bad value is gone through again event by event to name the first one.
 */
function checkValues(t: TimelineColumns, signal?: AbortSignal): void {
  const n = t.count;
  for (let from = 0; from < n; from += CHECK_CHUNK) {
    signal?.throwIfAborted();
    const to = Math.min(n, from + CHECK_CHUNK);
    if (!chunkValid(t, from, to)) nameFirstBad(t, from, to);
  }
}

/** Whether events `from..to-1` of the columns present hold only values the format allows. */
function chunkValid(t: TimelineRange, from: number, to: number): boolean {
  return (
    (t.kind === undefined || bytesAtMost(t.kind, from, to, FILE_KIND_MAX)) &&
    (t.op === undefined || bytesAtMost(t.op, from, to, OP_MAX)) &&
    (t.path === undefined || bytesAtMost(t.path, from, to, PATH_MAX)) &&
    (t.id === undefined || intsAtLeast(t.id, from, to, 0)) &&
    (t.ref === undefined || intsAtLeast(t.ref, from, to, -1)) &&
    (t.startNs === undefined || allFinite(t.startNs, from, to)) &&
    (t.endNs === undefined || allFinite(t.endNs, from, to)) &&
    (t.queuedNs === undefined || allFinite(t.queuedNs, from, to)) &&
    (t.bytes === undefined || allByteCounts(t.bytes, from, to)) &&
    (t.flags === undefined || bitsWithin(t.flags, from, to, FLAGS_KNOWN))
  );
}

/*
 * The checks below read several values a word and keep one running OR instead of a branch a
 * value: a bad value sets a bit that no allowed value can set, so the OR of a chunk says whether
 * any value in it is bad. They may also refuse a chunk that is good (an allowed value they do not
 * tell apart: -0 bytes); nameFirstBad then looks value by value and names only what the format
 * refuses, so a chunk is refused exactly when it holds a value the format does not allow.
 * `(a + b) | 0` adds as 32-bit words do, the carry out of the top bit dropped.
 */

/** Whether every byte of `from..to-1` is at most `max` (at most 127): four bytes a word. */
function bytesAtMost(column: Uint8Array, from: number, to: number, max: number): boolean {
  // A byte over `max` gets its top bit from adding 127 - max, and one of 128 or more has it already.
  const add = (0x7f - max) * 0x01010101;
  const { head, words, tail } = wordsOf(column, from, to);
  for (let i = from; i < head; i++) if (column[i]! > max) return false;
  let seen = 0;
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    seen |= (w + add) | 0 | w;
  }
  if ((seen & 0x80808080) !== 0) return false;
  for (let i = tail; i < to; i++) if (column[i]! > max) return false;
  return true;
}

/** Whether no byte of `from..to-1` has a bit outside `mask`: four bytes a word. */
function bitsWithin(column: Uint8Array, from: number, to: number, mask: number): boolean {
  const outside = ~mask & 0xff;
  const { head, words, tail } = wordsOf(column, from, to);
  let seen = 0;
  for (let i = from; i < head; i++) seen |= column[i]!;
  for (let k = 0; k < words.length; k++) seen |= words[k]!;
  for (let i = tail; i < to; i++) seen |= column[i]!;
  return (seen & (outside * 0x01010101)) === 0;
}

const NO_WORDS = new Int32Array(0);

/** The bytes `from..to-1` as whole 32-bit words where they are aligned: the bytes before `head` and from `tail` on are not in `words`. */
function wordsOf(column: Uint8Array, from: number, to: number): { head: number; words: Int32Array; tail: number } {
  const head = from + ((4 - ((column.byteOffset + from) & 3)) & 3);
  if (head >= to) return { head: to, words: NO_WORDS, tail: to };
  const count = (to - head) >> 2;
  return { head, words: new Int32Array(column.buffer, column.byteOffset + head, count), tail: head + count * 4 };
}

function intsAtLeast(column: Int32Array, from: number, to: number, min: number): boolean {
  let seen = 0;
  if (min === 0) {
    // The sign bit of any negative value.
    for (let i = from; i < to; i++) seen |= column[i]!;
    return seen >= 0;
  }
  if (min === -1) {
    // x >> 31 is all ones for a negative x, and ~x is 0 only for -1: non-zero only below -1.
    for (let i = from; i < to; i++) {
      const x = column[i]!;
      seen |= (x >> 31) & ~x;
    }
    return seen === 0;
  }
  for (let i = from; i < to; i++) if (column[i]! < min) return false;
  return true;
}

/** The high 32-bit word of each float64 of `from..to-1` (sign and exponent), the column little-endian. */
function highWords(column: Float64Array, from: number, to: number): Int32Array {
  return new Int32Array(column.buffer, column.byteOffset + from * 8, (to - from) * 2);
}

/** An exponent of all ones (infinity or NaN) carries into the sign bit when 2^20 is added to its bits. */
const EXPONENT = 0x7ff00000;
const EXPONENT_CARRY = 0x00100000;

function allFinite(column: Float64Array, from: number, to: number): boolean {
  const words = highWords(column, from, to);
  let seen = 0;
  for (let k = 1; k < words.length; k += 2) seen |= ((words[k]! & EXPONENT) + EXPONENT_CARRY) | 0;
  return seen >= 0;
}

function allByteCounts(column: Float64Array, from: number, to: number): boolean {
  // Not negative (the sign bit; -0 too, which nameFirstBad then lets through) and finite.
  const words = highWords(column, from, to);
  let seen = 0;
  for (let k = 1; k < words.length; k += 2) {
    const hi = words[k]!;
    seen |= hi | (((hi & EXPONENT) + EXPONENT_CARRY) | 0);
  }
  return seen >= 0;
}

/** Throws for the first event of `from..to-1` with a value the format does not allow (named as event `first + i`). */
function nameFirstBad(t: TimelineRange, from: number, to: number, first = 0): void {
  const bad = (i: number, what: string) => {
    throw new TimelineFormatError(`timeline file event ${first + i}: ${what}`);
  };
  const { kind, op, path, id, ref, startNs, endNs, queuedNs, bytes, flags } = t;
  const finite = (column: Float64Array | undefined, i: number) => column === undefined || Number.isFinite(column[i]!);
  for (let i = from; i < to; i++) {
    if (kind && kind[i]! > FILE_KIND_MAX) bad(i, `kind ${kind[i]} is not one of 0..${FILE_KIND_MAX}`);
    if (op && op[i]! > OP_MAX) bad(i, `op ${op[i]} is not one of 0..${OP_MAX}`);
    if (path && path[i]! > PATH_MAX) bad(i, `path ${path[i]} is not one of 0..${PATH_MAX}`);
    if (id && id[i]! < 0) bad(i, `id ${id[i]} is negative`);
    if (ref && ref[i]! < -1) bad(i, `ref ${ref[i]} is neither an id nor -1`);
    if (!finite(startNs, i) || !finite(endNs, i) || !finite(queuedNs, i)) bad(i, 'a time is not a finite number');
    if (bytes && (!(bytes[i]! >= 0) || bytes[i] === Infinity))
      bad(i, `bytes ${bytes[i]} is not a finite number of 0 or more`);
    if (flags && (flags[i]! & ~FLAGS_KNOWN) !== 0)
      bad(i, `flags ${flags[i]} sets bits version 2 does not define (only bit 0, inferred)`);
  }
}

/** One event as an object, for details panes and tests (not for bulk drawing). */
export function eventAt(t: TimelineColumns, i: number): TimelineEvent {
  const event: TimelineEvent = {
    kind: TIMELINE_EVENT_KINDS[t.kind[i]!] ?? 'kernel',
    gpu: t.gpu[i]!,
    lane: t.lane[i]!,
    id: t.id[i]!,
    ref: t.ref[i]!,
    op: PACKET_OPS[t.op[i]!] ?? 'none',
    startNs: t.startNs[i]!,
    endNs: t.endNs[i]!,
    queuedNs: t.queuedNs[i]!,
    bytes: t.bytes[i]!,
    path: (PATHS[t.path[i]!] ?? 'cu/host') as PathName,
  };
  if (isInferred(t, i)) event.inferred = true;
  return event;
}
