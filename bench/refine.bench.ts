/**
 * Refinement against a uniform grid, on the simulator with a fixed cost per work unit
 * (--sim-delay-ms 20, so time follows the number of points as on hardware): the default
 * 13-size sweep plus `--refine` (±10%), against a uniform log-spaced grid from 4 KiB to 1 GiB
 * fine enough to place every crossing within ±10% by itself, same paths (all four), CUs (64)
 * and repetitions (SDMA_LENS_BENCH_SIM_DELAY_MS=0 for a quick check of the crossovers alone). Prints both wall times, their ratio (goal: <= 30%, printed with the decimals it takes to
 * tell a figure just over the goal from the goal), and each crossover as
 * each placed it. Through the CLI (dist/cli.js), as a user runs it.
 *
 * Then it checks what the refinement claims: each refined crossover against the uniform grid's
 * (the same pair, initiator and CU count, from `sdma-lens advise --json` of each run). Their
 * estimates may differ, but not beyond both intervals: ranges that do not overlap are a
 * DISAGREE line and a non-zero exit, so a run of the benchmarks notices.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniformGrid } from '../src/core/sweep/refine';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const common = [
  '--backend',
  'sim',
  '--paths',
  'all',
  '--cus',
  '64',
  '--iters',
  '20',
  '--sim-delay-ms',
  process.env.SDMA_LENS_BENCH_SIM_DELAY_MS ?? '20',
  '--json',
  '--helper',
  helper,
];

interface Result {
  seconds: number;
  json: { refinement?: { summary: string; crossovers: string[]; elapsedMs: number; gridMs: number }; runId: string };
}

function sweep(dir: string, extra: string[]): Result {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['dist/cli.js', 'sweep', ...common, '--runs-dir', dir, ...extra], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`sdma-lens sweep ${extra.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { seconds: (performance.now() - t0) / 1000, json: JSON.parse(r.stdout) };
}

interface AdvisedCrossover {
  initiator: string;
  cus: number;
  kind: string;
  estimateBytes?: number;
  rangeBytes?: [number, number];
}

/** The crossovers `sdma-lens advise --json` finds in a run (a refined sweep with its rounds' samples). */
function advised(dir: string, runId: string): AdvisedCrossover[] {
  const r = spawnSync(process.execPath, ['dist/cli.js', 'advise', runId, '--runs-dir', dir, '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`sdma-lens advise ${runId} exited ${r.status}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { crossovers: AdvisedCrossover[] }).crossovers;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;

/** Each refined crossover against the grid's: the figures, and whether their ranges overlap. Gives the disagreements' count. */
function compareCrossovers(uniform: AdvisedCrossover[], refined: AdvisedCrossover[]): number {
  let disagree = 0;
  console.log("  refined crossovers against the uniform grid's (estimate, range from the repetitions' quartiles):");
  for (const r of refined.filter((c) => c.kind === 'crossover' && c.cus === 64)) {
    const u = uniform.find((c) => c.initiator === r.initiator && c.cus === r.cus);
    const label = `${r.initiator}-initiated, 64 CUs`;
    if (!u || u.kind !== 'crossover' || !u.rangeBytes || !r.rangeBytes) {
      console.log(
        `    DISAGREE ${label}: the uniform grid finds ${u ? u.kind : 'nothing'} where the refinement finds a crossover`,
      );
      disagree++;
      continue;
    }
    const apart = Math.abs(r.estimateBytes! - u.estimateBytes!) / u.estimateBytes!;
    const overlap = r.rangeBytes[0] <= u.rangeBytes[1] && u.rangeBytes[0] <= r.rangeBytes[1];
    if (!overlap) disagree++;
    console.log(
      `    ${overlap ? 'agree   ' : 'DISAGREE'} ${label}: refined ${mib(r.estimateBytes!)} (${mib(r.rangeBytes[0])}..${mib(r.rangeBytes[1])}), uniform ${mib(u.estimateBytes!)} (${mib(u.rangeBytes[0])}..${mib(u.rangeBytes[1])}): ${(100 * apart).toFixed(1)}% apart, ranges ${overlap ? 'overlap' : 'DO NOT overlap'}`,
    );
  }
  return disagree;
}

function crossovers(dir: string, runId: string): string[] {
  const r = spawnSync(process.execPath, ['dist/cli.js', 'advise', runId, '--runs-dir', dir], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => /-initiated, against/.test(l))
    .map((l) => l.replace(/^#\s+/, '').replace(/\).*$/, ')'));
}

/** The goal: the refined sweep's wall time at most this fraction of the uniform grid's. */
const GOAL = 0.3;

/**
 * `x` as a percentage, with as many decimals as it takes (up to 6) not to print a figure over
 * the goal as the goal itself: 30.04% is not "30.0%".
 */
function percent(x: number, goal: number): string {
  let digits = 1;
  while (digits < 6 && x !== goal && (100 * x).toFixed(digits) === (100 * goal).toFixed(digits)) digits++;
  return `${(100 * x).toFixed(digits)}%`;
}

const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-refine-'));
try {
  const fine = uniformGrid(4096, 1 << 30, 0.1);
  const full = sweep(dir, ['--sizes', fine.join(',')]);
  const refined = sweep(dir, ['--refine', '--refine-tolerance', '0.1']);
  const ratio = refined.seconds / full.seconds;
  console.log(
    `refinement vs a uniform grid, simulated MI350X, 4 paths, 64 CUs, 20 iterations, ${common[9]} ms per work unit`,
  );
  console.log(`  uniform grid for ±10% (${fine.length} sizes, 4 KiB..1 GiB):  ${full.seconds.toFixed(2)} s`);
  console.log(
    `  13-size grid + --refine (±10%):                  ${refined.seconds.toFixed(2)} s (grid ${(refined.json.refinement!.gridMs / 1000).toFixed(2)} s, refinement ${(refined.json.refinement!.elapsedMs / 1000).toFixed(2)} s)`,
  );
  const r = refined.json.refinement!;
  console.log(
    `    of which outside the grid and the rounds (start-up, advice, saving): ${(refined.seconds - (r.gridMs + r.elapsedMs) / 1000).toFixed(2)} s`,
  );
  console.log(
    `  ratio refined / uniform:                          ${percent(ratio, GOAL)} (goal <= ${percent(GOAL, GOAL)}: ${ratio <= GOAL ? 'met' : 'NOT MET'})`,
  );
  console.log(`  ${refined.json.refinement!.summary}`);
  for (const c of refined.json.refinement!.crossovers) console.log(`    refined: ${c}`);
  for (const c of crossovers(dir, full.json.runId)) console.log(`    uniform: ${c}`);
  const disagree = compareCrossovers(advised(dir, full.json.runId), advised(dir, refined.json.runId));
  if (disagree > 0) {
    console.log(`  DISAGREE: ${disagree} refined crossover(s) outside the uniform grid's range and it outside theirs`);
    process.exitCode = 1;
  } else console.log("  every refined crossover agrees with the uniform grid's (their ranges overlap)");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
