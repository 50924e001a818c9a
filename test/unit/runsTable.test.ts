/** `sdma-lens runs`: one aligned line per run (src/core/runs/runsTable.ts), and what it says with none. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/core/runs/runStore';
import { RunStore } from '../../src/core/runs/runStore';
import { localDateTime, runNode, runsTable } from '../../src/core/runs/runsTable';
import { runCli } from '../support/cli';
import { done, header, hello } from '../support/records';

const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'UTC';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const summary = (
  id: string,
  more: Partial<RunSummary> = {},
  head: Partial<RunSummary['header'] & object> = {},
): RunSummary => ({
  id,
  dir: `/runs/${id}`,
  header: { ...header(id), ...head },
  status: 'ok',
  bytes: 100,
  ...more,
});

describe('the runs table', () => {
  it('writes dates in local time, ISO-like', () => {
    expect(localDateTime('2026-11-30T01:02:03.000Z')).toBe('2026-11-30 01:02:03');
    process.env.TZ = 'Asia/Kolkata';
    expect(localDateTime('2026-11-30T01:02:03.000Z')).toBe('2026-11-30 06:32:03');
    process.env.TZ = 'UTC';
    expect(localDateTime('yesterday')).toBe('-');
  });

  it("names the node: this machine, an SSH node, a fleet's Slurm node, none for an import", () => {
    expect(runNode(summary('a'))).toBe('local');
    expect(runNode(summary('b', {}, { target: { kind: 'ssh', host: 'gpu-7' } }))).toBe('gpu-7');
    expect(runNode(summary('c', {}, { fleet: { id: 'f1', node: 'n03', job: '12' } }))).toBe('n03 (Slurm)');
    expect(runNode(summary('d', {}, { source: { tool: 'nvbandwidth', format: 'json', file: '/data/nvb.json' } }))).toBe(
      '-',
    );
    expect(runNode({ id: 'e', dir: '/runs/e', status: 'corrupt', error: 'x', bytes: 0 })).toBe('-');
  });

  it('one line a run, columns aligned: id, date, command, node, status, then SIMULATED, import, problems', () => {
    const lines = runsTable([
      summary('2026-11-30T02-00-00-000Z-sweep-sim-bbbb', {
        simulated: true,
        problems: { count: 2, first: 'skipped a record of unknown type "x"' },
      }),
      summary(
        '2026-11-30T01-30-00-000Z-matrix-hip-cccc',
        { status: 'crashed' },
        { command: 'matrix', createdAt: '2026-11-30T01:30:00.000Z', target: { kind: 'ssh', host: 'gpu-7' } },
      ),
      summary(
        '2026-11-30T01-00-00-000Z-import-nvbandwidth-dddd',
        {},
        {
          createdAt: '2026-11-30T01:00:00.000Z',
          source: { tool: 'nvbandwidth', format: 'json', file: '/data/nvb.json' },
        },
      ),
      {
        id: 'damaged',
        dir: '/runs/damaged',
        status: 'corrupt',
        error: 'run.ndjson does not start with a run header',
        bytes: 3,
      },
    ]);
    expect(lines).toEqual([
      '2026-11-30T02-00-00-000Z-sweep-sim-bbbb           2026-11-30 00:00:00  sweep   local  ok       SIMULATED  (2 problems, first: skipped a record of unknown type "x")',
      '2026-11-30T01-30-00-000Z-matrix-hip-cccc          2026-11-30 01:30:00  matrix  gpu-7  crashed',
      '2026-11-30T01-00-00-000Z-import-nvbandwidth-dddd  2026-11-30 01:00:00  sweep   -      ok       imported from nvbandwidth (nvb.json)',
      'damaged                                           -                    -       -      corrupt  (run.ndjson does not start with a run header)',
    ]);
  });

  it('keeps each run on one line whatever its node or problem says', () => {
    const [line] = runsTable([
      summary(
        'x',
        { problems: { count: 1, first: 'bad\nline \u001b[2J' } },
        { target: { kind: 'ssh', host: 'evil\u202ehost' } },
      ),
    ]);
    expect(line).toBe('x  2026-11-30 00:00:00  sweep  evil\\u202ehost  ok  (1 problem, first: bad\\x0aline \\x1b[2J)');
  });
});

describe('sdma-lens runs', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sdma-runs-table-'));
  });
  afterEach(() => rmSync(join(dir, 'runs'), { recursive: true, force: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with no run: stdout empty, one line on stderr naming the folder and how to make a run, exit 0', async () => {
    const runs = join(dir, 'runs');
    const r = await runCli(['runs', '--runs-dir', runs]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `sdma-lens runs: no runs in ${runs}; make one with sdma-lens sweep (--backend sim: the simulator) or sdma-lens import FILE, or name another folder with --runs-dir DIR\n`,
    );
    const json = await runCli(['runs', '--runs-dir', runs, '--json']);
    expect(json.out).toBe('[]\n');
    expect(json.err).toBe('');
  });

  it('with runs: the table on stdout; --json the summaries as they are', async () => {
    const runs = join(dir, 'runs');
    const w = new RunStore(runs).create(header('2026-11-30T00-00-00-000Z-sweep-sim-aaaa'));
    w.appendValue(hello);
    w.appendValue(done);
    w.appendValue({
      type: 'run-end',
      status: 'ok',
      exitCode: 0,
      signal: null,
      message: '',
      endedAt: '2026-11-30T00:00:01.000Z',
    });
    w.close();
    const r = await runCli(['runs', '--runs-dir', runs]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toBe('2026-11-30T00-00-00-000Z-sweep-sim-aaaa  2026-11-30 00:00:00  sweep  local  ok  SIMULATED\n');
    const json = JSON.parse((await runCli(['runs', '--runs-dir', runs, '--json'])).out) as RunSummary[];
    expect(json).toMatchObject([
      {
        id: '2026-11-30T00-00-00-000Z-sweep-sim-aaaa',
        status: 'ok',
        simulated: true,
        header: { command: 'sweep', createdAt: '2026-11-30T00:00:00.000Z' },
      },
    ]);
  });
});
