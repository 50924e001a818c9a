/**
 * The `sdma-lens` CLI as a process of its own, stopped with Ctrl+C (SIGINT) or SIGTERM, twice:
 * the second signal must not kill the CLI before the helper is stopped (here one that takes
 * a second to stop), so the run ends
 * `cancelled` with what arrived, the exit code is 130 and no helper is left running.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isRunning, waitUntilGone } from '../support/process';

const repo = resolve(__dirname, '..', '..');
let work: string;
let cli: string;
let slowToStop: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdma-cli-signals-'));
  cli = join(work, 'dist', 'cli.js');
  // The helper behind a shell that, told to stop, takes a second more: a window for the second signal.
  slowToStop = join(work, 'slow-to-stop.sh');
  writeFileSync(slowToStop, `#!/bin/sh\ntrap 'sleep 1' TERM\n'${inject('helperPath')}' "$@"\n`);
  chmodSync(slowToStop, 0o755);
  await build({
    entryPoints: [join(repo, 'src', 'cli', 'bin.ts')],
    outfile: cli,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe.each(['SIGINT', 'SIGTERM'] as const)('sdma-lens sweep stopped by %s twice', (signal) => {
  it('ends the run cancelled with what arrived, exits 130 and leaves no helper', async () => {
    const runs = join(work, `runs-${signal}`);
    const child = spawn(
      process.execPath,
      [
        cli,
        'sweep',
        '--backend',
        'sim',
        '--sizes',
        '4K,64K,1M,16M',
        '--cus',
        '8,64',
        '--iters',
        '3',
        '--sim-delay-ms',
        '300',
        '--runs-dir',
        runs,
        '--helper',
        slowToStop,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on('exit', (code, sig) => r({ code, signal: sig })),
    );
    const runFile = await until('the run file', () => {
      const id = existsSync(runs) ? readdirSync(runs)[0] : undefined;
      const file = id ? join(runs, id, 'run.ndjson') : undefined;
      return file && existsSync(file) && readFileSync(file, 'utf8').includes('"type":"sample"') ? file : undefined;
    });
    const hello = JSON.parse(
      readFileSync(runFile, 'utf8')
        .split('\n')
        .find((l) => l.includes('"type":"hello"'))!,
    ) as { pid: number };
    child.kill(signal);
    await sleep(200);
    child.kill(signal);
    const end = await exited;
    expect(end, stderr).toEqual({ code: 130, signal: null });
    expect(stderr).toContain(`${signal} again; still stopping the helper`);
    const lines = readFileSync(runFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; status?: string });
    expect(lines.at(-1)).toMatchObject({ type: 'run-end', status: 'cancelled' });
    expect(lines.filter((l) => l.type === 'sample').length).toBeGreaterThanOrEqual(1);
    expect(await waitUntilGone(hello.pid, 3000), `helper ${hello.pid} still running`).toBe(true);
    expect(isRunning(hello.pid)).toBe(false);
  });
});
