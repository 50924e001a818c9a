/**
 * readTimelineFrom: the sdmatl file read a chunk at a time into its columns gives what
 * readTimelineFile gives for the same bytes, with the same errors; a file that shrinks or grows
 * while it is read is refused; a read that says it read more than it was asked is refused; the
 * signal stops it between chunks.
 */
import { describe, expect, it } from 'vitest';
import type { ReadAt, TimelineColumns } from '../../src/core/timeline/timelineFile';
import { TimelineFormatError, readTimelineFile, readTimelineFrom } from '../../src/core/timeline/timelineFile';
import { columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { AMD_ENGINE_DEVICE, EVENTS, repeated, sdmatlBytes, FILE_COLUMNS } from './timelineFixture';

const KEYS = FILE_COLUMNS;

function values(t: TimelineColumns) {
  return { count: t.count, ...Object.fromEntries(KEYS.map((k) => [k, t[k] ? Array.from(t[k]) : undefined])) };
}

/** Reads from `data`, at most `most` bytes a call (a short read now and then, as a file may give). */
function from(data: Uint8Array, most = Infinity): ReadAt {
  let calls = 0;
  return (buffer, offset, length, position) => {
    calls++;
    const n = Math.max(0, Math.min(length, most, data.byteLength - position, calls % 3 === 0 ? 5 : Infinity));
    buffer.set(data.subarray(position, position + n), offset);
    return Promise.resolve(n);
  };
}

async function outcome(f: () => Promise<TimelineColumns> | TimelineColumns): Promise<unknown> {
  try {
    return values(await f());
  } catch (err) {
    expect(err).toBeInstanceOf(TimelineFormatError);
    return (err as Error).message;
  }
}

const fixture = () => sdmatlBytes(columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]));

describe('readTimelineFrom', () => {
  it('gives the columns readTimelineFile gives, each in its own buffer, versions 1 and 2', async () => {
    for (const version of [1, 2] as const) {
      const data = sdmatlBytes(repeated(2000), version);
      for (const most of [Infinity, 4096, 61]) {
        const t = await readTimelineFrom(data.byteLength, from(data, most));
        expect(values(t)).toEqual(values(readTimelineFile(data.slice())));
        for (const k of KEYS) if (t[k]) expect(t[k]!.byteOffset).toBe(0);
      }
    }
    const empty = sdmatlBytes(columnsFromEvents([]), 2);
    expect((await readTimelineFrom(empty.byteLength, from(empty))).count).toBe(0);
  });

  it('refuses what readTimelineFile refuses, with the same words', async () => {
    const good = fixture();
    const cases: Uint8Array[] = [new Uint8Array(0), good.subarray(0, 20), good.subarray(0, good.byteLength - 8)];
    const longer = new Uint8Array(good.byteLength + 16);
    longer.set(good);
    cases.push(longer);
    const magic = good.slice();
    magic[0] = 0x41;
    cases.push(magic);
    // A bad value in each column: the first event named, as the one-buffer read names it.
    // (gpu and lane allow every value)
    for (const column of [0, 1, 2, 5, 6, 7, 8, 9, 10, 11]) {
      const bad = good.slice();
      const view = new DataView(bad.buffer);
      const count = Number(view.getBigUint64(16, true));
      const widths = [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8, 1];
      let at = 32;
      for (let c = 0; c < column; c++) at += Math.ceil((widths[c]! * count) / 8) * 8;
      const e = 3 + column;
      const w = widths[column]!;
      if (w === 8) view.setFloat64(at + e * 8, column === 10 ? -1 : NaN, true);
      else if (w === 4) view.setInt32(at + e * 4, -7, true);
      else if (w === 1) bad[at + e] = 200;
      cases.push(bad);
    }
    for (const data of cases) {
      const own = await outcome(() => readTimelineFile(data.slice()));
      expect(typeof own).toBe('string');
      expect(await outcome(() => readTimelineFrom(data.byteLength, from(data, 1000)))).toEqual(own);
    }
  });

  it('refuses a file that shrinks or grows while it is read, and a read that claims too much', async () => {
    const data = sdmatlBytes(repeated(100));
    const shrunk = data.subarray(0, data.byteLength - 100);
    await expect(readTimelineFrom(data.byteLength, from(shrunk))).rejects.toThrow(/truncated: it ended at/);
    const grown = new Uint8Array(data.byteLength + 1);
    grown.set(data);
    await expect(readTimelineFrom(data.byteLength, from(grown))).rejects.toThrow(/grew while being read/);
    const liar: ReadAt = (_b, _o, length) => Promise.resolve(length + 1);
    await expect(readTimelineFrom(data.byteLength, liar)).rejects.toThrow(TimelineFormatError);
  });

  it('allocates nothing for a count its size cannot hold', async () => {
    const data = fixture();
    new DataView(data.buffer).setBigUint64(16, 2n ** 40n, true);
    await expect(readTimelineFrom(data.byteLength, from(data))).rejects.toThrow(/truncated/);
  });

  it("stops with the signal's reason between chunks", async () => {
    // 162,000 events: each 8-byte column takes two chunks.
    const data = sdmatlBytes(repeated(9000));
    const cancelled = new Error('cancelled');
    // Polls: before the header, before each chunk (12 columns, 4 of them in two chunks), after the last, then the check's.
    for (const after of [1, 2, 9, 16, 17, 18]) {
      const controller = new AbortController();
      let polls = 0;
      let reads = 0;
      const signal = {
        get aborted() {
          return controller.signal.aborted;
        },
        throwIfAborted() {
          if (++polls === after) controller.abort(cancelled);
          controller.signal.throwIfAborted();
        },
      } as AbortSignal;
      const read = from(data);
      const counted: ReadAt = (...args) => {
        reads++;
        return read(...args);
      };
      await expect(readTimelineFrom(data.byteLength, counted, signal)).rejects.toBe(cancelled);
      expect(polls).toBe(after);
      expect(reads).toBeLessThan(after * 4 + 2);
    }
  });
});
