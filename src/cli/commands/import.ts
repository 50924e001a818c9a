/** `sdma-lens import PATH`: a rocprofv3 profile (rocpd database or CSV folder) read by the helper into a run, its kernels printed. */
import { parseArgs } from 'node:util';
import { profileLines, profileTitle } from '../../core/profile/profileText';
import { summarizeProfile } from '../../core/profile/profileSummary';
import { importArgs } from '../../core/runtime/importArgs';
import { runOnConsole, savedLines } from '../console';
import { UsageError, storeOf } from '../options';

export async function importProfile(argv: string[], signal: AbortSignal): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, 'runs-dir': { type: 'string' }, helper: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('import takes one path: the rocpd .db file or the folder of CSV traces rocprofv3 wrote');
  let helperArgs: string[];
  try {
    helperArgs = await importArgs(positionals[0]!);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // The profile is a file here: the helper reads it on this machine.
  const ran = await runOnConsole({ command: 'import', idTag: 'rocprofv3', args: () => helperArgs }, { values, signal, localOnly: true });
  if (!ran.run) return ran.code;
  const runFile = storeOf(values).fileOf(ran.run.header.id);
  if (values.json) {
    const summary = summarizeProfile(ran.run.dispatches, ran.run.copies);
    process.stdout.write(`${JSON.stringify({ runId: ran.run.header.id, runFile, status: ran.run.end?.status, message: ran.run.end?.message ?? '', ...summary, warnings: ran.run.warnings }, null, 2)}\n`);
  } else {
    process.stdout.write(`# ${profileTitle(ran.run)}\n${profileLines(ran.run).join('\n')}\n`);
    for (const w of ran.run.warnings) process.stdout.write(`# warning: ${w.message}\n`);
    process.stdout.write(savedLines(runFile));
  }
  return ran.code;
}
