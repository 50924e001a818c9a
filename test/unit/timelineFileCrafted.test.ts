/**
 * Crafted sdmatl headers: event counts whose column sizes wrap 32-bit arithmetic, or exceed
 * what the file holds, are refused before any column is read (docs/PROTOCOL.md, timeline file).
 */
import { describe, expect, it } from 'vitest';
import { TIMELINE_MAGIC, TimelineFormatError, readTimelineFile } from '../../src/core/timeline/timelineFile';

function header(count: bigint, extraBytes = 0): Uint8Array {
  const data = new Uint8Array(32 + extraBytes);
  for (let i = 0; i < 8; i++) data[i] = TIMELINE_MAGIC.charCodeAt(i);
  const view = new DataView(data.buffer);
  view.setUint32(8, 1, true);
  view.setBigUint64(16, count, true);
  return data;
}

describe('readTimelineFile on crafted headers', () => {
  // 2^29 events: an 8-byte column is 2^32 bytes, which `(n + 7) & ~7` turned into 0;
  // 2^28 and 2^31 wrap the 4- and 2-byte columns the same way.
  for (const count of [2n ** 28n, 2n ** 29n, 2n ** 31n, 2n ** 32n + 1n, 2n ** 53n - 1n]) {
    it(`refuses ${count} events in a file of 4 KiB`, () => {
      expect(() => readTimelineFile(header(count, 4096))).toThrow(TimelineFormatError);
      expect(() => readTimelineFile(header(count, 4096))).toThrow(/truncated|implausible/);
    });
  }

  it('refuses a count one above what the file holds, and reads the one that fits', () => {
    const columns = [1, 1, 1, 2, 4, 4, 4, 8, 8, 8, 8];
    const bytesFor = (n: number) => columns.reduce((sum, w) => sum + Math.ceil((w * n) / 8) * 8, 0);
    const fits = header(3n, bytesFor(3));
    expect(readTimelineFile(fits).count).toBe(3);
    expect(() => readTimelineFile(header(4n, bytesFor(3)))).toThrow(/truncated/);
  });

  it('refuses a count above 2^53 as implausible', () => {
    expect(() => readTimelineFile(header(2n ** 63n, 64))).toThrow(/implausible|truncated/);
  });
});
