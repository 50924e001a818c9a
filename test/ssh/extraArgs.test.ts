/**
 * `sdmaLens.ssh.extraArgs` against a real sshd: each option family that makes the system ssh
 * run a local command (or forward a port) is first shown to do so when given straight to ssh,
 * then shown to be refused by checkExtraArgs, the check every setting passes before it reaches
 * an SshConnection, so that ssh never starts and nothing runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshArgsError, checkExtraArgs } from '../../src/core/ssh/sshArgs';
import { freePort, startSshd } from './sshd';
import type { TestSshd } from './sshd';
import { canRunSshd, connectionTo } from './support';

/** Whether something listens on 127.0.0.1:port: binding it fails with EADDRINUSE. */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(true) : reject(e)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

describe.skipIf(!canRunSshd)('extra ssh options that run commands or forward, over a real sshd', () => {
  let sshd: TestSshd;
  let dir: string;
  let n = 0;

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'sdma-ssh-extra-'));
  });
  afterAll(async () => {
    await connectionTo(sshd).close();
    sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const marker = () => join(dir, `ran-${++n}`);

  /** The system ssh with the option given straight to it: what the option does when nothing checks it. */
  function rawSsh(extra: string[]) {
    return spawnSync(
      'ssh',
      ['-F', sshd.configFile, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', ...extra, '--', 'sdma-node', 'true'],
      { encoding: 'utf8', timeout: 20_000 },
    );
  }

  /** The product's path: settings are checked, then an SshConnection runs a command on the node. */
  async function throughProduct(extra: string[]): Promise<unknown> {
    try {
      const checked = checkExtraArgs(['-F', sshd.configFile, ...extra]);
      await connectionTo(sshd, { extraArgs: checked, controlDir: false }).exec(['true']);
      return undefined;
    } catch (e) {
      return e;
    }
  }

  const commandFamilies: ReadonlyArray<readonly [string, (m: string) => string[]]> = [
    ['ProxyCommand', (m) => ['-o', `ProxyCommand=touch ${m}`]],
    ['KnownHostsCommand', (m) => ['-o', `KnownHostsCommand=/usr/bin/touch ${m}`]],
    ['LocalCommand with PermitLocalCommand', (m) => ['-o', 'PermitLocalCommand=yes', '-o', `LocalCommand=touch ${m}`]],
  ];
  for (const [name, args] of commandFamilies) {
    it(`${name}: runs a local command when given to ssh, refused before ssh starts when given to SDMA Lens`, async () => {
      const raw = marker();
      rawSsh(args(raw));
      expect(existsSync(raw), `${name} given straight to ssh ran its command`).toBe(true);

      const ours = marker();
      const e = await throughProduct(args(ours));
      expect(e).toBeInstanceOf(SshArgsError);
      expect((e as Error).message).toMatch(/runs a command/);
      expect(existsSync(ours)).toBe(false);
    });
  }

  it('the checked path still reaches the node (the refusals above are not a broken connection)', async () => {
    const r = await connectionTo(sshd, {
      extraArgs: checkExtraArgs(['-F', sshd.configFile, '-o', 'ServerAliveInterval=2', '-oStrictHostKeyChecking=yes']),
      controlDir: false,
    }).exec(['sh', '-c', 'echo ok']);
    expect(r.stdout.trim()).toBe('ok');
  });

  it('Match exec: this ssh refuses it as a command-line option, and so does SDMA Lens', async () => {
    const raw = marker();
    const r = rawSsh(['-o', `Match exec "touch ${raw}"`]);
    // OpenSSH takes Host and Match only from config files; should a client ever take them here, the command would run.
    expect(r.status).toBe(255);
    expect(r.stderr).toMatch(/not supported as a command-line option/);
    expect(existsSync(raw)).toBe(false);

    const ours = marker();
    const e = await throughProduct(['-o', `Match exec "touch ${ours}"`]);
    expect(e).toBeInstanceOf(SshArgsError);
    expect((e as Error).message).toMatch(/runs a command/);
    expect(existsSync(ours)).toBe(false);
  });

  it('LocalForward: opens a local port when given to ssh, refused when given to SDMA Lens', async () => {
    const port = await freePort();
    const forward = ['-o', `LocalForward=127.0.0.1:${port} 127.0.0.1:${sshd.port}`];
    const child = spawn(
      'ssh',
      [
        '-F',
        sshd.configFile,
        '-o',
        'BatchMode=yes',
        '-o',
        'ExitOnForwardFailure=yes',
        ...forward,
        '--',
        'sdma-node',
        'sleep 20',
      ],
      { stdio: 'ignore' },
    );
    try {
      let open = false;
      for (let i = 0; i < 100 && !open && child.exitCode === null; i++) {
        open = await portTaken(port);
        if (!open) await new Promise((r) => setTimeout(r, 100));
      }
      expect(open, 'LocalForward given straight to ssh opened the port').toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 200));

    const port2 = await freePort();
    const e = await throughProduct(['-o', `LocalForward=127.0.0.1:${port2} 127.0.0.1:${sshd.port}`]);
    expect(e).toBeInstanceOf(SshArgsError);
    expect((e as Error).message).toMatch(/forwards/);
    expect(await portTaken(port2)).toBe(false);
  });
});
