/**
 * The timeline of a Profile run (`sdma-probe run -- program`), built from its `dispatch` and
 * `copy` records instead of an sdmatl file: per GPU, the kernel launches (named, with the CUs
 * the device trace saw), the host-started copies as packets on their copy engine's lane, and
 * the transfers kernels started (trace.h) on a lane of their own. Pure: no I/O, no VS Code.
 *
 * Placement:
 * - a launch: its GPU's kernel lane; bytes = the device-started copies it contains; path =
 *   the path of most of those bytes (`cu/host`, a host-launched kernel, when it made none);
 * - `engine/host` copies: a `copy` packet on the engine lane of their `engineId`, or on the
 *   "Unknown engine" lane (CUPTI and rocprofv3 do not say which engine); on the source GPU,
 *   or the destination GPU when the source is host memory;
 * - any other copy (device-started, or CUs started by the host): a `transfer` on the GPU of
 *   the launch that contains it (as runMode.ts decides), else its source GPU, else its
 *   destination GPU;
 * - copies between two host memories have no GPU to sit on: they are counted, not drawn;
 * - a device-trace span (`device-span`): a `cu` event on its GPU's lane of that CU (XCC x 1024
 *   + CU), labelled, with its bytes; `mover/device` for a transfer, `cu/host` for a scope (the
 *   CU ran the host-launched kernel's own work, the colour of a launch that made no copies).
 */
import type { DeviceSpanColumns } from '../deviceSpans';
import { SPAN_ENGINE, isScope } from '../deviceSpans';
import type { CopyOp, Dispatch, PathName } from '../protocol';
import { PACKET_OPS, PATHS, pathName } from '../protocol';
import type { Run } from '../run';
import { isSimulated } from '../run';
import type { TimelineColumns } from '../timeline/timelineFile';
import { emptyColumns } from '../timeline/timelineFile';
import type { TimelineMeta } from '../timeline/timelineModel';
import { ENGINE_UNKNOWN, KIND_CU, KIND_KERNEL, KIND_PACKET, KIND_TRANSFER } from '../timeline/timelineModel';
import { owningDispatch } from './profileSummary';

export interface ProfileTimeline {
  columns: TimelineColumns;
  /** Copies between two host memories, which no GPU lane can show. */
  hostOnlyCopies: number;
}

/** Launches per GPU sorted by start, as owningDispatch wants them. */
function launchesByGpu(dispatches: readonly Dispatch[]): Map<number, Dispatch[]> {
  const byGpu = new Map<number, Dispatch[]>();
  for (const d of dispatches) {
    const list = byGpu.get(d.gpu) ?? [];
    list.push(d);
    byGpu.set(d.gpu, list);
  }
  for (const list of byGpu.values()) list.sort((a, b) => a.startNs - b.startNs);
  return byGpu;
}

export function profileTimeline(run: Pick<Run, 'dispatches' | 'copies' | 'deviceSpans'>): ProfileTimeline {
  const { dispatches, copies } = run;
  const spans: DeviceSpanColumns | undefined = run.deviceSpans;
  const byGpu = launchesByGpu(dispatches);
  const labels: string[] = [];
  const labelIndex = new Map<string, number>();
  const labelOf = (name: string | undefined) => {
    if (name === undefined || name === '') return -1;
    let i = labelIndex.get(name);
    if (i === undefined) {
      i = labels.length;
      labels.push(name);
      labelIndex.set(name, i);
    }
    return i;
  };

  // What each launch moved itself, by path, to size and colour its span.
  const owned = new Map<Dispatch, Map<PathName, number>>();
  const placed: { copy: CopyOp; gpu: number; transfer: boolean }[] = [];
  let hostOnlyCopies = 0;
  for (const c of copies) {
    const path = pathName(c.mover, c.initiator);
    const packet = path === 'engine/host';
    const owner = c.initiator === 'device' ? owningDispatch(c, byGpu) : undefined;
    if (owner) {
      const bytes = owned.get(owner) ?? new Map<PathName, number>();
      bytes.set(path, (bytes.get(path) ?? 0) + c.bytes);
      owned.set(owner, bytes);
    }
    const gpu = !packet && owner ? owner.gpu : c.srcGpu >= 0 ? c.srcGpu : c.dstGpu;
    if (gpu < 0) {
      hostOnlyCopies++;
      continue;
    }
    placed.push({ copy: c, gpu, transfer: !packet });
  }

  const n = dispatches.length + placed.length + (spans?.count ?? 0);
  const columns: TimelineColumns = {
    ...emptyColumns(n, true),
    label: new Int32Array(n),
    labels,
    cus: new Uint32Array(n),
  };

  let e = 0;
  for (const d of dispatches) {
    const bytes = owned.get(d);
    let path: PathName = 'cu/host';
    let total = 0;
    let most = 0;
    for (const [p, b] of bytes ?? []) {
      total += b;
      if (b > most) {
        most = b;
        path = p;
      }
    }
    columns.kind[e] = KIND_KERNEL;
    columns.path[e] = PATHS.indexOf(path);
    columns.gpu[e] = d.gpu;
    columns.id[e] = e;
    columns.startNs[e] = d.startNs;
    columns.endNs[e] = d.endNs;
    columns.bytes[e] = total;
    columns.label![e] = labelOf(d.name);
    columns.cus![e] = d.cusSeen ?? 0;
    e++;
  }
  const copyOp = PACKET_OPS.indexOf('copy');
  for (const { copy: c, gpu, transfer } of placed) {
    columns.kind[e] = transfer ? KIND_TRANSFER : KIND_PACKET;
    columns.op[e] = transfer ? 0 : copyOp;
    columns.path[e] = PATHS.indexOf(pathName(c.mover, c.initiator));
    columns.gpu[e] = gpu;
    columns.lane[e] = transfer ? 0 : (c.engineId ?? ENGINE_UNKNOWN);
    columns.id[e] = e;
    columns.startNs[e] = c.startNs;
    columns.endNs[e] = c.endNs;
    columns.bytes[e] = c.bytes;
    columns.label![e] = labelOf(c.label);
    e++;
  }
  if (spans) addSpans(columns, e, spans, labelOf);
  return { columns, hostOnlyCopies };
}

const CU_HOST = PATHS.indexOf('cu/host');
const CU_DEVICE = PATHS.indexOf('cu/device');
const ENGINE_DEVICE = PATHS.indexOf('engine/device');

/** One `cu` event per device-trace span, from event `first` on. */
function addSpans(
  columns: TimelineColumns,
  first: number,
  spans: DeviceSpanColumns,
  labelOf: (name: string | undefined) => number,
): void {
  const labelOfSpanLabel = spans.labels.map((name) => labelOf(name));
  for (let i = 0, e = first; i < spans.count; i++, e++) {
    columns.kind[e] = KIND_CU;
    columns.path[e] = isScope(spans, i) ? CU_HOST : spans.flags[i]! & SPAN_ENGINE ? ENGINE_DEVICE : CU_DEVICE;
    columns.gpu[e] = spans.gpu[i]!;
    columns.lane[e] = spans.cu[i]!;
    columns.id[e] = e;
    columns.startNs[e] = spans.startNs[i]!;
    columns.endNs[e] = spans.endNs[i]!;
    columns.bytes[e] = spans.bytes[i]!;
    columns.label![e] = labelOfSpanLabel[spans.label[i]!]!;
  }
}

/** The printed program (what followed `--` in the helper's arguments), or the imported profile. */
function programOf(run: Run): string {
  if (run.header.command === 'import')
    return `imported ${run.header.helper.args.at(-1)?.split('/').pop() ?? 'profile'}`;
  const argv = run.program?.start?.argv;
  if (argv && argv.length > 0) return argv.join(' ');
  const args = run.header.helper.args;
  const at = args.indexOf('--');
  return at >= 0 ? args.slice(at + 1).join(' ') : 'program';
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** What a Profile timeline opens on: the filter and the words of its title. */
export interface KernelFocus {
  filter: string;
  kernel: string;
  ambiguous?: string;
}

/** The restore key of a Profile timeline: `<run id>/run-mode[?filter=…&kernel=…&ambiguous=…]`, values URI-encoded. */
export function profileTimelineKey(runId: string, focus?: KernelFocus): string {
  if (!focus) return `${runId}/run-mode`;
  const parts = [`filter=${encodeURIComponent(focus.filter)}`, `kernel=${encodeURIComponent(focus.kernel)}`];
  if (focus.ambiguous) parts.push(`ambiguous=${encodeURIComponent(focus.ambiguous)}`);
  return `${runId}/run-mode?${parts.join('&')}`;
}

const RUN_MODE_KEY =
  /^([A-Za-z0-9._-]{1,128})\/run-mode(?:\?((?:filter|kernel|ambiguous)=[A-Za-z0-9%._~!*'()-]*(?:&(?:filter|kernel|ambiguous)=[A-Za-z0-9%._~!*'()-]*){0,2}))?$/;

/** The run and focus a Profile timeline key names; undefined when it is not one (or is damaged). */
export function parseProfileTimelineKey(key: string): { runId: string; focus?: KernelFocus } | undefined {
  const m = key.length <= 8000 ? RUN_MODE_KEY.exec(key) : null;
  if (!m) return undefined;
  if (!m[2]) return { runId: m[1]! };
  const values = new Map<string, string>();
  try {
    for (const part of m[2].split('&')) {
      const at = part.indexOf('=');
      values.set(part.slice(0, at), decodeURIComponent(part.slice(at + 1)));
    }
  } catch {
    return undefined;
  }
  const filter = values.get('filter');
  if (!filter) return undefined;
  const focus: KernelFocus = { filter, kernel: values.get('kernel') || filter };
  const ambiguous = values.get('ambiguous');
  if (ambiguous) focus.ambiguous = ambiguous;
  return { runId: m[1]!, focus };
}

/**
 * What the panel shows about a Profile timeline; `focus` names the launches the lens asked for.
 * `gpuCus` is the topology's CU (SM) count per GPU, what the CU occupancy strip is a fraction of.
 */
export function profileTimelineMeta(run: Run, key: string, focus?: KernelFocus): TimelineMeta {
  const gpuCus: number[] = [];
  for (const gpu of run.topology?.gpus ?? []) gpuCus[gpu.index] = gpu.cus;
  const node = run.topology?.node;
  const what = focus
    ? ` · kernel ${shorten(focus.kernel, 160)}${focus.ambiguous ? ` (${shorten(focus.ambiguous, 160)})` : ''}`
    : '';
  // Over --span-records the helper kept the first spans only: the CU lanes end early, say so.
  const capped =
    run.deviceSpans && run.warnings.some((w) => w.code === 'device-spans-capped')
      ? ` · CU lanes: first ${run.deviceSpans.count.toLocaleString('en-US')} spans only`
      : '';
  const meta: TimelineMeta = {
    key,
    runId: run.header.id,
    title: `Run timeline · ${shorten(programOf(run), 120)}${what}${capped}`,
    simulated: isSimulated(run),
    nodeLabel: node ? node.model : 'unknown node',
    vendor: node?.vendor ?? 'unknown',
    sizeBytes: 0,
    gpuCus: Array.from(gpuCus, (c) => c ?? 0),
  };
  if (focus) meta.filter = focus.filter;
  return meta;
}
