/**
 * Writes a large, valid sdmatl file (version 2, docs/PROTOCOL.md) for the host-held timeline
 * test: the real one-iteration timeline of test/unit/timelineFixture.ts laid out again and again
 * (ids, refs and times shifted per repeat, as `--timeline-iters` does), one column at a time
 * and a chunk of repeats at a time, so the test never holds more than a chunk.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { columnsFromEvents } from '../../../src/core/timeline/timelineModel';
import { EVENTS, ITERATION_NS } from '../../unit/timelineFixture';

/** Events per repeat. */
export const EVENTS_PER_REPEAT = EVENTS.length;

/** Repeats filled and written at once. */
const CHUNK_REPEATS = 8192;

type Column = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** Writes `repeats` copies of the fixture's events to `file`; returns the event count. */
export function writeRepeatedTimeline(file: string, repeats: number): number {
  const base = columnsFromEvents(EVENTS);
  const per = base.count;
  const count = per * repeats;
  const flags = base.flags ?? new Uint8Array(per);
  /** Each column of one chunk: how a repeat `r` shifts the value of base event `i`. */
  const columns: { make(n: number): Column; value(i: number, r: number): number }[] = [
    { make: (n) => new Uint8Array(n), value: (i) => base.kind[i]! },
    { make: (n) => new Uint8Array(n), value: (i) => base.op[i]! },
    { make: (n) => new Uint8Array(n), value: (i) => base.path[i]! },
    { make: (n) => new Uint16Array(n), value: (i) => base.gpu[i]! },
    { make: (n) => new Uint32Array(n), value: (i) => base.lane[i]! },
    { make: (n) => new Int32Array(n), value: (i, r) => base.id[i]! + r * per },
    { make: (n) => new Int32Array(n), value: (i, r) => (base.ref[i]! >= 0 ? base.ref[i]! + r * per : -1) },
    { make: (n) => new Float64Array(n), value: (i, r) => base.startNs[i]! + r * ITERATION_NS },
    { make: (n) => new Float64Array(n), value: (i, r) => base.endNs[i]! + r * ITERATION_NS },
    {
      make: (n) => new Float64Array(n),
      value: (i, r) => (base.queuedNs[i]! >= 0 ? base.queuedNs[i]! + r * ITERATION_NS : -1),
    },
    { make: (n) => new Float64Array(n), value: (i) => base.bytes[i]! },
    { make: (n) => new Uint8Array(n), value: (i) => flags[i]! },
  ];

  const fd = openSync(file, 'wx');
  try {
    const header = new Uint8Array(32);
    header.set([0x53, 0x44, 0x4d, 0x41, 0x54, 0x4c, 0, 1]);
    const view = new DataView(header.buffer);
    view.setUint32(8, 2, true);
    view.setBigUint64(16, BigInt(count), true);
    writeAll(fd, header);
    for (const column of columns) {
      let written = 0;
      for (let r0 = 0; r0 < repeats; r0 += CHUNK_REPEATS) {
        const r1 = Math.min(repeats, r0 + CHUNK_REPEATS);
        const chunk = column.make((r1 - r0) * per);
        for (let r = r0, k = 0; r < r1; r++) for (let i = 0; i < per; i++) chunk[k++] = column.value(i, r);
        const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        writeAll(fd, bytes);
        written += bytes.byteLength;
      }
      // Each column padded to a multiple of 8 bytes.
      const pad = (8 - (written % 8)) % 8;
      if (pad > 0) writeAll(fd, new Uint8Array(pad));
    }
  } finally {
    closeSync(fd);
  }
  return count;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.byteLength;) off += writeSync(fd, bytes, off, bytes.byteLength - off);
}
