/**
 * The measuring commands' printouts through a pipe: sweep, matrix and collective on the real
 * helper (sim backend, fixed seed), the CLI bundled and run as its own process, its stdout
 * into a reader that takes 4 KiB at a time with a pause of 2 ms before each read. The reader
 * must receive what the same command writes to a file (run ids and folders aside: each run
 * makes its own), and the exit status must be the same. test/unit/cliPipe.test.ts does the
 * same for the commands that read saved runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CliRun } from '../support/cliProcess';
import { CRASH, bundleCli, cliThroughPipe, cliToFile, slowReader } from '../support/cliProcess';

const PIPE_BYTES = 64 * 1024;
const SLOW = { chunk: 4096, pauseMs: 2 };
/** 256 sizes (the most a list may hold), 9 CU counts, two pairs: a table of about 120 KiB. */
const SIZES = Array.from({ length: 256 }, (_, i) => String(4096 * (i + 1))).join(',');

let dir: string;
let cli: string;
let reader: string;
let runsDirs = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-cli-pipe-'));
  cli = bundleCli(dir);
  reader = slowReader(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a run prints, its run id and runs folder (new for every run) made alike. */
const comparable = (r: CliRun) =>
  r.out
    .toString('utf8')
    .replaceAll(/\d{4}-\d\d-\d\dT[\d-]+Z-[a-z]+-[a-z]+-[a-z0-9]{4}/g, 'RUN-ID')
    .replaceAll(/runs-\d+/g, 'runs-N');

describe('a slow reader gets the whole printout of a run', () => {
  it.each([
    // [name, arguments, larger than a pipe holds]; the matrix and collective printouts of a
    // simulated 8-GPU node stay under 64 KiB even at their largest, and are checked all the same.
    [
      'sweep',
      [
        'sweep',
        '--sizes',
        SIZES,
        '--cus',
        '1,2,4,8,16,32,64,128,256',
        '--pairs',
        '0:1,1:0',
        '--iters',
        '2',
        '--seed',
        '3',
      ],
      true,
    ],
    [
      'sweep --json',
      ['sweep', '--sizes', SIZES, '--cus', '1,2,4,8,16,32,64,128,256', '--iters', '2', '--seed', '3', '--json'],
      true,
    ],
    ['matrix --json', ['matrix', '--gpus', 'host,0,1,2,3,4,5,6,7', '--iters', '2', '--seed', '3', '--json'], false],
    ['collective', ['collective', '-b', '1K', '-e', '1G', '-f', '2'], false],
    ['collective --json', ['collective', '-b', '1K', '-e', '1G', '-f', '2', '--json'], false],
  ] as const)('%s', (_name, args, large) => {
    const run = () => [
      ...args,
      '--backend',
      'sim',
      '--helper',
      inject('helperPath'),
      '--runs-dir',
      join(dir, `runs-${runsDirs++}`),
    ];
    const file = cliToFile(cli, run(), dir);
    const piped = cliThroughPipe(cli, reader, run(), dir, SLOW);
    expect(file.code, file.err).toBe(0);
    expect(piped.code, piped.err).toBe(0);
    expect(piped.err).not.toMatch(CRASH);
    if (large) expect(file.out.length).toBeGreaterThan(PIPE_BYTES);
    expect(comparable(piped)).toBe(comparable(file));
  });
});
