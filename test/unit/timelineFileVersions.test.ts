/**
 * sdmatl versions 1 and 2 (docs/PROTOCOL.md, "The timeline file"): version 1 reads as all
 * observed, version 2's `flags` column reads back bit for bit, and a file the format does not
 * allow (another version, a truncated or overlong column, a flag bit version 2 does not
 * define, a value out of range) is refused with a TimelineFormatError that says why.
 */
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import {
  FLAG_INFERRED,
  TimelineFormatError,
  anyInferred,
  eventAt,
  isInferred,
  readTimelineFile,
  timelineFileBytes,
} from '../../src/core/timeline/timelineFile';
import { ENGINE_UNKNOWN, buildIndex, columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { AMD_ENGINE_DEVICE, EVENTS, sdmatlBytes } from './timelineFixture';

const withInferred = () => columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]);

function same(a: TimelineColumns, b: TimelineColumns) {
  expect(a.count).toBe(b.count);
  for (const k of ['kind', 'op', 'path', 'gpu', 'lane', 'id', 'ref', 'startNs', 'endNs', 'queuedNs', 'bytes'] as const)
    expect(Array.from(a[k]), k).toEqual(Array.from(b[k]));
}

/** `data` with the byte at `at` set to `value`. */
function poke(data: Uint8Array, at: number, value: number): Uint8Array {
  const copy = data.slice();
  copy[at] = value;
  return copy;
}

/** Offset of column `index` (file order) in a file of `count` events. */
function columnOffset(count: number, index: number): number {
  const widths = [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8, 1];
  let offset = 32;
  for (let c = 0; c < index; c++) offset += Math.ceil((widths[c]! * count) / 8) * 8;
  return offset;
}

describe('sdmatl version 1', () => {
  it('reads as every event observed: no flags column', () => {
    const t = columnsFromEvents(EVENTS);
    const read = readTimelineFile(sdmatlBytes(t, 1));
    same(read, t);
    expect(read.flags).toBeUndefined();
    expect(anyInferred(read)).toBe(false);
    for (let i = 0; i < read.count; i++) {
      expect(isInferred(read, i)).toBe(false);
      expect(eventAt(read, i)).not.toHaveProperty('inferred');
    }
  });

  it('is exactly the header and eleven padded columns', () => {
    const t = columnsFromEvents(EVENTS);
    expect(sdmatlBytes(t, 1).byteLength).toBe(timelineFileBytes(t.count, 1));
  });
});

describe('sdmatl version 2', () => {
  it('reads the flags column back: inferred events and the unknown-engine lane', () => {
    const t = withInferred();
    const data = sdmatlBytes(t, 2);
    expect(data.byteLength).toBe(timelineFileBytes(t.count, 2));
    const read = readTimelineFile(data);
    same(read, t);
    expect(Array.from(read.flags!)).toEqual(Array.from(t.flags!));
    const inferred = [...Array(read.count).keys()].filter((i) => isInferred(read, i));
    expect(inferred.map((i) => read.id[i])).toEqual([20, 21]);
    expect(inferred.map((i) => read.lane[i])).toEqual([ENGINE_UNKNOWN, ENGINE_UNKNOWN]);
    expect(eventAt(read, inferred[1]!)).toMatchObject({ kind: 'packet', inferred: true, lane: 65535 });
    const unknown = buildIndex(read).lanes.filter((l) => l.label === 'Unknown engine');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]!.eventCount).toBe(2);
  });

  it('reads a file whose every event was observed: flags all 0', () => {
    const t = columnsFromEvents(EVENTS);
    const read = readTimelineFile(sdmatlBytes(t, 2));
    expect(read.flags).toBeDefined();
    expect(anyInferred(read)).toBe(false);
  });

  it('reads an empty timeline (the header alone)', () => {
    const read = readTimelineFile(sdmatlBytes(columnsFromEvents([]), 2));
    expect(read.count).toBe(0);
    expect(read.flags).toHaveLength(0);
  });
});

describe('sdmatl files the format does not allow', () => {
  const t = withInferred();
  const v2 = sdmatlBytes(t, 2);
  const n = t.count;

  it.each([0, 3, 255, 0xffffffff])('refuses version %i, naming the versions it knows', (version) => {
    const data = v2.slice();
    new DataView(data.buffer).setUint32(8, version, true);
    expect(() => readTimelineFile(data)).toThrow(TimelineFormatError);
    expect(() => readTimelineFile(data)).toThrow(
      new RegExp(`version ${version} is not supported \\(this reader knows versions 1 and 2\\)`),
    );
  });

  it('refuses a truncated flags column', () => {
    // The flags column is the last: 8 bytes of padding hold the 22 flags in 24 bytes.
    for (const cut of [1, 8, 24]) {
      expect(() => readTimelineFile(v2.subarray(0, v2.byteLength - cut))).toThrow(/truncated/);
    }
  });

  it('refuses a version 2 file labelled version 1 (its flags column is left over), and the reverse', () => {
    const asV1 = v2.slice();
    new DataView(asV1.buffer).setUint32(8, 1, true);
    expect(() => readTimelineFile(asV1)).toThrow(/bytes after its columns/);
    const v1 = sdmatlBytes(t, 1);
    new DataView(v1.buffer).setUint32(8, 2, true);
    expect(() => readTimelineFile(v1)).toThrow(/truncated/);
  });

  it('refuses bytes after the last column', () => {
    const longer = new Uint8Array(v2.byteLength + 8);
    longer.set(v2);
    expect(() => readTimelineFile(longer)).toThrow(/8 bytes after its columns/);
  });

  it.each([2, 3, 4, 0x80, 0xff])('refuses flags %i: bits version 2 does not define', (flags) => {
    const at = columnOffset(n, 11) + 5;
    expect(() => readTimelineFile(poke(v2, at, flags))).toThrow(
      /event 5: flags \d+ sets bits version 2 does not define/,
    );
  });

  it('accepts flag bit 0 on any event (inferred)', () => {
    const read = readTimelineFile(poke(v2, columnOffset(n, 11), FLAG_INFERRED));
    expect(isInferred(read, 0)).toBe(true);
  });

  it.each([
    ['kind 5 (transfer is never in files)', 0, 0, 5, /kind 5 is not one of 0\.\.4/],
    ['op 6', 1, 0, 6, /op 6 is not one of 0\.\.5/],
    ['path 4', 2, 0, 4, /path 4 is not one of 0\.\.3/],
  ])('refuses %s', (_what, column, event, value, message) => {
    expect(() => readTimelineFile(poke(v2, columnOffset(n, column) + event, value))).toThrow(message);
  });

  it('refuses non-finite times, negative or non-finite bytes, negative ids and refs below -1', () => {
    const set = (column: number, event: number, width: 4 | 8, value: number) => {
      const data = v2.slice();
      const view = new DataView(data.buffer);
      const at = columnOffset(n, column) + event * width;
      if (width === 8) view.setFloat64(at, value, true);
      else view.setInt32(at, value, true);
      return data;
    };
    expect(() => readTimelineFile(set(7, 3, 8, NaN))).toThrow(/event 3: a time is not a finite number/);
    expect(() => readTimelineFile(set(8, 3, 8, Infinity))).toThrow(/a time is not a finite number/);
    expect(() => readTimelineFile(set(9, 3, 8, -Infinity))).toThrow(/a time is not a finite number/);
    expect(() => readTimelineFile(set(10, 3, 8, -1))).toThrow(/bytes -1 is not a finite number of 0 or more/);
    expect(() => readTimelineFile(set(10, 3, 8, NaN))).toThrow(/bytes NaN/);
    expect(() => readTimelineFile(set(10, 3, 8, Infinity))).toThrow(/bytes Infinity/);
    expect(() => readTimelineFile(set(5, 3, 4, -1))).toThrow(/id -1 is negative/);
    expect(() => readTimelineFile(set(6, 3, 4, -2))).toThrow(/ref -2 is neither an id nor -1/);
    // A queue time of -1 (none) and negative times (a host clock a little behind) are allowed.
    expect(readTimelineFile(set(9, 3, 8, -1)).queuedNs[3]).toBe(-1);
    expect(readTimelineFile(set(7, 3, 8, -250)).startNs[3]).toBe(-250);
  });

  it('refuses non-zero reserved header fields', () => {
    expect(() => readTimelineFile(poke(v2, 12, 1))).toThrow(/reserved/);
    expect(() => readTimelineFile(poke(v2, 31, 1))).toThrow(/reserved/);
  });

  it('refuses a count a version 2 file of this size cannot hold, before reading a column', () => {
    const data = v2.slice();
    new DataView(data.buffer).setBigUint64(16, BigInt(n + 1), true);
    expect(() => readTimelineFile(data)).toThrow(/truncated/);
    new DataView(data.buffer).setBigUint64(16, 2n ** 40n, true);
    expect(() => readTimelineFile(data)).toThrow(/truncated: \d+ bytes cannot hold/);
  });

  it('every refusal is a TimelineFormatError', () => {
    for (const bad of [poke(v2, 0, 0x41), poke(v2, columnOffset(n, 11), 0x10), v2.subarray(0, 31)]) {
      expect(() => readTimelineFile(bad)).toThrow(TimelineFormatError);
    }
  });
});

describe('the bytes a reader is handed', () => {
  it('reads a Node Buffer (whose slice is a view, not a copy) and a view at an offset into a larger buffer', () => {
    const t = withInferred();
    const file = sdmatlBytes(t, 2);
    same(readTimelineFile(Buffer.from(file)), t);
    const larger = new Uint8Array(file.byteLength + 13);
    larger.set(file, 13);
    const read = readTimelineFile(larger.subarray(13));
    same(read, t);
    expect(Array.from(read.flags!)).toEqual(Array.from(t.flags!));
  });
});
