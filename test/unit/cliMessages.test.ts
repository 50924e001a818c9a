/**
 * What the CLI says about data it did not make: control bytes from arguments, file names and
 * saved runs are escaped on the terminal, and advice or a run list from a damaged run says so.
 * In-process, on saved runs: no helper runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../src/core/runs/runStore';
import { escapeControls } from '../../src/core/text';
import { runCli } from '../support/cli';
import { done, header, hello, sample } from '../support/records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-cli-msg-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ESC = '\u001b';
const end = {
  type: 'run-end',
  status: 'ok',
  exitCode: 0,
  signal: null,
  message: '',
  endedAt: '2026-11-30T00:00:01.000Z',
};

/** A saved sweep of two paths over a few sizes, with `problems` host-problem lines among its records. */
function saveSweep(id: string, problems: string[]) {
  const w = new RunStore(dir).create(header(id));
  w.appendValue(hello);
  for (const p of problems) w.appendValue({ type: 'host-problem', message: p });
  for (const sizeBytes of [4096, 65536, 1 << 20, 1 << 24]) {
    w.appendValue(sample({ sizeBytes, meanNs: 2000 + sizeBytes / 50 }));
    w.appendValue(sample({ sizeBytes, mover: 'engine', cus: 0, engines: 1, meanNs: 8000 + sizeBytes / 60 }));
  }
  w.appendValue(done);
  w.appendValue(problems.length > 0 ? { ...end, problems: problems.length, firstProblem: problems[0] } : end);
  w.close();
}

describe('escaping', () => {
  it('escapes C0 and C1 controls, keeping line breaks only when asked', () => {
    expect(escapeControls('a\u001b[2Jb\u0007\u009b\u007f\tc\nd')).toBe('a\\x1b[2Jb\\x07\\x9b\\x7f\\x09c\\x0ad');
    expect(escapeControls('one\ntwo\r', { newlines: true })).toBe('one\ntwo\\x0d');
    expect(escapeControls('µs → GB/s, plain text')).toBe('µs → GB/s, plain text');
  });

  it('an argument holding "\\x1b[2J" is written escaped in the error, not obeyed by the terminal', async () => {
    const unknownFlag = await runCli(['sweep', `--cus${ESC}[2J`]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.err).toContain('--cus\\x1b[2J');
    const unknownCommand = await runCli([`clear${ESC}[2J${ESC}]0;title\u0007`]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.err).toContain('unknown command "clear\\x1b[2J\\x1b]0;title\\x07"');
    for (const r of [unknownFlag, unknownCommand]) expect(r.err).not.toContain(ESC);
  });

  it('a file name with control bytes (the runs folder) is escaped in a run-file error', async () => {
    const runsDir = join(dir, `runs${ESC}[31m`);
    const r = await runCli(['advise', 'no-such-run', '--runs-dir', runsDir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('runs\\x1b[31m');
    expect(r.err).not.toContain(ESC);
  });
});

describe('trust in saved data', () => {
  it('advice from a run with problems says so before the settings, and in JSON', async () => {
    saveSweep('damaged', [
      `skipped a malformed line from the helper: bad ${ESC}[2J`,
      'skipped a record of unknown type "x"',
    ]);
    const r = await runCli(['advise', 'damaged', '--runs-dir', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toBe(
      '# note: run damaged had 2 problems (first: skipped a malformed line from the helper: bad \\x1b[2J): treat this advice with care',
    );
    expect(r.out).toMatch(/^# run damaged, /m);
    const json = await runCli(['advise', 'damaged', '--runs-dir', dir, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({ runId: 'damaged', problems: { count: 2 } });
    expect(json.err).toMatch(/run damaged had 2 problems/);
  });

  it('advice from a clean run carries no note', async () => {
    saveSweep('clean', []);
    const r = await runCli(['advise', 'clean', '--runs-dir', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/# note: run /);
    expect(r.out.split('\n')[0]).toMatch(/^# run clean, /);
  });

  it('runs lists the problem count and the first problem of each run that had any', async () => {
    saveSweep('2026-11-30T01-00-00-000Z-sweep-sim-aaaa', []);
    saveSweep('2026-11-30T02-00-00-000Z-sweep-sim-bbbb', ['skipped a record of unknown type "x"', 'another']);
    const r = await runCli(['runs', '--runs-dir', dir]);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^2026-11-30T02-00-00-000Z-sweep-sim-bbbb {2}\S.* {2}sweep {2}local {2}ok {2}SIMULATED {2}\(2 problems, first: skipped a record of unknown type "x"\)$/,
    );
    expect(lines[1]).toMatch(/^2026-11-30T01-00-00-000Z-sweep-sim-aaaa {2}\S.* {2}sweep {2}local {2}ok {2}SIMULATED$/);
  });
});
