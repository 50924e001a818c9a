/**
 * The fleet view at 1,000 nodes, simulated: 8 real simulator sweeps (seeds 1..8, default sizes,
 * 4 paths, CUs 8 and 64, 10 iterations) become the runs of 1,000 "nodes", each with its own
 * 1% of node-to-node noise, 10 of them with copy engines at 70%, saved as run files with a
 * fleet index, as `sdma-lens fleet` leaves them. Then, as a user reads it back:
 *   - `loadFleet` (1,000 run files through the run reader) and `fleetView` (every figure over
 *     every node, median/MAD), against the reference of reading and JSON-parsing the same
 *     files' lines without the reducer, measured in the same run;
 *   - `sdma-lens fleet show --json` end to end (dist/cli.js);
 *   - the same at 100 nodes, for the growth per node (linear: about 1);
 *   - detection: the 10 weak nodes found, and nodes flagged that were not made weak.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The floor: every line of every run file read and JSON-parsed, nothing folded. */
function referenceRead(runs: string, n: number): number {
  const t0 = performance.now();
  let lines = 0;
  for (let i = 0; i < n; i++) {
    const text = readFileSync(join(runs, `sweep-node${String(i).padStart(4, '0')}`, RUN_FILE_NAME), 'utf8');
    for (const line of text.split('\n')) if (line && JSON.parse(line) !== null) lines++;
  }
  if (lines === 0) throw new Error('no lines');
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(n: number, seeds: string[][], root: string) {
  const { runs, id, weak } = writeFleet(join(root, String(n)), n, seeds);
  const store = new RunStore(runs);
  const fleets = new FleetStore(runs);
  const times = { load: [] as number[], view: [] as number[], ref: [] as number[] };
  let found = 0;
  let flagged = 0;
  let figures = 0;
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    const loaded = await loadFleet(store, fleets, id);
    const t1 = performance.now();
    const view = judgeFleet(loaded.index, loaded.nodes);
    const t2 = performance.now();
    times.load.push(t1 - t0);
    times.view.push(t2 - t1);
    times.ref.push(referenceRead(runs, n));
    const nodes = new Set(view.outliers.map((o) => o.node));
    found = [...weak].filter((w) => nodes.has(w)).length;
    flagged = [...nodes].filter((x) => !weak.has(x)).length;
    figures = view.figures.length;
  }
  const t0 = performance.now();
  const cli = spawnSync(process.execPath, ['dist/cli.js', 'fleet', 'show', id, '--runs-dir', runs, '--json'], {
    encoding: 'utf8',
    maxBuffer: 512 << 20,
  });
  const cliMs = performance.now() - t0;
  if (cli.status !== 0) throw new Error(`fleet show exited ${cli.status}: ${cli.stderr}`);
  return {
    n,
    load: median(times.load),
    view: median(times.view),
    ref: median(times.ref),
    cliMs,
    jsonBytes: cli.stdout.length,
    found,
    weak: weak.size,
    flagged,
    figures,
  };
}

async function main() {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8].map(simSweep);
  const root = mkdtempSync(join(tmpdir(), 'sdma-bench-fleet-'));
  try {
    const small = await measure(100, seeds, root);
    const big = await measure(1000, seeds, root);
    console.log(
      `fleet view, simulated: ${seeds[0]!.filter((l) => l.includes('"sample"')).length} samples a node, 1% node-to-node noise, every ${WEAK_EVERY}th node's engines at 70%; median of 3`,
    );
    for (const m of [small, big]) {
      console.log(`  ${m.n} nodes, ${m.figures} figures:`);
      console.log(`    loadFleet (read ${m.n} run files):   ${m.load.toFixed(0)} ms`);
      console.log(`    fleetView (judge every figure):    ${m.view.toFixed(0)} ms`);
      console.log(`    reference, read + JSON.parse only: ${m.ref.toFixed(0)} ms`);
      console.log(`    ratio (load + view) / reference:   ${((m.load + m.view) / m.ref).toFixed(2)}`);
      console.log(
        `    sdma-lens fleet show --json:       ${m.cliMs.toFixed(0)} ms, ${(m.jsonBytes / 1e6).toFixed(1)} MB of JSON`,
      );
      console.log(`    weak nodes found: ${m.found} of ${m.weak}; other nodes flagged: ${m.flagged}`);
    }
    const growth = (big.load + big.view) / big.n / ((small.load + small.view) / small.n);
    console.log(`  time per node, 1000 / 100 nodes:     ${growth.toFixed(2)} (linear: about 1)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
