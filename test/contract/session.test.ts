/** The Session with the real helper: faults injected by the helper itself, not by mocks. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { RunStore } from '../../src/core/runs/runStore';
import { runSession } from '../../src/core/runtime/session';
import { isRunning, waitUntilGone } from '../support/process';
import { header } from '../support/records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-contract-session-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = ['sweep', '--backend', 'sim', '--sizes', '4K,64K,1M', '--cus', '8', '--iters', '3'];

function start(args: string[], signal?: AbortSignal, onPid?: (pid: number) => void) {
  const store = new RunStore(dir);
  return {
    store,
    run: runSession({
      target: new LocalTarget(),
      store,
      header: { ...header('r'), helper: { path: inject('helperPath'), args } },
      signal,
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
});
