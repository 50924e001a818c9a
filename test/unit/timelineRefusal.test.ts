/**
 * A timeline too large for the panel is refused from its header, before it is read: the cap
 * comes from the bytes an event costs in the panel (timelineCompact.ts), and the refusal says
 * the numbers and what to do.
 */
import { mkdtempSync, openSync, truncateSync, writeSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newRun } from '../../src/core/run';
import { timelineEventCount } from '../../src/core/runs/timelineSource';
import {
  TIMELINE_BYTES_PER_EVENT,
  TIMELINE_MAX_EVENTS,
  TIMELINE_MEMORY_BUDGET_BYTES,
  timelineFits,
} from '../../src/core/timeline/timelineCompact';
import { TimelineFormatError, readTimelineHeader, timelineFileBytes } from '../../src/core/timeline/timelineFile';
import { columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { EVENTS, sdmatlBytes } from './timelineFixture';

const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-timeline-refusal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A version 2 file naming `count` events, its columns a hole (sparse): nothing but the header is written. */
function sparseTimeline(count: number): string {
  const file = join(dir, `t-${count}.sdmatl`);
  const header = sdmatlBytes(columnsFromEvents([]), 2).slice(0, 32);
  new DataView(header.buffer).setBigUint64(16, BigInt(count), true);
  const fd = openSync(file, 'w');
  writeSync(fd, header);
  closeSync(fd);
  truncateSync(file, timelineFileBytes(count, 2));
  return file;
}

const run = newRun({
  type: 'run',
  format: 'sdma-lens-run',
  version: 1,
  id: 'r1',
  command: 'sweep',
  createdAt: '2026-12-04T00:00:00Z',
  target: { kind: 'local' },
  helper: { path: '/x/sdma-probe', args: [] },
});

describe('timeline size cap', () => {
  it('derives the cap from the bytes an event costs in the panel and the memory budget', () => {
    expect(TIMELINE_MAX_EVENTS).toBe(Math.floor(TIMELINE_MEMORY_BUDGET_BYTES / TIMELINE_BYTES_PER_EVENT));
    expect(TIMELINE_MAX_EVENTS).toBeGreaterThanOrEqual(10_000_000);
    expect(timelineFits(TIMELINE_MAX_EVENTS).ok).toBe(true);
    expect(timelineFits(0).ok).toBe(true);
  });

  it('refuses one event past the cap, naming the events, the memory and what to do', () => {
    const fit = timelineFits(TIMELINE_MAX_EVENTS + 1);
    expect(fit.ok).toBe(false);
    expect(fit.message).toContain((TIMELINE_MAX_EVENTS + 1).toLocaleString('en-US'));
    expect(fit.message).toContain('GB');
    expect(fit.message).toMatch(/Record a shorter timeline/);
    expect(timelineFits(NaN).ok).toBe(false);
    expect(timelineFits(-1).ok).toBe(false);
  });

  it('reads the count from the header alone: a 30-million-event file is refused without reading its columns', async () => {
    const file = sparseTimeline(30_000_000);
    const count = await timelineEventCount(run, { kind: 'file', file });
    expect(count).toBe(30_000_000);
    expect(timelineFits(count).ok).toBe(false);
    const small = join(dir, 'small.sdmatl');
    const fd = openSync(small, 'w');
    writeSync(fd, sdmatlBytes(columnsFromEvents(EVENTS), 2));
    closeSync(fd);
    expect(await timelineEventCount(run, { kind: 'file', file: small })).toBe(EVENTS.length);
  });

  it('checks the header as the full reader does: a count the file cannot hold is an error', () => {
    const header = sdmatlBytes(columnsFromEvents(EVENTS), 2).slice(0, 32);
    expect(readTimelineHeader(header, timelineFileBytes(EVENTS.length, 2)).count).toBe(EVENTS.length);
    expect(() => readTimelineHeader(header, 32)).toThrow(TimelineFormatError);
    expect(() => readTimelineHeader(header.slice(0, 16))).toThrow(TimelineFormatError);
  });
});
