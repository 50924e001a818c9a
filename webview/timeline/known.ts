/**
 * The few events the page knows about: those the latest level-of-detail answer draws one by
 * one, and the selection with its related events, as the engine's records sent them. Kept as
 * sparse columns indexed by event, so the drawing code reads `t.kind[e]` as it would from the
 * whole timeline; bounded (cleared past KNOWN_MAX events, then refilled by the next answers).
 */
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import type { EventRecords } from '../../src/core/timeline/timelineQueries';

/** Events kept before the store starts again from the next answer. */
export const KNOWN_MAX = 1 << 18;

type Sparse = Record<number, number>;

export interface KnownEvents {
  /** Sparse columns: only the known events' entries exist. */
  columns: TimelineColumns;
  /** Lane id of each known event. */
  laneOf: Int32Array;
  size: number;
}

export function emptyKnown(): KnownEvents {
  const sparse = () => ({}) as Sparse;
  const columns = {
    count: 0,
    kind: sparse(),
    op: sparse(),
    path: sparse(),
    gpu: sparse(),
    lane: sparse(),
    id: sparse(),
    ref: sparse(),
    startNs: sparse(),
    endNs: sparse(),
    queuedNs: sparse(),
    bytes: sparse(),
    flags: sparse(),
    label: sparse(),
    labels: [] as string[],
  };
  // Read by index only, as typed arrays are: the drawing and describing code takes either.
  return { columns: columns as unknown as TimelineColumns, laneOf: sparse() as unknown as Int32Array, size: 0 };
}

/** Adds `r`'s events to `known` (a fresh store when it would grow past KNOWN_MAX); returns the store to keep. */
export function remember(known: KnownEvents, r: EventRecords): KnownEvents {
  const k = known.size + r.ids.length > KNOWN_MAX ? emptyKnown() : known;
  const c = k.columns as unknown as Record<string, Sparse> & { labels: string[] };
  for (let i = 0; i < r.ids.length; i++) {
    const e = r.ids[i]!;
    if (c.kind![e] === undefined) k.size++;
    k.laneOf[e] = r.laneOf[i]!;
    c.kind![e] = r.kind[i]!;
    c.op![e] = r.op[i]!;
    c.path![e] = r.path[i]!;
    c.gpu![e] = r.gpu[i]!;
    c.lane![e] = r.lane[i]!;
    c.id![e] = r.id[i]!;
    c.startNs![e] = r.startNs[i]!;
    c.endNs![e] = r.endNs[i]!;
    c.queuedNs![e] = r.queuedNs[i]!;
    c.bytes![e] = r.bytes[i]!;
    c.flags![e] = r.flags[i]!;
    const label = r.label[i];
    if (label === undefined) c.label![e] = -1;
    else {
      c.label![e] = c.labels.length;
      c.labels.push(label);
    }
  }
  return k;
}
