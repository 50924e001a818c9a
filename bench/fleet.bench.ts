/**
 * The fleet view at 10,000 nodes, simulated: 8 real simulator sweeps (seeds 1..8, default sizes,
 * 4 paths, CUs 8 and 64, 10 iterations) become the runs of N "nodes", each with its own 1% of
 * node-to-node noise, every 100th with copy engines at 70%, saved as run files with a fleet
 * index, as `sdma-lens fleet` leaves them. Then, as a user reads it back, each in a process of
 * its own so that its peak RSS is its own:
 *   - `loadFleet` (N run files through the run reader, each reduced to its figures, by a pool of
 *     worker threads as `fleet show` reads them; this bundle serves as their script) and
 *     `judgeFleet` (every figure over every node, median/MAD): time and peak RSS, against the
 *     reference of reading and JSON-parsing the same files' lines without the reducer, measured
 *     in the same run; and `loadFleet` in-process (no workers, synchronous reads) beside it;
 *   - `sdma-lens fleet show --json` end to end (dist/cli.js; `npm run build` first), its output
 *     to a file: time and peak RSS against the same reference;
 *   - at 1,000 and 10,000 nodes (SDMA_BENCH_FLEET_NODES=100,1000 for a quick run), for the
 *     growth per node (linear: about 1);
 *   - the CPU time of each process (every thread's), beside the reference's: the machine's
 *     cores are shared, and CPU time is less swayed than the time by what else runs;
 *   - detection: the weak nodes found, and nodes flagged that were not made weak.
 * SDMA_BENCH_FLEET_DIR=<folder> writes the fleets there and keeps them (`<folder>/<N>/runs`, fleet `fleet-<N>`).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { loadFleet } from '../src/core/fleetRun/fleetLoad';
import type { FleetIndex } from '../src/core/fleet/fleetIndex';
import { FleetStore } from '../src/core/fleetRun/fleetStore';
import { judgeFleet } from '../src/core/fleet/fleetView';
import { RUN_FILE_NAME } from '../src/core/run';
import { RunStore } from '../src/core/runs/runStore';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const WEAK_EVERY = 100;

function simSweep(seed: number): string[] {
  const r = spawnSync(
    helper,
    [
      'sweep',
      '--backend',
      'sim',
      '--paths',
      'cu/host,cu/device,engine/host,engine/device',
      '--cus',
      '8,64',
      '--iters',
      '10',
      '--seed',
      String(seed),
    ],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (r.status !== 0) throw new Error(`sdma-probe sweep exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim().split('\n');
}

/** A deterministic noise factor per node in [0.99, 1.01]. */
function noise(i: number): number {
  const x = Math.sin(i * 12.9898) * 43758.5453;
  return 0.99 + 0.02 * (x - Math.floor(x));
}

function nodeLines(lines: string[], i: number): string[] {
  const weak = i % WEAK_EVERY === 7;
  return lines.map((line) => {
    const r = JSON.parse(line);
    if (r.type !== 'sample') return line;
    const k = noise(i) * (weak && r.mover === 'engine' ? 0.7 : 1);
    r.gbps *= k;
    for (const f of ['gbpsMax', 'gbpsMedian'] as const) if (r[f] !== undefined) r[f] *= k;
    r.meanNs /= k;
    if (r.timesNs) r.timesNs = r.timesNs.map((t: number) => t / k);
    for (const f of ['minNs', 'maxNs', 'medianNs'] as const) if (r[f] !== undefined) r[f] /= k;
    return JSON.stringify(r);
  });
}

function writeFleet(root: string, n: number, seeds: string[][]): { runs: string; id: string; weak: Set<string> } {
  const runs = join(root, 'runs');
  const id = `fleet-${n}`;
  const weak = new Set<string>();
  const nodes: FleetIndex['nodes'] = [];
  for (let i = 0; i < n; i++) {
    const node = `node${String(i).padStart(4, '0')}`;
    if (i % WEAK_EVERY === 7) weak.add(node);
    const runId = `sweep-${node}`;
    const header = {
      type: 'run',
      format: 'sdma-lens-run',
      version: 1,
      id: runId,
      command: 'sweep',
      createdAt: '2026-12-02T00:00:00Z',
      target: { kind: 'local' },
      helper: { path: 'sdma-probe', args: [] },
      fleet: { id, node, job: '1' },
    };
    const end = {
      type: 'run-end',
      status: 'ok',
      exitCode: 0,
      signal: null,
      message: '',
      endedAt: '2026-12-02T00:00:01Z',
    };
    mkdirSync(join(runs, runId), { recursive: true });
    writeFileSync(
      join(runs, runId, RUN_FILE_NAME),
      `${[JSON.stringify(header), ...nodeLines(seeds[i % seeds.length]!, i), JSON.stringify(end)].join('\n')}\n`,
    );
    nodes.push({ node, runs: [{ command: 'sweep', runId, status: 'ok' }] });
  }
  const index: FleetIndex = {
    format: 'sdma-lens-fleet',
    version: 1,
    id,
    createdAt: '2026-12-02T00:00:00Z',
    via: { kind: 'local' },
    slurm: { job: '1', ownAllocation: true },
    commands: ['sweep'],
    args: {},
    status: 'ok',
    nodes,
  };
  new FleetStore(runs).write(index);
  return { runs, id, weak };
}

/** The floor: every line of every run file read and JSON-parsed, nothing folded, nothing kept. */
function referenceRead(runs: string, n: number): number {
  let lines = 0;
  for (let i = 0; i < n; i++) {
    const text = readFileSync(join(runs, `sweep-node${String(i).padStart(4, '0')}`, RUN_FILE_NAME), 'utf8');
    for (const line of text.split('\n')) if (line && JSON.parse(line) !== null) lines++;
  }
  if (lines === 0) throw new Error('no lines');
  return lines;
}

/** In a child process of its own (so its peak RSS is its own): one measurement, printed as a JSON line. */
async function child(mode: string, runs: string, id: string, n: number): Promise<void> {
  const t0 = performance.now();
  if (mode === 'ref') {
    referenceRead(runs, n);
    console.log(JSON.stringify({ ms: performance.now() - t0 }));
    return;
  }
  const loaded = await loadFleet(
    new RunStore(runs),
    new FleetStore(runs),
    id,
    mode === 'load' ? { workers: { script: process.argv[1]! } } : {},
  );
  const t1 = performance.now();
  const view = judgeFleet(loaded.index, loaded.nodes);
  const t2 = performance.now();
  console.log(
    JSON.stringify({
      load: t1 - t0,
      view: t2 - t1,
      outlierNodes: [...new Set(view.outliers.map((o) => o.node))],
      figures: view.figures.length,
    }),
  );
}

interface Measured {
  ms: number;
  rssMb: number;
  /** CPU time of the process, every thread's, user and system (less swayed than the time by others sharing the cores). */
  cpuMs: number;
  out: string;
}

/** `args` run by Node with the peak-RSS and CPU-time preload; stdout to `outFile` when given (a large JSON is not held here). */
function run(dir: string, args: string[], outFile?: string): Measured {
  const rssFile = join(dir, 'rss');
  const preload = join(dir, 'max-rss.cjs');
  writeFileSync(
    preload,
    "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.SDMA_BENCH_RSS, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}`); });\n",
  );
  writeFileSync(rssFile, '');
  const fd = outFile ? openSync(outFile, 'w') : undefined;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['-r', preload, ...args], {
    env: { ...process.env, SDMA_BENCH_RSS: rssFile },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', fd ?? 'pipe', 'pipe'],
  });
  const ms = performance.now() - t0;
  if (fd !== undefined) closeSync(fd);
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [rssKb, cpuUs] = readFileSync(rssFile, 'utf8').split(' ').map(Number);
  return { ms, rssMb: rssKb! / 1024, cpuMs: cpuUs! / 1000, out: r.stdout ?? '' };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(n: number, seeds: string[][], root: string) {
  const { runs, id, weak } = writeFleet(join(root, String(n)), n, seeds);
  const self = process.argv[1]!;
  const reps = n <= 1000 ? 3 : 1;
  const load: { load: number; view: number; rssMb: number; cpuMs: number; outlierNodes: string[]; figures: number }[] =
    [];
  const inProcess: typeof load = [];
  const ref: Measured[] = [];
  for (let k = 0; k < reps; k++) {
    const m = run(root, [self, '--child', 'load', runs, id, String(n)]);
    load.push({ ...(JSON.parse(m.out) as (typeof load)[number]), rssMb: m.rssMb, cpuMs: m.cpuMs });
    const p = run(root, [self, '--child', 'load-in-process', runs, id, String(n)]);
    inProcess.push({ ...(JSON.parse(p.out) as (typeof load)[number]), rssMb: p.rssMb, cpuMs: p.cpuMs });
    const r = run(root, [self, '--child', 'ref', runs, id, String(n)]);
    ref.push({ ...r, ms: (JSON.parse(r.out) as { ms: number }).ms });
  }
  const jsonFile = join(root, `fleet-${n}.json`);
  const cli = run(root, ['dist/cli.js', 'fleet', 'show', id, '--runs-dir', runs, '--json'], jsonFile);
  const json = JSON.parse(readFileSync(jsonFile, 'utf8')) as { nodes: unknown[] };
  if (json.nodes.length !== n) throw new Error(`fleet show --json listed ${json.nodes.length} nodes of ${n}`);
  const nodes = new Set(load[0]!.outlierNodes);
  return {
    n,
    reps,
    load: median(load.map((m) => m.load)),
    view: median(load.map((m) => m.view)),
    rssMb: Math.max(...load.map((m) => m.rssMb)),
    cpuMs: median(load.map((m) => m.cpuMs)),
    inProcessCpuMs: median(inProcess.map((m) => m.cpuMs)),
    refCpuMs: median(ref.map((m) => m.cpuMs)),
    cliCpuMs: cli.cpuMs,
    inProcess: median(inProcess.map((m) => m.load + m.view)),
    inProcessRssMb: Math.max(...inProcess.map((m) => m.rssMb)),
    ref: median(ref.map((m) => m.ms)),
    refRssMb: Math.max(...ref.map((m) => m.rssMb)),
    cliMs: cli.ms,
    cliRssMb: cli.rssMb,
    jsonBytes: statSync(jsonFile).size,
    found: [...weak].filter((w) => nodes.has(w)).length,
    weak: weak.size,
    flagged: [...nodes].filter((x) => !weak.has(x)).length,
    figures: load[0]!.figures,
  };
}

async function main() {
  if (process.argv[2] === '--child') {
    const [mode, runs, id, n] = process.argv.slice(3);
    return child(mode!, runs!, id!, Number(n));
  }
  // SDMA_BENCH_FLEET_NODES=100,1000 for a quick run; by default 1,000 and 10,000 nodes.
  const sizes = (process.env.SDMA_BENCH_FLEET_NODES ?? '1000,10000').split(',').map(Number);
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8].map(simSweep);
  // SDMA_BENCH_FLEET_DIR: the fleets are written there and kept (to read them again, e.g. `fleet show`).
  const kept = process.env.SDMA_BENCH_FLEET_DIR;
  const root = kept ? (mkdirSync(kept, { recursive: true }), kept) : mkdtempSync(join(tmpdir(), 'sdma-bench-fleet-'));
  try {
    const results = [];
    for (const n of sizes) results.push(await measure(n, seeds, root));
    console.log(
      `fleet view, simulated: ${seeds[0]!.filter((l) => l.includes('"sample"')).length} samples a node, 1% node-to-node noise, every ${WEAK_EVERY}th node's engines at 70%; each in a process of its own`,
    );
    for (const m of results) {
      console.log(`  ${m.n} nodes, ${m.figures} figures (median of ${m.reps}):`);
      console.log(`    loadFleet (read ${m.n} run files, worker threads): ${m.load.toFixed(0)} ms`);
      console.log(`    judgeFleet (judge every figure):         ${m.view.toFixed(0)} ms`);
      console.log(
        `    load + judge: ${(m.load + m.view).toFixed(0)} ms (${((m.load + m.view) / m.n).toFixed(3)} ms a node), peak RSS ${m.rssMb.toFixed(0)} MiB`,
      );
      console.log(
        `    load + judge in-process (no workers):    ${m.inProcess.toFixed(0)} ms, peak RSS ${m.inProcessRssMb.toFixed(0)} MiB`,
      );
      console.log(
        `    reference, read + JSON.parse only:       ${m.ref.toFixed(0)} ms, peak RSS ${m.refRssMb.toFixed(0)} MiB`,
      );
      console.log(
        `    ratio (load + judge) / reference:        ${((m.load + m.view) / m.ref).toFixed(2)} time, ${(m.rssMb / m.refRssMb).toFixed(2)} peak RSS`,
      );
      console.log(
        `    sdma-lens fleet show --json:             ${m.cliMs.toFixed(0)} ms, peak RSS ${m.cliRssMb.toFixed(0)} MiB, ${(m.jsonBytes / 1e6).toFixed(1)} MB of JSON`,
      );
      console.log(
        `    ratio fleet show / reference:            ${(m.cliMs / m.ref).toFixed(2)} time, ${(m.cliRssMb / m.refRssMb).toFixed(2)} peak RSS`,
      );
      console.log(
        `    CPU time of the whole process (every thread): workers ${m.cpuMs.toFixed(0)} ms, in-process ${m.inProcessCpuMs.toFixed(0)} ms, fleet show ${m.cliCpuMs.toFixed(0)} ms; reference ${m.refCpuMs.toFixed(0)} ms`,
      );
      console.log(
        `    ratio CPU time / reference's:            workers ${(m.cpuMs / m.refCpuMs).toFixed(2)}, in-process ${(m.inProcessCpuMs / m.refCpuMs).toFixed(2)}, fleet show ${(m.cliCpuMs / m.refCpuMs).toFixed(2)}`,
      );
      console.log(`    weak nodes found: ${m.found} of ${m.weak}; other nodes flagged: ${m.flagged}`);
    }
    if (results.length > 1) {
      const [small, big] = [results[0]!, results.at(-1)!];
      const growth = (big.load + big.view) / big.n / ((small.load + small.view) / small.n);
      console.log(`  time per node, ${big.n} / ${small.n} nodes:     ${growth.toFixed(2)} (linear: about 1)`);
    }
  } finally {
    if (!kept) rmSync(root, { recursive: true, force: true });
  }
}

// In a worker thread this bundle is a fleet reader (fleetReaders.ts), not the benchmark.
if (isMainThread) void main();
