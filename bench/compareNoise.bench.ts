/**
 * The run-to-run tolerance of `sdma-lens compare` (src/core/compare/noise.ts), before and after.
 *
 * 1. The default, derived again from the real runs measured twice in bench/results: the 1x H200
 *    sweeps (sweep-default and sweep-full) of h200x1-2026-12-01 against h200x1-rerun-2026-12-01,
 *    the same call an hour apart with the same measurement code. The figure is the 95th
 *    percentile of |ratio − 1| of the same point; the reference is DEFAULT_TOLERANCE; then their
 *    ratio. The other quantiles, by size band, and the 2x H200 pair (whose rerun changed the
 *    proxy and the buffer handling) are printed beside it.
 * 2. The same simulated node with seeds 1 to 5 (`sdma-probe sweep --backend sim --seed N`, the
 *    default 260 points, at 5, 10 and 20 iterations): every pair compared by each run's spread
 *    alone (tolerance 0: what compare did before) and by default; regressions and improvements.
 * 3. A real change: the engines at half their bandwidth (`--sim-weak engine=0.5`, seed 6) against
 *    seed 1, before and after, and the same with seeds 2 and 3 as baseline runs.
 * 4. The real pairs of bench/results, before and after.
 *
 * The helper directly (argv[2]), each output read as a saved run is.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Comparison, CompareOptions } from '../src/core/compare/compare';
import { quantile } from '../src/core/advice/crossover';
import { compareRuns, pointValuesOf } from '../src/core/compare/compare';
import { DEFAULT_TOLERANCE, SIZE_BANDS, percent, runToRun, sameSetupDeviations } from '../src/core/compare/noise';
import type { Run } from '../src/core/run';
import { runFromText, tarMember } from '../test/support/benchRuns';

const helper = process.argv[2] ?? 'native/build/sdma-probe';
const results = join(process.cwd(), 'bench', 'results');

/** A helper's NDJSON output as a saved run: a header in front, a run-end behind. */
function asRun(output: string, id: string): Run {
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id,
    command: 'sweep',
    createdAt: '2026-12-03T00:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: ['sweep'] },
  };
  const end = {
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-12-03T00:01:00.000Z',
  };
  return runFromText(`${JSON.stringify(header)}\n${output.trimEnd()}\n${JSON.stringify(end)}\n`);
}

const file = (path: string, id: string) => asRun(readFileSync(join(results, path), 'utf8'), id);

function sim(id: string, args: string[]): Run {
  const r = spawnSync(helper, ['sweep', '--backend', 'sim', ...args], { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`sdma-probe sweep ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return asRun(r.stdout, id);
}

const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
const changes = (c: Comparison) =>
  `${n(c.summary.regressions, 'regression')}, ${n(c.summary.improvements, 'improvement')} of ${c.summary.common}`;
const BEFORE: CompareOptions = { tolerance: 0 };

// 1. The default.
const x1 = [
  [
    'sweep-default',
    file('h200x1-2026-12-01/sweep-default.ndjson', 'x1-default'),
    file('h200x1-rerun-2026-12-01/sweep-default.ndjson', 'x1-default-rerun'),
  ],
  [
    'sweep-full',
    file('h200x1-2026-12-01/sweep-full.ndjson', 'x1-full'),
    file('h200x1-rerun-2026-12-01/sweep-full.ndjson', 'x1-full-rerun'),
  ],
] as const;
const deviations = x1.flatMap(([, a, b]) => sameSetupDeviations([pointValuesOf(a), pointValuesOf(b)]));
const quantiles = (values: number[]) => {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => percent(Math.expm1(quantile(sorted, q)));
  return `median ${at(0.5)}, p75 ${at(0.75)}, p90 ${at(0.9)}, p95 ${percent(runToRun(values))}, p99 ${at(0.99)}`;
};
const figure = runToRun(deviations.map((d) => d.value));
console.log('1. the default run-to-run tolerance: |ratio − 1| of the same point in two runs of one node');
console.log(
  `   1x H200, h200x1-2026-12-01 vs h200x1-rerun-2026-12-01 (sweep-default, sweep-full): ${deviations.length} points: ${quantiles(deviations.map((d) => d.value))}`,
);
for (const band of SIZE_BANDS) {
  const v = deviations.filter((d) => d.band === band.label).map((d) => d.value);
  console.log(`     ${band.label.padEnd(22)} ${String(v.length).padStart(4)} points: ${quantiles(v)}`);
}
const x2 = [
  file('h200x2-2026-11-30/raw/sweep.ndjson', 'x2-first'),
  asRun(tarMember(join(results, 'h200x2-rerun-2026-11-30/raw.tar.gz'), 'raw/sweep.ndjson'), 'x2-rerun'),
] as const;
const x2d = sameSetupDeviations(x2.map(pointValuesOf)).map((d) => d.value);
console.log(
  `   2x H200, h200x2-2026-11-30 vs h200x2-rerun-2026-11-30 (the rerun changed the proxy and buffers; not used): ${x2d.length} points: ${quantiles(x2d)}`,
);
console.log(
  `   figure: p95 ${percent(figure)}; reference: DEFAULT_TOLERANCE ${percent(DEFAULT_TOLERANCE)}; ratio ${(figure / DEFAULT_TOLERANCE).toFixed(3)}`,
);

// 2. Seeds 1 to 5.
console.log(
  '\n2. the same simulated node, seeds 1 to 5, every pair (10 pairs of 260 points): regressions + improvements',
);
console.log('   iters  before (tolerance 0)  after (default)');
for (const iters of [5, 10, 20]) {
  const runs = [1, 2, 3, 4, 5].map((seed) => sim(`seed${seed}`, ['--seed', String(seed), '--iters', String(iters)]));
  let before = 0;
  let after = 0;
  const worst: string[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const b = compareRuns(runs[i]!, runs[j]!, BEFORE);
      const a = compareRuns(runs[i]!, runs[j]!);
      before += b.summary.regressions + b.summary.improvements;
      after += a.summary.regressions + a.summary.improvements;
      for (const p of a.points.filter((x) => x.verdict !== 'same'))
        worst.push(`seeds ${i + 1}/${j + 1} ${p.label} ${p.ratio.toFixed(3)} ${p.verdict}`);
    }
  }
  console.log(
    `   ${String(iters).padStart(5)}  ${String(before).padStart(20)}  ${String(after).padStart(15)}${worst.length > 0 ? `   (${worst.join('; ')})` : ''}`,
  );
}

// 3. A real change.
const base = [1, 2, 3].map((seed) => sim(`seed${seed}`, ['--seed', String(seed)]));
const weak = sim('weak', ['--seed', '6', '--sim-weak', 'engine=0.5']);
const engineLarge = (c: Comparison) => c.points.filter((p) => p.label.startsWith('engine/') && p.sizeBytes >= 1 << 20);
console.log(
  '\n3. a real change: seed 1 against seed 6 with --sim-weak engine=0.5 (the engines at half their bandwidth)',
);
for (const [name, c] of [
  ['before (tolerance 0)', compareRuns(base[0]!, weak, BEFORE)],
  ['after (default)', compareRuns(base[0]!, weak)],
  ['after (seeds 2, 3 as baseline runs)', compareRuns(base[0]!, weak, { baselines: [base[1]!, base[2]!] })],
] as const) {
  const large = engineLarge(c);
  const elsewhere = c.points.filter((p) => p.verdict !== 'same' && !p.label.startsWith('engine/')).length;
  console.log(
    `   ${name}: ${changes(c)}; engine points of 1 MiB and more: ${large.filter((p) => p.verdict === 'regression').length} of ${large.length} regressions; other paths: ${elsewhere} flagged`,
  );
}

// 4. The real pairs.
console.log('\n4. the real pairs of bench/results');
for (const [name, a, b] of [
  ['1x H200 sweep-default', x1[0][1], x1[0][2]],
  ['1x H200 sweep-full', x1[1][1], x1[1][2]],
  ['2x H200 sweep (rerun with proxy and buffer changes)', x2[0], x2[1]],
] as const) {
  console.log(`   ${name}: before ${changes(compareRuns(a, b, BEFORE))}; after ${changes(compareRuns(a, b))}`);
}
