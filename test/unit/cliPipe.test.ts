/**
 * The CLI's output through a pipe, as a shell gives it: every command that prints, with an
 * output far larger than a pipe holds (64 KiB), into a reader that takes 4 KiB at a time with
 * a pause of 2 ms before each read (about 2 MB/s). The bytes it receives must be the bytes the same command writes to
 * a file, and the exit status the same. A reader that goes away early (EPIPE) ends the CLI
 * quietly, with the status of a writer stopped by SIGPIPE. The CLI runs bundled, as its own
 * process, on saved runs and imported files: no helper runs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetIndex } from '../../src/core/fleet/fleetIndex';
import { FleetStore } from '../../src/core/fleetRun/fleetStore';
import { RUN_FILE_NAME } from '../../src/core/run';
import { EXIT_READER_GONE } from '../../src/cli/main';
import { saveBigSweep } from '../support/bigRun';
import type { CliRun } from '../support/cliProcess';
import { CRASH, bundleCli, cliThroughPipe, cliToFile, slowReader } from '../support/cliProcess';

const PIPE_BYTES = 64 * 1024;
const SLOW = { chunk: 4096, pauseMs: 2 };
/** Saved runs listed by `runs`, beside the sweeps and the fleet's node runs. */
const RUNS = 3000;
const FLEET_NODES = 300;
/** Points of each of the two sweeps advised on and compared. */
const SWEEP_POINTS = 8_000;
/** Result rows of the nccl-tests output imported. */
const NCCL_ROWS = 10_000;

let dir: string;
let runsDir: string;
let cli: string;
let reader: string;
let ncclFile: string;

function tinyRun(id: string): string {
  const header = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id,
    command: 'sweep',
    createdAt: '2026-11-30T00:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: ['sweep'] },
  };
  const end = {
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-11-30T00:00:01.000Z',
  };
  return `${JSON.stringify(header)}\n${JSON.stringify(end)}\n`;
}

function saveFleet(nodes: number): void {
  const fleetId = 'fleet-pipe';
  const list: FleetIndex['nodes'] = [];
  for (let i = 0; i < nodes; i++) {
    const node = `node${String(i).padStart(4, '0')}`;
    const runId = `sweep-${node}`;
    // Each node its own noise, every 50th one 10 % slower.
    saveBigSweep(runsDir, {
      id: runId,
      points: 240,
      seed: i + 1,
      scale: i % 50 === 7 ? 1.1 : 1,
      iters: 10,
      header: { fleet: { id: fleetId, node, job: '7' } },
    });
    list.push({ node, runs: [{ command: 'sweep', runId, status: 'ok' }] });
  }
  new FleetStore(runsDir).write({
    format: 'sdma-lens-fleet',
    version: 1,
    id: fleetId,
    createdAt: '2026-12-02T00:00:00Z',
    via: { kind: 'local' },
    slurm: { job: '7', ownAllocation: true },
    commands: ['sweep'],
    args: {},
    status: 'ok',
    nodes: list,
  });
}

/** An nccl-tests alltoall text output with `rows` result rows (the header of test/fixtures/imports/nccl-tests/alltoall-g1.txt). */
function ncclOutput(rows: number): string {
  const fixture = readFileSync(join(__dirname, '../fixtures/imports/nccl-tests/alltoall-g1.txt'), 'utf8').split('\n');
  const head = fixture.filter((l) => l.startsWith('#')).slice(0, 10);
  const lines = [...head];
  for (let i = 1; i <= rows; i++) {
    const size = 4096 * i;
    lines.push(
      `${String(size).padStart(12)} ${String(size / 4).padStart(13)}     float    none      -1  ${(4 + i / 1000).toFixed(2).padStart(7)}  ${(size / 4000 / (4 + i / 1000)).toFixed(2).padStart(6)}    0.00       0     0.42  155.21    0.00    N/A`,
    );
  }
  lines.push(
    '# Out of bounds values : 0 OK',
    '# Avg bus bandwidth    : 0 ',
    '#',
    '# Collective test concluded: alltoall_perf',
    '#',
    '',
  );
  return lines.join('\n');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-cli-pipe-'));
  runsDir = join(dir, 'runs');
  cli = bundleCli(dir);
  reader = slowReader(dir);
  for (let i = 0; i < RUNS; i++) {
    const id = `2026-11-30T00-00-00-000Z-sweep-sim-${String(i).padStart(4, '0')}`;
    mkdirSync(join(runsDir, id), { recursive: true });
    writeFileSync(join(runsDir, id, RUN_FILE_NAME), tinyRun(id));
  }
  saveBigSweep(runsDir, { id: 'sweep-a', points: SWEEP_POINTS, seed: 1 });
  saveBigSweep(runsDir, { id: 'sweep-b', points: SWEEP_POINTS, seed: 2, scale: 1.02 });
  saveFleet(FLEET_NODES);
  ncclFile = join(dir, 'alltoall.txt');
  writeFileSync(ncclFile, ncclOutput(NCCL_ROWS));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command written to a file, then piped into the slow reader: the same bytes, the same status, nothing said about it. */
function samePiped(
  args: string[],
  normalize: (run: CliRun, side: 'file' | 'pipe') => string | Buffer = (r) => r.out,
): { file: CliRun; piped: CliRun } {
  const file = cliToFile(cli, args, dir);
  const piped = cliThroughPipe(cli, reader, args, dir, SLOW);
  expect(piped.err, piped.err).not.toMatch(CRASH);
  expect(piped.code).toBe(file.code);
  const [f, p] = [normalize(file, 'file'), normalize(piped, 'pipe')];
  expect(p.length).toBe(f.length);
  expect(Buffer.from(p).equals(Buffer.from(f))).toBe(true);
  return { file, piped };
}

describe('a slow reader gets the whole output', () => {
  it.each([
    // [name, arguments, larger than a pipe holds: a CLI that exits without waiting loses most of it]
    ['runs', ['runs'], true],
    ['runs --json', ['runs', '--json'], true],
    ['fleet show', ['fleet', 'show'], false],
    ['fleet show --json', ['fleet', 'show', '--json'], true],
    ['advise', ['advise', 'sweep-a'], false],
    ['advise --json', ['advise', 'sweep-a', '--json'], true],
    ['compare', ['compare', 'sweep-a', 'sweep-b'], true],
    ['compare --json', ['compare', 'sweep-a', 'sweep-b', '--json'], true],
  ] as const)(
    '%s',
    (_name, args, large) => {
      const { file } = samePiped([...args, '--runs-dir', runsDir]);
      expect(file.code, file.err).toBe(0);
      if (large) expect(file.out.length).toBeGreaterThan(PIPE_BYTES);
    },
    120_000,
  );

  it('import, text and JSON (run ids and folders aside, which each import makes anew)', () => {
    for (const json of [[], ['--json']]) {
      let n = 0;
      // Each side imports into a runs folder of its own; the ids hold the time of the import.
      const normalize = (r: CliRun) =>
        r.out
          .toString('utf8')
          .replaceAll(/\d{4}-\d\d-\d\dT[\d-]+Z-import-[A-Za-z0-9]+-[a-z0-9]{4}/g, 'RUN-ID')
          .replaceAll(/imports-\d+/g, 'imports-N');
      const args = () => ['import', ncclFile, ...json, '--runs-dir', join(dir, `imports-${n++}`)];
      const file = cliToFile(cli, args(), dir);
      const piped = cliThroughPipe(cli, reader, args(), dir, SLOW);
      expect(file.code, file.err).toBe(0);
      expect(piped.code).toBe(0);
      expect(piped.err).not.toMatch(CRASH);
      expect(file.out.length).toBeGreaterThan(PIPE_BYTES);
      expect(normalize(piped)).toBe(normalize(file));
    }
  }, 120_000);
});

describe('a reader that goes away', () => {
  it('ends `runs --json` quietly with the SIGPIPE status', () => {
    const r = cliThroughPipe(cli, reader, ['runs', '--json', '--runs-dir', runsDir], dir, {
      chunk: 4096,
      pauseMs: 1,
      stopAfter: 1,
    });
    expect(r.out.length).toBeLessThan(PIPE_BYTES);
    expect(r.err).toBe('');
    expect(r.code).toBe(EXIT_READER_GONE);
  }, 120_000);

  it('ends an import of several files quietly, whichever file was printing', () => {
    const [first, ...rest] = [
      'transferbench/h200x1-16M.txt',
      'transferbench/h200x1-1M.txt',
      'nvbandwidth/h200x1.txt',
      'transferbench/h200x1-64K.txt',
    ].map((f) => join(__dirname, '../fixtures/imports', f));
    // The reader leaves after one byte; the large import's lines meet a closed pipe, and files are still to be imported after it.
    const r = cliThroughPipe(
      cli,
      reader,
      ['import', first!, ncclFile, ...rest, '--runs-dir', join(dir, 'imports-gone')],
      dir,
      { chunk: 1, pauseMs: 1, stopAfter: 1 },
    );
    expect(r.out.length).toBe(1);
    expect(r.err).toBe('');
    expect(r.code).toBe(EXIT_READER_GONE);
  }, 120_000);
});
