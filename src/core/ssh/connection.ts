/**
 * One SSH destination and the settings to reach it. Runs short remote commands and watched
 * long-running ones through the system `ssh` client, always from argument arrays; the
 * remote command string comes only from `remoteCommand` (quote.ts).
 *
 * Connections are shared: the first ssh to a node becomes a ControlMaster that later runs,
 * deploys and cancels reuse, unless the user's own ssh config already shares connections
 * for that host (then theirs is used and left alone).
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { HelperError, loadExeca } from '../runtime/helper';
import type { SshDestination } from './destination';
import { formatDestination, sshDestinationArg } from './destination';
import { remoteCommand } from './quote';
import { KILL_RUN, WATCHED_RUN } from './remoteScripts';
import type { SshSettings } from './sshArgs';
import { defaultControlDir, sshCommandArgs, sshOptions } from './sshArgs';

/** ssh exits with 255 for its own errors (could not connect, lost the connection); a remote program's status otherwise. */
export const SSH_ERROR_EXIT = 255;

/** A HelperError, so every front that explains helper problems (message and remedy) explains these too. */
export class SshError extends HelperError {
  /** The way to the node failed: choosing or fixing the target is the fix. */
  override get fixedBy(): 'helper' | 'target' {
    return 'target';
  }
}

export interface ExecResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

export interface ExecOptions {
  input?: Buffer | string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WatchedProcess {
  token: string;
  pid: number | undefined;
  stdout: Readable;
  stderr: Readable;
  /** Ends the heartbeat input: the node kills the program's process group. */
  closeInput(): void;
  exit: Promise<{ exitCode: number | null; signal: string | null; failed: string | undefined }>;
  /** Kills the local ssh client (the node then sees the channel close). */
  killLocal(signal: NodeJS.Signals): void;
}

const isTimeoutLine = (s: string) => /timed out|not responding|Timeout/i.test(s);

/** Turns ssh's own stderr (exit 255) into a sentence and what to do about it. */
export function explainSshFailure(label: string, stderr: string, connectTimeoutS: number): SshError {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('debug'));
  const last = lines.at(-1) ?? 'ssh failed without a message';
  const text = lines.join('\n');
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No .* host key is known/i.test(text)) {
    return new SshError(
      `ssh could not verify the host key of ${label}`,
      `Connect once with \`ssh ${label}\` in a terminal to check and accept its key (SDMA Lens never turns host key checking off).`,
    );
  }
  if (/Permission denied|Too many authentication failures/i.test(text)) {
    return new SshError(
      `ssh could not log in to ${label} (${last})`,
      `Make \`ssh ${label}\` work without a password prompt: load your key into ssh-agent or name it in ~/.ssh/config.`,
    );
  }
  if (/Could not resolve hostname|Name or service not known|nodename nor servname/i.test(text)) {
    return new SshError(
      `ssh could not find the host ${label} (${last})`,
      'Check the host name, or add a Host entry for it to ~/.ssh/config.',
    );
  }
  if (isTimeoutLine(text)) {
    return new SshError(
      `${label} did not answer within ${connectTimeoutS} s (${last})`,
      'Check that the node is up and reachable (VPN, ProxyJump), or raise sdmaLens.ssh.connectTimeoutSeconds.',
    );
  }
  if (/Connection refused/i.test(text)) {
    return new SshError(
      `${label} refused the SSH connection (${last})`,
      'Check the port and that sshd runs on the node.',
    );
  }
  return new SshError(`ssh to ${label} failed: ${last}`, `Run \`ssh ${label}\` in a terminal to see what is wrong.`);
}

export class SshConnection {
  readonly label: string;
  private controlDir: Promise<string | undefined> | undefined;

  constructor(
    readonly destination: SshDestination,
    readonly settings: SshSettings = {},
  ) {
    this.label = formatDestination(destination);
  }

  get sshPath(): string {
    return this.settings.sshPath ?? 'ssh';
  }

  get connectTimeoutS(): number {
    return this.settings.connectTimeoutSeconds ?? 10;
  }

  /** Our control socket folder, or none when the user's config shares connections already or sharing is off. */
  private control(): Promise<string | undefined> {
    if (!this.controlDir) {
      this.controlDir = (async () => {
        // Windows' OpenSSH has no connection sharing (no Unix sockets for ControlPath).
        if (this.settings.controlDir === false || process.platform === 'win32') return undefined;
        // `ssh -G` prints the configuration for this host without connecting.
        const { execa } = await loadExeca();
        const r = await execa(
          this.sshPath,
          ['-G', ...sshOptions(this.destination, this.settings, undefined), '--', sshDestinationArg(this.destination)],
          { reject: false, stdin: 'ignore', timeout: 10_000 },
        );
        const path = /^controlpath (.+)$/m.exec(String(r.stdout))?.[1]?.trim();
        if (path && path !== 'none') return undefined;
        return this.settings.controlDir ?? defaultControlDir();
      })();
    }
    return this.controlDir;
  }

  /** The full ssh argument array for a remote argv. */
  async args(argv: readonly string[]): Promise<string[]> {
    return sshCommandArgs(this.destination, this.settings, await this.control(), argv);
  }

  /** Runs a short remote command and collects its output; never throws for a remote failure. */
  async exec(argv: readonly string[], o: ExecOptions = {}): Promise<ExecResult> {
    const { execa } = await loadExeca();
    const r = await execa(this.sshPath, await this.args(argv), {
      reject: false,
      ...(o.input !== undefined ? { input: o.input } : { stdin: 'ignore' }),
      timeout: o.timeoutMs ?? (this.connectTimeoutS + 20) * 1000,
      cancelSignal: o.signal,
      stripFinalNewline: false,
      maxBuffer: 64 * 1024 * 1024,
    });
    return {
      exitCode: r.exitCode ?? null,
      stdout: String(r.stdout ?? ''),
      stderr: String(r.stderr ?? ''),
      timedOut: r.timedOut === true,
      cancelled: r.isCanceled === true,
    };
  }

  /** Like exec, but turns "ssh itself failed" and a timeout into an SshError. */
  async execChecked(argv: readonly string[], o: ExecOptions = {}): Promise<ExecResult> {
    const r = await this.exec(argv, o);
    if (r.cancelled) throw new SshError(`cancelled while talking to ${this.label}`, 'Run the command again.');
    if (r.timedOut)
      throw new SshError(
        `${this.label} did not answer in time`,
        'Check that the node is up and reachable, or raise sdmaLens.ssh.connectTimeoutSeconds.',
      );
    if (r.exitCode === SSH_ERROR_EXIT) throw explainSshFailure(this.label, r.stderr, this.connectTimeoutS);
    return r;
  }

  /**
   * Starts argv on the node under the WATCHED_RUN wrapper (remoteScripts.ts): its own process
   * group, killed when our input ends or heartbeats stop. stdin stays a pipe that carries only
   * heartbeats.
   */
  async startWatched(argv: readonly string[], heartbeatMs: number): Promise<WatchedProcess> {
    const token = randomBytes(8).toString('hex');
    const { execa } = await loadExeca();
    const child = execa(this.sshPath, await this.args(['sh', '-c', WATCHED_RUN, 'sdma-lens', token, ...argv]), {
      stdin: 'pipe',
      buffer: false,
      reject: false,
      // If this process dies, its ssh goes with it, and the node sees the channel close.
      cleanup: true,
    });
    const stdin = child.stdin!;
    stdin.on('error', () => {
      // ssh exited and the pipe closed under a heartbeat; the exit is reported below.
    });
    const beat = setInterval(() => {
      if (!stdin.destroyed && stdin.writable) stdin.write('\n');
    }, heartbeatMs);
    beat.unref();
    const closeInput = () => {
      clearInterval(beat);
      if (!stdin.destroyed) stdin.end();
    };
    const exit = child.then((r) => {
      clearInterval(beat);
      const failed = r.failed && r.exitCode === undefined && !r.signal ? r.shortMessage : undefined;
      return { exitCode: r.exitCode ?? null, signal: r.signal ?? null, failed };
    });
    if (!child.stdout || !child.stderr) throw new Error('ssh streams are not piped');
    return {
      token,
      pid: child.pid,
      stdout: child.stdout,
      stderr: child.stderr,
      closeInput,
      exit,
      killLocal: (signal) => {
        child.kill(signal);
      },
    };
  }

  /** Sends SIGTERM (then SIGKILL) to a watched run's process group over a second channel. */
  async killWatched(token: string, timeoutMs = 15_000): Promise<void> {
    await this.exec(['sh', '-c', KILL_RUN, 'sdma-lens', token], { timeoutMs });
  }

  /** Closes our shared connection to this node, if one is up. */
  async close(): Promise<void> {
    const dir = await this.control();
    if (!dir) return;
    const { execa } = await loadExeca();
    await execa(
      this.sshPath,
      [...sshOptions(this.destination, this.settings, dir), '-O', 'exit', '--', sshDestinationArg(this.destination)],
      { reject: false, stdin: 'ignore', timeout: 5000 },
    );
  }

  /** A quoted remote command, for logs: what the node's shell is given. */
  describe(argv: readonly string[]): string {
    return remoteCommand(argv);
  }
}
