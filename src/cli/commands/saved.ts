/** `sdma-lens advise` and `sdma-lens runs`: read saved runs, run nothing. */
import type { AdviceOptions } from '../../core/advice/advice';
import { adviseFromRun, shellExports } from '../../core/advice/advice';
import { adviceText } from '../../core/advice/adviceText';
import { advisable } from '../../core/advice/advisable';
import { adviceFor } from '../../core/advice/fronts';
import {
  collectiveAdviceFor,
  collectiveAdviceText,
  collectiveExports,
} from '../../core/collective/collectiveAdviceText';
import { collectiveAdviceOf } from '../../core/collective/collectiveView';
import { collectiveModeOf } from '../../core/collective/collective';
import { pairName, parsePair } from '../../core/endpoints';
import type { Run } from '../../core/run';
import { isSimulated } from '../../core/run';
import { openAdvisedRun } from '../../core/runs/refinements';
import { readProgress, stoppedBySignals } from '../readProgress';
import type { RunStore } from '../../core/runs/runStore';
import { runsTable } from '../../core/runs/runsTable';
import { jsonText, shellComment, terminalLine } from '../../core/text';
import { LIMITS } from '../../core/limits';
import { parseFlags } from '../flags';
import { UsageError, int, sizeListOption, storeOf } from '../options';

/** The flags that shape a sweep's advice; a collective run is advised from its own measurements. */
const SWEEP_FLAGS = ['pair', 'cus', 'waves-per-cu', 'sizes', 'rccl-version', 'rocshmem-version'] as const;

/** `advise --waves-per-cu N`: 0 (the default threads) or 1..wavesPerCuMax. */
function adviceWaves(text: string): number {
  const n = int('waves-per-cu', text, 0);
  if (n > LIMITS.wavesPerCuMax)
    throw new UsageError(`--waves-per-cu must be 0 (the default threads) or 1..${LIMITS.wavesPerCuMax} (got ${n})`);
  return n;
}

export async function advise(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      'runs-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
      cus: { type: 'string' },
      'waves-per-cu': { type: 'string' },
      sizes: { type: 'string' },
      'rccl-version': { type: 'string' },
      'rocshmem-version': { type: 'string' },
      pair: { type: 'string' },
    },
  });
  if (positionals.length > 1)
    throw new UsageError(`takes at most one run id (got ${positionals.length}: ${positionals.join(' ')})`);
  // The flags are checked before any run is looked for: a bad one is said whatever the runs folder holds.
  let options: AdviceOptions;
  try {
    options = {
      ...(values.cus !== undefined ? { loadStoreCus: int('cus', values.cus, 64) } : {}),
      ...(values['waves-per-cu'] !== undefined ? { wavesPerCu: adviceWaves(values['waves-per-cu']) } : {}),
      ...(values.sizes !== undefined ? { messageSizes: sizeListOption('sizes', values.sizes) } : {}),
      libraries: {
        ...(values['rccl-version'] ? { rccl: values['rccl-version'] } : {}),
        ...(values['rocshmem-version'] ? { rocshmem: values['rocshmem-version'] } : {}),
      },
      ...(values.pair !== undefined ? { pair: parsePair(values.pair) } : {}),
    };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const store = storeOf(values);
  const id = positionals[0] ?? (await newestSweepWithSamples(store));
  if (!id) {
    process.stderr.write(
      `sdma-lens: ${terminalLine(`no sweep with samples in ${store.root}; run \`sdma-lens sweep\` first`)}\n`,
    );
    return 1;
  }
  // A refined sweep is advised with its refined points.
  const run = await stoppedBySignals((signal) =>
    openAdvisedRun(store, id, { signal, onProgress: readProgress(store.fileOf(id)) }),
  );
  const what = advisable(run);
  if (what.kind === 'none') {
    process.stderr.write(
      `sdma-lens: ${terminalLine(`${what.why}. advise works on a sweep (sdma-lens sweep, or an imported TransferBench or nvbandwidth output) or a collective run (sdma-lens collective, or an imported nccl-tests or rccl-tests output); nothing was advised`)}\n`,
    );
    return 1;
  }
  if (what.kind === 'collective') {
    const given = SWEEP_FLAGS.filter((f) => values[f] !== undefined).map((f) => `--${f}`);
    if (given.length > 0)
      throw new UsageError(
        `${given.join(', ')}: for a sweep's advice; run ${id} is a collective run, advised from its own measurements`,
      );
    return adviseCollective(run, id, values.json);
  }
  if (options.pair && !run.samples.some((s) => s.src === options.pair!.src && s.dst === options.pair!.dst)) {
    throw new UsageError(
      `--pair ${values.pair}: run ${id} has no samples for ${pairName(options.pair)} (it measured ${[...new Set(run.samples.map((s) => pairName(s)))].join(', ') || 'nothing'})`,
    );
  }
  // Worded for the CLI: options named as its flags.
  const advice = adviceFor(adviseFromRun(run, options), 'cli');
  const problems = problemsOf(run);
  if (values.json)
    process.stdout.write(`${jsonText({ runId: id, ...(problems ? { problems } : {}), ...advice }, 2)}\n`);
  else {
    // A block meant to be sourced: comment lines (shellComment) and checked export lines (shellExports), nothing else.
    // Advice from a damaged run says so first, so a copied block of settings carries the warning.
    process.stdout.write(
      `${problemsLine(id, problems)}${shellComment(`run ${id}, ${advice.pairLabel}`)}\n${adviceText(advice)}\n# shell:\n${shellExports(advice)}\n`,
    );
  }
  if (problems && values.json)
    process.stderr.write(`sdma-lens: ${terminalLine(problemsNote(id, problems))}: treat this advice with care\n`);
  return 0;
}

/** A collective run's advice (the collective panel's), printed as the sweep's is: a block to source, or the object with --json. */
function adviseCollective(run: Run, id: string, json: boolean | undefined): number {
  // Worded for the CLI: options named as its flags.
  const advice = collectiveAdviceFor(collectiveAdviceOf(run), 'cli');
  const simulated = isSimulated(run);
  const problems = problemsOf(run);
  const mode = run.header.command === 'collective' ? collectiveModeOf(run.collectiveVariants ?? []) : undefined;
  if (json) {
    process.stdout.write(
      `${jsonText({ runId: id, command: run.header.command, simulated, ...(mode ? { mode } : {}), ...(problems ? { problems } : {}), ...advice }, 2)}\n`,
    );
    if (problems)
      process.stderr.write(`sdma-lens: ${terminalLine(problemsNote(id, problems))}: treat this advice with care\n`);
  } else {
    process.stdout.write(
      `${problemsLine(id, problems)}${shellComment(`run ${id}, collective${mode ? `, ${mode}` : ''}`)}\n${collectiveAdviceText(advice, { simulated })}\n# shell:\n${collectiveExports(advice)}\n`,
    );
  }
  return 0;
}

/** How many lines of the run could not be used, and the first: undefined for a whole run. */
function problemsOf(run: Run): { count: number; first: string } | undefined {
  return run.problems.length > 0 ? { count: run.problems.length, first: run.problems[0]! } : undefined;
}

/** The block's first line for a damaged run (a comment), or nothing. */
function problemsLine(id: string, problems: { count: number; first: string } | undefined): string {
  return problems ? `${shellComment(`note: ${problemsNote(id, problems)}: treat this advice with care`)}\n` : '';
}

/** The newest sweep with samples: a sweep that measured nothing has nothing to advise on. */
async function newestSweepWithSamples(store: RunStore): Promise<string | undefined> {
  const candidates = (await store.list())
    .filter((r) => r.status !== 'corrupt' && r.header?.command === 'sweep')
    .slice(0, 50);
  for (const r of candidates) {
    const run = await store.open(r.id).catch(() => undefined);
    if (run && run.samples.length > 0) return r.id;
  }
  return undefined;
}

export async function runs(argv: string[]): Promise<number> {
  const { values } = parseFlags({
    args: argv,
    strict: true,
    options: { 'runs-dir': { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const store = storeOf(values);
  const list = await store.list();
  if (values.json) process.stdout.write(`${jsonText(list, 2)}\n`);
  else if (list.length === 0) {
    // Said on stderr: stdout holds runs only, one a line.
    process.stderr.write(
      `sdma-lens runs: ${terminalLine(`no runs in ${store.root}`)}; make one with sdma-lens sweep (--backend sim: the simulator) or sdma-lens import FILE, or name another folder with --runs-dir DIR\n`,
    );
  } else process.stdout.write(`${runsTable(list).join('\n')}\n`);
  return 0;
}

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;

/** "run X had N problems (first: ...)"; its sink escapes it. */
function problemsNote(id: string, problems: { count: number; first: string }): string {
  return `run ${id} had ${plural(problems.count, 'problem')} (first: ${problems.first})`;
}
