/**
 * Reading a saved run back: `readRunFile` (every line validated, samples kept as columns) on a
 * sweep of 10^6 and of 10^7 samples shaped like the helper's (one real `sdma-probe sweep
 * --backend sim --iters 20` as the template, repeated with varied times and bandwidths).
 * Reference in the same run: the same file, every line of it, read a megabyte at a time
 * (decoded by a StringDecoder, split on '\n') and each line `JSON.parse`d into an object kept in
 * an array, no validation. readRunFile reads the same megabytes but splits bytes, decodes an
 * ASCII window of lines at a time and reads the next megabyte while one is parsed. Targets: at least the reference's speed (ratio >= 1.0) and at most 200 bytes
 * retained a sample (heap and typed-array memory still held once the run is read, after a GC).
 *
 * The 10^7 file (about 4.3 GB at 20 iterations) lives in the temporary folder and is deleted
 * after. Its reference parses and drops each object: held, 10^7 objects would need about 10 GB
 * of heap, past Node's default limit; so at 10^7 the reference gives the speed only.
 * READRUN_POINTS (comma-separated counts, e.g. 10000000 for the big one alone) and READRUN_ITERS
 * choose other sizes. Each side's CPU time (all threads, the reads' too) is printed beside its
 * wall time: on a machine others share, the CPU-time ratio is the steadier of the two.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readRunFile } from '../src/core/runs/runStore';
import type { Run } from '../src/core/run';
import { runHeader } from '../src/core/run';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const POINTS = (process.env.READRUN_POINTS ?? '1000000,10000000').split(',').map(Number);
const ITERS = Number(process.env.READRUN_ITERS ?? 20);
const HELD_REFERENCE_MAX = 1_000_000;
const TARGET_RATIO = 1.0;
const TARGET_BYTES = 200;

/** The helper's sweep: its hello and topology lines, and its samples as objects. */
function template(): { head: string[]; samples: Record<string, unknown>[] } {
  const lines = execFileSync(helper, ['sweep', '--backend', 'sim', '--iters', String(ITERS)], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
    .trim()
    .split('\n');
  const head = lines.filter((l) => l.startsWith('{"type":"hello"') || l.startsWith('{"type":"topology"'));
  const samples = lines
    .filter((l) => l.startsWith('{"type":"sample"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { head, samples };
}

/** Variants of each template sample: its times shifted by a few ns, its summaries to match. */
function variants(samples: Record<string, unknown>[], per: number): string[] {
  const out: string[] = [];
  for (let v = 0; v < per; v++)
    for (const s of samples) {
      const times = (s.timesNs as number[]).map((t, i) => t + ((v * 7 + i * 13) % 97));
      const sorted = [...times].sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      const k = (s.meanNs as number) / mean;
      out.push(
        JSON.stringify({
          ...s,
          timesNs: times,
          meanNs: Math.round(mean * 10) / 10,
          minNs: sorted[0],
          maxNs: sorted.at(-1),
          medianNs: sorted[sorted.length >> 1],
          gbps: Math.round((s.gbps as number) * k * 1e6) / 1e6,
          gbpsMedian: Math.round((s.gbpsMedian as number) * k * 1e6) / 1e6,
        }),
      );
    }
  return out;
}

function writeRun(file: string, points: number, head: string[], lines: string[]): void {
  const fd = openSync(file, 'w');
  let buf: string[] = [JSON.stringify(runHeader('bench', 'sweep', helper, ['sweep'])), ...head];
  let chars = 0;
  const flush = () => {
    writeSync(fd, buf.join('\n') + '\n');
    buf = [];
    chars = 0;
  };
  for (let i = 0; i < points; i++) {
    const l = lines[i % lines.length]!;
    buf.push(l);
    chars += l.length;
    if (chars > 8 << 20) flush();
  }
  buf.push(`{"type":"done","status":"ok","samples":${points},"elapsedMs":1}`);
  buf.push(
    `{"type":"run-end","status":"ok","exitCode":0,"signal":null,"message":"${points} samples","endedAt":"2026-12-04T00:00:00.000Z"}`,
  );
  flush();
  closeSync(fd);
}

/** The reference: the same chunked read, each line JSON.parse'd into an object (kept when `keep`). */
async function reference(file: string, keep: boolean): Promise<unknown[]> {
  const handle = await open(file, 'r');
  const held: unknown[] = [];
  const decoder = new StringDecoder('utf8');
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  let parts: string[] = [];
  const onLine = (line: string) => {
    if (line.length === 0) return;
    const value: unknown = JSON.parse(line);
    if (keep) held.push(value);
  };
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const text = decoder.write(chunk.subarray(0, bytesRead));
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        parts.push(text.slice(start, nl));
        onLine(parts.join(''));
        parts = [];
        start = nl + 1;
      }
      if (start < text.length) parts.push(text.slice(start));
    }
    onLine(parts.join('') + decoder.end());
  } finally {
    await handle.close();
  }
  return held;
}

/** Heap and typed-array memory still held after full GCs (typed arrays' memory is given back by a sweeper running beside, hence the pause). */
const held = async () => {
  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

async function measure<T>(
  f: () => Promise<T>,
): Promise<{ value: T; seconds: number; cpu: number; bytes: number; rss: number }> {
  const before = await held();
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const value = await f();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const used = process.cpuUsage(c0);
  const rss = process.memoryUsage().rss;
  return { value, seconds, cpu: (used.user + used.system) / 1e6, bytes: (await held()) - before, rss };
}

async function main(): Promise<void> {
  const { head, samples } = template();
  const lines = variants(samples, 16);
  const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-readrun-'));
  try {
    for (const points of POINTS) {
      const file = join(dir, 'run.ndjson');
      writeRun(file, points, head, lines);
      const mb = statSync(file).size / 1e6;
      const keep = points <= HELD_REFERENCE_MAX;
      console.log(
        `${points.toLocaleString('en-US')} samples of ${ITERS} iterations: ${mb.toFixed(0)} MB (${(
          (mb * 1e6) /
          points
        ).toFixed(0)} bytes a line)`,
      );
      let ours: Awaited<ReturnType<typeof measure<Run>>> | undefined = await measure(() => readRunFile(file));
      const run = ours.value;
      if (run.samples.length !== points || run.problems.length > 0)
        throw new Error(`read ${run.samples.length} samples, problems: ${run.problems.slice(0, 3).join('; ')}`);
      const { seconds, cpu, bytes, rss } = ours;
      const columns = run.samples.columnBytes();
      ours = undefined;
      const ref = await measure(() => reference(file, keep));
      const refSeconds = ref.seconds;
      const refBytes = ref.bytes;
      const refRss = ref.rss;
      const ratio = refSeconds / seconds;
      const cpuRatio = ref.cpu / cpu;
      const perSample = bytes / points;
      console.log(
        `  readRunFile:            ${seconds.toFixed(2)} s, ${(points / seconds / 1e6).toFixed(2)} M samples/s, ${perSample.toFixed(0)} bytes/sample retained (columns ${(columns / points).toFixed(0)}), RSS ${(rss / 1e6).toFixed(0)} MB, CPU ${cpu.toFixed(2)} s`,
      );
      console.log(
        `  reference JSON.parse:   ${refSeconds.toFixed(2)} s, ${(points / refSeconds / 1e6).toFixed(2)} M samples/s, ${
          keep ? `${(refBytes / points).toFixed(0)} bytes/sample retained` : 'objects not held (speed only)'
        }, RSS ${(refRss / 1e6).toFixed(0)} MB, CPU ${ref.cpu.toFixed(2)} s`,
      );
      const ok = ratio >= TARGET_RATIO && perSample <= TARGET_BYTES;
      console.log(
        `  speed ratio ${ratio.toFixed(2)}x the reference (target >= ${TARGET_RATIO}; CPU time ${cpuRatio.toFixed(2)}x), ${perSample.toFixed(0)} bytes/sample (target <= ${TARGET_BYTES})${
          keep ? `, ${(refBytes / bytes).toFixed(1)}x less memory than the reference` : ''
        }: ${ok ? 'ok' : 'BELOW TARGET'}`,
      );
      if (!process.env.READRUN_KEEP) rmSync(file, { force: true });
    }
  } finally {
    if (!process.env.READRUN_KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

void main();
