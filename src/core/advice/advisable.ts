/**
 * Which advice a saved run can have, from what it measured: a sweep's (thresholds from the
 * crossovers of its copy paths), a collective run's (the crossover of each operation), or
 * none, with one sentence that says what the run measured and why that gives no advice.
 */
import type { Run } from '../run';

export type Advisable = { kind: 'sweep' } | { kind: 'collective' } | { kind: 'none'; why: string };

/** What each kind of run measured that advice cannot use. */
const NOT_ADVISABLE: Record<string, string> = {
  matrix:
    'a bandwidth matrix: it measures each GPU pair at one size, not the engine path against load/store over message sizes, so it has no crossover to advise from',
  overlap:
    'a compute overlap run: it measures how much compute is kept beside each copy path, not where one path overtakes another, so it has no crossover to advise from',
  run: "a profile of a program: it records the program's kernels and copies, not a comparison of copy paths, so it has no crossover to advise from",
  import:
    "an imported profile: it holds a program's kernels and copies, not a comparison of copy paths, so it has no crossover to advise from",
  info: 'a description of a node: it measured nothing',
};

export function advisable(run: Run): Advisable {
  const command = run.header.command;
  if (command === 'sweep') return { kind: 'sweep' };
  if (command === 'collective') return { kind: 'collective' };
  return {
    kind: 'none',
    why: `run ${run.header.id} is ${NOT_ADVISABLE[command] ?? `a ${command} run, which has no crossover to advise from`}`,
  };
}
