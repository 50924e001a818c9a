/**
 * The extension starts the helper detached, in its own process group. Should whatever started
 * it die without cancelling (a crash, kill -9), the helper must not keep running: it asks
 * the kernel for SIGTERM when its parent dies and ends through its usual cancel path.
 */
import { spawn } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe('helper whose parent dies', () => {
  it.runIf(process.platform === 'linux')(
    'ends within seconds when its parent is killed with SIGKILL',
    async () => {
      // The parent: a small Node process that starts a long sweep detached, prints its pid, and waits.
      const script = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.argv[1], ['sweep', '--backend', 'sim', '--sizes', '4K', '--cus', '8', '--paths', 'cu/host', '--sim-delay-ms', '60000'],
        { detached: true, stdio: ['ignore', 'ignore', 'ignore'] });
      console.log(child.pid);
      setInterval(() => {}, 1000);
    `;
      const parent = spawn(process.execPath, ['-e', script, inject('helperPath')], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const pid = await new Promise<number>((resolve, reject) => {
        parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
        parent.once('exit', () => reject(new Error('the parent ended before starting the helper')));
      });
      expect(Number.isInteger(pid) && pid > 0).toBe(true);
      // Running, and still running a moment later: the delay holds it for a minute per unit.
      await new Promise((r) => setTimeout(r, 300));
      expect(alive(pid)).toBe(true);
      parent.kill('SIGKILL');
      const ended = await gone(pid, 5000);
      if (!ended) process.kill(pid, 'SIGKILL');
      expect(ended).toBe(true);
    },
    20_000,
  );
});
