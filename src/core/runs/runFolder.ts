/**
 * What a run folder holds and how one is deleted. A runs folder is a setting (and a workspace
 * may set it to `.` or `..`), so the folders in it are not all runs: a run is a folder, not a
 * link, holding a `run.ndjson`. Deleting one removes only the names SDMA Lens writes there and
 * then the folder if that left it empty (rmdir, never a recursive remove); a file of the user's
 * stays, and is named. Nothing is deleted outside the runs folder or through a link.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { RUN_FILE_NAME } from '../run';
import { REFINEMENTS_DIR } from '../sweep/refine';

/** Where a run's point timelines are recorded, as runs of their own (pointTimeline.ts). */
export const TIMELINES_DIR = 'timelines';

/** A point's own timeline, as `timelineFileName` names it: `timeline-1M-cu-host-64[-host-0].sdmatl`. */
export const POINT_TIMELINE_FILE =
  /^timeline-\d+[KMG]?-(?:cu|engine)-(?:host|device)-\d+(?:-(?:host|\d+)-(?:host|\d+))?\.sdmatl$/;

/**
 * Every file name SDMA Lens writes in a run folder:
 * - `run.ndjson` (RunStore.create);
 * - `timeline.sdmatl`, the sweep's own timeline (the `produces` of the sweep commands);
 * - a point's timeline (`timelineFileName`, pointTimeline.ts);
 * - a timeline's Perfetto export, `<timeline>.trace.json`, and a Profile run's `run-timeline.trace.json` (showTimeline.ts);
 * - the partial files these are written through: `<name>.<12 hex digits>.part` (newFile.ts), `<name>.part` (a file copied from an SSH node, ssh/remoteFiles.ts).
 */
export function isRunFolderFile(name: string): boolean {
  const whole = /^(.*?)(?:\.[0-9a-f]{12})?\.part$/.exec(name)?.[1] ?? name;
  if (
    whole === RUN_FILE_NAME ||
    whole === 'timeline.sdmatl' ||
    whole === 'run-timeline.trace.json' ||
    POINT_TIMELINE_FILE.test(whole)
  )
    return true;
  const trace = /^(.*)\.trace\.json$/.exec(whole)?.[1];
  return trace !== undefined && (trace === 'timeline' || POINT_TIMELINE_FILE.test(`${trace}.sdmatl`));
}

/** The folders in a run folder that hold runs of their own: refinement rounds and point timeline recordings. */
export const RUN_FOLDER_STORES: readonly string[] = [REFINEMENTS_DIR, TIMELINES_DIR];

/** What a delete did: what it removed and what it kept (paths relative to the run folder). */
export interface RunDeleteOutcome {
  dir: string;
  removed: string[];
  /** Files and folders SDMA Lens did not write: left where they are. */
  kept: string[];
  /** Whether the run folder itself is gone (it was empty once the run's files were). */
  folderRemoved: boolean;
}

export class RunFolderError extends Error {}

/** What a delete left behind, in a sentence (undefined when it left nothing). */
export function keptSentence(id: string, outcome: RunDeleteOutcome): string | undefined {
  if (outcome.kept.length === 0) return undefined;
  const shown =
    outcome.kept.slice(0, 10).join(', ') + (outcome.kept.length > 10 ? ` and ${outcome.kept.length - 10} more` : '');
  return `run ${id} was deleted, but its folder ${outcome.dir} was kept: it holds files SDMA Lens did not write (${shown}); remove them yourself if you do not need them`;
}

/** Deepest nesting of run stores followed (a sweep, its refinement rounds, their recordings). */
const MAX_DEPTH = 3;

/**
 * Checks that `dir` is a run folder directly in `root` (by real paths), not a link, holding an
 * entry named run.ndjson; returns its real path. Throws RunFolderError with the reason.
 */
export async function checkRunFolder(root: string, dir: string): Promise<string> {
  let st;
  try {
    st = await lstat(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new RunFolderError(`${dir} does not exist`);
    throw err;
  }
  if (st.isSymbolicLink())
    throw new RunFolderError(`${dir} is a symbolic link; SDMA Lens does not follow or delete links in a runs folder`);
  if (!st.isDirectory()) throw new RunFolderError(`${dir} is not a folder, so not an SDMA Lens run`);
  const [realRoot, realDir] = await Promise.all([realpath(root), realpath(dir)]);
  if (dirname(realDir) !== realRoot || basename(realDir) !== basename(dir))
    throw new RunFolderError(`${dir} is not inside the runs folder ${root}; refused`);
  const file = await lstat(join(dir, RUN_FILE_NAME)).catch(() => undefined);
  if (!file)
    throw new RunFolderError(`${dir} holds no ${RUN_FILE_NAME}, so it is not an SDMA Lens run; nothing was deleted`);
  return realDir;
}

/**
 * Deletes the run folder `dir` of the runs folder `root`: the names SDMA Lens writes there
 * (`isRunFolderFile`), the runs of its refinement and timeline folders the same way, then each
 * folder with rmdir once it is empty. Links are removed as links (never followed); anything
 * else stays and is listed in `kept`.
 */
export async function deleteRunFolder(root: string, dir: string): Promise<RunDeleteOutcome> {
  const real = await checkRunFolder(root, dir);
  const outcome: RunDeleteOutcome = { dir, removed: [], kept: [], folderRemoved: false };
  outcome.folderRemoved = await clearRun(dir, real, dir, outcome, 0);
  return outcome;
}

/** Removes the run's files from `dir` (whose real path is `real`); true when the folder itself is gone. */
async function clearRun(
  dir: string,
  real: string,
  top: string,
  outcome: RunDeleteOutcome,
  depth: number,
): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: Dirent[] = [];
  let keptHere = false;
  const keep = (name: string) => {
    outcome.kept.push(relative(top, join(dir, name)));
    keptHere = true;
  };
  for (const e of entries) {
    if (isRunFolderFile(e.name) && !e.isDirectory()) files.push(e);
    else if (RUN_FOLDER_STORES.includes(e.name) && e.isDirectory() && depth < MAX_DEPTH) {
      if (!(await clearStore(join(dir, e.name), join(real, e.name), top, outcome, depth + 1))) keptHere = true;
    } else keep(e.name);
  }
  // The folder must still be the one checked: a folder swapped for a link since is not entered.
  if ((await realpath(dir)) !== real)
    throw new RunFolderError(`${dir} changed while it was deleted (it is now a link); stopped`);
  // run.ndjson last: a delete cut short leaves a run that is still listed, and can be deleted again.
  files.sort((a, b) => Number(a.name === RUN_FILE_NAME) - Number(b.name === RUN_FILE_NAME));
  for (const f of files) {
    await unlink(join(dir, f.name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    outcome.removed.push(relative(top, join(dir, f.name)));
  }
  if (keptHere) return false;
  return removeIfEmpty(dir, top, outcome);
}

/** A folder of runs inside a run (refinements/, timelines/): each run in it deleted the same way; true when the folder is gone. */
async function clearStore(
  dir: string,
  real: string,
  top: string,
  outcome: RunDeleteOutcome,
  depth: number,
): Promise<boolean> {
  if ((await realpath(dir)) !== real)
    throw new RunFolderError(`${dir} changed while it was deleted (it is now a link); stopped`);
  let keptHere = false;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const sub = join(dir, e.name);
    const isRun = e.isDirectory() && (await lstat(join(sub, RUN_FILE_NAME)).catch(() => undefined)) !== undefined;
    if (isRun && (await clearRun(sub, join(real, e.name), top, outcome, depth))) continue;
    if (!isRun) outcome.kept.push(relative(top, sub));
    keptHere = true;
  }
  return keptHere ? false : removeIfEmpty(dir, top, outcome);
}

async function removeIfEmpty(dir: string, top: string, outcome: RunDeleteOutcome): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    // Something appeared since it was read: it stays, and is named.
    for (const name of await readdir(dir)) outcome.kept.push(relative(top, join(dir, name)));
    return false;
  }
}
