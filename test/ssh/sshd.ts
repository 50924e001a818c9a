/**
 * A real OpenSSH server on loopback for the ssh tests: its own host key, key-only login for
 * a generated client key, and a client config that pins the host key (host key checking
 * stays on). The "node" is this machine; its per-user cache folder is redirected into the
 * test folder with sshd's SetEnv, so the tests never touch the real ~/.cache or ~/.ssh.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = '/usr/sbin/sshd';

export interface TestSshd {
  dir: string;
  port: number;
  /** An ssh config file with Host `sdma-node` pointing at this server. */
  configFile: string;
  knownHosts: string;
  identity: string;
  /** The node's XDG_CACHE_HOME. */
  nodeCache: string;
  /** Folder for connection-sharing sockets of the tests. */
  controlDir: string;
  user: string;
  pid: number;
  /** Kills (SIGKILL) or stops (SIGSTOP) every per-connection sshd process; the listener stays. */
  signalSessions(signal: NodeJS.Signals): number[];
  stop(): void;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The sshd processes serving connections of the listener `pid` (not the programs they run). */
function sessionProcesses(pid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,comm='], { encoding: 'utf8' });
  const all = out
    .trim()
    .split('\n')
    .map((l) => {
      const [p, pp, comm] = l.trim().split(/\s+/);
      return { pid: Number(p), ppid: Number(pp), comm: comm ?? '' };
    });
  const result: number[] = [];
  const walk = (parent: number) => {
    for (const c of all)
      if (c.ppid === parent && c.comm === 'sshd') {
        result.push(c.pid);
        walk(c.pid);
      }
  };
  walk(pid);
  return result;
}

/** `env`: more variables every session on the node gets (sshd's SetEnv), e.g. the test cluster's SLURM_CONF. */
export async function startSshd(options: { env?: Record<string, string> } = {}): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-sshd-'));
  const port = await freePort();
  const hostKey = join(dir, 'host_ed25519');
  const identity = join(dir, 'client_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', identity]);
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, readFileSync(`${identity}.pub`));
  const knownHosts = join(dir, 'known_hosts');
  const hostPub = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const nodeCache = join(dir, 'node-cache');
  mkdirSync(nodeCache);
  const controlDir = join(dir, 'cm');
  mkdirSync(controlDir, { mode: 0o700 });
  const pidFile = join(dir, 'sshd.pid');
  const log = join(dir, 'sshd.log');
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${pidFile}`,
      `AuthorizedKeysFile ${authorized}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'MaxSessions 64',
      'MaxStartups 64',
      'LogLevel VERBOSE',
      `SetEnv XDG_CACHE_HOME=${nodeCache}${Object.entries(options.env ?? {})
        .map(([k, v]) => ` ${k}=${v}`)
        .join('')}`,
      '',
    ].join('\n'),
  );
  const user = userInfo().username;
  const configFile = join(dir, 'ssh_config');
  writeFileSync(
    configFile,
    [
      'Host sdma-node',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${identity}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      'Host 127.0.0.1',
      `  IdentityFile ${identity}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  StrictHostKeyChecking yes',
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  // -D: stays in the foreground, so the test owns the process; -E: its own log.
  const child = spawn(SSHD, ['-D', '-f', config, '-E', log], { stdio: 'ignore' });
  const deadline = performance.now() + 10_000;
  while (!(await portOpen(port))) {
    if (performance.now() > deadline || child.exitCode !== null) {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        // no log yet
      }
      throw new Error(`sshd did not start on port ${port}: ${text}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const pid = child.pid!;
  return {
    dir,
    port,
    configFile,
    knownHosts,
    identity,
    nodeCache,
    controlDir,
    user,
    pid,
    signalSessions(signal) {
      const pids = sessionProcesses(pid);
      for (const p of pids) {
        try {
          process.kill(p, signal);
        } catch {
          // already gone
        }
      }
      return pids;
    },
    stop() {
      for (const p of sessionProcesses(pid)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
