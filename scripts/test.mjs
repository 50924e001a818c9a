// `npm test`: everything CI checks, in order: lint, type checks, bundles, native build,
// unit and contract tests, the panel in Chromium, then the integration and UI tests in a real
// VS Code. Ends with one summary line, "N passed, N failed, N skipped": a check that could not
// run here (no sshd, no compiler, no Chromium, no VS Code server) is counted as skipped and
// listed with its reason; in CI (CI set) every such skip is a failure instead.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, checkPrerequisites } from './check/prerequisites.mjs';
import { must, prepare, run } from './prepare.mjs';

let passed = 0;
let failed = 0;
let skipped = 0;
const skips = [];
/** A check that could not run here: skipped with its reason, or in CI a failure. */
function skip(count, reason) {
  if (process.env.CI) {
    console.log(`error (CI): ${reason}`);
    failed += count;
  } else {
    console.log(`> skipped: ${reason}`);
    skipped += count;
    skips.push(`${count} × ${reason}`);
  }
}

// What the build needs, before any long step (the browser and VS Code checks say their own).
const missing = checkPrerequisites('build');
if (missing) {
  console.error(`${missing}\n\nThen run npm test again.`);
  process.exit(1);
}
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
try {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  passed += result.numPassedTests;
  failed += result.numFailedTests + (status !== 0 && result.numFailedTests === 0 ? 1 : 0);
  // Skipped, pending and todo tests: the ssh suites skip themselves without sshd (test/ssh/support.ts).
  const notRun = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
  if (notRun > 0) {
    skipped += notRun;
    skips.push(`${notRun} × vitest tests skipped or todo (e.g. the ssh tests without /usr/sbin/sshd: sudo apt-get install -y openssh-server)`);
  }
} catch {
  failed++;
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
  for (const line of r.stdout.match(/^skip .*$/gm) ?? []) skip(1, `compile check ${line.slice(5)}`);
}

// The panels in real Chromium under their real CSP. CI installs Chromium (.ci/run);
// elsewhere each check is skipped with a note when it is missing. Every browser check goes
// through this one function, so each one's result is counted.
const shots = mkdtempSync(join(tmpdir(), 'sdma-lens-webview-'));
function browserCheck(title, script, args = []) {
  if (!existsSync(CHROMIUM)) {
    skip(1, `${title}: ${CHROMIUM} is missing (sudo apt-get install -y chromium)`);
    return;
  }
  console.log(`> ${title}`);
  if (run(process.execPath, [script, ...args]) === 0) passed++;
  else failed++;
}
browserCheck('sweep panel in headless Chromium (CSP, messages, theme redraw)', 'test/webview/preview.mjs', ['--probe', '--out', shots]);
browserCheck('timeline panel in headless Chromium (render, zoom, pan, select, filter, themes)', 'test/webview/timeline.mjs', ['--out', shots]);
browserCheck('matrix panel in headless Chromium (every cell, weakest pair, keyboard, themes)', 'test/webview/matrix.mjs', ['--out', shots]);
browserCheck("run-mode timeline in headless Chromium (kernel names, the lens's kernel filter)", 'test/webview/runTimeline.mjs');
rmSync(shots, { recursive: true, force: true });

// Integration tests in the extension host and UI tests in the browser, in a real VS Code
// (a desktop build where one can be had, else the VS Code server of scripts/vscode/provision.mjs,
// installed on first use). Outside CI a machine without its prerequisites skips them, saying why.
async function realVSCode(suites) {
  const { ProvisionError, checkBrowser, provision } = await import('./vscode/provision.mjs');
  try {
    checkBrowser();
    const t0 = performance.now();
    provision();
    console.log(`> VS Code for the tests ready (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    return true;
  } catch (err) {
    if (!(err instanceof ProvisionError)) throw err;
    skip(suites, `the ${suites} test suites in VS Code (no VS Code server: ${err.message.replaceAll('\n', ' ')})`);
    return false;
  }
}

/** A test script with the `--json FILE` contract: it writes {passed, failed, skipped?}. */
function suite(title, script) {
  console.log(`> ${title}`);
  const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-suite-'));
  const report = join(dir, 'result.json');
  const code = run(process.execPath, [script, '--json', report], { env: { ...process.env, SDMA_LENS_PREPARED: '1' } });
  try {
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed += result.passed;
    failed += result.failed + (code !== 0 && result.failed === 0 ? 1 : 0);
    // Checks the suite itself decided to skip (it says why in its output).
    if (result.skipped > 0) {
      skipped += result.skipped;
      skips.push(`${result.skipped} × checks of "${title}" (see its output)`);
    }
  } catch {
    failed++;
  }
  rmSync(dir, { recursive: true, force: true });
}

const vscodeSuites = [
  ['integration tests in VS Code (extension host, mocha)', 'test/integration/runTests.mjs'],
  ['UI tests in VS Code (command palette, panel, themes, cancel)', 'test/ui/run.mjs'],
  ['the packaged VSIX installed in VS Code (install, sweep)', 'test/vsix/run.mjs'],
];
if (await realVSCode(vscodeSuites.length)) {
  for (const [title, script] of vscodeSuites) suite(title, script);
}

if (skips.length > 0) console.log(`skipped here:\n  ${skips.join('\n  ')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(status !== 0 || failed > 0 ? 1 : 0);
