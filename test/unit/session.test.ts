import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { RunStore } from '../../src/core/runs/runStore';
import { LIMITS } from '../../src/core/limits';
import { STALL_LIMIT, checkStallTimeout, measured, runSession } from '../../src/core/runtime/session';
import { newRun } from '../../src/core/run';
import type { HelperProcess, ProcessExit, RunOutputs, Target } from '../../src/core/runtime/target';
import { waitUntilGone } from '../support/process';
import { done, header, hello, line, sample } from '../support/records';

/** A target whose output is a script of chunks: the point is exact control over where chunks split. */
class ScriptedTarget implements Target {
  readonly kind = 'local';
  readonly label = 'scripted';
  outputs(): Promise<RunOutputs> {
    throw new Error('this target writes no files');
  }
  constructor(
    private readonly chunks: (string | Buffer)[],
    private readonly exit: ProcessExit,
  ) {}
  spawn(): HelperProcess {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const exit = (async () => {
      for (const c of this.chunks) {
        stdout.write(c);
        await new Promise((r) => setImmediate(r));
      }
      stderr.end('diagnostic line\n');
      stdout.end();
      return this.exit;
    })();
    return { pid: 1, stdout, stderr, exit };
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-session-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ok: ProcessExit = { exitCode: 0, signal: null };

describe('Session', () => {
  it('streams, validates and saves every record, split anywhere across chunks', async () => {
    const text = [hello, sample({ sizeBytes: 4096 }), sample({ sizeBytes: 8192 }), done].map(line).join('');
    const chunks = [text.slice(0, 7), text.slice(7, 300), text.slice(300, 301), text.slice(301)];
    const store = new RunStore(dir);
    const run = await runSession({ target: new ScriptedTarget(chunks, ok), store, header: header() });
    expect(run.samples.map((s) => s.sizeBytes)).toEqual([4096, 8192]);
    expect(run.end?.status).toBe('ok');
    const reopened = await store.open('test-run');
    expect(reopened.samples.toArray()).toEqual(run.samples.toArray());
    expect(reopened.end?.status).toBe('ok');
  });

  it('reports and skips malformed, unknown and interleaved lines without losing the good ones', async () => {
    const chunks = [
      line(hello),
      '{"type":"sample","mover":\n', // truncated record
      'not json at all\n',
      line({ type: 'telemetry', watts: 700 }),
      // Two records interleaved mid-line by a misbehaving writer: neither parses.
      '{"type":"progress","do{"type":"warning","code":"x","message":"y"}ne":1,"total":2}\n',
      line(sample()),
      line(sample({ sizeBytes: 8192 })), // good records outnumber the bad lines: the run is still ok
      line(done),
    ];
    const store = new RunStore(dir);
    const run = await runSession({ target: new ScriptedTarget(chunks, ok), store, header: header() });
    expect(run.samples).toHaveLength(2);
    expect(run.problems).toHaveLength(4);
    expect(run.problems.join('\n')).toMatch(/unknown type "telemetry"/);
    expect(run.end?.status).toBe('ok');
    // The problems are in the file too, so the reopened run tells the same story.
    expect((await store.open('test-run')).problems).toEqual(run.problems);
  });

  it('keeps a record that arrives without its final newline', async () => {
    const run = await runSession({
      target: new ScriptedTarget([line(hello), line(sample()), JSON.stringify(done)], ok),
      store: new RunStore(dir),
      header: header(),
    });
    expect(run.done?.status).toBe('ok');
    expect(run.end?.status).toBe('ok');
  });

  it('calls a helper that dies mid-line "crashed", keeps what came before, and says how it ended', async () => {
    const chunks = [
      line(hello),
      line(sample()),
      line(sample({ sizeBytes: 8192 })),
      '{"type":"sample","mover":"cu","ini',
    ];
    const store = new RunStore(dir);
    const run = await runSession({
      target: new ScriptedTarget(chunks, { exitCode: null, signal: 'SIGABRT' }),
      store,
      header: header(),
    });
    expect(run.end).toMatchObject({ status: 'crashed', signal: 'SIGABRT' });
    expect(run.end?.message).toMatch(/killed by SIGABRT; 2 samples kept/);
    expect(run.end?.message).toMatch(/diagnostic line/);
    expect(run.problems.join()).toMatch(/cut off/);
    expect((await store.open('test-run')).samples).toHaveLength(2);
  });

  it('says the connection dropped when the target reports it, and keeps the samples', async () => {
    const exit: ProcessExit = { exitCode: 255, signal: null, lost: 'the connection to gpu-node dropped' };
    const run = await runSession({
      target: new ScriptedTarget([line(hello), line(sample())], exit),
      store: new RunStore(dir),
      header: header(),
    });
    expect(run.end).toMatchObject({ status: 'crashed', exitCode: 255 });
    expect(run.end?.message).toBe('the connection to gpu-node dropped; 1 sample kept');
  });

  it('reports a helper that cannot be started, and still writes a run that says so', async () => {
    const store = new RunStore(dir);
    const run = await runSession({
      target: new LocalTarget(),
      store,
      header: { ...header(), helper: { path: join(dir, 'no-such-helper'), args: [] } },
    });
    expect(run.end?.status).toBe('error');
    expect(run.end?.message).toMatch(/could not start the helper/);
    expect((await store.open('test-run')).end?.status).toBe('error');
  });

  it('cancel kills the whole process group, and the records before it are kept', async () => {
    // A real process tree: the "helper" starts a grandchild, prints two records, then waits.
    const pidFile = join(dir, 'grandchild.pid');
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
      console.log(${JSON.stringify(JSON.stringify(hello))});
      console.log(${JSON.stringify(JSON.stringify(sample()))});
      setInterval(() => {}, 1000);`;
    const store = new RunStore(dir);
    const controller = new AbortController();
    const run = await runSession({
      target: new LocalTarget(),
      store,
      header: { ...header(), helper: { path: process.execPath, args: ['-e', script] } },
      signal: controller.signal,
      onRecord: (live) => {
        if (live.samples.length === 1) controller.abort();
      },
    });
    expect(run.end?.status).toBe('cancelled');
    expect(run.samples).toHaveLength(1);
    const saved = readFileSync(store.fileOf('test-run'), 'utf8').trim().split('\n');
    expect(JSON.parse(saved.at(-1)!)).toMatchObject({ type: 'run-end', status: 'cancelled' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitUntilGone(grandchild)).toBe(true); // gone with its parent
  });
});

describe('what a run has measured, in its own words', () => {
  it('counts samples, launches and copies', () => {
    const sweep = newRun(header());
    expect(measured(sweep)).toBe('0 samples');
    const runMode = newRun({ ...header(), command: 'run' });
    runMode.dispatches.push({} as never);
    expect(measured(runMode)).toBe('1 kernel launch and 0 copies');
  });
});

describe('a run whose helper printed more unusable lines than records', () => {
  it('200,000 garbage lines then a valid run: not ok, and says how many lines were unusable', async () => {
    const garbage = 'not a record\n'.repeat(10_000);
    const chunks = [line(hello), ...Array.from({ length: 20 }, () => garbage), line(sample()), line(done)];
    const store = new RunStore(dir);
    const t0 = performance.now();
    const run = await runSession({ target: new ScriptedTarget(chunks, ok), store, header: header() });
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(run.problems).toHaveLength(200_000);
    expect(run.end?.status).toBe('error');
    expect(run.end?.message).toMatch(
      /^200000 of 200003 lines from the helper were unusable \(first: skipped a malformed line/,
    );
    // The run list sees the count and the first problem from the run's end.
    const [summary] = await store.list();
    expect(summary).toMatchObject({ status: 'error', problems: { count: 200_000 } });
    expect(summary?.problems?.first).toMatch(/skipped a malformed line/);
  }, 60_000);

  it('as many good records as bad lines: still ok', async () => {
    const chunks = [line(hello), 'junk\n', 'junk\n', line(done)];
    const run = await runSession({
      target: new ScriptedTarget(chunks, ok),
      store: new RunStore(dir),
      header: header(),
    });
    expect(run.problems).toHaveLength(2);
    expect(run.end?.status).toBe('ok');
  });
});

describe('the stall limit', () => {
  it('takes 0 or whole seconds in its range, and says what is wrong otherwise', () => {
    expect(checkStallTimeout(0)).toBe(0);
    expect(checkStallTimeout(STALL_LIMIT.minS)).toBe(STALL_LIMIT.minS);
    expect(checkStallTimeout(STALL_LIMIT.maxS)).toBe(STALL_LIMIT.maxS);
    for (const bad of [
      STALL_LIMIT.minS - 1,
      STALL_LIMIT.maxS + 1,
      -1,
      1.5,
      '60',
      null,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(() => checkStallTimeout(bad), String(bad)).toThrow(
        /must be 0 \(no limit\) or a whole number of seconds in 10\.\.86400/,
      );
    }
  });

  it('sits above the helper heartbeat and one unit of GPU work', () => {
    expect(STALL_LIMIT.minS * 1000).toBeGreaterThanOrEqual(5 * LIMITS.heartbeatMs);
    expect(STALL_LIMIT.defaultS * 1000).toBeGreaterThan(LIMITS.targetMsMax);
  });
});

describe('the stall watchdog and the wall clock', () => {
  it('a wall-clock jump (an NTP step, a resumed VM) is not silence: the watchdog counts on the monotonic clock', async () => {
    // hello, then 1.3 s of real time during which the wall clock jumps an hour ahead, then the rest.
    const target: Target = {
      kind: 'local',
      label: 'scripted',
      outputs: () => Promise.reject(new Error('this target writes no files')),
      spawn: (): HelperProcess => {
        const stdout = new PassThrough();
        const stderr = new PassThrough();
        const exit = (async () => {
          stdout.write(line(hello));
          // Once the session has taken the line in, the wall clock steps.
          await new Promise((r) => setTimeout(r, 100));
          const realNow = Date.now.bind(Date);
          const jumped = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 3_600_000);
          await new Promise((r) => setTimeout(r, 1200));
          stdout.write(line(sample()) + line(done));
          jumped.mockRestore();
          stderr.end();
          stdout.end();
          return ok;
        })();
        return { pid: 1, stdout, stderr, exit };
      },
    };
    const run = await runSession({
      target,
      store: new RunStore(dir),
      header: header(),
      stallTimeoutS: STALL_LIMIT.minS,
    });
    expect(run.end?.status).toBe('ok');
    expect(run.samples).toHaveLength(1);
  });
});
