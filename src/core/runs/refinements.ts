/**
 * A sweep's refinement rounds on disk: saved as runs of their own in `<sweep>/refinements/`
 * (so the runs folder lists the sweep once and deleting it deletes them), and read back with
 * the sweep (`openAdvisedRun`) so every reader sees the refined points.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sample } from '../protocol';
import type { Run } from '../run';
import { REFINEMENTS_DIR, withRefinements } from '../sweep/refine';
import type { ReadRunOptions } from './runStore';
import { RunStore } from './runStore';

/** Where the rounds of the sweep `id` are saved. */
export function refinementStore(store: RunStore, id: string): RunStore {
  return new RunStore(join(store.dirOf(id), REFINEMENTS_DIR));
}

/**
 * The run `id` as it is shown and advised: a sweep with the samples of its finished
 * refinement rounds (oldest first; `refinedSamples` names them), any other run as saved.
 * Every reader of a saved run that shows or advises on it opens it here (Open Run, a panel
 * restored after a reload, a run file's editor, Refine Crossover, Suggest Settings,
 * `sdma-lens advise`), so none can advise on fewer points than another.
 */
export async function openAdvisedRun(
  store: RunStore,
  id: string,
  options: Pick<ReadRunOptions, 'signal' | 'onProgress'> = {},
): Promise<Run & { refinedSamples: Sample[] }> {
  const run = await store.open(id, options);
  if (run.header.command !== 'sweep') return { ...run, refinedSamples: [] };
  const rounds = refinementStore(store, id);
  // Rounds are read from the sweep's own folder, never through a link put at its name.
  if ((await lstat(rounds.root).catch(() => undefined))?.isSymbolicLink()) {
    run.problems.push(
      `${rounds.root} is a symbolic link; its refinement rounds were not read (SDMA Lens reads only regular files and folders in a run folder)`,
    );
    return { ...run, refinedSamples: [] };
  }
  const summaries = (await rounds.list()).filter((s) => s.status === 'ok' && s.header?.refines === id).reverse();
  const opened: Run[] = [];
  for (const s of summaries) opened.push(await rounds.open(s.id));
  return withRefinements(run, opened);
}
