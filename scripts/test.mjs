// `npm test`: everything CI checks, in order: lint, type checks, bundles, native build,
// unit and contract tests, the panel in Chromium, then the integration and UI tests in a real
// VS Code. Ends with one summary line, "N passed, N failed".
import { spawnSync } from 'node:child_process';
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

// The GPU backends compiled for their targets without a GPU: CUDA with nvcc (sm_90), HIP
// with Debian's hipcc (gfx90a) and clang-19 (gfx942). Each "ok"/"FAIL" line is one check.
console.log('> GPU backend compile checks (native/ci/compile-check.sh)');
{
  const r = spawnSync('bash', ['native/ci/compile-check.sh'], { encoding: 'utf8' });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  const ok = (r.stdout.match(/^ok {3}/gm) ?? []).length;
  const bad = (r.stdout.match(/^FAIL /gm) ?? []).length;
  passed += ok;
  failed += bad + (r.status !== 0 && bad === 0 ? 1 : 0);
  // CI installs every compiler the script knows; a skipped one there is a missing install step.
  if (process.env.CI && /^skip /m.test(r.stdout)) failed++;
}

// The panels in real Chromium under their real CSP. CI installs Chromium (.ci/run);
// elsewhere the step is skipped with a note when it is missing.
if (existsSync(CHROMIUM)) {
  console.log('> sweep panel in headless Chromium (CSP, messages, theme redraw)');
  const shots = mkdtempSync(join(tmpdir(), 'sdma-lens-webview-'));
  if (run(process.execPath, ['test/webview/preview.mjs', '--probe', '--out', shots]) === 0) passed++;
  else failed++;
  console.log('> timeline panel in headless Chromium (render, zoom, pan, select, filter, themes)');
  if (run(process.execPath, ['test/webview/timeline.mjs', '--out', shots]) === 0) passed++;
  else failed++;
  console.log('> matrix panel in headless Chromium (every cell, weakest pair, keyboard, themes)');
  if (run(process.execPath, ['test/webview/matrix.mjs', '--out', shots]) === 0) passed++;
  console.log('> run-mode timeline in headless Chromium (kernel names, the lens\'s kernel filter)');
  if (run(process.execPath, ['test/webview/runTimeline.mjs']) === 0) passed++;
  else failed++;
  rmSync(shots, { recursive: true, force: true });
} else if (process.env.CI) {
  console.log(`${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)`);
  failed++;
} else {
  console.log(`> skipped the Chromium webview check: ${CHROMIUM} is missing (sudo apt-get install chromium)`);
}
// Integration tests in the extension host and UI tests in the browser, in a real VS Code
// (a desktop build where one can be had, else the VS Code server of scripts/vscode/provision.mjs,
// installed on first use). Outside CI a machine without its prerequisites skips them, saying why.
async function realVSCode() {
  const { ProvisionError, checkBrowser, provision } = await import('./vscode/provision.mjs');
  try {
    checkBrowser();
    const t0 = performance.now();
    provision();
    console.log(`> VS Code for the tests ready (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    return true;
  } catch (err) {
    if (!(err instanceof ProvisionError)) throw err;
    if (process.env.CI) {
      console.log(`error: ${err.message}`);
      failed++;
    } else {
      console.log(`> skipped the integration and UI tests in VS Code: ${err.message}`);
    }
    return false;
  }
}

function suite(title, script) {
  console.log(`> ${title}`);
  const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-suite-'));
  const report = join(dir, 'result.json');
  const code = run(process.execPath, [script, '--json', report], { env: { ...process.env, SDMA_LENS_PREPARED: '1' } });
  try {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed += result.passed;
    failed += result.failed + (code !== 0 && result.failed === 0 ? 1 : 0);
  } catch {
    failed++;
  }
  rmSync(dir, { recursive: true, force: true });
}

if (await realVSCode()) {
  suite('integration tests in VS Code (extension host, mocha)', 'test/integration/runTests.mjs');
  suite('UI tests in VS Code (command palette, panel, themes, cancel)', 'test/ui/run.mjs');
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(status !== 0 || failed > 0 ? 1 : 0);
