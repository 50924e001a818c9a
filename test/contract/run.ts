/** Runs the real helper and splits what it printed, for contract tests. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { expect } from 'vitest';
import type { HelperRecord, LineResult } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';

export interface HelperRun {
  status: number | null;
  signal: string | null;
  lines: string[];
  results: LineResult[];
  stderr: string;
}

export function helper(args: string[], timeoutMs = 30_000, env?: NodeJS.ProcessEnv): HelperRun {
  const r = spawnSync(inject('helperPath'), args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 256 * 1024 * 1024,
    ...(env ? { env } : {}),
  });
  const lines = r.stdout.split('\n').filter((l) => l.length > 0);
  return { status: r.status, signal: r.signal, lines, results: lines.map(parseLine), stderr: r.stderr };
}

/** Every record, asserting each line is a valid protocol record. */
export function records(run: HelperRun) {
  return run.results.map((r, i) => {
    if (r.kind !== 'record')
      throw new Error(
        `line ${i + 1} is not a valid record (${r.kind === 'malformed' ? r.reason : `type ${r.type}`}): ${run.lines[i]?.slice(0, 200)}`,
      );
    return r.record;
  });
}

/**
 * Run mode's documented order: hello, topology, program start, dispatch/copy* (by start),
 * device-span* (by start), library-calls*, program exit, warning*, done.
 */
export function expectRunOrder(rs: HelperRecord[]) {
  const types = rs.map((r) => (r.type === 'program' ? `program:${r.event}` : r.type));
  expect(types.slice(0, 3)).toEqual(['hello', 'topology', 'program:start']);
  expect(types.at(-1)).toBe('done');
  const exit = types.indexOf('program:exit');
  expect(exit).toBeGreaterThan(2);
  const between = rs.slice(3, exit);
  const rank = (t: string) =>
    t === 'dispatch' || t === 'copy' ? 0 : t === 'device-span' ? 1 : t === 'library-calls' ? 2 : -1;
  for (const r of between)
    expect(rank(r.type), `${r.type} between the program's start and exit`).toBeGreaterThanOrEqual(0);
  for (let i = 1; i < between.length; i++) {
    const a = between[i - 1]!;
    const b = between[i]!;
    expect(rank(a.type), `${a.type} before ${b.type}`).toBeLessThanOrEqual(rank(b.type));
    // Each block of records read from the program is in start order.
    if (rank(a.type) === rank(b.type) && rank(a.type) < 2 && 'startNs' in a && 'startNs' in b)
      expect(a.startNs).toBeLessThanOrEqual(b.startNs);
  }
  for (const t of types.slice(exit + 1, -1)) expect(t).toBe('warning');
}

/** Every line of a recorded NDJSON file under the repository, each asserted a valid record. */
export function recordedRecords(...pathInRepo: string[]): HelperRecord[] {
  const name = pathInRepo.at(-1);
  return readFileSync(join(inject('repoRoot'), ...pathInRepo), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line, i) => {
      const r = parseLine(line);
      if (r.kind !== 'record') throw new Error(`${name}:${i + 1}: ${r.kind === 'malformed' ? r.reason : r.type}`);
      return r.record;
    });
}
