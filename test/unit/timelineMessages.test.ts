import { describe, expect, it } from 'vitest';
import { parseTimelineHostMessage, parseTimelineWebviewMessage } from '../../src/core/timeline/timelineMessages';
import { columnsFromEvents } from '../../src/core/timeline/timelineModel';
import { EVENTS } from './timelineFixture';

const meta = {
  key: 'r1/timeline.sdmatl',
  runId: 'r1',
  title: 'Timeline · 256 MiB',
  simulated: true,
  nodeLabel: 'AMD Instinct MI350X',
  vendor: 'amd',
  sizeBytes: 268435456,
  gpuCus: [256],
};

describe('timeline messages', () => {
  it('accepts a timeline whose columns are typed arrays of one length', () => {
    const columns = columnsFromEvents(EVENTS);
    const message = parseTimelineHostMessage({ type: 'timeline', meta, columns });
    expect(message?.type).toBe('timeline');
    // Validation passes the arrays through: no copy of a million events.
    if (message?.type === 'timeline') expect(message.columns.startNs).toBe(columns.startNs);
  });

  it('rejects plain arrays, columns of different lengths, and out-of-range kinds', () => {
    const columns = columnsFromEvents(EVENTS);
    expect(
      parseTimelineHostMessage({ type: 'timeline', meta, columns: { ...columns, startNs: [...columns.startNs] } }),
    ).toBeUndefined();
    expect(
      parseTimelineHostMessage({ type: 'timeline', meta, columns: { ...columns, bytes: columns.bytes.subarray(1) } }),
    ).toBeUndefined();
    const kind = columns.kind.slice();
    kind[3] = 9;
    expect(parseTimelineHostMessage({ type: 'timeline', meta, columns: { ...columns, kind } })).toBeUndefined();
    expect(parseTimelineHostMessage({ type: 'timeline', meta: { ...meta, vendor: 'intel' }, columns })).toBeUndefined();
  });

  it('accepts only the page messages the host handles', () => {
    expect(parseTimelineWebviewMessage({ type: 'export-trace' })).toEqual({ type: 'export-trace' });
    expect(parseTimelineWebviewMessage({ type: 'export-trace', file: '/etc/passwd' })).toEqual({
      type: 'export-trace',
    });
    expect(parseTimelineWebviewMessage({ type: 'run', command: 'rm' })).toBeUndefined();
    expect(parseTimelineWebviewMessage({ type: 'webview-error', message: 'x'.repeat(5000) })).toBeUndefined();
  });
});
