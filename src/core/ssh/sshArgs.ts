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

/** A silent connection is dropped ServerAliveInterval x (ServerAliveCountMax + 1) = 8 s after the last data from the node. */
export const SERVER_ALIVE_INTERVAL_S = 2;
export const SERVER_ALIVE_COUNT_MAX = 3;
export const DEFAULT_CONNECT_TIMEOUT_S = 10;
/** The seconds a connect timeout may be, in the setting and the CLI: ssh reads 0 as "the system's own", minutes long. */
export const CONNECT_TIMEOUT_RANGE_S = [1, 300] as const;
/** How long an idle shared connection stays up after the last run, in seconds. */
export const CONTROL_PERSIST_S = 600;

/** `-A` is not here: it forwards the agent, like ForwardAgent. `-x` turns X11 forwarding off. */
const FLAGS = new Set(['-4', '-6', '-a', '-C', '-q', '-v', '-vv', '-vvv', '-x']);
const WITH_VALUE = new Set(['-o', '-F', '-i', '-J', '-l', '-c', '-m', '-b']);

/**
 * `-o` keys that are passed on (lower case): none of them runs a command, loads code, changes
 * the node's environment, forwards anything or turns host key checking off. A value check,
 * where there is one, refuses the values that would.
 */
const ALLOWED_OPTION = new Map<string, ((value: string) => string | undefined) | undefined>([
  ...[
    'user',
    'port',
    'identityfile',
    'identitiesonly',
    'identityagent',
    'certificatefile',
    'connecttimeout',
    'connectionattempts',
    'serveraliveinterval',
    'serveralivecountmax',
    'tcpkeepalive',
    'compression',
    'addressfamily',
    'bindaddress',
    'bindinterface',
    'ciphers',
    'macs',
    'kexalgorithms',
    'hostkeyalgorithms',
    'pubkeyacceptedalgorithms',
    'pubkeyacceptedkeytypes',
    'preferredauthentications',
    'pubkeyauthentication',
    'gssapiauthentication',
    'hostkeyalias',
    'checkhostip',
    'loglevel',
    'hashknownhosts',
    'verifyhostkeydns',
    'updatehostkeys',
    'rekeylimit',
    'ipqos',
    'numberofpasswordprompts',
  ].map((k) => [k, undefined] as const),
  [
    'proxyjump',
    (v) =>
      JUMP_HOSTS.test(v) ? undefined : 'names jump hosts with characters other than letters, digits and ._-@:,[]/%',
  ],
  [
    'stricthostkeychecking',
    (v) =>
      ['yes', 'ask', 'accept-new'].includes(v.toLowerCase())
        ? undefined
        : 'turns off host key checks (only yes, ask or accept-new)',
  ],
  ['userknownhostsfile', knownHostsFiles],
  ['globalknownhostsfile', knownHostsFiles],
  [
    'addkeystoagent',
    (v) =>
      ['yes', 'no'].includes(v.toLowerCase())
        ? undefined
        : 'runs a command (ask and confirm start ssh-askpass; only yes or no)',
  ],
]);

/** A ProxyJump list: plain [user@]host[:port] words or ssh:// URIs, nothing a shell would read. */
const JUMP_HOSTS = /^[A-Za-z0-9._@:,[\]/%-]+$/;

function knownHostsFiles(value: string): string | undefined {
  const files = value.split(/\s+/).map((f) => f.toLowerCase());
  return files.some((f) => f === '/dev/null' || f === 'none')
    ? 'turns off host key checks (/dev/null or none)'
    : undefined;
}

/** Why each refused family is refused (keys in lower case); any other key is not passed on. */
const REFUSED_OPTION: ReadonlyArray<readonly [string, readonly string[]]> = [
  [
    'runs a command',
    [
      'proxycommand',
      'knownhostscommand',
      'localcommand',
      'permitlocalcommand',
      'match',
      'remotecommand',
      'proxyusefdpass',
      'hostbasedauthentication',
      'enablesshkeysign',
      'xauthlocation',
    ],
  ],
  ['loads code', ['pkcs11provider', 'securitykeyprovider', 'include']],
  ["changes the node's environment", ['setenv', 'sendenv']],
  [
    'forwards',
    [
      'forwardagent',
      'forwardx11',
      'forwardx11trusted',
      'forwardx11timeout',
      'localforward',
      'remoteforward',
      'dynamicforward',
      'tunnel',
      'tunneldevice',
      'gatewayports',
      'clearallforwardings',
      'permitremoteopen',
      'exitonforwardfailure',
      'streamlocalbindmask',
      'streamlocalbindunlink',
    ],
  ],
  [
    'turns off host key checks',
    ['nohostauthenticationforlocalhost', 'stricthostkeychecking', 'userknownhostsfile', 'globalknownhostsfile'],
  ],
];

/** Splits `KEY=VALUE`, `KEY = VALUE` or `KEY VALUE` as ssh does; surrounding quotes of the value are dropped. */
function splitOption(text: string): { key: string; value: string } | undefined {
  const m = /^\s*([A-Za-z0-9]+)(?:\s*=\s*|\s+)(.*?)\s*$/s.exec(text);
  const [, key, raw] = m ?? [];
  if (!key || !raw) return undefined;
  return { key, value: raw.replace(/^"(.*)"$/s, '$1') };
}

/** Undefined when `-o text` may be passed on, otherwise why not. */
function optionProblem(key: string, value: string): string | undefined {
  const lower = key.toLowerCase();
  if (ALLOWED_OPTION.has(lower)) return ALLOWED_OPTION.get(lower)?.(value);
  // The keys below are also refused when their value looks harmless: ssh's meaning of a value can change.
  for (const [why, keys] of REFUSED_OPTION) if (keys.includes(lower)) return why;
  return 'is not an option SDMA Lens passes on';
}

/**
 * Checks `sdmaLens.ssh.extraArgs`. They are ssh options by design, so the check is an
 * allowlist: known flags, and known options each followed by exactly one value. Nothing can
 * end the options early (`--`, a stray word would become the destination), and a `-o` option
 * is passed on only if its key is one that cannot run a command, load code, change the node's
 * environment, forward anything or turn host key checking off. A config file named with `-F`
 * is the user's own and is read by ssh as it is, like ~/.ssh/config.
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
    if (a === '-A') throw new SshArgsError('extra ssh argument "-A" is not accepted: it forwards the agent');
    const flag = a.slice(0, 2);
    if (!WITH_VALUE.has(flag))
      throw new SshArgsError(`extra ssh argument "${a}" is not one of ${[...FLAGS, ...WITH_VALUE].join(' ')}`);
    let value: string;
    if (a.length > 2) {
      value = a.slice(2);
      out.push(a);
    } else {
      const next = args[i + 1];
      if (typeof next !== 'string' || next.length === 0)
        throw new SshArgsError(`extra ssh argument "${a}" needs a value`);
      if (/[\0\r\n]/.test(next)) throw new SshArgsError(`the value of "${a}" contains a control character`);
      value = next;
      out.push(a, next);
      i++;
    }
    if (value.startsWith('-')) throw new SshArgsError(`the value of "${flag}" must not start with "-"`);
    if (flag === '-J' && !JUMP_HOSTS.test(value))
      throw new SshArgsError(
        `"-J ${value}" is not accepted: it names jump hosts with characters other than letters, digits and ._-@:,[]/%`,
      );
    if (flag === '-o') {
      const option = splitOption(value);
      if (!option) throw new SshArgsError(`"-o ${value}" is not KEY=VALUE`);
      const problem = optionProblem(option.key, option.value);
      if (problem) throw new SshArgsError(`"-o ${value}" is not accepted: ${option.key} ${problem}`);
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
  if ((st.mode & 0o077) !== 0)
    throw new SshArgsError(`${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)})`);
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
    '-o',
    'BatchMode=yes',
    '-o',
    `ConnectTimeout=${timeout}`,
    '-o',
    `ServerAliveInterval=${SERVER_ALIVE_INTERVAL_S}`,
    '-o',
    `ServerAliveCountMax=${SERVER_ALIVE_COUNT_MAX}`,
    // A LocalForward in the user's config would clash with their own sessions on every run.
    '-o',
    'ClearAllForwardings=yes',
  ];
  if (controlDir) {
    opts.push(
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${join(controlDir, 'cm-%C')}`,
      '-o',
      `ControlPersist=${CONTROL_PERSIST_S}`,
    );
  }
  if (dest.port !== undefined) opts.push('-p', String(dest.port));
  return opts;
}

/** `ssh OPTIONS -- DEST 'argv0' 'argv1' ...`: the `--` keeps any destination from being read as an option. */
export function sshCommandArgs(
  dest: SshDestination,
  s: SshSettings,
  controlDir: string | undefined,
  argv: readonly string[],
): string[] {
  return [...sshOptions(dest, s, controlDir), '--', sshDestinationArg(dest), remoteCommand(argv)];
}
