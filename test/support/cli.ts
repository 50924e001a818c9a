/** The `sdma-lens` CLI run in-process, for tests: its exit code and what it wrote. */
import { main } from '../../src/cli/main';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs `sdma-lens ARGS...` with stdout and stderr captured (and restored afterwards). */
export async function runCli(args: string[]): Promise<CliResult> {
  const result = { code: -1, out: '', err: '' };
  const realOut = process.stdout.write.bind(process.stdout);
  const realErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((result.out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((result.err += s), true)) as typeof process.stderr.write;
  try {
    result.code = await main(args);
  } finally {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
  }
  return result;
}
