/** Shared pieces of the ssh tests: the target for the test sshd, and ps on the "node" over ssh. */
import { existsSync } from 'node:fs';
import { SshConnection } from '../../src/core/ssh/connection';
import { parseDestination } from '../../src/core/ssh/destination';
import { LIST_PROCESSES } from '../../src/core/ssh/remoteScripts';
import type { SshSettings } from '../../src/core/ssh/sshArgs';
import { SSHD } from './sshd';
import type { TestSshd } from './sshd';

/** Without sshd the ssh tests are skipped on a workstation, but fail in CI. */
export const canRunSshd = existsSync(SSHD) || Boolean(process.env.CI);

export function settingsFor(sshd: TestSshd, over: Partial<SshSettings> = {}): SshSettings {
  return { extraArgs: ['-F', sshd.configFile], connectTimeoutSeconds: 5, controlDir: sshd.controlDir, ...over };
}

export function connectionTo(sshd: TestSshd, over: Partial<SshSettings> = {}, destination = 'sdma-node'): SshConnection {
  return new SshConnection(parseDestination(destination), settingsFor(sshd, over));
}

/** Processes of the test user on the node whose command line starts with `prefix`, as seen by ps over a fresh ssh. */
export async function remoteProcesses(sshd: TestSshd, prefix: string): Promise<string[]> {
  // A separate connection without sharing: the shared one may be the one a test just killed.
  const conn = connectionTo(sshd, { controlDir: false });
  const r = await conn.execChecked(['sh', '-c', LIST_PROCESSES, 'sdma-lens', prefix]);
  return r.stdout.split('\n').filter(Boolean);
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
