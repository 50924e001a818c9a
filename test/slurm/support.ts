/**
 * What the fleet tests share: the CLI bundled once per file and run as a process of its own,
 * the test cluster's environment (its SLURM_CONF, none of an outer allocation's SLURM_*
 * variables), Slurm's queue, the helpers running in each node's namespace, and waiting for a
 * condition with the time it took.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { bundleCli as bundleCliInto } from '../support/cliProcess';

/** The CLI of the sources under test, bundled into `work` (test/support/cliProcess.ts). */
export async function bundleCli(work: string): Promise<string> {
  return bundleCliInto(work);
}

export function clusterEnv(conf: string): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SLURM_'))),
    SLURM_CONF: conf,
  };
}

export interface Exited {
  code: number | null;
  out: string;
  err: string;
}

/** `sdma-lens ARGS` as its own process; `err()` is what it has said on stderr so far. */
export function startCli(
  cli: string,
  conf: string,
  args: string[],
): { child: ReturnType<typeof spawn>; exited: Promise<Exited>; err: () => string } {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: clusterEnv(conf) });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<Exited>((r) => child.on('exit', (code) => r({ code, out, err })));
  return { child, exited, err: () => err };
}

/** Jobs in Slurm's queue, "ID STATE", any state. */
export function queue(conf: string): string[] {
  return execFileSync('squeue', ['--noheader', '--format=%i %T'], { encoding: 'utf8', env: clusterEnv(conf) })
    .trim()
    .split('\n')
    .filter(Boolean);
}

/** Helper processes in each node's namespace, as "node:pid". */
export function helpersOnNodes(nodes: readonly string[]): string[] {
  const found: string[] = [];
  for (const node of nodes) {
    const pids = execFileSync('ip', ['netns', 'pids', `sdma-${node}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
    for (const pid of pids) {
      let comm = '';
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue; // gone since
      }
      if (comm.startsWith('sdma-probe')) found.push(`${node}:${pid}`);
    }
  }
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a value (not undefined or false); the value and the time it took. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false,
  timeoutMs: number,
): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return { value, ms: performance.now() - t0 };
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}
