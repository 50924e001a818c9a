/**
 * Real measurements from bench/results as saved runs, for the comparison tests: the helper's
 * NDJSON output of a bench run (some of it inside a results folder's raw.tar.gz) with a run
 * header in front and a run-end behind, exactly what a run folder's run.ndjson holds.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as v from 'valibot';
import type { Run, RunHeader } from '../../src/core/run';
import { RUN_FILE_NAME, RunHeaderSchema, applySavedValue, newRun } from '../../src/core/run';

const results = resolve(__dirname, '../../bench/results');

/** The bench outputs the tests compare: file, or [archive, member]; and the command that made it. */
export const BENCH = {
  /** 2x H200 sweep, 2026-11-30. */
  sweep: { file: 'h200x2-2026-11-30/raw/sweep.ndjson', command: 'sweep' },
  /** The same sweep measured again on the same node kind after the proxy and buffer changes (its README). */
  sweepRerun: { archive: 'h200x2-rerun-2026-11-30/raw.tar.gz', member: 'raw/sweep.ndjson', command: 'sweep' },
  /** 1x H200 sweeps (host:0, 0:host, 0:0) and the same call again an hour later, with the same measurement code (its README): the same node measured twice. */
  h200x1Default: { file: 'h200x1-2026-12-01/sweep-default.ndjson', command: 'sweep' },
  h200x1DefaultRerun: { file: 'h200x1-rerun-2026-12-01/sweep-default.ndjson', command: 'sweep' },
  h200x1Full: { file: 'h200x1-2026-12-01/sweep-full.ndjson', command: 'sweep' },
  h200x1FullRerun: { file: 'h200x1-rerun-2026-12-01/sweep-full.ndjson', command: 'sweep' },
  /** 2x H200 matrix, each pair alone, and all pairs of a path at once. */
  matrix: { file: 'h200x2-matrix-2026-11-30/matrix.ndjson', command: 'matrix' },
  matrixConcurrent: { file: 'h200x2-matrix-2026-11-30/matrix-concurrent.ndjson', command: 'matrix' },
  /** 2x H200 collective sweep (64 KiB..1 GiB) and its 256 MiB repeat with 50 iterations. */
  collective: { file: 'h200x2-collectives-2026-11-30/collective.ndjson', command: 'collective' },
  collectiveRepeat: { file: 'h200x2-collectives-2026-11-30/collective-256M-repeat.ndjson', command: 'collective' },
} as const satisfies Record<
  string,
  ({ file: string } | { archive: string; member: string }) & { command: RunHeader['command'] }
>;
export type BenchName = keyof typeof BENCH;

/** One member of a gzipped ustar archive (what `tar czf` writes), read without a tar program. */
export function tarMember(archive: string, member: string): string {
  const data = gunzipSync(readFileSync(archive));
  const text = (at: number, len: number) =>
    data
      .subarray(at, at + len)
      .toString('latin1')
      .replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= data.length;) {
    const name = text(at, 100);
    if (name === '') break;
    const prefix = text(at + 345, 155);
    const size = parseInt(text(at + 124, 12).trim(), 8);
    const body = at + 512;
    if ((prefix ? `${prefix}/${name}` : name) === member) return data.subarray(body, body + size).toString('utf8');
    at = body + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${member} is not in ${archive}`);
}

/** The helper's output of a bench run, as it printed it. */
export function benchOutput(name: BenchName): string {
  const b = BENCH[name];
  return 'archive' in b ? tarMember(join(results, b.archive), b.member) : readFileSync(join(results, b.file), 'utf8');
}

/** run.ndjson of a bench run saved under `id`. */
export function benchRunText(name: BenchName, id: string): string {
  const header: RunHeader = {
    type: 'run',
    format: 'sdma-lens-run',
    version: 1,
    id,
    command: BENCH[name].command,
    createdAt: '2026-11-30T00:00:00.000Z',
    target: { kind: 'local' },
    helper: { path: 'sdma-probe', args: [BENCH[name].command] },
  };
  const end = {
    type: 'run-end',
    status: 'ok',
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-11-30T00:01:00.000Z',
  };
  return `${JSON.stringify(header)}\n${benchOutput(name).trimEnd()}\n${JSON.stringify(end)}\n`;
}

/** A run file's text read the way RunStore reads one (header, then every line through the one reducer). */
export function runFromText(text: string): Run {
  const lines = text.split('\n').filter((l) => l.trim().length > 0);
  const run = newRun(v.parse(RunHeaderSchema, JSON.parse(lines[0] ?? 'null')));
  for (const line of lines.slice(1)) applySavedValue(run, JSON.parse(line) as unknown);
  return run;
}

export function benchRun(name: BenchName, id: string = name): Run {
  return runFromText(benchRunText(name, id));
}

/** A run as its run.ndjson: the header, the records it holds, its end. */
export function runText(run: Run): string {
  const records = [
    run.hello,
    run.topology,
    ...run.samples,
    ...(run.matrixCells ?? []),
    ...(run.collectiveVariants ?? []),
    ...(run.collectives ?? []),
    run.done,
  ].filter((r) => r !== undefined);
  return [run.header, ...records, ...(run.end ? [run.end] : [])].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** Saves `text` as run `id` in the runs folder `dir`; returns its run.ndjson. */
export function saveRun(dir: string, id: string, text: string): string {
  mkdirSync(join(dir, id), { recursive: true });
  const file = join(dir, id, RUN_FILE_NAME);
  writeFileSync(file, text);
  return file;
}
