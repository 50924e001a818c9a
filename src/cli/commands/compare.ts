/**
 * `sdma-lens compare A B`: two saved runs compared point by point against their noise
 * (src/core/compare/compare.ts). With `--fail-below R` it is a CI gate: exit 1 when any
 * point's ratio B/A is below R beyond noise (a regression, the run-to-run tolerance included,
 * with its whole interval below R). Runs nothing.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Comparison, PointComparison } from '../../core/compare/compare';
import {
  CompareError,
  MAX_COMPARED_POINTS,
  belowBeyondNoise,
  belowNoiseUnknown,
  compareRuns,
  formatRatio,
} from '../../core/compare/compare';
import { compareTable } from '../../core/compare/compareTable';
import type { Run } from '../../core/run';
import { RUN_FILE_NAME } from '../../core/run';
import type { RunStore } from '../../core/runs/runStore';
import { readRunFile } from '../../core/runs/runStore';
import { readProgress, stoppedBySignals } from '../readProgress';
import { jsonText, terminalLine } from '../../core/text';
import { parseFlags } from '../flags';
import { UsageError, storeOf } from '../options';

const NUMBER = /^\d+(\.\d+)?$|^\.\d+$/;

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;
const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** A run id in the runs folder first, then a run.ndjson file or a run folder. */
export function runFileOf(store: RunStore, arg: string): string {
  const stored = idFile(store, arg);
  if (stored && isFile(stored)) return stored;
  const path = resolve(arg);
  if (isDir(path) && isFile(join(path, RUN_FILE_NAME))) return join(path, RUN_FILE_NAME);
  if (isFile(path)) return path;
  throw new UsageError(
    `"${arg}" is neither a run in ${store.root} (sdma-lens runs lists them) nor a ${RUN_FILE_NAME} file or run folder`,
  );
}

/** The run file of a run id; undefined when the text cannot be one (a path). */
function idFile(store: RunStore, arg: string): string | undefined {
  try {
    return store.fileOf(arg);
  } catch {
    return undefined;
  }
}

function number(flag: string, text: string, check: (x: number) => boolean, what: string): number {
  const x = Number(text);
  if (!NUMBER.test(text) || !check(x)) throw new UsageError(`--${flag} needs ${what} (got "${text}")`);
  return x;
}

const listed = (points: PointComparison[]) => points.map((p) => `${p.label} ${formatRatio(p)}`).join('; ');

/** What the gate found: the table's closing lines, and the stderr line when it fails. */
function gateLines(
  c: Comparison,
  threshold: number,
): { lines: string[]; failing: PointComparison[]; unjudged: PointComparison[] } {
  const failing = belowBeyondNoise(c, threshold);
  const unjudged = belowNoiseUnknown(c, threshold);
  const lines = [
    failing.length > 0
      ? `--fail-below ${threshold}: ${failing.length} point${failing.length === 1 ? '' : 's'} below ${threshold} beyond noise: ${listed(failing)}`
      : `--fail-below ${threshold}: no point below ${threshold} beyond noise`,
  ];
  if (unjudged.length > 0)
    lines.push(
      `--fail-below ${threshold}: ${unjudged.length} point${unjudged.length === 1 ? '' : 's'} below ${threshold} with unknown noise, not judged: ${listed(unjudged)}`,
    );
  if (!c.points.some((p) => p.interval))
    lines.push(`--fail-below ${threshold}: no common point has a known spread, so none could fail`);
  return { lines, failing, unjudged };
}

export async function compare(argv: string[], signal?: AbortSignal): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      'runs-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
      'fail-below': { type: 'string' },
      tolerance: { type: 'string' },
      'baseline-runs': { type: 'string' },
    },
  });
  if (positionals.length !== 2)
    throw new UsageError(
      `needs two runs, A (the baseline) and B, each a run id or a ${RUN_FILE_NAME} file (got ${positionals.length})`,
    );
  const threshold =
    values['fail-below'] === undefined
      ? undefined
      : number('fail-below', values['fail-below'], (x) => x > 0, 'a ratio above 0, e.g. 0.95');
  // Without --tolerance or --baseline-runs the run-to-run tolerance is the default measured in bench/results.
  const tolerance =
    values.tolerance === undefined
      ? undefined
      : number(
          'tolerance',
          values.tolerance,
          (x) => x >= 0 && x < 1,
          'a fraction from 0 to below 1, e.g. 0.01 for 1 %',
        );
  const baselineArgs = values['baseline-runs']?.split(',').map((x) => x.trim());
  if (baselineArgs?.some((x) => x === ''))
    throw new UsageError(`--baseline-runs needs a comma list of runs, repeats of A (got "${values['baseline-runs']}")`);
  if (tolerance !== undefined && baselineArgs)
    throw new UsageError('--tolerance and --baseline-runs both set the run-to-run tolerance: give one of them');
  const store = storeOf(values);
  const files = positionals.map((arg) => runFileOf(store, arg));
  const baselineFiles = (baselineArgs ?? []).map((arg) => runFileOf(store, arg));
  // A run past the compare limit is refused as soon as that many samples are read, not after reading it whole.
  const [a, b, ...baselines] = (await stoppedBySignals(
    (stop) =>
      Promise.all(
        [...files, ...baselineFiles].map((f) =>
          readRunFile(f, {
            stopWhen: (r) => r.samples.length > MAX_COMPARED_POINTS,
            signal: stop,
            onProgress: readProgress(f),
          }),
        ),
      ),
    signal,
  )) as [Run, Run, ...Run[]];
  if (signal?.aborted) return 130;
  let comparison: Comparison;
  try {
    comparison = compareRuns(a, b, {
      ...(tolerance !== undefined ? { tolerance } : {}),
      ...(baselines.length > 0 ? { baselines } : {}),
    });
  } catch (err) {
    if (!(err instanceof CompareError)) throw err;
    process.stderr.write(`sdma-lens: ${terminalLine(err.message)}\n`);
    return 1;
  }
  const gate = threshold === undefined ? undefined : gateLines(comparison, threshold);
  if (values.json) {
    const failBelow = gate
      ? { threshold, below: gate.failing.map((p) => p.key), unknownNoiseBelow: gate.unjudged.map((p) => p.key) }
      : undefined;
    process.stdout.write(
      `${jsonText({ ...comparison, files: { a: files[0], b: files[1], ...(baselineFiles.length > 0 ? { baselines: baselineFiles } : {}) }, ...(failBelow ? { failBelow } : {}) }, 2)}\n`,
    );
  } else {
    // The table's lines are each one line already; the gate's name points by their labels, so each is made one line too.
    const text = [compareTable(comparison), ...(gate?.lines ?? []).map((l) => terminalLine(`# ${l}`))].join('\n');
    process.stdout.write(`${text}\n`);
  }
  if (gate && gate.failing.length > 0) {
    const worst = gate.failing.reduce((w, p) => (p.ratio < w.ratio ? p : w));
    process.stderr.write(
      `sdma-lens: ${gate.failing.length} point${gate.failing.length === 1 ? '' : 's'} below ${threshold} beyond noise (lowest: ${terminalLine(worst.label)} ${formatRatio(worst)})\n`,
    );
    return 1;
  }
  return 0;
}
