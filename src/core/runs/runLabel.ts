/**
 * The short name of a run in a panel's tab: the time it was made (UTC, as its id has it) and
 * the backend it actually ran on, "01:02:03 sim". The id names the backend that was asked for,
 * which may be `auto`; the helper's `hello` says which one answered (a simulated run is `sim`).
 * An imported run names the tool it came from.
 */
import type { Run } from '../run';
import { isSimulated } from '../run';

/** What a tab's label is made of. */
export interface TabRun {
  id: string;
  createdAt: string;
  /** The backend the helper reported (`hello.backend`), when known. */
  backend?: string;
  simulated: boolean;
  /** An imported run's tool (`header.source.tool`). */
  tool?: string;
}

/** 2026-11-30T01-02-03-456Z-sweep-auto-k3f9: the time and the backend asked for. */
const ID = /^\d{4}-\d{2}-\d{2}T(\d{2})-(\d{2})-(\d{2})-\d{3}Z-[a-z0-9]+-([a-z0-9]+)-/i;

export function tabLabel(r: TabRun): string {
  const m = ID.exec(r.id);
  const at = /T(\d{2}):(\d{2}):(\d{2})/.exec(r.createdAt);
  const time = m ? `${m[1]}:${m[2]}:${m[3]}` : at ? `${at[1]}:${at[2]}:${at[3]}` : undefined;
  const asked = m?.[4];
  const backend =
    r.tool ??
    r.backend ??
    (r.simulated ? 'sim' : asked !== undefined && asked.toLowerCase() !== 'auto' ? asked : undefined);
  return [time, backend].filter((x) => x !== undefined).join(' ') || r.id;
}

export function runTabLabel(run: Run): string {
  return tabLabel({
    id: run.header.id,
    createdAt: run.header.createdAt,
    simulated: isSimulated(run),
    ...(run.hello ? { backend: run.hello.backend } : {}),
    ...(run.header.source ? { tool: run.header.source.tool } : {}),
  });
}
