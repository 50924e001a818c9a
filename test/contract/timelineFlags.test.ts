/**
 * The timeline says what was observed (docs/PROTOCOL.md, "Timeline events" and "The timeline
 * file"): the real helper writes sdmatl version 2 with its `flags` column, the inline form
 * carries `inferred: true` on the same events, and both read back through the extension's
 * readers to the same columns. The simulator draws engine/device as a real AMD GPU shows it:
 * the doorbell and the packet inferred, on the unknown-engine lane.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimelineEvent } from '../../src/core/protocol';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { FLAG_INFERRED, isInferred, readTimelineFile, timelineFileBytes } from '../../src/core/timeline/timelineFile';
import { ENGINE_UNKNOWN, buildIndex, columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { helper, records } from './run';

const SWEEP = ['sweep', '--backend', 'sim', '--sizes', '1M', '--cus', '4', '--iters', '2', '--seed', '7'];
const TIMELINE = ['--timeline-size', '1M', '--timeline-cus', '4', '--timeline-iters', '2'];

const dir = mkdtempSync(join(tmpdir(), 'sdma-contract-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function timelineRecord(args: string[]) {
  const run = helper([...SWEEP, ...TIMELINE, ...args]);
  expect(run.status).toBe(0);
  const tl = records(run).find((r) => r.type === 'timeline');
  if (tl?.type !== 'timeline') throw new Error('no timeline record');
  return tl;
}

type FileRef = Extract<ReturnType<typeof timelineRecord>, { path: string }>;
type Inline = Extract<ReturnType<typeof timelineRecord>, { events: unknown }>;

describe('timeline flags from the real helper', () => {
  let ref: FileRef;
  let inline: Inline;
  let bytes: Uint8Array;
  let fromFile: TimelineColumns;
  let fromInline: TimelineColumns;
  beforeAll(() => {
    const fileRecord = timelineRecord(['--timeline-out', join(dir, 'timeline.sdmatl')]);
    const inlineRecord = timelineRecord([]);
    if (!('path' in fileRecord) || !('events' in inlineRecord))
      throw new Error('expected a file reference and an inline timeline');
    ref = fileRecord;
    inline = inlineRecord;
    bytes = new Uint8Array(readFileSync(ref.path));
    fromFile = readTimelineFile(bytes);
    fromInline = columnsFromEvents(inline.events);
  });

  it('announces sdmatl version 2 and writes its twelve columns', () => {
    expect(ref).toMatchObject({ format: 'sdmatl', version: 2 });
    expect(new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true)).toBe(2);
    expect(ref.fileBytes).toBe(bytes.byteLength);
    expect(bytes.byteLength).toBe(timelineFileBytes(ref.eventCount, 2));
    expect(fromFile.count).toBe(ref.eventCount);
    expect(fromFile.flags).toBeInstanceOf(Uint8Array);
  });

  it('marks engine/device doorbells and packets inferred, on the unknown-engine lane, and nothing else', () => {
    const inferred: number[] = [];
    for (let i = 0; i < fromFile.count; i++) if (isInferred(fromFile, i)) inferred.push(i);
    // Two iterations, one doorbell and one packet each.
    expect(inferred).toHaveLength(4);
    for (const i of inferred) {
      expect(fromFile.path[i]).toBe(3); // engine/device
      expect([2, 3]).toContain(fromFile.kind[i]); // packet, doorbell
      expect(fromFile.lane[i]).toBe(ENGINE_UNKNOWN);
    }
    for (let i = 0; i < fromFile.count; i++) {
      if (fromFile.path[i] === 2 && (fromFile.kind[i] === 2 || fromFile.kind[i] === 3))
        expect(fromFile.lane[i], 'the simulator models engine/host on its engines').not.toBe(ENGINE_UNKNOWN);
    }
    const lanes = buildIndex(fromFile, { gpuCus: [256, 256], vendor: 'amd' }).lanes.map((l) => l.label);
    expect(lanes).toContain('Unknown engine');
  });

  it('writes inferred: true inline only on those events, and the lane 65535 for their engine', () => {
    const marked = inline.events.filter((e) => 'inferred' in e);
    expect(marked).toHaveLength(4);
    for (const e of marked) {
      expect(e.inferred).toBe(true);
      expect(e.lane).toBe(65535);
      expect(e.path).toBe('engine/device');
    }
    // The raw line: absent, never `false`, on the others.
    const line = helper([...SWEEP, ...TIMELINE]).lines.find((l) => l.includes('"type":"timeline"'))!;
    expect(line).not.toContain('"inferred":false');
    expect(line.match(/"inferred":true/g)).toHaveLength(4);
  });

  it('reads back the same columns from the file and from the inline form (seed 7 both times)', () => {
    const same = (a: TimelineColumns, b: TimelineColumns) => {
      expect(a.count).toBe(b.count);
      for (const k of ['kind', 'op', 'path', 'gpu', 'lane', 'id', 'ref', 'startNs', 'endNs', 'queuedNs'] as const)
        expect(Array.from(a[k]), k).toEqual(Array.from(b[k]));
      expect(Array.from(a.flags ?? []), 'flags').toEqual(Array.from(b.flags ?? []));
    };
    same(fromFile, fromInline);
    expect(Array.from(fromFile.flags!).every((f) => f === 0 || f === FLAG_INFERRED)).toBe(true);
  });

  it('an engine/device doorbell still names its packet, and the packet queued when the doorbell rang', () => {
    const events: TimelineEvent[] = inline.events.filter((e) => e.path === 'engine/device');
    for (const d of events.filter((e) => e.kind === 'doorbell')) {
      const p = events.find((e) => e.id === d.ref);
      expect(p?.kind).toBe('packet');
      expect(p?.queuedNs).toBe(d.startNs);
      expect(p?.inferred).toBe(true);
    }
  });
});
