/**
 * SSH destinations as users type them: `host`, `user@host`, `host:port`, `user@host:port`,
 * `[2001:db8::1]:2222`, or an alias from ~/.ssh/config. Checked strictly before anything
 * sees them: the host string also reaches the user's ssh config (a `ProxyCommand` with `%h`
 * is run by a shell on this machine), so only the characters real host names and aliases
 * use are accepted. A leading dash is refused too, though ssh is always called with `--`
 * before the destination.
 */

export interface SshDestination {
  user?: string;
  /** A host name, an IPv4 or IPv6 address (without brackets), or an ssh config alias. */
  host: string;
  port?: number;
}

export class DestinationError extends Error {}

const USER = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
const HOST = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,252}$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;
const PORT = /^[0-9]{1,5}$/;

function describe(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

/** Parses and checks a destination; throws DestinationError saying what is wrong. */
export function parseDestination(text: string): SshDestination {
  if (typeof text !== 'string' || text.length === 0)
    throw new DestinationError('an SSH target needs a host, e.g. user@gpu-node-3 or gpu-node-3:2222');
  if (text.length > 320) throw new DestinationError('the SSH target is too long');
  // Control characters, spaces and shell syntax are never part of a host, user or alias.
  if (/[^A-Za-z0-9_.@:[\]-]/.test(text))
    throw new DestinationError(`the SSH target ${describe(text)} contains a character a host name cannot have`);
  if (text.startsWith('-')) throw new DestinationError(`the SSH target ${describe(text)} starts with "-"`);

  let rest = text;
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (!USER.test(user)) throw new DestinationError(`the user name in ${describe(text)} is not valid`);
  }

  let host: string;
  let portText: string | undefined;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw new DestinationError(`${describe(text)}: "[" without "]"`);
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':')) throw new DestinationError(`${describe(text)}: expected ":port" after "]"`);
      portText = after.slice(1);
    }
    if (!IPV6.test(host) || !host.includes(':'))
      throw new DestinationError(`${describe(text)}: "${host}" is not an IPv6 address`);
  } else {
    const colons = rest.split(':').length - 1;
    if (colons > 1)
      throw new DestinationError(`${describe(text)}: write an IPv6 address in brackets, e.g. [2001:db8::1]:22`);
    const colon = rest.indexOf(':');
    host = colon >= 0 ? rest.slice(0, colon) : rest;
    if (colon >= 0) portText = rest.slice(colon + 1);
    if (!HOST.test(host)) throw new DestinationError(`${describe(text)}: "${host}" is not a host name`);
  }

  const destination: SshDestination = { host };
  if (user !== undefined) destination.user = user;
  if (portText !== undefined) {
    const port = Number(portText);
    if (!PORT.test(portText) || port < 1 || port > 65535)
      throw new DestinationError(`${describe(text)}: the port must be a number in 1..65535`);
    destination.port = port;
  }
  return destination;
}

/** The destination argument for ssh (the port goes separately, as `-p`). */
export function sshDestinationArg(d: SshDestination): string {
  return d.user ? `${d.user}@${d.host}` : d.host;
}

/** How a destination is written back, for labels and run headers: parses to the same value. */
export function formatDestination(d: SshDestination): string {
  const host = d.host.includes(':') ? `[${d.host}]` : d.host;
  const base = d.user ? `${d.user}@${host}` : host;
  return d.port !== undefined ? `${base}:${d.port}` : base;
}
