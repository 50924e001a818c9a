/**
 * Where a run's timelines come from. The helper records one timeline per run, at the run's
 * timeline size, for every swept path at its default CU count; a sweep point at another size,
 * path or CU count gets its own small timeline-only helper invocation, written next to the
 * run as `timeline-<size>-<mover>-<initiator>-<cus>.sdmatl` and reused from there.
 */
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { EndpointPair } from '../endpoints';
import { endpointArg, isEndpoint, pairArg, pairName, parseEndpoint, parsePairList, samePair } from '../endpoints';
import type { PathName } from '../protocol';
import { PATHS } from '../protocol';
import type { Run } from '../run';
import { isSimulated } from '../run';
import type { TimelineColumns } from '../timeline/timelineFile';
import { TimelineFormatError, readTimelineFrom, readTimelineHeader } from '../timeline/timelineFile';
import type { TimelineMeta } from '../timeline/timelineModel';
import { columnsFromEvents } from '../timeline/timelineModel';
import { entryExists, openSafeFile } from './safeFile';
import { formatBytes, formatSizeArg } from '../units';

/** The helper's default for `--timeline-cus` (docs/PROTOCOL.md). */
export const DEFAULT_TIMELINE_CUS = 64;

export interface TimelinePoint {
  sizeBytes: number;
  path: PathName;
  /** CUs of a cu/* path; ignored for engine paths. */
  cus: number;
  /** The point's endpoint pair (-1 = host); absent: the run's first pair. */
  src?: number;
  dst?: number;
}

/** The pair a point names, if it names one. */
function pointPair(point: TimelinePoint): EndpointPair | undefined {
  return isEndpoint(point.src) && isEndpoint(point.dst) ? { src: point.src, dst: point.dst } : undefined;
}

/**
 * The pair the run's own timeline shows: its record's `src`/`dst`, else the run's one pair
 * (its `--src/--dst`, or the first of `--pairs`, or its first sample), else GPU 0 -> GPU 1
 * (runs older than endpoints).
 */
export function runTimelinePair(run: Run): EndpointPair {
  const tl = run.timeline;
  if (tl && isEndpoint(tl.src) && isEndpoint(tl.dst)) return { src: tl.src, dst: tl.dst };
  return runFirstPair(run) ?? { src: 0, dst: 1 };
}

function runFirstPair(run: Run): EndpointPair | undefined {
  const args = run.header.helper.args;
  try {
    const pairs = argValue(args, '--pairs');
    if (pairs !== undefined) return parsePairList(pairs)[0];
    const src = argValue(args, '--src');
    const dst = argValue(args, '--dst');
    if (src !== undefined && dst !== undefined) return { src: parseEndpoint(src), dst: parseEndpoint(dst) };
  } catch {
    // an edited header: fall back to what was measured
  }
  const first = run.samples.at(0);
  return first ? { src: first.src, dst: first.dst } : undefined;
}

export type TimelineLocation = { kind: 'file'; file: string } | { kind: 'inline' };

function argValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

/** CUs the run's own timeline used for cu/* paths. */
export function runTimelineCus(run: Run): number {
  const value = Number(argValue(run.header.helper.args, '--timeline-cus'));
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_TIMELINE_CUS;
}

export function timelineFileName(point: TimelinePoint): string {
  const cus = point.path.startsWith('cu/') ? point.cus : 0;
  const pair = pointPair(point);
  const where = pair ? `-${pairArg(pair).replace(':', '-')}` : '';
  return `timeline-${formatSizeArg(point.sizeBytes)}-${point.path.replace('/', '-')}-${cus}${where}.sdmatl`;
}

/** A timeline file's name as the helper and SDMA Lens write it (the panel's restore key allows the same). */
const TIMELINE_NAME = /^[A-Za-z0-9._-]{1,200}\.sdmatl$/;

/** A timeline record that names a file outside its run folder, or not a timeline: said, never read. */
export class TimelineRefusedError extends Error {}

/**
 * The run's own timeline: inline events, or a file in the run's folder. The record's `path` is
 * where the helper wrote it (over SSH, on the node; a runs folder may have moved since), so
 * only its name is looked up, in the run folder. A record naming something that is not an
 * .sdmatl file, or a file outside the run folder that is not there too, is refused
 * (TimelineRefusedError): a run file must not make SDMA Lens read /etc/passwd or ../../x.
 */
export function runTimeline(run: Run, runDir: string): TimelineLocation | undefined {
  const tl = run.timeline;
  if (!tl) return undefined;
  if ('events' in tl) return { kind: 'inline' };
  const name = basename(tl.path);
  if (!TIMELINE_NAME.test(name)) {
    throw new TimelineRefusedError(
      `run ${run.header.id}: its timeline record names ${tl.path}, which is not an .sdmatl timeline file; refused (SDMA Lens reads a run's timeline only from its run folder)`,
    );
  }
  const local = join(runDir, name);
  if (entryExists(local)) return { kind: 'file', file: local };
  const named = isAbsolute(tl.path) ? tl.path : resolve(runDir, tl.path);
  if (named !== resolve(local)) {
    throw new TimelineRefusedError(
      `run ${run.header.id}: its timeline record names ${tl.path}, outside the run folder ${runDir}, and the run folder holds no ${name}; refused (SDMA Lens reads a run's timeline only from its run folder: copy the file there as ${name})`,
    );
  }
  return { kind: 'file', file: local };
}

/** Whether the run's own timeline shows this sweep point (same size; for cu/* the same CU count). */
export function runTimelineCovers(run: Run, point: TimelinePoint): boolean {
  const tl = run.timeline;
  if (!tl || tl.sizeBytes !== point.sizeBytes) return false;
  const pathsArg = argValue(run.header.helper.args, '--paths');
  const paths = pathsArg === undefined || pathsArg === 'all' ? PATHS : pathsArg.split(',');
  if (!paths.includes(point.path)) return false;
  const pair = pointPair(point);
  if (pair && !samePair(pair, runTimelinePair(run))) return false;
  return !point.path.startsWith('cu/') || point.cus === runTimelineCus(run);
}

/** Helper arguments for a timeline of one sweep point, on the run's backend and GPUs. */
export function timelineArgs(run: Run, point: TimelinePoint, outFile: string): string[] {
  if (!isAbsolute(outFile)) throw new Error('the timeline file must be an absolute path');
  if (!(PATHS as readonly string[]).includes(point.path)) throw new Error(`unknown path ${String(point.path)}`);
  if (!Number.isInteger(point.sizeBytes) || point.sizeBytes < 1)
    throw new Error('the size must be a whole number of bytes');
  const args = run.header.helper.args;
  const backend = run.hello?.backend ?? argValue(args, '--backend') ?? 'auto';
  const cus = point.path.startsWith('cu/') ? point.cus : 1;
  if (!Number.isInteger(cus) || cus < 1 || cus > 4096) throw new Error(`CU count ${cus} is out of range`);
  const size = formatSizeArg(point.sizeBytes);
  const pick = (flag: string, fallback: string) => {
    const value = argValue(args, flag);
    return value !== undefined && /^\d{1,10}$/.test(value) ? value : fallback;
  };
  const pair = pointPair(point) ?? runFirstPair(run) ?? { src: 0, dst: 1 };
  return [
    'sweep',
    '--backend',
    backend,
    '--sizes',
    size,
    '--paths',
    point.path,
    '--cus',
    String(cus),
    '--iters',
    '1',
    '--seed',
    pick('--seed', '1'),
    '--src',
    endpointArg(pair.src),
    '--dst',
    endpointArg(pair.dst),
    '--timeline-size',
    size,
    '--timeline-cus',
    String(cus),
    '--timeline-out',
    outFile,
  ];
}

/**
 * How many events a timeline holds, from the file's 32-byte header alone (or the inline
 * record), so one too large for the panel is refused before it is read.
 */
export async function timelineEventCount(run: Run, location: TimelineLocation): Promise<number> {
  if (location.kind === 'inline') {
    const tl = run.timeline;
    return tl && 'events' in tl ? tl.events.length : 0;
  }
  const { handle, size } = await openSafeFile(location.file, 'timeline');
  try {
    const head = new Uint8Array(32);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return readTimelineHeader(head.subarray(0, bytesRead), size).count;
  } finally {
    await handle.close();
  }
}

/**
 * Reads a timeline: the sdmatl file, or the inline events of the run's record. The file's
 * columns are views over the bytes read (no second copy); `signal` cancels the read between
 * chunks and columns.
 */
export async function loadTimeline(
  run: Run,
  location: TimelineLocation,
  signal?: AbortSignal,
): Promise<TimelineColumns> {
  if (location.kind === 'inline') {
    const tl = run.timeline;
    if (!tl || !('events' in tl)) throw new Error('the run has no inline timeline');
    return columnsFromEvents(tl.events);
  }
  return loadTimelineFile(location.file, signal);
}

/**
 * Reads an sdmatl file (the panel's read, and the read of a host-held timeline's engine process)
 * straight into its columns, a chunk at a time (`readTimelineFrom`: the file is held once, each
 * column's memory written once); `signal` cancels between chunks.
 */
export async function loadTimelineFile(file: string, signal?: AbortSignal): Promise<TimelineColumns> {
  signal?.throwIfAborted();
  // A file SDMA Lens may not have written (a run folder from elsewhere): no links, FIFOs or devices, at most the helper's largest timeline.
  const { handle, size } = await openSafeFile(file, 'timeline');
  try {
    return await readTimelineFrom(size, (b, o, l, p) => handle.read(b, o, l, p).then((r) => r.bytesRead), signal);
  } catch (err) {
    if ((signal?.aborted && err === signal.reason) || err instanceof TimelineFormatError) throw err;
    throw new Error(`${file} could not be read: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    await handle.close();
  }
}

export function timelineMeta(
  run: Run,
  key: string,
  sizeBytes: number,
  focusPath?: PathName,
  cus?: number,
  pair?: EndpointPair,
): TimelineMeta {
  const topology = run.topology;
  const gpuCus: number[] = [];
  for (const gpu of topology?.gpus ?? []) gpuCus[gpu.index] = gpu.cus;
  const node = topology?.node;
  const what = focusPath ? ` · ${focusPath}${focusPath.startsWith('cu/') && cus ? ` · ${cus} CUs` : ''}` : '';
  const meta: TimelineMeta = {
    key,
    runId: run.header.id,
    title: `Timeline · ${pairName(pair ?? runTimelinePair(run))} · ${formatBytes(sizeBytes)}${what}`,
    simulated: isSimulated(run),
    nodeLabel: node ? node.model : 'unknown node',
    vendor: node?.vendor ?? 'unknown',
    sizeBytes,
    gpuCus: Array.from(gpuCus, (c) => c ?? 0),
  };
  if (focusPath) meta.focusPath = focusPath;
  return meta;
}
