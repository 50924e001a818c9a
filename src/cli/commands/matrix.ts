/** `sdma-lens matrix`: the GPU x GPU bandwidth matrix per copy path, printed as grids (or JSON). */
import { matrixCommand } from '../../core/matrix/matrixCommand';
import { matrixTable } from '../../core/matrix/matrixTable';
import { matrixPageView } from '../../core/matrix/matrixView';
import { escapeControls, jsonText } from '../../core/text';
import { runOnConsole, savedLines } from '../console';
import { parseFlags } from '../flags';
import { matrixOptionsOf } from '../measure';
import { MEASURE_OPTIONS, RUN_OPTIONS, storeOf } from '../options';

export async function matrix(argv: string[], signal: AbortSignal): Promise<number> {
  const { values } = parseFlags({
    args: argv,
    strict: true,
    options: {
      size: { type: 'string' },
      gpus: { type: 'string' },
      concurrent: { type: 'boolean' },
      ...MEASURE_OPTIONS,
      ...RUN_OPTIONS,
    },
  });
  const options = matrixOptionsOf(values, { flag: 'size', text: values.size });
  const ran = await runOnConsole(matrixCommand(options), { values, signal });
  if (!ran.run) return ran.code;
  const runFile = storeOf(values).fileOf(ran.run.header.id);
  if (values.json) {
    process.stdout.write(
      `${jsonText({ runFile, ...matrixPageView(ran.run), message: ran.run.end?.message ?? '' }, 2)}\n`,
    );
  } else {
    // The table's own line breaks stay; controls and bidi marks in the run's text do not reach the terminal.
    process.stdout.write(`${escapeControls(matrixTable(ran.run), { newlines: true })}\n${savedLines(runFile)}`);
  }
  return ran.code;
}
