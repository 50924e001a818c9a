/**
 * Runs product code that could read without end or block for ever (a link to /dev/zero, a
 * FIFO, a file over its cap) in a child process under an address-space limit and a timeout,
 * so a regression fails its test instead of taking the machine down. The driver (a TypeScript
 * file beside this one) is bundled once with esbuild and run with this Node.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/** Enough for Node and the code under test; far below what reading /dev/zero or a huge file would take. */
export const CHILD_ADDRESS_SPACE = 1_500_000_000;
/** Longer than any of these reads takes on a loaded machine; a FIFO that blocks runs into it. */
export const CHILD_TIMEOUT_S = 15;

export interface ChildOutcome {
  /** What the driver printed: the value, or the error it threw. */
  result?: { ok: true; value: unknown } | { ok: false; message: string; name: string };
  status: number | null;
  timedOut: boolean;
  stderr: string;
}

/** Bundles `entry` into a temporary .mjs that Node runs alone. */
export function bundle(entry: string): string {
  const out = join(mkdtempSync(join(tmpdir(), 'sdma-child-')), 'driver.mjs');
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: out,
    logLevel: 'silent',
  });
  return out;
}

/** Runs the bundled driver with `request` under `prlimit --as` and `timeout -s KILL`. */
export function runLimited(
  driver: string,
  request: object,
  o: { addressSpace?: number; timeoutS?: number } = {},
): ChildOutcome {
  const timeoutS = o.timeoutS ?? CHILD_TIMEOUT_S;
  const r = spawnSync(
    'timeout',
    [
      '-s',
      'KILL',
      String(timeoutS),
      'prlimit',
      `--as=${o.addressSpace ?? CHILD_ADDRESS_SPACE}`,
      process.execPath,
      driver,
      JSON.stringify(request),
    ],
    { encoding: 'utf8', maxBuffer: 1024 * 1024 },
  );
  let result: ChildOutcome['result'];
  try {
    result = JSON.parse(r.stdout) as ChildOutcome['result'];
  } catch {
    result = undefined;
  }
  return {
    result,
    status: r.status,
    timedOut: r.status === 137 || r.signal === 'SIGKILL',
    stderr: r.stderr.slice(-2000),
  };
}

/** The error message the driver reported; fails with what happened instead (a timeout, a crash, a success). */
export function refusal(outcome: ChildOutcome): string {
  if (outcome.result?.ok === false) return outcome.result.message;
  if (outcome.timedOut)
    throw new Error(`the child was killed after ${CHILD_TIMEOUT_S} s: it blocked or read without end`);
  if (outcome.result?.ok) throw new Error(`the child read the file: ${JSON.stringify(outcome.result.value)}`);
  throw new Error(`the child ended with status ${outcome.status}: ${outcome.stderr}`);
}
