/**
 * Refinement against a uniform grid, on the simulator with a fixed cost per work unit
 * (--sim-delay-ms 20, so time follows the number of points as on hardware): the default
 * 13-size sweep plus `--refine` (±10%), against a uniform log-spaced grid from 4 KiB to 1 GiB
 * fine enough to place every crossing within ±10% by itself, same paths (all four), CUs (64)
 * and repetitions. Prints both wall times, their ratio (goal: <= 30%), and each crossover as
 * each placed it. Through the CLI (dist/cli.js), as a user runs it.
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
  '20',
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

function crossovers(dir: string, runId: string): string[] {
  const r = spawnSync(process.execPath, ['dist/cli.js', 'advise', runId, '--runs-dir', dir], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => /-initiated, against/.test(l))
    .map((l) => l.replace(/^#\s+/, '').replace(/\).*$/, ')'));
}

const dir = mkdtempSync(join(tmpdir(), 'sdma-bench-refine-'));
try {
  const fine = uniformGrid(4096, 1 << 30, 0.1);
  const full = sweep(dir, ['--sizes', fine.join(',')]);
  const refined = sweep(dir, ['--refine', '--refine-tolerance', '0.1']);
  const ratio = refined.seconds / full.seconds;
  console.log('refinement vs a uniform grid, simulated MI350X, 4 paths, 64 CUs, 20 iterations, 20 ms per work unit');
  console.log(`  uniform grid for ±10% (${fine.length} sizes, 4 KiB..1 GiB):  ${full.seconds.toFixed(2)} s`);
  console.log(
    `  13-size grid + --refine (±10%):                  ${refined.seconds.toFixed(2)} s (grid ${(refined.json.refinement!.gridMs / 1000).toFixed(2)} s, refinement ${(refined.json.refinement!.elapsedMs / 1000).toFixed(2)} s)`,
  );
  console.log(
    `  ratio refined / uniform:                          ${(100 * ratio).toFixed(1)}% (goal <= 30%: ${ratio <= 0.3 ? 'met' : 'NOT MET'})`,
  );
  console.log(`  ${refined.json.refinement!.summary}`);
  for (const c of refined.json.refinement!.crossovers) console.log(`    refined: ${c}`);
  for (const c of crossovers(dir, full.json.runId)) console.log(`    uniform: ${c}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
