/**
 * `sdma-lens import FILE...`: results other tools wrote, each recognized by its content and
 * saved as a run (TransferBench, nvbandwidth, nccl-tests / rccl-tests: src/core/imports), and
 * rocprofv3 profiles (a rocpd .db file or a CSV folder) read by the helper into a run as
 * before. Each file is said on its own: run id, tool, what was imported and its numbers, or
 * what could not be read. Exit 0 when every file was imported; 2 when one was of no known
 * format or refused (a link, a FIFO, over 64 MiB; nothing saved for it); else 1 when one
 * imported nothing or its helper run failed; 130 when a helper run was cancelled.
 */
import { ImportError, importResults } from '../../core/imports/importRun';
import type { ImportOutcome } from '../../core/imports/importRun';
import { importedLines } from '../../core/imports/importText';
import { summarizeProfile } from '../../core/profile/profileSummary';
import { profileLines, profileTitle } from '../../core/profile/profileText';
import type { Run } from '../../core/run';
import type { RunStore } from '../../core/runs/runStore';
import { importArgs } from '../../core/runtime/importArgs';
import { jsonText, shellComment, terminalLine } from '../../core/text';
import { runOnConsole, savedLines } from '../console';
import { parseFlags } from '../flags';
import type { RunValues } from '../options';
import { UsageError, sizeOption, storeOf } from '../options';

type Values = RunValues & { 'buffer-size'?: string };

/** Worse ends win: cancelled, then refused or unknown, then failed, then ok. */
const worst = (a: number, b: number) => [130, 2, 1, 0].find((c) => c === a || c === b) ?? Math.max(a, b);

export async function importFiles(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'runs-dir': { type: 'string' },
      helper: { type: 'string' },
      'buffer-size': { type: 'string' },
    },
  });
  if (positionals.length === 0)
    throw new UsageError(
      'needs one or more files: outputs of TransferBench, nvbandwidth, nccl-tests or rccl-tests, or a rocprofv3 profile (rocpd .db file or CSV folder)',
    );
  const bufferBytes =
    values['buffer-size'] !== undefined ? sizeOption('buffer-size', values['buffer-size']) : undefined;
  const store = storeOf(values);
  const results: unknown[] = [];
  let code = 0;
  for (const path of positionals) {
    let outcome: ImportOutcome;
    try {
      outcome = await importResults(path, store, bufferBytes !== undefined ? { bufferBytes } : {});
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      process.stderr.write(`sdma-lens: ${terminalLine(err.message)}\n`);
      results.push({ file: path, failure: err.failure, error: err.message });
      code = worst(code, err.failure === 'nothing-imported' || err.failure === 'unreadable' ? 1 : 2);
      continue;
    }
    if (outcome.kind === 'helper') {
      const ran = await importProfile(outcome.path, values, signal, store);
      if (ran.result) results.push(ran.result);
      code = worst(code, ran.code);
      if (ran.code === 130) break;
      continue;
    }
    const run = outcome.run;
    const runFile = store.fileOf(run.header.id);
    if (values.json) results.push(importedJson(run, path, runFile));
    else process.stdout.write(`${importedLines(run).join('\n')}\n${savedLines(runFile)}`);
  }
  if (values.json) process.stdout.write(`${jsonText(results.length === 1 ? results[0] : results, 2)}\n`);
  return code;
}

function importedJson(run: Run, file: string, runFile: string) {
  return {
    file,
    runId: run.header.id,
    runFile,
    command: run.header.command,
    source: run.header.source,
    status: run.end?.status,
    message: run.end?.message ?? '',
    ...(run.header.command === 'collective' ? { collectives: run.collectives ?? [] } : { samples: run.samples }),
    notes: run.warnings,
  };
}

/** A rocprofv3 profile, read by the helper on this machine (`sdma-probe import`), its kernels printed. */
async function importProfile(
  path: string,
  values: Values,
  signal: AbortSignal,
  store: RunStore,
): Promise<{ code: number; result?: unknown }> {
  let helperArgs: string[];
  try {
    helperArgs = await importArgs(path);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const ran = await runOnConsole(
    { command: 'import', idTag: 'rocprofv3', args: () => helperArgs },
    { values, signal, localOnly: true },
  );
  if (!ran.run) return { code: ran.code };
  const runFile = store.fileOf(ran.run.header.id);
  if (values.json) {
    const summary = summarizeProfile(ran.run.dispatches, ran.run.copies);
    return {
      code: ran.code,
      result: {
        runId: ran.run.header.id,
        runFile,
        status: ran.run.end?.status,
        message: ran.run.end?.message ?? '',
        ...summary,
        warnings: ran.run.warnings,
      },
    };
  }
  // The title and the kernel lines are one line each (profileText.ts); so is each warning of the helper.
  process.stdout.write(`# ${profileTitle(ran.run)}\n${profileLines(ran.run).join('\n')}\n`);
  for (const w of ran.run.warnings) process.stdout.write(`${shellComment(`warning: ${w.message}`)}\n`);
  process.stdout.write(savedLines(runFile));
  return { code: ran.code };
}
