/** The remote-shell quoting, destination checks and extra-argument allowlist, without a network. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DestinationError, formatDestination, parseDestination } from '../../src/core/ssh/destination';
import { RemoteQuoteError, quoteShellWord, remoteCommand } from '../../src/core/ssh/quote';
import { SshArgsError, checkExtraArgs, sshCommandArgs } from '../../src/core/ssh/sshArgs';
import { hostileHosts, hostileWords } from '../ssh/hostile';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-ssh-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a POSIX shell makes of a remote command string: the argv that `node` receives. */
function argvThrough(shell: string, words: string[]): string[] {
  const out = execFileSync(
    shell,
    [
      '-c',
      remoteCommand([process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', ...words]),
    ],
    { encoding: 'utf8', cwd: dir },
  );
  return JSON.parse(out) as string[];
}

describe('remoteCommand, the one remote-shell quoting function', () => {
  it('single-quotes every word and escapes single quotes', () => {
    expect(quoteShellWord('plain')).toBe("'plain'");
    expect(quoteShellWord('')).toBe("''");
    expect(quoteShellWord("it's")).toBe("'it'\\''s'");
    expect(remoteCommand(['a b', '$x'])).toBe("'a b' '$x'");
  });

  it('refuses NUL and an empty command instead of truncating', () => {
    expect(() => quoteShellWord('a\0b')).toThrow(RemoteQuoteError);
    expect(() => remoteCommand([])).toThrow(RemoteQuoteError);
  });

  for (const shell of ['/bin/sh', '/bin/bash', '/bin/dash']) {
    it(`hostile words reach the program unchanged through ${shell}, and run nothing`, () => {
      if (!existsSync(shell)) return;
      const marker = join(dir, 'PWNED');
      const words = hostileWords(marker);
      expect(argvThrough(shell, words)).toEqual(words);
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('round-trips arbitrary strings through sh (property)', () => {
    // printf is a shell builtin: one cheap process per case, NUL after each word it was given.
    const through = (words: string[]) =>
      execFileSync('/bin/sh', ['-c', remoteCommand(['printf', '%s\\0', ...words])], { cwd: dir })
        .toString('utf8')
        .split('\0')
        .slice(0, -1);
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 6 },
        ),
        (words) => {
          expect(through(words)).toEqual(words);
        },
      ),
      { numRuns: 200 },
    );
  }, 30_000);
});

describe('SSH destinations', () => {
  it('accepts host names, aliases, user@host, ports and bracketed IPv6', () => {
    expect(parseDestination('gpu-node-3')).toEqual({ host: 'gpu-node-3' });
    expect(parseDestination('alice@gpu-node-3')).toEqual({ user: 'alice', host: 'gpu-node-3' });
    expect(parseDestination('gpu-node-3:2222')).toEqual({ host: 'gpu-node-3', port: 2222 });
    expect(parseDestination('root@127.0.0.1:2222')).toEqual({ user: 'root', host: '127.0.0.1', port: 2222 });
    expect(parseDestination('[::1]:22')).toEqual({ host: '::1', port: 22 });
    expect(parseDestination('u@[fe80::1]')).toEqual({ user: 'u', host: 'fe80::1' });
    expect(parseDestination('node_1.cluster.example.org')).toEqual({ host: 'node_1.cluster.example.org' });
    for (const text of ['a@b:1', '[::1]:22', 'u@[2001:db8::1]:2200', 'plain'])
      expect(formatDestination(parseDestination(text))).toBe(text);
  });

  it('refuses every hostile destination with a message', () => {
    for (const host of hostileHosts(join(dir, 'PWNED'))) {
      expect(() => parseDestination(host), JSON.stringify(host)).toThrow(DestinationError);
    }
  });

  it('puts -- before the destination, so even an unchecked "-o..." host is never an option', () => {
    const args = sshCommandArgs({ host: '-oProxyCommand=touch x' }, { extraArgs: ['-F', '/cfg'] }, undefined, ['true']);
    const dd = args.indexOf('--');
    expect(dd).toBeGreaterThan(0);
    expect(args[dd + 1]).toBe('-oProxyCommand=touch x');
    expect(args.slice(0, dd)).not.toContain('-oProxyCommand=touch x');
    expect(args.at(-1)).toBe("'true'");
    expect(args.join(' ')).not.toMatch(/StrictHostKeyChecking/);
  });
});

describe('sdmaLens.ssh.extraArgs allowlist', () => {
  it('accepts ordinary options', () => {
    expect(
      checkExtraArgs([
        '-F',
        '/home/u/.ssh/other',
        '-oProxyJump=bastion',
        '-J',
        'bastion',
        '-v',
        '-i',
        '/k',
        '-o',
        'User=alice',
      ]),
    ).toHaveLength(10);
  });

  const hostile: unknown[][] = [
    ['-oStrictHostKeyChecking=no'],
    ['-o', 'StrictHostKeyChecking no'],
    ['-o', 'stricthostkeychecking=off'],
    ['-o', 'UserKnownHostsFile=/dev/null'],
    ['-oLocalCommand=touch x'],
    ['-o', 'PermitLocalCommand=yes'],
    ['--'],
    ['evil-host'],
    ['-L', '8080:x:80'],
    ['-o', 'LocalForward 8080 x:80'],
    ['-o'],
    ['-F'],
    ['-o', '-oProxyCommand=x'],
    ['-i', 'key\nProxyCommand x'],
    ['-p', '22'],
    ['-E', '/tmp/log'],
    ['-oProxyCommand'],
    [42],
    ['-v', 'host'],
  ];
  for (const args of hostile) {
    it(`refuses ${JSON.stringify(args)}`, () => {
      expect(() => checkExtraArgs(args)).toThrow(SshArgsError);
    });
  }
});

describe('sdmaLens.ssh.extraArgs: -o keys', () => {
  /** Each family of refused keys, with the reason the message must name. */
  const refused: ReadonlyArray<readonly [string, string, string]> = [
    ['ProxyCommand', 'touch x', 'runs a command'],
    ['KnownHostsCommand', 'touch x', 'runs a command'],
    ['LocalCommand', 'touch x', 'runs a command'],
    ['PermitLocalCommand', 'yes', 'runs a command'],
    ['Match', 'exec "touch x"', 'runs a command'],
    ['RemoteCommand', 'touch x', 'runs a command'],
    ['ProxyUseFdpass', 'yes', 'runs a command'],
    ['HostbasedAuthentication', 'yes', 'runs a command'],
    ['PKCS11Provider', '/tmp/evil.so', 'loads code'],
    ['SecurityKeyProvider', '/tmp/evil.so', 'loads code'],
    ['Include', '/tmp/other.conf', 'loads code'],
    ['SetEnv', 'LD_PRELOAD=/tmp/evil.so', "changes the node's environment"],
    ['SendEnv', 'LD_*', "changes the node's environment"],
    ['ForwardAgent', 'yes', 'forwards'],
    ['ForwardX11', 'yes', 'forwards'],
    ['LocalForward', '8080 x:80', 'forwards'],
    ['RemoteForward', '8080 x:80', 'forwards'],
    ['DynamicForward', '1080', 'forwards'],
    ['Tunnel', 'yes', 'forwards'],
    ['ClearAllForwardings', 'no', 'forwards'],
    ['StrictHostKeyChecking', 'no', 'turns off host key checks'],
    ['StrictHostKeyChecking', 'off', 'turns off host key checks'],
    ['StrictHostKeyChecking', '"no"', 'turns off host key checks'],
    ['UserKnownHostsFile', '/dev/null', 'turns off host key checks'],
    ['UserKnownHostsFile', '~/.ssh/known_hosts /dev/null', 'turns off host key checks'],
    ['GlobalKnownHostsFile', 'none', 'turns off host key checks'],
    ['NoHostAuthenticationForLocalhost', 'yes', 'turns off host key checks'],
    ['AddKeysToAgent', 'confirm', 'runs a command'],
    ['ControlPath', '/tmp/cm', 'is not an option SDMA Lens passes on'],
    ['BatchMode', 'no', 'is not an option SDMA Lens passes on'],
    ['EscapeChar', '~', 'is not an option SDMA Lens passes on'],
    ['NoSuchOption', '1', 'is not an option SDMA Lens passes on'],
  ];
  for (const [key, value, why] of refused) {
    const spellings: string[][] = [
      [`-o${key}=${value}`],
      ['-o', `${key} ${value}`],
      ['-o', `${key.toLowerCase()}=${value}`],
      ['-o', `${key.toUpperCase()} = ${value}`],
    ];
    it(`refuses ${key} ${value}: ${why}`, () => {
      for (const args of spellings) {
        expect(() => checkExtraArgs(args), JSON.stringify(args)).toThrow(SshArgsError);
        try {
          checkExtraArgs(args);
        } catch (e) {
          const message = (e as Error).message;
          expect(message, JSON.stringify(args)).toContain(why);
          expect(message.toLowerCase()).toContain(key.toLowerCase());
          // The message promises nothing about what the check does not cover.
          expect(message).not.toMatch(/no local commands are run/);
        }
      }
    });
  }

  const accepted: ReadonlyArray<readonly [string, string]> = [
    ['User', 'alice'],
    ['Port', '2222'],
    ['IdentityFile', '~/.ssh/id_ed25519'],
    ['IdentitiesOnly', 'yes'],
    ['IdentityAgent', 'SSH_AUTH_SOCK'],
    ['CertificateFile', '~/.ssh/id-cert.pub'],
    ['ProxyJump', 'alice@bastion:2200,jump2'],
    ['ConnectTimeout', '5'],
    ['ConnectionAttempts', '3'],
    ['ServerAliveInterval', '10'],
    ['ServerAliveCountMax', '3'],
    ['TCPKeepAlive', 'yes'],
    ['Compression', 'yes'],
    ['AddressFamily', 'inet'],
    ['BindAddress', '10.0.0.1'],
    ['BindInterface', 'eth0'],
    ['Ciphers', 'aes256-gcm@openssh.com'],
    ['MACs', 'hmac-sha2-256'],
    ['KexAlgorithms', 'curve25519-sha256'],
    ['HostKeyAlgorithms', 'ssh-ed25519'],
    ['PubkeyAcceptedAlgorithms', '+ssh-rsa'],
    ['PubkeyAcceptedKeyTypes', '+ssh-rsa'],
    ['PreferredAuthentications', 'publickey'],
    ['PubkeyAuthentication', 'yes'],
    ['GSSAPIAuthentication', 'no'],
    ['HostKeyAlias', 'gpu-node'],
    ['CheckHostIP', 'yes'],
    ['LogLevel', 'ERROR'],
    ['HashKnownHosts', 'yes'],
    ['VerifyHostKeyDNS', 'ask'],
    ['UpdateHostKeys', 'no'],
    ['RekeyLimit', '1G 1h'],
    ['IPQoS', 'throughput'],
    ['AddKeysToAgent', 'yes'],
    ['NumberOfPasswordPrompts', '1'],
    ['StrictHostKeyChecking', 'yes'],
    ['StrictHostKeyChecking', 'ask'],
    ['StrictHostKeyChecking', 'accept-new'],
    ['UserKnownHostsFile', '~/.ssh/known_hosts_cluster'],
    ['GlobalKnownHostsFile', '/etc/ssh/ssh_known_hosts'],
  ];
  it('passes on the keys that cannot run commands, load code, change the environment, forward or turn checks off', () => {
    for (const [key, value] of accepted) {
      for (const args of [[`-o${key}=${value}`], ['-o', `${key} ${value}`], ['-o', `${key.toLowerCase()}=${value}`]]) {
        expect(checkExtraArgs(args), JSON.stringify(args)).toEqual(args);
      }
    }
  });

  it('refuses -A (it forwards the agent) and -J with shell syntax, keeps -x and plain -J', () => {
    expect(() => checkExtraArgs(['-A'])).toThrow(/forwards/);
    expect(() => checkExtraArgs(['-J', 'bastion;touch x'])).toThrow(SshArgsError);
    expect(() => checkExtraArgs(['-oProxyJump=$(touch x)'])).toThrow(SshArgsError);
    expect(checkExtraArgs(['-x', '-J', 'alice@bastion:22'])).toEqual(['-x', '-J', 'alice@bastion:22']);
  });
});

describe('ssh config hosts', () => {
  it('lists concrete Host names, follows Include, skips patterns and hostile names', async () => {
    const { sshConfigHosts } = await import('../../src/core/ssh/sshConfig');
    const inc = join(dir, 'conf.d');
    mkdirSync(inc);
    writeFileSync(join(inc, 'a.conf'), 'Host included-node\n  HostName 10.0.0.9\n');
    const cfg = join(dir, 'config');
    writeFileSync(
      cfg,
      `# comment\nHost gpu-1 gpu-2 *.wild !neg\n  User alice\nInclude ${inc}/*.conf\nHost "quoted-node"\nHost -oProxyCommand=x\nHost=eq-node\n`,
    );
    expect(await sshConfigHosts(cfg)).toEqual(['gpu-1', 'gpu-2', 'included-node', 'quoted-node', 'eq-node']);
    expect(await sshConfigHosts(join(dir, 'missing'))).toEqual([]);
  });
});
