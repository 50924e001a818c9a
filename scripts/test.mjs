// `npm test`: everything CI checks, in order: lint, type checks, bundles, native build,
// unit and contract tests. Ends with one summary line, "N passed, N failed".
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { must, prepare, run } from './prepare.mjs';

const CHROMIUM = '/usr/bin/chromium';

prepare();
console.log('> lint');
must(process.execPath, ['node_modules/eslint/bin/eslint.js', '.']);
console.log('> type check (host and webview)');
must(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
must(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'webview/tsconfig.json']);

console.log('> native simulator shape check (ctest)');
must('ctest', ['--test-dir', 'native/build', '--output-on-failure']);

console.log('> unit and contract tests (vitest)');
const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-test-'));
const report = join(dir, 'vitest.json');
const status = run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
let passed = 0;
let failed = 0;
try {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  passed = result.numPassedTests;
  failed = result.numFailedTests + (status !== 0 && result.numFailedTests === 0 ? 1 : 0);
} catch {
  failed = 1;
}
rmSync(dir, { recursive: true, force: true });

// The sweep panel in real Chromium under its real CSP. CI installs Chromium (.ci/run);
// elsewhere the step is skipped with a note when it is missing.
if (existsSync(CHROMIUM)) {
  console.log('> sweep panel in headless Chromium (CSP, messages, theme redraw)');
  const shots = mkdtempSync(join(tmpdir(), 'sdma-lens-webview-'));
  if (run(process.execPath, ['test/webview/preview.mjs', '--probe', '--out', shots]) === 0) passed++;
  else failed++;
  rmSync(shots, { recursive: true, force: true });
} else if (process.env.CI) {
  console.log(`${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)`);
  failed++;
} else {
  console.log(`> skipped the Chromium webview check: ${CHROMIUM} is missing (sudo apt-get install chromium)`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(status !== 0 || failed > 0 ? 1 : 0);
