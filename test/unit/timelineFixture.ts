/**
 * A real timeline: `sdma-probe sweep --backend sim --sizes 256M --iters 1 --cus 4
 * --timeline-size 256M --timeline-cus 4` (inline form), one iteration of the four paths.
 * `repeated` lays it out again and again like `--timeline-iters` for scale tests.
 */
import type { PathName, TimelineEvent } from '../../src/core/protocol';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { TIMELINE_COLUMN_NAMES } from '../../src/core/timeline/timelineFile';
import { columnsFromEvents } from '../../src/core/timeline/timelineModel';

type Row = [
  TimelineEvent['kind'],
  number,
  number,
  number,
  number,
  TimelineEvent['op'],
  number,
  number,
  number,
  number,
  PathName,
];

const ROWS: Row[] = [
  ['kernel', 0, 0, 0, -1, 'none', 4500, 17072912, -1, 268435456, 'cu/host'],
  ['cu', 0, 0, 1, -1, 'none', 4635, 16482745, -1, 67108864, 'cu/host'],
  ['cu', 0, 32, 2, -1, 'none', 4608, 16361217, -1, 67108864, 'cu/host'],
  ['cu', 0, 64, 3, -1, 'none', 4505, 16500637, -1, 67108864, 'cu/host'],
  ['cu', 0, 96, 4, -1, 'none', 4734, 17072912, -1, 67108864, 'cu/host'],
  ['kernel', 0, 0, 5, -1, 'none', 17075912, 34285758, -1, 268435456, 'cu/device'],
  ['cu', 0, 0, 6, -1, 'none', 17076762, 33918234, -1, 67108864, 'cu/device'],
  ['cu', 0, 32, 7, -1, 'none', 17076865, 34285008, -1, 67108864, 'cu/device'],
  ['cu', 0, 64, 8, -1, 'none', 17076742, 33868434, -1, 67108864, 'cu/device'],
  ['cu', 0, 96, 9, -1, 'none', 17076675, 33412780, -1, 67108864, 'cu/device'],
  ['doorbell', 0, 2, 10, 11, 'none', 34294158, 34294158, -1, 0, 'engine/host'],
  ['packet', 0, 2, 11, -1, 'copy', 34298258, 36498549, 34295158, 134217728, 'engine/host'],
  ['packet', 0, 2, 12, -1, 'copy+signal', 36498549, 38698840, 34295158, 134217728, 'engine/host'],
  ['kernel', 0, 0, 13, -1, 'none', 38703840, 43108921, -1, 268435456, 'engine/device'],
  ['cu', 0, 0, 14, -1, 'none', 38703840, 38704240, -1, 0, 'engine/device'],
  ['doorbell', 0, 2, 15, 16, 'none', 38704240, 38704240, -1, 0, 'engine/device'],
  ['packet', 0, 2, 16, -1, 'copy', 38708340, 40908630, 38705240, 134217728, 'engine/device'],
  ['packet', 0, 2, 17, -1, 'copy+signal', 40908630, 43108921, 38705240, 134217728, 'engine/device'],
];

export const EVENTS: TimelineEvent[] = ROWS.map(
  ([kind, gpu, lane, id, ref, op, startNs, endNs, queuedNs, bytes, path]) => ({
    kind,
    gpu,
    lane,
    id,
    ref,
    op,
    startNs,
    endNs,
    queuedNs,
    bytes,
    path,
  }),
);

/** One iteration's span plus the simulator's 2 us gap between layouts. */
export const ITERATION_NS = Math.max(...EVENTS.map((e) => e.endNs)) + 2000;

export function repeated(times: number): TimelineColumns {
  const events: TimelineEvent[] = [];
  for (let r = 0; r < times; r++) {
    const shift = r * ITERATION_NS;
    const idShift = r * EVENTS.length;
    for (const e of EVENTS) {
      events.push({
        ...e,
        id: e.id + idShift,
        ref: e.ref >= 0 ? e.ref + idShift : -1,
        startNs: e.startNs + shift,
        endNs: e.endNs + shift,
        queuedNs: e.queuedNs >= 0 ? e.queuedNs + shift : -1,
      });
    }
  }
  return columnsFromEvents(events);
}

/** The engine/device events of a real AMD run (GpuBackend::appendEvents): doorbell and packet inferred, engine unknown. */
export const AMD_ENGINE_DEVICE: TimelineEvent[] = [
  { ...EVENTS[13]!, id: 18 },
  { ...EVENTS[14]!, id: 19, lane: 7 },
  { ...EVENTS[15]!, id: 20, ref: 21, lane: 0xffff, inferred: true },
  {
    ...EVENTS[17]!,
    id: 21,
    lane: 0xffff,
    startNs: EVENTS[15]!.startNs,
    queuedNs: EVENTS[15]!.startNs,
    bytes: 268435456,
    inferred: true,
  },
].map((e) => ({
  ...e,
  startNs: e.startNs + ITERATION_NS,
  endNs: e.endNs + ITERATION_NS,
  queuedNs: e.queuedNs >= 0 ? e.queuedNs + ITERATION_NS : -1,
}));

/** Every column an sdmatl file holds (version 2), in file order: what the readers' tests compare. */
export const FILE_COLUMNS = TIMELINE_COLUMN_NAMES;

/**
 * The columns as an sdmatl file of `version` (docs/PROTOCOL.md): the header, then each column
 * padded to 8 bytes; version 2 adds `flags` (0 where the columns have none).
 */
export function sdmatlBytes(t: TimelineColumns, version: 1 | 2 = 2): Uint8Array {
  const flags = t.flags ?? new Uint8Array(t.count);
  const columns: ArrayBufferView[] = [
    t.kind,
    t.op,
    t.path,
    t.gpu,
    t.lane,
    t.id,
    t.ref,
    t.startNs,
    t.endNs,
    t.queuedNs,
    t.bytes,
    ...(version >= 2 ? [flags] : []),
  ];
  const pad8 = (n: number) => Math.ceil(n / 8) * 8;
  const size = 32 + columns.reduce((sum, c) => sum + pad8(c.byteLength), 0);
  const out = new Uint8Array(size);
  out.set([0x53, 0x44, 0x4d, 0x41, 0x54, 0x4c, 0, 1]);
  const view = new DataView(out.buffer);
  view.setUint32(8, version, true);
  view.setBigUint64(16, BigInt(t.count), true);
  let offset = 32;
  for (const c of columns) {
    out.set(new Uint8Array(c.buffer, c.byteOffset, c.byteLength), offset);
    offset += pad8(c.byteLength);
  }
  return out;
}
