/**
 * Facts about one event, and about one level-of-detail run, in the words of the domain, for
 * the tooltip and the details pane.
 */
import { PACKET_OPS, PATHS } from '../protocol';
import type { TimelineColumns } from './timelineFile';
import { isInferred, labelOf } from './timelineFile';
import type { TimelineIndex, TimelineMeta } from './timelineModel';
import {
  ENGINE_UNKNOWN,
  KIND_CU,
  KIND_DOORBELL,
  KIND_KERNEL,
  KIND_PACKET,
  KIND_PROXY,
  KIND_TRANSFER,
  laneLabel,
} from './timelineModel';
import type { LodResult } from './timelineLod';
import { formatBytes, formatGbps } from '../units';
import { formatDuration } from '../units';

const MOVER_WORDS: Record<string, string> = { cu: 'compute units', engine: 'copy engine' };
const INITIATOR_WORDS: Record<string, string> = { host: 'started by the CPU', device: 'started by a running kernel' };

export function pathWords(path: string): string {
  const [mover, initiator] = path.split('/');
  return `${path} (${MOVER_WORDS[mover ?? ''] ?? mover}, ${INITIATOR_WORDS[initiator ?? ''] ?? initiator})`;
}

/** A point in time on the timeline, to the nanosecond: "19,204.613 µs". */
export function formatTime(ns: number): string {
  return `${(ns / 1000).toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 })} µs`;
}

export function describeRun(t: TimelineColumns, e: number, at: 'start' | 'end' = 'start'): string {
  const when = formatTime(at === 'end' ? t.endNs[e]! : t.startNs[e]!);
  const kind = t.kind[e];
  if (kind === KIND_PACKET) return `${when} (${PACKET_OPS[t.op[e]!]} ${formatBytes(t.bytes[e]!)})`;
  if (kind === KIND_KERNEL)
    return `${when} (${labelOf(t, e) ?? ''}${labelOf(t, e) !== undefined ? ', ' : ''}${formatDuration(t.endNs[e]! - t.startNs[e]!)})`;
  return when;
}

/**
 * The label of a packet's `queuedNs`: when its doorbell was seen, so the packet was in the
 * engine's queue (docs/PROTOCOL.md). On NVIDIA's `engine/device` path the host proxy thread sees
 * the doorbell and submits the copy (docs/MEASUREMENT.md), so the label names the proxy there.
 */
function seenBy(path: string, vendor: TimelineMeta['vendor']): string {
  return vendor === 'nvidia' && path === 'engine/device'
    ? 'Queued (doorbell seen by the host proxy)'
    : 'Queued (doorbell seen by the engine)';
}

/** What the legend and the details pane call a box the hardware did not report. */
export const INFERRED_WORDS = 'not reported by the hardware';

/**
 * Why an inferred event sits where it does: what its times were taken from instead
 * (docs/MEASUREMENT.md, "Observed or inferred, and which engine"). The simulator draws engine/device as a
 * real AMD GPU does, and says so.
 */
export function inferredWhy(kind: number, path: string, vendor: TimelineMeta['vendor'], simulated = false): string {
  let why: string;
  if (path === 'engine/device' && vendor === 'nvidia' && kind === KIND_PACKET)
    why =
      'the copy engine reports no times of its own: the box runs from the host proxy submitting the copy to the kernel seeing it complete, the bounds of the copy, not its start and end';
  else if (path === 'engine/device' && kind === KIND_PACKET)
    why =
      "rocSHMEM writes the SDMA packets inside the put call and no engine reports them: the box runs from the put's return to rocshmem_quiet's return, as the kernel timed them";
  else if (path === 'engine/device' && kind === KIND_DOORBELL)
    why = "rung inside rocSHMEM's put call: placed where the call returned, as the kernel timed it";
  else why = 'its times were derived from what was observed around it';
  return simulated ? `${why} (simulated: drawn as a real AMD GPU run shows it)` : why;
}

/** The engine of a packet or doorbell, in words: "engine 2", or "unknown engine". */
function engineWords(lane: number): string {
  return lane === ENGINE_UNKNOWN ? 'unknown engine' : `engine ${lane}`;
}

export function describeEvent(
  t: TimelineColumns,
  index: TimelineIndex,
  e: number,
  vendor: TimelineMeta['vendor'],
  simulated = false,
): { title: string; rows: [string, string][] } {
  const kind = t.kind[e]!;
  const path = PATHS[t.path[e]!] ?? '?';
  const start = t.startNs[e]!;
  const end = t.endNs[e]!;
  const bytes = t.bytes[e]!;
  const lane = index.lanes[index.laneOf[e]!];
  const rows: [string, string][] = [];
  const name = labelOf(t, e);
  const inferred = isInferred(t, e);
  let title: string;
  switch (kind) {
    case KIND_KERNEL:
      title = name !== undefined ? `Kernel · ${name}` : `Kernel · ${path}`;
      break;
    case KIND_TRANSFER:
      title = `Transfer started by a kernel · ${path}`;
      break;
    case KIND_CU:
      title = `${laneLabel('cu', t.lane[e]!, vendor)} busy · ${path}`;
      break;
    case KIND_PACKET:
      title = `${vendor === 'nvidia' ? 'Copy-engine' : 'SDMA'} packet · ${PACKET_OPS[t.op[e]!]}`;
      break;
    case KIND_DOORBELL:
      title = `Doorbell · ${engineWords(t.lane[e]!)}`;
      break;
    case KIND_PROXY:
      title = 'Host proxy thread';
      break;
    default:
      title = 'Event';
  }
  if (inferred) title += ' · inferred';
  if (name !== undefined) rows.push([kind === KIND_KERNEL ? 'Name' : 'Label', name]);
  rows.push(['Path', pathWords(path)]);
  rows.push(['Where', `GPU ${t.gpu[e]} · ${lane?.label ?? ''}`]);
  if (inferred) rows.push(['Inferred', `${INFERRED_WORDS}; ${inferredWhy(kind, path, vendor, simulated)}`]);
  const cus = t.cus?.[e] ?? 0;
  if (kind === KIND_KERNEL && t.cus)
    rows.push([vendor === 'nvidia' ? 'SMs seen' : 'CUs seen', cus > 0 ? `${cus} (device trace)` : 'not traced']);
  if ((kind === KIND_PACKET || kind === KIND_DOORBELL) && t.lane[e] === ENGINE_UNKNOWN)
    rows.push(['Engine', 'unknown: nothing reported which engine ran it']);
  if (kind === KIND_DOORBELL) {
    rows.push(['Rung at', formatTime(start)]);
    const first = index.refIndex[e]!;
    if (first >= 0)
      rows.push(['Announces', `packet ${t.id[first]} (${PACKET_OPS[t.op[first]!]} ${formatBytes(t.bytes[first]!)})`]);
  } else {
    // A packet's times in the order they happen: the doorbell rung, seen (the packet queued), started.
    if (kind === KIND_PACKET && index.announcedBy[e]! >= 0)
      rows.push(['Doorbell rung', formatTime(t.startNs[index.announcedBy[e]!]!)]);
    // An inferred packet queued when it started (AMD's engine/device) has no queue time of its own to show.
    if (kind === KIND_PACKET && t.queuedNs[e]! >= 0 && !(inferred && t.queuedNs[e] === start)) {
      rows.push([seenBy(path, vendor), formatTime(t.queuedNs[e]!)]);
      rows.push(['Waited in queue', formatDuration(start - t.queuedNs[e]!)]);
    }
    rows.push(['Start', formatTime(start)]);
    rows.push(['End', formatTime(end)]);
    rows.push(['Duration', formatDuration(end - start)]);
  }
  if (bytes > 0) rows.push(['Bytes', `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} B)`]);
  if (bytes > 0 && end > start && kind !== KIND_KERNEL)
    rows.push(['Rate', `${formatGbps(bytes / (end - start))} GB/s`]);
  if (bytes > 0 && end > start && kind === KIND_KERNEL)
    rows.push(['Rate over the kernel', `${formatGbps(bytes / (end - start))} GB/s`]);
  rows.push(['Event id', String(t.id[e])]);
  return { title, rows };
}

/** The tooltip of a level-of-detail run: what the events summed in it add up to. */
export function describeAggregate(r: LodResult, i: number, cuCount?: number): string[] {
  const nsPerBucket = (r.endNs - r.startNs) / r.buckets;
  const spanNs = (r.runs.b1[i]! - r.runs.b0[i]!) * nsPerBucket;
  const busy = r.runs.busyNs[i]! / (spanNs * (cuCount ?? 1));
  const count = r.runs.count[i]!;
  const bytes = r.runs.bytes[i]!;
  const lines = [
    cuCount
      ? `${Math.round(busy * 100)} % of ${cuCount} CUs busy`
      : `${count.toLocaleString('en-US')} event${count === 1 ? '' : 's'} (zoom in to see each)`,
  ];
  lines.push(`busy ${Math.round(Math.min(busy, 1) * 100)} % of ${formatDuration(spanNs)}`);
  if (cuCount) lines.push(`${count.toLocaleString('en-US')} CU spans start here`);
  if (bytes > 0) lines.push(`${formatBytes(Math.round(bytes))} in events starting here`);
  lines.push(`mostly ${PATHS[r.runs.path[i]!] ?? ''}`);
  if (r.runs.inferred[i]) lines.push(`includes inferred events: ${INFERRED_WORDS}`);
  return lines;
}
