/**
 * `sdma-lens collective` and `sdma-lens overlap`: the helper's collective sweep (nccl-tests'
 * flags) and compute-overlap run, printed as a table (or the panel's view as JSON). The flags
 * are passed on by name as the helper's own; the helper checks their values.
 */
import { collectiveTable } from '../../core/collective/collectiveTable';
import { collectivePageView } from '../../core/collective/collectiveView';
import { jsonText } from '../../core/text';
import { runOnConsole, savedLines } from '../console';
import { parseFlags } from '../flags';
import { RUN_OPTIONS, storeOf } from '../options';

type Flag = { type: 'string'; short?: string };
const flag = (short?: string): Flag => (short ? { type: 'string', short } : { type: 'string' });

/** The helper's flags of each command (docs/COLLECTIVES.md), by their long names. */
const FLAGS = {
  collective: {
    'min-bytes': flag('b'),
    'max-bytes': flag('e'),
    'step-factor': flag('f'),
    'step-bytes': flag('i'),
    iters: flag('n'),
    warmup: flag('w'),
    check: flag('c'),
    ops: flag(),
    variants: flag(),
    mode: flag(),
    gpus: flag(),
    'in-place': flag(),
    dtype: flag(),
    repeats: flag(),
    seed: flag(),
    'sim-gpus': flag(),
  },
  overlap: {
    compute: flag(),
    paths: flag(),
    cus: flag(),
    size: flag(),
    'phase-ms': flag(),
    'gemm-n': flag(),
    src: flag(),
    dst: flag(),
    'sim-gpus': flag(),
  },
} as const;

export async function collective(
  command: 'collective' | 'overlap',
  argv: string[],
  signal: AbortSignal,
): Promise<number> {
  const { values } = parseFlags({
    args: argv,
    strict: true,
    options: { backend: { type: 'string' }, ...FLAGS[command], ...RUN_OPTIONS },
  });
  const backend = values.backend ?? 'auto';
  const given = values as Record<string, string | boolean | undefined>;
  const passed = Object.keys(FLAGS[command]).flatMap((name) =>
    typeof given[name] === 'string' ? [`--${name}`, given[name] as string] : [],
  );
  const helperArgs = [command, '--backend', backend, ...passed];
  const ran = await runOnConsole({ command, idTag: backend, backend, args: () => helperArgs }, { values, signal });
  if (!ran.run) return ran.code;
  const runFile = storeOf(values).fileOf(ran.run.header.id);
  if (values.json)
    process.stdout.write(
      `${jsonText({ runFile, message: ran.run.end?.message ?? '', ...collectivePageView(ran.run) }, 2)}\n`,
    );
  else process.stdout.write(`${collectiveTable(ran.run)}\n${savedLines(runFile)}`);
  return ran.code;
}
