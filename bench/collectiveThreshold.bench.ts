/**
 * Seed stability of the collective threshold on the simulated node: the same AlltoAll model
 * (default kernels against librccl's GIN-SDMA path forced to SDMA at every size) with seeds 1 to
 * 10, `--repeats 5`, sizes 64 KiB..256 MiB by x4. For each seed it prints the verdict, the
 * bracket, the crossing and the NCCL_GIN_A2A_SDMA_MIN_BYTES the advice gives; then the figure
 * (seeds that agree on the modal clear bracket), the reference (the model's analytic crossing,
 * from the constants of native/src/backends/sim/collective_model.hpp) and their ratio (median crossing over
 * the analytic one). A second pass places sizes inside the model's tie zone around the crossing,
 * where the verdict must be uncertain. The helper directly, as the panel and CLI run it.
 */
import { spawnSync } from 'node:child_process';
import { collectiveAdvice, findCollectiveCrossover } from '../src/core/collective/collective';
import type { CollectiveCrossover } from '../src/core/collective/collective';
import { parseLine } from '../src/core/protocol';
import type { CollectivePoint, CollectiveVariant } from '../src/core/protocol';
import { formatBytes } from '../src/core/units';
import { SIM_RANKS as RANKS, simAlltoAllCrossing as analyticCrossing } from '../test/support/simCollectiveModel';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const SEEDS = 10;

interface Result {
  crossover: CollectiveCrossover;
  value?: string;
}

function run(seed: number, sizes: string[]): Result {
  const args = [
    'collective',
    '--backend',
    'sim',
    '--ops',
    'alltoall',
    '--in-place',
    'off',
    '--repeats',
    '5',
    '--seed',
    String(seed),
    ...sizes,
  ];
  const r = spawnSync(helper, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`sdma-probe ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const points: CollectivePoint[] = [];
  const variants: CollectiveVariant[] = [];
  for (const line of r.stdout.split('\n')) {
    const parsed = line ? parseLine(line) : undefined;
    if (parsed?.kind !== 'record') continue;
    if (parsed.record.type === 'collective') points.push(parsed.record);
    if (parsed.record.type === 'collective-variant') variants.push(parsed.record);
  }
  const crossover = findCollectiveCrossover(points, 'alltoall', 'gin-sdma-lib');
  const value = collectiveAdvice('amd', variants, points).recommendations.find(
    (x) => x.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES',
  )?.value;
  return { crossover, ...(value !== undefined ? { value } : {}) };
}

const bracket = (c: CollectiveCrossover) =>
  `${c.kind}/${c.confidence}${c.fromBytes !== undefined ? ` from ${formatBytes(c.fromBytes)}` : ''}${c.lastDefaultBytes !== undefined ? ` (default ahead at ${formatBytes(c.lastDefaultBytes)})` : ''}`;

const analytic = analyticCrossing();
console.log(
  `analytic crossing of the model: ${formatBytes(Math.round(analytic))} per rank (${formatBytes(Math.round(analytic / RANKS))} per peer over ${RANKS} ranks)`,
);

const results = Array.from({ length: SEEDS }, (_, i) => run(i + 1, ['-b', '64K', '-e', '256M', '-f', '4']));
results.forEach((r, i) => {
  const c = r.crossover;
  const est =
    c.estimateBytes !== undefined
      ? ` crossing ${formatBytes(Math.round(c.estimateBytes))} in ${formatBytes(Math.round(c.rangeBytes![0]))}..${formatBytes(Math.round(c.rangeBytes![1]))}`
      : '';
  console.log(`seed ${String(i + 1).padStart(2)}: ${bracket(c)}${est}; NCCL_GIN_A2A_SDMA_MIN_BYTES=${r.value ?? '-'}`);
});
const counts = new Map<string, number>();
for (const r of results) counts.set(bracket(r.crossover), (counts.get(bracket(r.crossover)) ?? 0) + 1);
const [modal, agree] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
const holds = results.filter(
  (r) =>
    r.crossover.confidence === 'clear' && r.crossover.lastDefaultBytes! < analytic && r.crossover.fromBytes! > analytic,
).length;
const estimates = results
  .map((r) => r.crossover.estimateBytes)
  .filter((x): x is number => x !== undefined)
  .sort((a, b) => a - b);
const median = estimates[Math.floor(estimates.length / 2)] ?? Number.NaN;
const values = results.map((r) => Number(r.value)).filter((x) => Number.isFinite(x));
console.log(
  `figure: ${agree}/${SEEDS} seeds give the modal verdict "${modal}"; ${holds}/${SEEDS} are clear with a bracket containing the analytic crossing`,
);
console.log(
  `thresholds (bytes per peer): ${formatBytes(Math.min(...values))}..${formatBytes(Math.max(...values))} (max/min ${(Math.max(...values) / Math.min(...values)).toFixed(2)})`,
);
console.log(
  `reference: analytic crossing ${formatBytes(Math.round(analytic))}; median measured crossing ${formatBytes(Math.round(median))}; ratio ${(median / analytic).toFixed(3)}`,
);

// Sizes inside the tie zone: 8 steps of 5% around the crossing, where the two variants differ by
// less than their repeats' spread.
const lo = Math.round(analytic / 1.2 / 1024) * 1024;
const step = Math.round((lo * 0.05) / 1024) * 1024;
const hi = lo + 8 * step;
const tie = Array.from(
  { length: SEEDS },
  (_, i) => run(i + 1, ['-b', String(lo), '-e', String(hi), '-f', '1', '-i', String(step)]).crossover,
);
const unsure = tie.filter((c) => c.confidence !== 'clear').length;
console.log(
  `tie zone (${formatBytes(lo)}..${formatBytes(hi)} in steps of ${formatBytes(step)}): ${unsure}/${SEEDS} seeds uncertain or without a winner (${[...new Set(tie.map(bracket))].join('; ')})`,
);
