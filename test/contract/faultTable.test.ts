/**
 * The helper's faults, each tried several times through the real session and run store with
 * the real helper: for every try, nothing lost (every record the session accepted is in the
 * run file, which ends with its run-end), a clear end (status and a sentence that names what
 * happened), no process left of the helper's group, and how long the end took to notice the
 * fault (from the moment it was caused here, else from the helper's last record). Prints the table (Markdown) the fault handling is judged by.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Run } from '../../src/core/run';
import { RunStore } from '../../src/core/runs/runStore';
import { LocalTarget } from '../../src/core/runtime/localTarget';
import { STALL_LIMIT, runSession } from '../../src/core/runtime/session';
import { isRunning, processGroupMembers, waitUntilGone } from '../support/process';
import { header } from '../support/records';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-fault-table-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  fault: string;
  tries: number;
  lost: number;
  clear: number;
  orphans: number;
  detectMs: number[];
}
const rows: Row[] = [];

interface Fault {
  fault: string;
  tries: number;
  /** The helper, or a program standing in for it. */
  helper?: () => string;
  args: string[];
  stallTimeoutS?: number;
  /** Called with the live run after each record; returns the moment the fault was caused, if it caused it now. */
  inject?: (run: Run, pid: number, cancel: () => void) => number | undefined;
  status: string;
  message: RegExp;
}

const sweep = ['sweep', '--backend', 'sim', '--sizes', '4K,64K,1M,16M', '--cus', '8,64', '--iters', '3'];
const slow = [...sweep, '--sim-delay-ms', '100'];

async function tryFault(f: Fault, i: number) {
  const store = new RunStore(join(dir, f.fault.replace(/\W+/g, '-')));
  const id = `try-${i}`;
  const controller = new AbortController();
  let pid = 0;
  let causedAt: number | undefined;
  let lastRecordAt = performance.now();
  const accepted: string[] = [];
  const run = await runSession({
    target: new LocalTarget(),
    store,
    header: { ...header(id), helper: { path: f.helper?.() ?? inject('helperPath'), args: f.args } },
    signal: controller.signal,
    ...(f.stallTimeoutS !== undefined ? { stallTimeoutS: f.stallTimeoutS } : {}),
    onRecord: (live, record) => {
      accepted.push(record.type);
      lastRecordAt = performance.now();
      if (record.type === 'hello') pid = record.pid;
      if (causedAt === undefined && pid) causedAt = f.inject?.(live, pid, () => controller.abort());
    },
  });
  const endedAt = performance.now();
  const saved = readFileSync(store.fileOf(id), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string });
  const savedRecords = saved.filter((r) => !['run', 'run-end', 'host-problem'].includes(r.type)).map((r) => r.type);
  const whole = JSON.stringify(savedRecords) === JSON.stringify(accepted) && saved.at(-1)?.type === 'run-end';
  const clear = run.end?.status === f.status && f.message.test(run.end.message);
  const gone = pid === 0 || (await waitUntilGone(pid, 5000));
  const orphans = pid ? processGroupMembers(pid).length + (gone && !isRunning(pid) ? 0 : 1) : 0;
  // A fault the helper causes itself starts after its last record.
  return { whole, clear, orphans, detectMs: endedAt - (causedAt ?? lastRecordAt), end: run.end };
}

function stub(name: string, script: string): () => string {
  return () => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${script}\n`);
    chmodSync(path, 0o755);
    return path;
  };
}

const helloLine = `printf '%s%s}\\n' '{"type":"hello","protocol":1,"helper":{"name":"sdma-probe","version":"0.1.0"},"command":"sweep","backend":"sim","simulated":true,"backendsBuilt":["sim"],"pid":' $$`;

const FAULTS: Fault[] = [
  {
    fault: 'helper killed (SIGKILL) mid-run',
    tries: 5,
    args: slow,
    inject: (run, pid) => (run.samples.length === 2 ? (process.kill(pid, 'SIGKILL'), performance.now()) : undefined),
    status: 'crashed',
    message: /the helper was killed by SIGKILL; 2 samples kept/,
  },
  {
    fault: 'helper aborts (crash-after=3)',
    tries: 5,
    args: [...sweep, '--fault', 'crash-after=3'],
    status: 'crashed',
    message: /killed by SIGABRT; 3 samples kept/,
  },
  {
    fault: 'helper exits without done (exit-after=3)',
    tries: 5,
    args: [...sweep, '--fault', 'exit-after=3'],
    status: 'crashed',
    message: /exited with code 1 without saying why; 3 samples kept/,
  },
  {
    fault: 'helper hangs, user cancels',
    tries: 5,
    args: [...sweep, '--fault', 'hang-after=2'],
    inject: (run, _pid, cancel) =>
      run.samples.length === 2 ? (setTimeout(cancel, 300), performance.now() + 300) : undefined,
    status: 'cancelled',
    message: /cancelled; 2 samples kept/,
  },
  {
    fault: `helper hangs, nobody cancels (stall limit ${STALL_LIMIT.minS} s)`,
    tries: 2,
    args: [...sweep, '--fault', 'hang-after=2'],
    stallTimeoutS: STALL_LIMIT.minS,
    inject: (run) => (run.samples.length === 2 ? performance.now() : undefined),
    status: 'error',
    message: new RegExp(`printed nothing for ${STALL_LIMIT.minS} s, the stall limit, and was stopped; 2 samples kept`),
  },
  {
    fault: 'one torn line, run goes on (garbage-after=2)',
    tries: 5,
    args: [...sweep, '--fault', 'garbage-after=2'],
    status: 'ok',
    message: /samples/,
  },
  {
    fault: '200,000 garbage lines, then done ok',
    tries: 3,
    helper: stub(
      'garbage.sh',
      `${helloLine}\nyes 'not a record' | head -n 200000\necho '{"type":"done","status":"ok","samples":0,"elapsedMs":1}'`,
    ),
    args: [],
    status: 'error',
    message: /200000 of 200002 lines from the helper were unusable/,
  },
];

describe('fault table: the helper faults, tried again and again', () => {
  for (const f of FAULTS) {
    it(
      f.fault,
      async () => {
        const row: Row = { fault: f.fault, tries: f.tries, lost: 0, clear: 0, orphans: 0, detectMs: [] };
        for (let i = 0; i < f.tries; i++) {
          const r = await tryFault(f, i);
          if (!r.whole) row.lost++;
          if (r.clear) row.clear++;
          else console.log(`${f.fault}, try ${i}: ${JSON.stringify(r.end)}`);
          row.orphans += r.orphans;
          row.detectMs.push(r.detectMs);
        }
        rows.push(row);
        expect(row.lost).toBe(0);
        expect(row.clear).toBe(f.tries);
        expect(row.orphans).toBe(0);
      },
      120_000,
    );
  }

  afterAll(() => {
    const lines = [
      '| fault | tries | lost anything | clear end | processes left | time to end (median, max) |',
      '|---|---|---|---|---|---|',
    ];
    for (const r of rows) {
      const sorted = [...r.detectMs].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      lines.push(
        `| ${r.fault} | ${r.tries} | ${r.lost} | ${r.clear}/${r.tries} | ${r.orphans} | ${median} ms, ${sorted.at(-1)} ms |`,
      );
    }
    console.log(`fault table:\n${lines.join('\n')}`);
  });
});
