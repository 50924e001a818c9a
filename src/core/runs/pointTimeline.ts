/**
 * Records the timeline of one sweep point that the run's own timeline does not show: a small
 * timeline-only helper run on the run's own target (the local node, or the SSH node it was
 * measured on), saved as a run under `<run>/timelines/`. Over SSH the helper writes the file in
 * the node's cache folder; it is copied into the run folder afterwards and removed there,
 * whether the recording ended well or not.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { LocalTarget } from '../runtime/localTarget';
import type { Run } from '../run';
import { runHeader } from '../run';
import { RunStore, makeRunId } from './runStore';
import type { LogLevel } from '../runtime/session';
import { runSession } from '../runtime/session';
import type { SshConnection } from '../ssh/connection';
import { fetchRemoteRunFile, makeRemoteRunDir, removeRemoteRunDir } from '../ssh/remoteFiles';
import { SshTarget } from '../ssh/sshTarget';
import type { TimelinePoint } from './timelineSource';
import { timelineArgs } from './timelineSource';

export interface PointTimelineOptions {
  run: Run;
  /** The run's folder; the recording's own run goes under `<runDir>/timelines/`. */
  runDir: string;
  point: TimelinePoint;
  /** Where the timeline file ends up, an absolute path in the run's folder. */
  file: string;
  /** The helper on the run's target (a path on the node for SSH runs). */
  helperPath: string;
  /** The node's connection, for runs measured over SSH. */
  conn?: SshConnection;
  signal?: AbortSignal;
  onLog?: (level: LogLevel, message: string) => void;
}

/** True once the file is in place; false when cancelled. Throws with the helper's reason otherwise. */
export async function recordPointTimeline(o: PointTimelineOptions): Promise<boolean> {
  if (o.run.header.target.kind === 'ssh' && !o.conn) {
    throw new Error(`run ${o.run.header.id} was measured over SSH on ${o.run.header.target.host}, but no connection to it was given`);
  }
  const host = o.run.header.target.kind === 'ssh' ? o.run.header.target.host : undefined;
  const id = makeRunId('timeline', o.run.hello?.backend ?? 'auto');
  const remoteDir = o.conn ? await makeRemoteRunDir(o.conn, id) : undefined;
  try {
    const out = remoteDir ? `${remoteDir}/${basename(o.file)}` : o.file;
    const args = timelineArgs(o.run, o.point, out);
    const ended = await runSession({
      target: o.conn ? new SshTarget(o.conn) : new LocalTarget(),
      store: new RunStore(join(o.runDir, 'timelines')),
      header: runHeader(id, 'sweep', o.helperPath, args, host),
      signal: o.signal,
      onLog: o.onLog,
    });
    if (o.conn && ended.end?.status === 'ok') {
      await fetchRemoteRunFile(o.conn, id, basename(o.file), o.file);
    }
    if (ended.end?.status === 'ok' && existsSync(o.file)) return true;
    if (ended.end?.status === 'cancelled') return false;
    throw new Error(`the helper could not record the timeline: ${ended.end?.message ?? 'no result'}`);
  } finally {
    if (o.conn) await removeRemoteRunDir(o.conn, id).catch(() => {});
  }
}
