/**
 * Host aliases from ~/.ssh/config (and files it Includes), for the target picker. Only
 * concrete names are offered: patterns (*, ?, !) describe settings, not hosts. ssh itself
 * reads the config when connecting; this only lists names, each checked like typed input.
 */
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { parseDestination } from './destination';

function wildcardToRegExp(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
}

async function expandInclude(pattern: string, sshDir: string): Promise<string[]> {
  const expanded = pattern.startsWith('~/')
    ? join(homedir(), pattern.slice(2))
    : isAbsolute(pattern)
      ? pattern
      : join(sshDir, pattern);
  if (!/[*?]/.test(basename(expanded))) return [expanded];
  try {
    const re = wildcardToRegExp(basename(expanded));
    return (await readdir(dirname(expanded)))
      .filter((n) => re.test(n))
      .sort()
      .map((n) => join(dirname(expanded), n));
  } catch {
    return [];
  }
}

/** Concrete Host names in the config file, in order, without duplicates. Unreadable files give none. */
export async function sshConfigHosts(
  file = join(homedir(), '.ssh', 'config'),
  depth = 0,
  seen = new Set<string>(),
): Promise<string[]> {
  if (depth > 8 || seen.has(file)) return [];
  seen.add(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const hosts: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(\w+)\s*(?:=\s*|\s+)(.*)$/.exec(line);
    if (!m) continue;
    const keyword = m[1]!.toLowerCase();
    const words = m[2]!
      .split(/\s+/)
      .map((w) => w.replace(/^"(.*)"$/, '$1'))
      .filter(Boolean);
    if (keyword === 'include') {
      for (const w of words)
        for (const f of await expandInclude(w, join(homedir(), '.ssh')))
          hosts.push(...(await sshConfigHosts(f, depth + 1, seen)));
    } else if (keyword === 'host') {
      for (const w of words) {
        if (/[*?!]/.test(w)) continue;
        try {
          parseDestination(w);
          hosts.push(w);
        } catch {
          // A name we would refuse to pass to ssh is not offered.
        }
      }
    }
  }
  return [...new Set(hosts)];
}
