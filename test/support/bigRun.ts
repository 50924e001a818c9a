/**
 * A saved sweep run of any number of points, for the scale tests and bench/scale.bench.ts:
 * run.ndjson written in chunks as it is made (never held whole in memory), its records in the
 * shapes the helper prints (src/core/protocol.ts), from a simulated two-GPU node.
 *
 * Its shape makes every part of the analysis work: two GPU pairs (0 -> 1, 1 -> 0), on each the
 * four paths, cu/* at 8 and 64 CUs, a few thousand sizes per series spaced 4 KiB apart with
 * per-iteration noise. Per pair, device-initiated copies have a crossover against both CU
 * counts; host-initiated ones have one against 8 CUs and tie against 64 CUs at every size (no
 * clear winner); every 997th size misses its engine/device sample (measured for one path only).
 * `scale` slows B of a comparison down (1.02: every time 2 % longer).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Hello, Topology } from '../../src/core/protocol';
import type { Run, RunHeader } from '../../src/core/run';
import { RUN_FILE_NAME, applyRecord, newRun } from '../../src/core/run';

export interface BigSweepOptions {
  /** Sample lines to write. */
  points: number;
  id?: string;
  /** Timed iterations per sample (default 5, the fewest that give a spread). */
  iters?: number;
  seed?: number;
  /** Every time multiplied by this (default 1). */
  scale?: number;
  /** More fields of the run header (a fleet node's `fleet`). */
  header?: Record<string, unknown>;
}

export interface BigSweep {
  file: string;
  points: number;
  /** Distinct sizes. */
  sizes: number;
  bytes: number;
}

const PAIRS = [
  [0, 1],
  [1, 0],
] as const;

interface Series {
  mover: 'cu' | 'engine';
  initiator: 'host' | 'device';
  cus: number;
  /** Fixed cost (ns) and bytes per ns. */
  base: number;
  rate: number;
}

/** Per pair, in the helper's order of paths. */
const SERIES: Series[] = [
  { mover: 'cu', initiator: 'host', cus: 8, base: 1000, rate: 20 },
  { mover: 'cu', initiator: 'host', cus: 64, base: 2500, rate: 45 },
  { mover: 'cu', initiator: 'device', cus: 8, base: 1500, rate: 20 },
  { mover: 'cu', initiator: 'device', cus: 64, base: 1500, rate: 50 },
  { mover: 'engine', initiator: 'host', cus: 0, base: 2500, rate: 45 },
  { mover: 'engine', initiator: 'device', cus: 0, base: 7000, rate: 60 },
];

const HELLO = {
  type: 'hello',
  protocol: 1,
  helper: { name: 'sdma-probe', version: '0.1.0' },
  command: 'sweep',
  backend: 'sim',
  simulated: true,
  backendsBuilt: ['sim'],
  pid: 1,
};
const gpu = (index: number) => ({
  index,
  name: 'AMD Instinct MI350X (simulated)',
  arch: 'gfx950',
  cus: 256,
  memoryBytes: 309237645312,
  engines: [
    { id: 0, kind: 'pcie' },
    { id: 1, kind: 'xgmi', maxGbps: 61 },
  ],
});
const TOPOLOGY = {
  type: 'topology',
  node: { name: 'simulated MI350X node', vendor: 'amd', model: 'AMD Instinct MI350X', simulated: true },
  gpus: [gpu(0), gpu(1)],
  links: [
    { src: 0, dst: 1, kind: 'xgmi', count: 1, gbpsPerDirection: 64 },
    { src: 1, dst: 0, kind: 'xgmi', count: 1, gbpsPerDirection: 64 },
  ],
  libraries: [],
};

/** Samples per size when none is missing. */
export const POINTS_PER_SIZE = PAIRS.length * SERIES.length;

/** xorshift32: the same file for the same seed, fast enough for millions of lines. */
export function random(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

/** One sample of the model: what a sample line holds, its numbers as the line prints them. */
interface Point {
  mover: 'cu' | 'engine';
  initiator: 'host' | 'device';
  src: number;
  dst: number;
  sizeBytes: number;
  cus: number;
  /** Reused between points: copy it to keep it. */
  times: number[];
  meanNs: number;
  minNs: number;
  maxNs: number;
  stdevNs: number;
}

/** `x` to `digits` decimals, as a number (what toFixed prints, without its trailing zeros). */
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The samples of the model, in the order a sweep prints them (size by size), each in one reused object; returns the distinct sizes. */
function eachPoint(o: BigSweepOptions, visit: (p: Point) => void): number {
  const iters = o.iters ?? 5;
  const scale = o.scale ?? 1;
  const rnd = random(o.seed ?? 1);
  const times: number[] = new Array<number>(iters);
  const point: Point = {
    mover: 'cu',
    initiator: 'host',
    src: 0,
    dst: 0,
    sizeBytes: 0,
    cus: 0,
    times,
    meanNs: 0,
    minNs: 0,
    maxNs: 0,
    stdevNs: 0,
  };
  let written = 0;
  let sizes = 0;
  for (let k = 0; written < o.points; k++) {
    const sizeBytes = 4096 * (k + 1);
    sizes++;
    for (const [p, [src, dst]] of PAIRS.entries()) {
      for (const s of SERIES) {
        if (written >= o.points) break;
        if (s.mover === 'engine' && s.initiator === 'device' && k % 997 === 500) continue;
        const ideal = (s.base + sizeBytes / s.rate) * scale * (1 + 0.01 * p);
        let sum = 0;
        let minNs = Infinity;
        let maxNs = 0;
        for (let i = 0; i < iters; i++) {
          const t = Math.round(ideal * (0.98 + 0.04 * rnd()));
          times[i] = t;
          sum += t;
          if (t < minNs) minNs = t;
          if (t > maxNs) maxNs = t;
        }
        const mean = sum / iters;
        let sq = 0;
        for (const t of times) sq += (t - mean) * (t - mean);
        Object.assign(point, {
          mover: s.mover,
          initiator: s.initiator,
          src,
          dst,
          sizeBytes,
          cus: s.cus,
          meanNs: round(mean, 1),
          minNs,
          maxNs,
          stdevNs: round(Math.sqrt(sq / iters), 1),
        });
        visit(point);
        written++;
      }
    }
  }
  return sizes;
}

function headerOf(o: BigSweepOptions): RunHeader {
  const args = ['sweep', '--backend', 'sim', '--iters', String(o.iters ?? 5)];
  return {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id: o.id ?? 'big-sweep',
    command: 'sweep',
    createdAt: '2026-11-30T00:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args },
    ...o.header,
  } as RunHeader;
}

const gbps = (p: Point) => round(p.sizeBytes / p.meanNs, 6);
const gbpsMax = (p: Point) => round(p.sizeBytes / p.minNs, 6);

/** Writes run.ndjson of a sweep with `points` samples to `file`, a megabyte at a time. */
export function writeBigSweep(file: string, o: BigSweepOptions): BigSweep {
  const iters = o.iters ?? 5;
  const fd = openSync(file, 'w');
  let bytes = 0;
  let chunk = '';
  const flush = () => {
    bytes += writeSync(fd, chunk);
    chunk = '';
  };
  const put = (line: string) => {
    chunk += line;
    if (chunk.length >= 1 << 20) flush();
  };
  let written = 0;
  let sizes = 0;
  try {
    put(`${[headerOf(o), HELLO, TOPOLOGY].map((r) => JSON.stringify(r)).join('\n')}\n`);
    // The line by hand, in the helper's field order: JSON.stringify of each would take most of the time.
    sizes = eachPoint(o, (p) => {
      put(
        `{"type":"sample","mover":"${p.mover}","initiator":"${p.initiator}","src":${p.src},"dst":${p.dst},"sizeBytes":${p.sizeBytes},"cus":${p.cus},"engines":${p.mover === 'engine' ? 1 : 0},"iters":${iters},` +
          `"timesNs":[${p.times.join(',')}],"meanNs":${p.meanNs},"minNs":${p.minNs},"maxNs":${p.maxNs},"stdevNs":${p.stdevNs},"gbps":${gbps(p)},"gbpsMax":${gbpsMax(p)},"validated":true}\n`,
      );
      written++;
    });
    put(`{"type":"done","status":"ok","samples":${written},"elapsedMs":0}\n`);
    put(
      `{"type":"run-end","status":"ok","exitCode":0,"signal":null,"message":"${written} samples","endedAt":"2026-11-30T00:00:01.000Z"}\n`,
    );
    flush();
  } finally {
    closeSync(fd);
  }
  return { file, points: written, sizes, bytes };
}

/** The same sweep as a Run in memory, as reading its file gives it (for timing the analysis alone). */
export function bigSweepRun(o: BigSweepOptions): Run {
  const run = newRun(headerOf(o));
  const iters = o.iters ?? 5;
  applyRecord(run, HELLO as Hello);
  applyRecord(run, TOPOLOGY as Topology);
  eachPoint(o, (p) => {
    const engines = p.mover === 'engine' ? 1 : 0;
    applyRecord(run, {
      type: 'sample',
      mover: p.mover,
      initiator: p.initiator,
      src: p.src,
      dst: p.dst,
      sizeBytes: p.sizeBytes,
      cus: p.cus,
      engines,
      iters,
      timesNs: [...p.times],
      meanNs: p.meanNs,
      minNs: p.minNs,
      maxNs: p.maxNs,
      stdevNs: p.stdevNs,
      gbps: gbps(p),
      gbpsMax: gbpsMax(p),
      validated: true,
    });
  });
  applyRecord(run, { type: 'done', status: 'ok', samples: run.samples.length, elapsedMs: 0 });
  run.end = {
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: `${run.samples.length} samples`,
    endedAt: '2026-11-30T00:00:01.000Z',
  };
  return run;
}

/** The same, as run `id` in the runs folder `runsDir` (its run.ndjson). */
export function saveBigSweep(runsDir: string, o: BigSweepOptions & { id: string }): BigSweep {
  const dir = join(runsDir, o.id);
  mkdirSync(dir, { recursive: true });
  return writeBigSweep(join(dir, RUN_FILE_NAME), o);
}
