import { describe, expect, it } from 'vitest';
import { LocalTarget } from '../../src/core/runtime/localTarget';

const read = async (s: NodeJS.ReadableStream) => {
  let text = '';
  for await (const chunk of s) text += String(chunk);
  return text;
};

describe('LocalTarget (node:child_process)', () => {
  it('gives back the output, the exit status and the environment it was given', async () => {
    const p = new LocalTarget().spawn('/bin/sh', ['-c', 'echo "$SDMA_X"; echo err >&2; exit 3'], {
      env: { SDMA_X: 'given' },
    });
    const [out, err, exit] = await Promise.all([read(p.stdout), read(p.stderr), p.exit]);
    expect(out).toBe('given\n');
    expect(err).toBe('err\n');
    expect(exit).toEqual({ exitCode: 3, signal: null });
    expect(p.pid).toBeGreaterThan(0);
  });

  it('says when the program could not be started', async () => {
    const exit = await new LocalTarget().spawn('/nonexistent/sdma-probe', [], {}).exit;
    expect(exit.exitCode).toBeNull();
    expect(exit.spawnError).toMatch(/\/nonexistent\/sdma-probe could not be started \(ENOENT\)/);
  });

  it('a cancel stops the whole process group', async () => {
    const controller = new AbortController();
    // The shell's child (sleep) is in the group too: the exit must not wait for its 30 s.
    const p = new LocalTarget().spawn('/bin/sh', ['-c', 'sleep 30 & wait'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const exit = await p.exit;
    expect(exit.signal).toBe('SIGTERM');
  }, 20_000);
});
