/** Shared pieces of the ssh tests: the target for the test sshd, ps on the "node" over ssh, and the ssh clients left here. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SshConnection } from '../../src/core/ssh/connection';
import { parseDestination } from '../../src/core/ssh/destination';
import { LIST_PROCESSES } from '../../src/core/ssh/remoteScripts';
import type { SshSettings } from '../../src/core/ssh/sshArgs';
import { defaultControlDir, sshOptions } from '../../src/core/ssh/sshArgs';
import { SSHD } from './sshd';
import type { TestSshd } from './sshd';

/** Without sshd the ssh tests are skipped on a workstation, but fail in CI. */
export const canRunSshd = existsSync(SSHD) || Boolean(process.env.CI);

export function settingsFor(sshd: TestSshd, over: Partial<SshSettings> = {}): SshSettings {
  return { extraArgs: ['-F', sshd.configFile], connectTimeoutSeconds: 5, controlDir: sshd.controlDir, ...over };
}

export function connectionTo(
  sshd: TestSshd,
  over: Partial<SshSettings> = {},
  destination = 'sdma-node',
): SshConnection {
  return new SshConnection(parseDestination(destination), settingsFor(sshd, over));
}

/** Processes of the test user on the node whose command line starts with `prefix`, as seen by ps over a fresh ssh. */
export async function remoteProcesses(sshd: TestSshd, prefix: string): Promise<string[]> {
  // A separate connection without sharing: the shared one may be the one a test just killed.
  const conn = connectionTo(sshd, { controlDir: false });
  const r = await conn.execChecked(['sh', '-c', LIST_PROCESSES, 'sdma-lens', prefix]);
  return r.stdout.split('\n').filter(Boolean);
}

export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs: number,
  everyMs = 200,
): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * ssh clients here that a CLI run on `sdma-node` started (its shared connection lives in the
 * default control folder, sdma-lens-ssh-<uid>, unlike the tests' own in sshd.controlDir).
 */
export function cliSshProcesses(sshd: TestSshd): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(sshd.configFile) && l.includes('sdma-lens-ssh-'));
}

/** The control socket a CLI run with `--ssh-config` uses for `sdma-node`: ssh -G expands its ControlPath as the CLI's ssh does. */
export function cliControlSocket(sshd: TestSshd): string {
  const options = sshOptions(
    parseDestination('sdma-node'),
    { extraArgs: ['-F', sshd.configFile] },
    defaultControlDir(),
  );
  const out = execFileSync('ssh', ['-G', ...options, '--', 'sdma-node'], { encoding: 'utf8' });
  const path = /^controlpath (.+)$/m.exec(out)?.[1]?.trim();
  if (!path?.startsWith(join(defaultControlDir(), 'cm-')))
    throw new Error(`ssh -G gave no control path in ${defaultControlDir()}: ${path}`);
  return path;
}
