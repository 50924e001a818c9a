/**
 * Reader of the helper's columnar timeline file (`sdmatl` version 1, docs/PROTOCOL.md).
 * Columns become typed arrays over copies of the file's bytes, so a million events cost a
 * few allocations, not a million objects; the same arrays can be posted to a webview.
 */
import type { PathName, TimelineEvent } from '../protocol';
import { PACKET_OPS, PATHS, TIMELINE_EVENT_KINDS } from '../protocol';

export const TIMELINE_MAGIC = 'SDMATL\0\x01';
const HEADER_BYTES = 32;

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

export class TimelineFormatError extends Error {}

/** Rounds up to a multiple of 8 in plain arithmetic: bitwise operators would wrap at 2^31. */
const pad8 = (n: number) => Math.ceil(n / 8) * 8;
/** Bytes per event over the eleven columns, before padding. */
const EVENT_BYTES = 49;

export function readTimelineFile(data: Uint8Array): TimelineColumns {
  if (data.byteLength < HEADER_BYTES) throw new TimelineFormatError('timeline file is shorter than its header');
  const magic = String.fromCharCode(...data.subarray(0, 8));
  if (magic !== TIMELINE_MAGIC) throw new TimelineFormatError('not an sdmatl timeline file (bad magic)');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const version = view.getUint32(8, true);
  if (version !== 1)
    throw new TimelineFormatError(`timeline file version ${version} is not supported (this reader knows version 1)`);
  const count64 = view.getBigUint64(16, true);
  if (count64 > BigInt(Number.MAX_SAFE_INTEGER)) throw new TimelineFormatError('timeline event count is implausible');
  // Every event needs 49 bytes of columns: a count the file cannot hold is refused before any size is computed from it.
  if (count64 > BigInt(Math.floor((data.byteLength - HEADER_BYTES) / EVENT_BYTES))) {
    throw new TimelineFormatError(
      `timeline file is truncated: ${data.byteLength} bytes cannot hold the ${count64} events its header names`,
    );
  }
  const count = Number(count64);
  const widths = [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8];
  const needed = HEADER_BYTES + widths.reduce((sum, w) => sum + pad8(w * count), 0);
  if (data.byteLength < needed)
    throw new TimelineFormatError(
      `timeline file is truncated: ${data.byteLength} bytes, ${needed} needed for ${count} events`,
    );
  let offset = HEADER_BYTES;
  // Copy each column into its own aligned buffer: the file's bytes need not be aligned for typed arrays.
  const take = <T>(width: number, make: (buffer: ArrayBuffer) => T): T => {
    const bytes = data.slice(offset, offset + width * count);
    offset += pad8(width * count);
    return make(bytes.buffer);
  };
  return {
    count,
    kind: take(1, (b) => new Uint8Array(b)),
    op: take(1, (b) => new Uint8Array(b)),
    path: take(1, (b) => new Uint8Array(b)),
    gpu: take(2, (b) => new Uint16Array(b)),
    lane: take(4, (b) => new Uint32Array(b)),
    id: take(4, (b) => new Int32Array(b)),
    ref: take(4, (b) => new Int32Array(b)),
    startNs: take(8, (b) => new Float64Array(b)),
    endNs: take(8, (b) => new Float64Array(b)),
    queuedNs: take(8, (b) => new Float64Array(b)),
    bytes: take(8, (b) => new Float64Array(b)),
  };
}

/** One event as an object, for details panes and tests (not for bulk drawing). */
export function eventAt(t: TimelineColumns, i: number): TimelineEvent {
  return {
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
}
