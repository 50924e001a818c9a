/**
 * Files a run leaves on the node (a timeline) live in the node's cache folder while it runs,
 * under out/<run id>/, and are copied into the run's folder here afterwards, then removed
 * there, so the run folder is complete locally and nothing piles up on the node.
 */
import { rename, rm } from 'node:fs/promises';
import { loadExeca } from '../runtime/helper';
import type { SshConnection } from './connection';
import { MAKE_CACHE_DIR, READ_CACHE_FILE, REMOVE_CACHE_DIR } from './remoteScripts';

const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

function outDir(runId: string): string {
  if (!RUN_ID.test(runId) || runId.includes('..')) throw new Error(`"${runId}" is not a run id`);
  return `out/${runId}`;
}

/** Creates out/<run id>/ on the node and returns its absolute path there. */
export async function makeRemoteRunDir(conn: SshConnection, runId: string): Promise<string> {
  const r = await conn.execChecked(['sh', '-c', MAKE_CACHE_DIR, 'sdma-lens', outDir(runId)]);
  const path = r.stdout.trim();
  if (r.exitCode !== 0 || !path.startsWith('/'))
    throw new Error(`could not create the run folder on ${conn.label}: ${r.stderr.trim()}`);
  return path;
}

/** Copies out/<run id>/<name> from the node to a local file; false when the node has no such file. */
export async function fetchRemoteRunFile(
  conn: SshConnection,
  runId: string,
  name: string,
  localPath: string,
): Promise<boolean> {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) throw new Error(`"${name}" is not a run file name`);
  const partial = `${localPath}.part`;
  const { execa } = await loadExeca();
  const r = await execa(
    conn.sshPath,
    await conn.args(['sh', '-c', READ_CACHE_FILE, 'sdma-lens', `${outDir(runId)}/${name}`]),
    {
      reject: false,
      stdin: 'ignore',
      stdout: { file: partial },
      timeout: 300_000,
    },
  );
  if (r.exitCode !== 0) {
    await rm(partial, { force: true });
    return false;
  }
  await rename(partial, localPath);
  return true;
}

/** Removes out/<run id>/ on the node. */
export async function removeRemoteRunDir(conn: SshConnection, runId: string): Promise<void> {
  await conn.exec(['sh', '-c', REMOVE_CACHE_DIR, 'sdma-lens', outDir(runId)], { timeoutMs: 30_000 });
}
