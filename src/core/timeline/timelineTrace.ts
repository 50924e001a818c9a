/**
 * Export to the Chrome trace-event JSON format, which ui.perfetto.dev and chrome://tracing
 * open: one process per GPU, one thread per lane, complete events (`X`) for spans, async
 * slices for the time each packet waited in its queue (they overlap each other, which `X`
 * events on one thread may not), and flow arrows from each doorbell to the packets it
 * announced. Times are microseconds, as the format requires. An event the hardware did not
 * report carries `inferred: true` in its args.
 *
 * Written as a sequence of string chunks, so a million events stream to disk without one
 * giant string or array of objects.
 */
import { PACKET_OPS, PATHS } from '../protocol';
import type { TimelineColumns } from './timelineFile';
import { isInferred, labelOf } from './timelineFile';
import type { TimelineMeta } from './timelineModel';
import {
  KIND_CU,
  KIND_DOORBELL,
  KIND_KERNEL,
  KIND_PACKET,
  KIND_PROXY,
  KIND_TRANSFER,
  buildIndex,
  laneLabel,
} from './timelineModel';

/** Thread ids per lane kind; the offsets keep kinds apart and sort them like the panel's lanes. */
const TID_KERNEL = 1;
const TID_PROXY = 2;
const TID_TRANSFER = 3;
const TID_ENGINE = 100;
const TID_CU = 1000;

export function traceTid(kind: number, lane: number): number {
  switch (kind) {
    case KIND_KERNEL:
      return TID_KERNEL;
    case KIND_PROXY:
      return TID_PROXY;
    case KIND_TRANSFER:
      return TID_TRANSFER;
    case KIND_CU:
      return TID_CU + lane;
    default:
      return TID_ENGINE + lane;
  }
}

const us = (ns: number) => Number((ns / 1000).toFixed(3));

function eventName(t: TimelineColumns, e: number): string {
  const kind = t.kind[e]!;
  const path = PATHS[t.path[e]!] ?? '?';
  const name = labelOf(t, e);
  if (name !== undefined) return kind === KIND_KERNEL ? name : `${name} ${path}`;
  switch (kind) {
    case KIND_KERNEL:
      return `kernel ${path}`;
    case KIND_CU:
      return `copy ${path}`;
    case KIND_PACKET:
      return PACKET_OPS[t.op[e]!] ?? 'packet';
    case KIND_DOORBELL:
      return 'doorbell';
    case KIND_TRANSFER:
      return `transfer ${path}`;
    default:
      return 'proxy';
  }
}

export function* chromeTraceChunks(
  t: TimelineColumns,
  meta: Pick<TimelineMeta, 'title' | 'simulated' | 'nodeLabel' | 'vendor' | 'gpuCus'>,
  chunkEvents = 4096,
): Generator<string> {
  const index = buildIndex(t, meta);
  const out: string[] = [];
  let first = true;
  const emit = (event: object) => {
    out.push(`${first ? '' : ',\n'}${JSON.stringify(event)}`);
    first = false;
  };
  yield `{"displayTimeUnit":"ns","otherData":${JSON.stringify({ source: 'SDMA Lens', title: meta.title, node: meta.nodeLabel, simulated: meta.simulated })},\n"traceEvents":[\n`;

  const gpus = [...new Set(index.lanes.map((l) => l.gpu))];
  for (const gpu of gpus) {
    emit({
      ph: 'M',
      name: 'process_name',
      pid: gpu,
      tid: 0,
      args: { name: `GPU ${gpu}${meta.simulated ? ' (simulated)' : ''}` },
    });
    emit({ ph: 'M', name: 'process_sort_index', pid: gpu, tid: 0, args: { sort_index: gpu } });
  }
  for (const lane of index.lanes) {
    const kind =
      lane.category === 'kernel'
        ? KIND_KERNEL
        : lane.category === 'transfer'
          ? KIND_TRANSFER
          : lane.category === 'proxy'
            ? KIND_PROXY
            : lane.category === 'cu'
              ? KIND_CU
              : KIND_PACKET;
    const tid = traceTid(kind, lane.number);
    emit({
      ph: 'M',
      name: 'thread_name',
      pid: lane.gpu,
      tid,
      args: { name: laneLabel(lane.category, lane.number, meta.vendor) },
    });
    emit({ ph: 'M', name: 'thread_sort_index', pid: lane.gpu, tid, args: { sort_index: tid } });
  }
  yield out.splice(0).join('');

  for (let e = 0; e < t.count; e++) {
    const kind = t.kind[e]!;
    const pid = t.gpu[e]!;
    const tid = traceTid(kind, t.lane[e]!);
    const path = PATHS[t.path[e]!] ?? '?';
    const startNs = t.startNs[e]!;
    const endNs = Math.max(t.endNs[e]!, startNs);
    if (kind === KIND_DOORBELL) {
      // A flow must start inside a slice on its thread, so the doorbell is a zero-length slice.
      emit({
        ph: 'X',
        cat: 'doorbell',
        name: 'doorbell',
        pid,
        tid,
        ts: us(startNs),
        dur: 0,
        args: { id: t.id[e], announces: t.ref[e], path, ...(isInferred(t, e) ? { inferred: true } : {}) },
      });
      continue;
    }
    const args: Record<string, unknown> = { id: t.id[e], path, bytes: t.bytes[e] };
    if ((t.cus?.[e] ?? 0) > 0) args.cusSeen = t.cus![e];
    // Not reported by the hardware: its times were derived (docs/PROTOCOL.md).
    if (isInferred(t, e)) args.inferred = true;
    if (kind === KIND_PACKET) {
      const queuedNs = t.queuedNs[e]!;
      if (queuedNs >= 0) {
        args.queuedNs = queuedNs;
        args.queueWaitNs = startNs - queuedNs;
        if (queuedNs < startNs) {
          emit({
            ph: 'b',
            cat: 'queue',
            name: 'queued',
            id: `q${t.id[e]}`,
            pid,
            tid,
            ts: us(queuedNs),
            args: { packet: t.id[e] },
          });
          emit({ ph: 'e', cat: 'queue', name: 'queued', id: `q${t.id[e]}`, pid, tid, ts: us(startNs) });
        }
      }
    }
    emit({
      ph: 'X',
      cat: ['kernel', 'cu', 'packet', 'doorbell', 'proxy', 'transfer'][kind] ?? 'event',
      name: eventName(t, e),
      pid,
      tid,
      ts: us(startNs),
      dur: us(endNs - startNs),
      args,
    });
    const doorbell = kind === KIND_PACKET ? index.announcedBy[e]! : -1;
    if (doorbell >= 0) {
      // One flow per packet: its id is the packet's, unique within the timeline.
      const flowId = t.id[e]!;
      emit({
        ph: 's',
        cat: 'doorbell',
        name: 'doorbell → packet',
        id: flowId,
        pid: t.gpu[doorbell],
        tid: traceTid(KIND_DOORBELL, t.lane[doorbell]!),
        ts: us(t.startNs[doorbell]!),
      });
      emit({ ph: 'f', bp: 'e', cat: 'doorbell', name: 'doorbell → packet', id: flowId, pid, tid, ts: us(startNs) });
    }
    if (out.length >= chunkEvents) yield out.splice(0).join('');
  }
  yield `${out.splice(0).join('')}\n]}\n`;
}

/** The whole trace as one string (tests, small timelines). */
export function chromeTraceJson(t: TimelineColumns, meta: Parameters<typeof chromeTraceChunks>[1]): string {
  return [...chromeTraceChunks(t, meta)].join('');
}
