/**
 * The host reads a timeline file once: readTimelineFile's columns are views over the bytes it
 * was given where a column is aligned (no second copy of the file), a copy only where one is
 * not (or where the bytes share their buffer with other data), with the same values either
 * way; and a read whose signal is aborted stops between columns or while checking values.
 */
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { readTimelineFile } from '../../src/core/timeline/timelineFile';
import { columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { AMD_ENGINE_DEVICE, EVENTS, sdmatlBytes, FILE_COLUMNS } from './timelineFixture';

const KEYS = FILE_COLUMNS;
const fixture = () => sdmatlBytes(columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]));

function values(t: TimelineColumns) {
  return Object.fromEntries(KEYS.map((k) => [k, Array.from(t[k] ?? [])]));
}

/** `bytes` placed at `shift` bytes into a buffer of their own length plus `shift`. */
function shifted(bytes: Uint8Array, shift: number): Uint8Array {
  const out = new Uint8Array(new ArrayBuffer(bytes.byteLength + shift), shift, bytes.byteLength);
  out.set(bytes);
  return out;
}

describe('readTimelineFile without a second copy', () => {
  it('makes every column a view over an aligned file buffer', () => {
    const data = fixture();
    const t = readTimelineFile(data);
    for (const k of KEYS) expect(t[k]!.buffer, k).toBe(data.buffer);
    expect(t.startNs.byteOffset % 8).toBe(0);
  });

  it('copies only the columns a misaligned start leaves misaligned, with the same values', () => {
    const data = fixture();
    const reference = values(readTimelineFile(data.slice()));
    for (const shift of [1, 2, 4]) {
      const moved = shifted(data, shift);
      const t = readTimelineFile(moved);
      expect(values(t), `shift ${shift}`).toEqual(reference);
      for (const k of KEYS) {
        const width = t[k]!.BYTES_PER_ELEMENT;
        const viewed = t[k]!.buffer === moved.buffer;
        expect(viewed, `${k} at shift ${shift}`).toBe(shift % width === 0);
      }
    }
  });

  it('copies every column of bytes that share a larger buffer (a pooled small Buffer)', () => {
    const data = fixture();
    const pooled = new Uint8Array(data.byteLength + 4096);
    pooled.set(data, 1024);
    const t = readTimelineFile(pooled.subarray(1024, 1024 + data.byteLength));
    for (const k of KEYS) expect(t[k]!.buffer, k).not.toBe(pooled.buffer);
    expect(values(t)).toEqual(values(readTimelineFile(data)));
  });
});

describe('cancelling the read', () => {
  it("stops with the signal's reason, before or between columns", () => {
    const data = fixture();
    const cancelled = new Error('cancelled');
    const before = new AbortController();
    before.abort(cancelled);
    expect(() => readTimelineFile(data, before.signal)).toThrow(cancelled);
    for (const after of [1, 3, 8, 13]) {
      const controller = new AbortController();
      let polls = 0;
      const signal = {
        get aborted() {
          return controller.signal.aborted;
        },
        throwIfAborted() {
          if (++polls === after) controller.abort(cancelled);
          controller.signal.throwIfAborted();
        },
      } as AbortSignal;
      expect(() => readTimelineFile(data, signal), `abort at poll ${after}`).toThrow(cancelled);
      expect(polls).toBe(after);
    }
    // Not aborted: read whole.
    expect(readTimelineFile(data, new AbortController().signal).count).toBe(EVENTS.length + AMD_ENGINE_DEVICE.length);
  });
});
