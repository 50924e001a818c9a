/** The Session with the real helper: faults injected by the helper itself, not by mocks. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { RunStore } from '../../src/core/runs/runStore';
import { STALL_LIMIT, runSession } from '../../src/core/runtime/session';
import { isRunning, waitUntilGone } from '../support/process';
import { header } from '../support/records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-contract-session-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = ['sweep', '--backend', 'sim', '--sizes', '4K,64K,1M', '--cus', '8', '--iters', '3'];

function start(args: string[], signal?: AbortSignal, onPid?: (pid: number) => void, stallTimeoutS?: number) {
  const store = new RunStore(dir);
  return {
    store,
    run: runSession({
      target: new LocalTarget(),
      store,
      header: { ...header('r'), helper: { path: inject('helperPath'), args } },
      signal,
      ...(stallTimeoutS !== undefined ? { stallTimeoutS } : {}),
      onRecord: (_run, record) => {
        if (record.type === 'hello') onPid?.(record.pid);
      },
    }),
  };
}

describe('Session with the real helper', () => {
  it('exit-after: an exit without done is "crashed" and the samples before it are saved', async () => {
    const { store, run } = start([...base, '--fault', 'exit-after=4']);
    const r = await run;
    expect(r.end).toMatchObject({ status: 'crashed', exitCode: 1 });
    expect((await store.open('r')).samples).toHaveLength(4);
  });

  it('garbage-after: the bad line is a problem, the run still ends ok', async () => {
    const { run } = start([...base, '--fault', 'garbage-after=2']);
    const r = await run;
    expect(r.end?.status).toBe('ok');
    expect(r.problems).toHaveLength(1);
  });

  it('hang-after + cancel: the helper is gone afterwards and the run says cancelled', async () => {
    const controller = new AbortController();
    let pid = 0;
    const { store, run } = start([...base, '--fault', 'hang-after=2'], controller.signal, (p) => (pid = p));
    const timer = setInterval(() => {
      // Cancel once the helper is stuck.
      if (pid) controller.abort();
    }, 200);
    const r = await run;
    clearInterval(timer);
    expect(r.end?.status).toBe('cancelled');
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilGone(pid)).toBe(true);
    expect(isRunning(pid)).toBe(false);
    const saved = await store.open('r');
    expect(saved.samples.length).toBeGreaterThanOrEqual(2);
    expect(saved.done?.status).toBe('cancelled'); // the helper answered SIGTERM with done
  });

  it('a helper that hangs is stopped by the stall limit: an error that says so, the samples kept, nothing left running', async () => {
    let pid = 0;
    const started = performance.now();
    const { store, run } = start([...base, '--fault', 'hang-after=2'], undefined, (p) => (pid = p), STALL_LIMIT.minS);
    const r = await run;
    const tookS = (performance.now() - started) / 1000;
    console.log(
      `stall limit ${STALL_LIMIT.minS} s: the hung helper was stopped and the run ended after ${tookS.toFixed(1)} s`,
    );
    expect(tookS).toBeGreaterThanOrEqual(STALL_LIMIT.minS);
    // The watchdog looks every second and the helper stops within its cancel grace.
    expect(tookS).toBeLessThan(STALL_LIMIT.minS + 3);
    expect(r.end?.status).toBe('error');
    expect(r.end?.message).toMatch(
      new RegExp(`printed nothing for ${STALL_LIMIT.minS} s, the stall limit, and was stopped; 2 samples kept`),
    );
    expect(r.end?.message).toMatch(/sdmaLens\.run\.stallTimeoutSeconds/);
    expect(await waitUntilGone(pid)).toBe(true);
    const saved = await store.open('r');
    expect(saved.samples).toHaveLength(2);
    expect(saved.end?.status).toBe('error');
  }, 30_000);

  it('slow work is not a stall: heartbeats carry a unit longer than the limit, and none of them is saved', async () => {
    const delayMs = (STALL_LIMIT.minS + 2) * 1000;
    const { store, run } = start(
      [
        'sweep',
        '--backend',
        'sim',
        '--sizes',
        '4K',
        '--paths',
        'engine/host',
        '--iters',
        '3',
        '--sim-delay-ms',
        String(delayMs),
      ],
      undefined,
      undefined,
      STALL_LIMIT.minS,
    );
    const r = await run;
    expect(r.end?.status).toBe('ok');
    expect(r.samples).toHaveLength(1);
    const lines = readFileSync(store.fileOf('r'), 'utf8');
    expect(lines).not.toMatch(/"heartbeat"/);
  }, 40_000);
});
