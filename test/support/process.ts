import { readdirSync, readFileSync } from 'node:fs';

/**
 * True while a process runs. A killed process whose parent died stays a zombie until init
 * reaps it, and some container inits never do, so a zombie counts as gone.
 */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export async function waitUntilGone(pid: number, timeoutMs = 3000): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    if (!isRunning(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !isRunning(pid);
}

/** Live processes (zombies left out) whose process group is `pgid`: a helper leads its own group. */
export function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
    } catch {
      // exited while listed
    }
  }
  return members;
}
