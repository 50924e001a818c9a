/**
 * The argument arrays given to the system `ssh` client. Using the user's own client keeps
 * their ~/.ssh/config, agent, ProxyJump and ControlMaster settings working; SDMA Lens adds
 * only what a non-interactive, long-running, cancellable session needs.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SshDestination } from './destination';
import { sshDestinationArg } from './destination';
import { remoteCommand } from './quote';

export interface SshSettings {
  /** The ssh client; `ssh` from PATH unless set. */
  sshPath?: string;
  /** Seconds to wait for a node to accept the connection and answer. */
  connectTimeoutSeconds?: number;
  /** Checked extra options (see checkExtraArgs), placed before ours so a user's value wins. */
  extraArgs?: readonly string[];
  /**
   * Folder for connection-sharing sockets. Unset: a private folder under the system temp
   * folder. `false`: no connection sharing of our own (the user's ControlMaster, if any, still applies).
   */
  controlDir?: string | false;
}

export class SshArgsError extends Error {}

/** Seconds a silent connection survives: ServerAliveInterval x ServerAliveCountMax. */
export const SERVER_ALIVE_INTERVAL_S = 2;
export const SERVER_ALIVE_COUNT_MAX = 3;
export const DEFAULT_CONNECT_TIMEOUT_S = 10;
/** How long an idle shared connection stays up after the last run, in seconds. */
export const CONTROL_PERSIST_S = 600;

const FLAGS = new Set(['-4', '-6', '-A', '-a', '-C', '-q', '-v', '-vv', '-vvv', '-x']);
const WITH_VALUE = new Set(['-o', '-F', '-i', '-J', '-l', '-c', '-m', '-b']);
/** Options that would switch off the checks that tell a user they reached the right node. */
const FORBIDDEN_OPTION = /^\s*(stricthostkeychecking\s*[= ]\s*(no|off)|userknownhostsfile\s*[= ]\s*\/dev\/null|globalknownhostsfile\s*[= ]\s*\/dev\/null|permitlocalcommand|localcommand)\b/i;

/**
 * Checks `sdmaLens.ssh.extraArgs`. They are ssh options by design, so the check is an
 * allowlist: known flags, and known options each followed by exactly one value. Nothing can
 * end the options early (`--`, a stray word would become the destination), forwardings are
 * not accepted, and host key checking cannot be turned off.
 */
export function checkExtraArgs(args: readonly unknown[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'string') throw new SshArgsError(`extra ssh argument ${i + 1} is not a string`);
    if (/[\0\r\n]/.test(a)) throw new SshArgsError(`extra ssh argument ${i + 1} contains a control character`);
    if (FLAGS.has(a)) {
      out.push(a);
      continue;
    }
    const flag = a.slice(0, 2);
    if (!WITH_VALUE.has(flag)) throw new SshArgsError(`extra ssh argument "${a}" is not one of ${[...FLAGS, ...WITH_VALUE].join(' ')}`);
    let value: string;
    if (a.length > 2) {
      value = a.slice(2);
      out.push(a);
    } else {
      const next = args[i + 1];
      if (typeof next !== 'string' || next.length === 0) throw new SshArgsError(`extra ssh argument "${a}" needs a value`);
      if (/[\0\r\n]/.test(next)) throw new SshArgsError(`the value of "${a}" contains a control character`);
      value = next;
      out.push(a, next);
      i++;
    }
    if (value.startsWith('-')) throw new SshArgsError(`the value of "${flag}" must not start with "-"`);
    if (flag === '-o') {
      if (!/^\s*[A-Za-z]+\s*[= ]/.test(value)) throw new SshArgsError(`"-o ${value}" is not KEY=VALUE`);
      if (FORBIDDEN_OPTION.test(value)) throw new SshArgsError(`"-o ${value}" is not accepted: host key checking stays on and no local commands are run`);
      if (/^\s*(localforward|remoteforward|dynamicforward)\b/i.test(value)) throw new SshArgsError(`"-o ${value}": forwardings are not used by SDMA Lens`);
    }
  }
  return out;
}

/** A private folder for control sockets: ours, not a link, mode 0700 (it sits in a shared temp folder). */
export function defaultControlDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir = join(tmpdir(), `sdma-lens-ssh-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.isSymbolicLink()) throw new SshArgsError(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== uid) throw new SshArgsError(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) throw new SshArgsError(`${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)})`);
  return dir;
}

/** Options before the destination: ours after the user's, since ssh keeps the first value it sees. */
export function sshOptions(dest: SshDestination, s: SshSettings, controlDir: string | undefined): string[] {
  const timeout = s.connectTimeoutSeconds ?? DEFAULT_CONNECT_TIMEOUT_S;
  const opts = [
    ...(s.extraArgs ?? []),
    // Never a pseudo-terminal: it would turn newlines into CRLF and merge stderr into stdout.
    '-T',
    // No prompt can be answered from here; a key or an agent must do.
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${timeout}`,
    '-o', `ServerAliveInterval=${SERVER_ALIVE_INTERVAL_S}`,
    '-o', `ServerAliveCountMax=${SERVER_ALIVE_COUNT_MAX}`,
    // A LocalForward in the user's config would clash with their own sessions on every run.
    '-o', 'ClearAllForwardings=yes',
  ];
  if (controlDir) {
    opts.push('-o', 'ControlMaster=auto', '-o', `ControlPath=${join(controlDir, 'cm-%C')}`, '-o', `ControlPersist=${CONTROL_PERSIST_S}`);
  }
  if (dest.port !== undefined) opts.push('-p', String(dest.port));
  return opts;
}

/** `ssh OPTIONS -- DEST 'argv0' 'argv1' ...`: the `--` keeps any destination from being read as an option. */
export function sshCommandArgs(dest: SshDestination, s: SshSettings, controlDir: string | undefined, argv: readonly string[]): string[] {
  return [...sshOptions(dest, s, controlDir), '--', sshDestinationArg(dest), remoteCommand(argv)];
}
