/**
 * The sdmatl reader against hostile files: mutations of real layouts of versions 1 and 2
 * (the simulator's timeline of the four paths, plus a real AMD engine/device copy with its
 * inferred doorbell and packet) — bytes flipped, cut, header fields replaced, columns spliced,
 * values swapped for odd ones — and arbitrary bytes behind a valid header. `readTimelineFile`
 * must refuse with a TimelineFormatError and nothing else, and whatever it accepts must be
 * what the panel's own validation (TimelineColumnsSchema) lets through and what the index
 * builds from, with its compact lane-ordered columns holding every value exactly. Deterministic (xorshift32), so a failure can be replayed.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { TimelineFormatError, readTimelineFile } from '../../src/core/timeline/timelineFile';
import { TimelineColumnsSchema } from '../../src/core/timeline/timelineMessages';
import { buildIndex, buildIndexAndLod, columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { blockBaseAt } from '../../src/core/timeline/timelineCompact';
import { AMD_ENGINE_DEVICE, EVENTS, FILE_COLUMNS, sdmatlBytes } from './timelineFixture';
import { mutate, rng } from './timelineMutations';

const MUTATIONS = 10_000;

/** What an accepted file must be: columns the panel accepts and the index builds from. */
function expectUsable(t: TimelineColumns) {
  const checked = v.safeParse(TimelineColumnsSchema, t);
  expect(checked.success, checked.success ? '' : checked.issues.map((i) => i.message).join('; ')).toBe(true);
  for (let i = 0; i < t.count; i++) {
    expect(Number.isFinite(t.startNs[i]!) && Number.isFinite(t.endNs[i]!)).toBe(true);
    expect(t.bytes[i]! >= 0 && Number.isFinite(t.bytes[i]!)).toBe(true);
  }
  buildIndex(t);
  // The compact lane-ordered columns hold every accepted value exactly (32-bit offsets or float64).
  const { index, lod } = buildIndexAndLod(t);
  for (let k = 0; k < t.count; k++) {
    const e = index.order[k]!;
    const base = blockBaseAt(lod!.blocks, index.laneStart, index.laneOf[e]!, k);
    // == rather than Object.is: -0 is stored as 0.
    expect(lod!.startNs[k]! + base === t.startNs[e]).toBe(true);
    expect(lod!.endNs[k]! + base === Math.max(t.endNs[e]!, t.startNs[e]!)).toBe(true);
    expect(lod!.bytes[k] === t.bytes[e]).toBe(true);
  }
}

function readOrRefuse(data: Uint8Array): TimelineColumns | undefined {
  try {
    return readTimelineFile(data);
  } catch (err) {
    if (!(err instanceof TimelineFormatError)) throw err;
    return undefined;
  }
}

describe('readTimelineFile on hostile files', () => {
  const seeds = [
    sdmatlBytes(columnsFromEvents(EVENTS), 1),
    sdmatlBytes(columnsFromEvents(EVENTS), 2),
    sdmatlBytes(columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]), 2),
    sdmatlBytes(columnsFromEvents(AMD_ENGINE_DEVICE), 2),
    sdmatlBytes(columnsFromEvents([]), 2),
  ];

  it('the seeds themselves read', () => {
    for (const s of seeds) expectUsable(readTimelineFile(s));
  });

  it(`${MUTATIONS} mutations: refused with a TimelineFormatError, or usable`, () => {
    const pick = rng(0x5d3a71);
    let accepted = 0;
    for (let k = 0; k < MUTATIONS; k++) {
      const data = mutate(seeds[pick(seeds.length)]!, seeds, pick);
      const t = readOrRefuse(data);
      if (!t) continue;
      accepted++;
      expectUsable(t);
    }
    // Some mutations leave a valid file (a time changed to another finite one): both outcomes happen.
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(MUTATIONS);
  });

  it('arbitrary bytes behind a valid version 1 or 2 header', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2),
        fc.integer({ min: 0, max: 40 }),
        fc.uint8Array({ maxLength: 2048 }),
        (version, count, body) => {
          const data = new Uint8Array(32 + body.length);
          data.set([0x53, 0x44, 0x4d, 0x41, 0x54, 0x4c, 0, 1]);
          const view = new DataView(data.buffer);
          view.setUint32(8, version, true);
          view.setBigUint64(16, BigInt(count), true);
          data.set(body, 32);
          const t = readOrRefuse(data);
          if (t) expectUsable(t);
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });
});

describe('the reader at any placement of the bytes', () => {
  const KEYS = FILE_COLUMNS;
  const base = sdmatlBytes(columnsFromEvents([...EVENTS, ...AMD_ENGINE_DEVICE]));
  const reference = readTimelineFile(base.slice());
  it('reads the same values whether its columns are views (aligned) or copies (misaligned, or sharing a larger buffer)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 200 }), (shift, slack) => {
        const buffer = new ArrayBuffer(base.byteLength + shift + slack);
        const data = new Uint8Array(buffer, shift, base.byteLength);
        data.set(base);
        const t = readTimelineFile(data);
        for (const k of KEYS) {
          expect(Array.from(t[k]!), k).toEqual(Array.from(reference[k]!));
          // A view only over the file's own aligned buffer; a copy never aliases the bytes given.
          const viewed = t[k]!.buffer === buffer;
          if (viewed) expect(t[k]!.byteOffset % t[k]!.BYTES_PER_ELEMENT === 0 && slack + shift <= 64).toBe(true);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
