// Finds what a test run started, by a marker in the environment every process of the run
// inherits (VS Code server, extension host, helpers, Chromium), so processes of anything else
// running on the machine at the same time are never counted or touched.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';

export const MARKER_VARIABLE = 'SDMA_LENS_TEST_RUN';

export function newMarker() {
  return randomBytes(8).toString('hex');
}

function pids() {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

function read(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Live processes (not zombies) whose environment carries the marker, as "PID command". */
export function processesWithMarker(marker) {
  const needle = `${MARKER_VARIABLE}=${marker}\0`;
  const found = [];
  for (const pid of pids()) {
    const stat = read(pid, 'stat');
    if (!stat || stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
    if (!read(pid, 'environ')?.includes(needle)) continue;
    found.push(`${pid} ${(read(pid, 'cmdline') ?? '').replaceAll('\0', ' ').slice(0, 160)}`);
  }
  return found;
}

/** Waits up to `ms` for the marked processes to go; returns those still there. */
export async function leftoverProcesses(marker, ms = 3000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = processesWithMarker(marker);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** SIGKILLs the processes whose command line contains `needle`; returns how many it found. */
export function killMentioning(needle) {
  let found = 0;
  for (const pid of pids()) {
    if (!read(pid, 'cmdline')?.includes(needle)) continue;
    found++;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
