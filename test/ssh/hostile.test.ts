/**
 * Hostile input against a real sshd: arguments, helper paths, environment values and
 * destinations with shell syntax, newlines, spaces and leading dashes. Each either arrives
 * on the node as one literal word or is refused; nothing runs that was not asked for. Also:
 * a node that accepts the connection but never answers.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';
import { runSession } from '../../src/core/runtime/session';
import { SshError } from '../../src/core/ssh/connection';
import { deployHelper } from '../../src/core/ssh/deploy';
import { DestinationError, parseDestination } from '../../src/core/ssh/destination';
import { sshCommandArgs } from '../../src/core/ssh/sshArgs';
import { SshTarget } from '../../src/core/ssh/sshTarget';
import { done, header, hello, sample } from '../support/records';
import { hostileHosts, hostileWords } from './hostile';
import { startSshd } from './sshd';
import type { TestSshd } from './sshd';
import { canRunSshd, connectionTo, settingsFor } from './support';

const repo = resolve(__dirname, '..', '..');

describe.skipIf(!canRunSshd)('hostile input over a real sshd', () => {
  let sshd: TestSshd;
  let dir: string;
  let marker: string;

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'sdma-ssh-hostile-'));
    marker = join(dir, 'PWNED');
  });
  afterAll(async () => {
    await connectionTo(sshd).close();
    sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A stand-in helper in a folder whose name is itself hostile: answers --version, records
   * its argv and one environment variable, prints a valid run.
   */
  function fakeHelper(): { path: string; seen: string } {
    const folder = join(dir, `we ird $(touch ${marker}) 'q' ;|&\` -x`);
    mkdirSync(folder, { recursive: true });
    const path = join(folder, '-sdma-probe $x');
    const seen = join(dir, 'seen.json');
    const lines = [hello, sample(), done].map((r) => JSON.stringify(r));
    writeFileSync(
      path,
      `#!${process.execPath}
const a = process.argv.slice(2);
if (a[0] === '--version') { console.log('sdma-probe 0.1.0 (protocol 1; backends: sim)'); process.exit(0); }
require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ argv: a, env: process.env.SDMA_HOSTILE ?? null }));
console.log(${JSON.stringify(lines.join('\n'))});
`,
    );
    chmodSync(path, 0o755);
    return { path, seen };
  }

  it('arguments, a helper path and environment values arrive as literal words and run nothing', async () => {
    const { path, seen } = fakeHelper();
    const words = hostileWords(marker);
    const target = new SshTarget(connectionTo(sshd));
    const spawned = target.spawn(path, words, { env: { SDMA_HOSTILE: `$(touch ${marker}); \`touch ${marker}\`\n'"` } });
    let out = '';
    spawned.stdout.on('data', (c: Buffer) => (out += c.toString()));
    spawned.stderr.resume();
    const exit = await spawned.exit;
    expect(exit).toMatchObject({ exitCode: 0 });
    expect(out).toMatch(/"type":"done"/);
    const got = JSON.parse(readFileSync(seen, 'utf8')) as { argv: string[]; env: string };
    expect(got.argv).toEqual(words);
    expect(got.env).toBe(`$(touch ${marker}); \`touch ${marker}\`\n'"`);
    expect(existsSync(marker)).toBe(false);
  });

  it('a hostile configured helper path passes the handshake as one word, and a full run through it works', async () => {
    const { path } = fakeHelper();
    const conn = connectionTo(sshd);
    const info = await deployHelper(conn, { sourceDir: join(repo, 'native'), configuredPath: path });
    expect(info).toMatchObject({ source: 'setting', path, protocol: 1 });
    const run = await runSession({
      target: new SshTarget(conn),
      store: new RunStore(join(dir, 'runs')),
      header: { ...header('h'), helper: { path, args: ['sweep'] } },
    });
    expect(run.end?.status).toBe('ok');
    expect(existsSync(marker)).toBe(false);
    // A relative path or one with a newline is refused before anything is sent.
    await expect(
      deployHelper(conn, { sourceDir: join(repo, 'native'), configuredPath: 'bin/sdma-probe' }),
    ).rejects.toThrow(/absolute path/);
    await expect(deployHelper(conn, { sourceDir: join(repo, 'native'), configuredPath: '/x\n/y' })).rejects.toThrow(
      /absolute path/,
    );
  });

  it('hostile destinations are refused; forced past the check, "--" keeps them from being ssh options', () => {
    for (const host of hostileHosts(marker))
      expect(() => parseDestination(host), JSON.stringify(host)).toThrow(DestinationError);
    // Skip the check on purpose: ssh must still treat the string as a host name, not as -oProxyCommand.
    for (const host of [`-oProxyCommand=touch ${marker}`, `-oLocalCommand=touch ${marker}`]) {
      const args = sshCommandArgs({ host }, { ...settingsFor(sshd), controlDir: false }, undefined, ['true']);
      const r = spawnSync('ssh', args, { encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(255);
      expect(r.stderr).toMatch(/resolve hostname|hostname contains invalid characters/i);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('host key checking stays on: an unknown host key is an error that says what to do', async () => {
    const known = join(dir, 'empty_known_hosts');
    writeFileSync(known, '');
    const conn = connectionTo(sshd, {
      extraArgs: ['-F', sshd.configFile, '-o', `UserKnownHostsFile=${known}`],
      controlDir: false,
    });
    const err = await deployHelper(conn, { sourceDir: join(repo, 'native') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshError);
    expect((err as SshError).message).toMatch(/could not verify the host key of sdma-node/);
    expect((err as SshError).remedy).toMatch(/Connect once with `ssh sdma-node`/);
  });

  it('a node that accepts the connection but never answers times out with a clear error', async () => {
    const sockets: Socket[] = [];
    const server: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const conn = connectionTo(sshd, { connectTimeoutSeconds: 2, controlDir: false }, `127.0.0.1:${port}`);
      const t0 = performance.now();
      const err = await deployHelper(conn, { sourceDir: join(repo, 'native') }).catch((e: unknown) => e);
      const tookMs = performance.now() - t0;
      console.log(`a silent node with connectTimeoutSeconds 2: the error came after ${tookMs} ms`);
      // The message promises 2 s: ssh gives up at 2 s, and the error follows at once.
      expect(tookMs).toBeGreaterThanOrEqual(2_000);
      expect(tookMs).toBeLessThan(3_000);
      expect(err).toBeInstanceOf(SshError);
      expect((err as SshError).message).toMatch(/did not answer within 2 s/);
      expect((err as SshError).remedy).toMatch(/connectTimeoutSeconds/);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});
