/**
 * Runs mocha suites inside the VS Code extension host. Each launch of VS Code (trusted,
 * untrusted) has its own entry module that names its suites; test/integration/runTests.mjs
 * reads the counts written to $SDMA_LENS_TEST_RESULTS.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export async function runMocha(label: string, suites: string[]): Promise<void> {
  // SDMA_LENS_TEST_GREP runs only the tests whose titles match (for work on one suite).
  const grep = process.env.SDMA_LENS_TEST_GREP;
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  for (const name of suites) mocha.addFile(path.join(__dirname, 'suite', `${name}.test.js`));
  const counts = await new Promise<{ passed: number; failed: number; pending: number }>((resolve, reject) => {
    try {
      const runner = mocha.run(() =>
        resolve({
          passed: runner.stats?.passes ?? 0,
          failed: runner.stats?.failures ?? 0,
          pending: runner.stats?.pending ?? 0,
        }),
      );
    } catch (err) {
      reject(err as Error);
    }
  });
  const out = process.env.SDMA_LENS_TEST_RESULTS;
  if (out) writeFileSync(path.join(out, `${label}.json`), JSON.stringify(counts));
  if (counts.failed > 0) throw new Error(`${counts.failed} ${label} integration test(s) failed`);
}
