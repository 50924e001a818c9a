/**
 * The timeline's core work between opening an sdmatl file and its first full frame, in Node
 * (where the extension host's worker runs it), at 10^6 and 10^7 events of the simulator's
 * timeline (`sdma-probe sweep --backend sim --sizes 1M --cus 64`, as bench/timeline.mjs makes
 * it). Each step beside a reference measured in the same run on the same data, and the ratio:
 *   - read and check: `readSafeFile` (the host's read) then `readTimelineFile`, and the same
 *     file streamed into its columns (`openSafeFile`, then `readTimelineFrom` over the handle);
 *     reference: `readFileSync` of the same file into one buffer (target: ratio <= 1.5);
 *   - the index and compact lane-ordered columns (`buildIndexAndLod`); reference: a counting
 *     sort of the event indices by lane, reading the lane and start columns once each (target:
 *     about 60 ns an event);
 *   - the level of detail of the whole window at 2000 px over every lane and occupancy strip
 *     (`aggregate`); reference: one loop binning every event's start into 2000 buckets (target:
 *     about 30 ns an event).
 * With the build, the bytes an event the engine holds beside the file's columns (its index and
 * compact columns, as `buildIndexAndLod(columns, meta, true, true)` leaves them).
 * Median of 3 of each, and the first call (the code not yet optimized, as when a panel opens
 * its first timeline). For scale, the time to write a fresh buffer of the file's size once (the
 * cost of memory the process has not touched yet, which every new column pays).
 * TIMELINE_CORE_EVENTS (comma-separated counts) chooses other sizes. A
 * level of detail whose totals do not account for every event exits non-zero.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSafeFile, readSafeFile } from '../src/core/runs/safeFile';
import type { TimelineColumns } from '../src/core/timeline/timelineFile';
import { readTimelineFile, readTimelineFrom } from '../src/core/timeline/timelineFile';
import { lodBytesPerEvent } from '../src/core/timeline/timelineCompact';
import { aggregate } from '../src/core/timeline/timelineLod';
import { buildIndexAndLod } from '../src/core/timeline/timelineModel';
import { makeSimTimeline } from './simTimeline';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const SIZES = (process.env.TIMELINE_CORE_EVENTS ?? '1000000,10000000').split(',').map(Number);
const BUCKETS = 2000;
const TARGET_READ_RATIO = 1.5;
const TARGET_BUILD_NS = 60;
const TARGET_LOD_NS = 30;

function timed<T>(f: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
}

async function timedAsync<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Counting sort of the event indices by lane, and each lane's running maximum of its starts. */
function referenceBuild(t: TimelineColumns): number {
  const n = t.count;
  const lane = t.lane;
  const start = t.startNs;
  const counts = new Int32Array(0x1_0001);
  for (let i = 0; i < n; i++) counts[(lane[i]! & 0xffff) + 1]!++;
  for (let l = 0; l < 0x1_0000; l++) counts[l + 1]! += counts[l]!;
  const order = new Int32Array(n);
  const running = new Float64Array(n);
  const last = new Float64Array(0x1_0000).fill(-Infinity);
  for (let i = 0; i < n; i++) {
    const l = lane[i]! & 0xffff;
    const k = counts[l]!++;
    order[k] = i;
    const s = start[i]!;
    if (s > last[l]!) last[l] = s;
    running[k] = last[l]!;
  }
  return order[n - 1]! + running[n - 1]!;
}

/** Every event's start into one of BUCKETS buckets of the window. */
function referenceLod(t: TimelineColumns, fromNs: number, toNs: number): number {
  const counts = new Float64Array(BUCKETS);
  const start = t.startNs;
  const perNs = BUCKETS / (toNs - fromNs);
  for (let i = 0; i < t.count; i++) {
    let b = Math.floor((start[i]! - fromNs) * perNs);
    if (b < 0) b = 0;
    else if (b >= BUCKETS) b = BUCKETS - 1;
    counts[b]!++;
  }
  return counts[0]!;
}

const pad = (s: string, n: number) => s.padEnd(n);
const ns = (ms: number, n: number) => `${((ms * 1e6) / n).toFixed(1)} ns/event`;

function line(what: string, all: number[], refAll: number[], n: number, target: string, met: boolean): void {
  const ms = median(all);
  const refMs = median(refAll);
  console.log(
    `  ${pad(what, 22)} ${ms.toFixed(0).padStart(6)} ms ${pad(`(${ns(ms, n)})`, 20)} reference ${refMs.toFixed(0).padStart(5)} ms ${pad(`(${ns(refMs, n)})`, 20)} ratio ${(ms / refMs).toFixed(2)}  ${target}${met ? '' : '  MISSED'}`,
  );
  console.log(
    `    first call           ${all[0]!.toFixed(0).padStart(6)} ms ${pad(`(${ns(all[0]!, n)})`, 20)} reference ${refAll[0]!.toFixed(0).padStart(5)} ms ${pad('', 20)} ratio ${(all[0]! / refAll[0]!).toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-bench-timeline-core-'));
  let wrong = false;
  try {
    for (const wanted of SIZES) {
      const file = makeSimTimeline(helper, dir, wanted);
      readFileSync(file); // into the page cache: both reads below start from there
      const readMs: number[] = [];
      const readRefMs: number[] = [];
      const checkMs: number[] = [];
      const streamMs: number[] = [];
      let t: TimelineColumns | undefined;
      for (let r = 0; r < 3; r++) {
        t = undefined;
        streamMs.push(
          (
            await timedAsync(async () => {
              const { handle, size } = await openSafeFile(file, 'timeline');
              try {
                return await readTimelineFrom(size, (buffer, offset, length, position) =>
                  handle.read(buffer, offset, length, position).then((got) => got.bytesRead),
                );
              } finally {
                await handle.close();
              }
            })
          ).ms,
        );
        readRefMs.push(timed(() => readFileSync(file).byteLength).ms);
        const read = await timedAsync(async () => {
          const bytes = await readSafeFile(file, 'timeline');
          const t1 = performance.now();
          const columns = readTimelineFile(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
          checkMs.push(performance.now() - t1);
          return columns;
        });
        readMs.push(read.ms);
        t = read.value;
      }
      const n = t!.count;
      console.log(`${n.toLocaleString('en-US')} events (${(statSync(file).size / 1e6).toFixed(0)} MB):`);
      const read = median(readMs);
      const readRef = median(readRefMs);
      line(
        'read + check',
        readMs,
        readRefMs,
        n,
        `(target <= ${TARGET_READ_RATIO}; readFileSync)`,
        read / readRef <= TARGET_READ_RATIO,
      );
      line(
        'read + check, streamed',
        streamMs,
        readRefMs,
        n,
        `(target <= ${TARGET_READ_RATIO}; readFileSync)`,
        median(streamMs) / readRef <= TARGET_READ_RATIO,
      );
      console.log(
        `    of which the check   ${median(checkMs).toFixed(0).padStart(6)} ms (${ns(median(checkMs), n)}; first call ${checkMs[0]!.toFixed(0)} ms)`,
      );
      const size = statSync(file).size;
      const fresh = timed(() => new Uint8Array(size).fill(1).byteLength).ms;
      console.log(
        `  fresh memory           ${fresh.toFixed(0).padStart(6)} ms to write ${(size / 1e6).toFixed(0)} MB once (${((fresh * 1e6) / size).toFixed(2)} ns a byte)`,
      );

      const buildMs: number[] = [];
      const buildRefMs: number[] = [];
      let built: ReturnType<typeof buildIndexAndLod> | undefined;
      for (let r = 0; r < 3; r++) {
        built = undefined;
        buildRefMs.push(timed(() => referenceBuild(t!)).ms);
        // As the timeline's engine builds it: the index shares the compact columns' running maxima.
        const b = timed(() => buildIndexAndLod(t!, { gpuCus: [], vendor: 'amd' }, true, true));
        buildMs.push(b.ms);
        built = b.value;
      }
      const build = median(buildMs);
      line(
        'buildIndexAndLod',
        buildMs,
        buildRefMs,
        n,
        `(target <= ${TARGET_BUILD_NS} ns/event; counting sort by lane)`,
        (build * 1e6) / n <= TARGET_BUILD_NS,
      );

      const { index, lod } = built!;
      // The file's `ref` column and the compact columns' running maxima are shared, not held twice.
      const indexBytes =
        index.laneOf.byteLength +
        index.order.byteLength +
        index.announcedBy.byteLength +
        (index.refIndex === t!.ref ? 0 : index.refIndex.byteLength) +
        (index.maxEnd === lod!.maxEnd ? 0 : index.maxEnd.byteLength);
      const compact = lodBytesPerEvent(lod!);
      console.log(
        `  engine holds           ${(indexBytes / n + compact).toFixed(1).padStart(6)} B/event beside the file's columns (index ${(indexBytes / n).toFixed(1)}, compact columns ${compact.toFixed(1)}, times ${lod!.blocks ? '32-bit offsets from block bases' : 'float64'})`,
      );
      const lanes = [...index.lanes.map((l) => l.id), ...index.heat.map((h) => h.id)];
      const request = { startNs: index.startNs, endNs: index.endNs, buckets: BUCKETS, lanes, rawMinPx: 2 };
      const lodMs: number[] = [];
      const lodRefMs: number[] = [];
      for (let r = 0; r < 3; r++) {
        lodRefMs.push(timed(() => referenceLod(t!, index.startNs, index.endNs)).ms);
        const a = timed(() => aggregate(lod!, index, request));
        lodMs.push(a.ms);
        let counted = 0;
        for (let s = 0; s < index.lanes.length; s++) counted += a.value.totals.count[s]!;
        if (counted !== n) {
          console.error(`  the level of detail accounts for ${counted} events of ${n}`);
          wrong = true;
        }
      }
      const lodFigure = median(lodMs);
      line(
        `aggregate ${BUCKETS} px`,
        lodMs,
        lodRefMs,
        n,
        `(target <= ${TARGET_LOD_NS} ns/event; starts into ${BUCKETS} buckets)`,
        (lodFigure * 1e6) / n <= TARGET_LOD_NS,
      );
      console.log(
        `  first frame's core work ${(read + build + lodFigure).toFixed(0).padStart(5)} ms (read + check, index, level of detail)`,
      );
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (wrong) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
