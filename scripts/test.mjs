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
import { Tally } from './check/tally.mjs';
import { must, prepare, run } from './prepare.mjs';

const tally = new Tally({ ci: Boolean(process.env.CI) });

// What the build needs, before any long step (the browser and VS Code checks say their own).
const missing = checkPrerequisites('build');
if (missing) {
  console.error(`${missing}\n\nThen run npm test again.`);
  process.exit(1);
}
// The native build with everything: the GPU backends this machine can compile, and the tests.
prepare('all');
console.log('> lint');
must(process.execPath, ['node_modules/eslint/bin/eslint.js', '.']);
// The one layout (scripts/format.mjs): Prettier and clang-format 19. Each "ok"/"FAIL" line is
// one check; a "skip" (no clang-format-19 here) is a failure in CI.
console.log('> format check (npm run format rewrites)');
{
  const r = spawnSync(process.execPath, ['scripts/format.mjs', '--check'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(r.stdout ?? '');
  tally.compileCheck(r.stdout ?? '', r.status);
}
console.log('> type check (host and webview)');
must(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
must(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'webview/tsconfig.json']);

console.log('> native unit tests (ctest)');
must('ctest', ['--test-dir', 'native/build', '--output-on-failure']);

// The helper's readers of outside data under libFuzzer, ASan and UBSan (scripts/fuzz.mjs):
// every known hostile input replayed, then a short fuzz of each harness. Each "ok"/"FAIL" line
// is one check; a "skip" line (no clang-19 or libclang-rt-19-dev here) is a failure in CI.
console.log('> fuzzing the readers (short run; npm run fuzz -- --seconds 600 for a long one)');
{
  const r = spawnSync(process.execPath, ['scripts/fuzz.mjs', '--seconds', '15'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(r.stdout ?? '');
  tally.compileCheck(r.stdout ?? '', r.status);
}

console.log('> unit and contract tests (vitest)');
const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-test-'));
const report = join(dir, 'vitest.json');
const status = run(process.execPath, [
  'node_modules/vitest/vitest.mjs',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
]);
let vitestReport;
try {
  vitestReport = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  console.log(`error: vitest wrote no report (${report})`);
}
tally.vitest(vitestReport, status);
rmSync(dir, { recursive: true, force: true });

// The GPU backends compiled for their targets without a GPU: CUDA with nvcc (sm_90), HIP
// with Debian's hipcc (gfx90a) and clang-19 (gfx942). Each "ok"/"FAIL" line is one check.
console.log('> GPU backend compile checks (native/ci/compile-check.sh)');
{
  const r = spawnSync('bash', ['native/ci/compile-check.sh'], { encoding: 'utf8' });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  // CI installs every compiler the script knows; a skipped one there is a missing install step.
  tally.compileCheck(r.stdout ?? '', r.status);
}

// AMD on a current ROCm: Debian sid's hipcc 7 / HIP 6.4 in a cached sid chroot builds the helper
// for gfx950 and gfx942, links the real ROCm runtime and starts its no-GPU paths there. Needs
// root (chroot); outside CI a non-root run is counted as skipped, with the reason.
console.log('> AMD builds on Debian sid ROCm (native/ci/rocm-sid.sh)');
{
  const r = spawnSync('bash', ['native/ci/rocm-sid.sh'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  tally.compileCheck(r.stdout ?? '', r.status);
}

// The panels in real Chromium under their real CSP. CI installs Chromium (.ci/run);
// elsewhere each check is skipped with a note when it is missing. Every browser check goes
// through this one function, so each one's result is counted.
const shots = mkdtempSync(join(tmpdir(), 'sdma-lens-webview-'));
function browserCheck(title, script, args = []) {
  if (!existsSync(CHROMIUM)) {
    tally.missing(1, `${title}: ${CHROMIUM} is missing (sudo apt-get install -y chromium)`);
    return;
  }
  console.log(`> ${title}`);
  tally.exitCode(run(process.execPath, [script, ...args]));
}
browserCheck('sweep panel in headless Chromium (CSP, messages, theme redraw)', 'test/webview/preview.mjs', [
  '--probe',
  '--out',
  shots,
]);
browserCheck(
  'timeline panel in headless Chromium (render, zoom, pan, select, filter, themes)',
  'test/webview/timeline.mjs',
  ['--out', shots],
);
browserCheck(
  'host-held timeline in headless Chromium (the engine process and relay: draw, zoom, details, a refused query)',
  'test/webview/timelineHostHeld.mjs',
);
browserCheck(
  "compare panel in headless Chromium (both runs' curves, ratio interval, curve picker, verdict table, CSP)",
  'test/webview/compare.mjs',
  ['--out', shots],
);
browserCheck(
  'fleet panel in headless Chromium (nodes, outliers, figure chart by mouse and keyboard, 1,000 nodes, CSP)',
  'test/webview/fleet.mjs',
  ['--out', shots],
);
browserCheck(
  'matrix panel in headless Chromium (every cell, weakest pair, keyboard, themes)',
  'test/webview/matrix.mjs',
  ['--out', shots],
);
browserCheck(
  "run-mode timeline in headless Chromium (kernel names, the lens's kernel filter)",
  'test/webview/runTimeline.mjs',
);
browserCheck(
  'collective panel in headless Chromium (chart.js curves, in-place dashes, off-path points, crossover, CSP)',
  'test/webview/collective.mjs',
);
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
    tally.missing(
      suites,
      `the ${suites} test suites in VS Code (no VS Code server: ${err.message.replaceAll('\n', ' ')})`,
    );
    return false;
  }
}

/** A test script with the `--json FILE` contract: it writes {passed, failed, skipped?}. */
function suite(title, script) {
  console.log(`> ${title}`);
  const dir = mkdtempSync(join(tmpdir(), 'sdma-lens-suite-'));
  const report = join(dir, 'result.json');
  const code = run(process.execPath, [script, '--json', report], { env: { ...process.env, SDMA_LENS_PREPARED: '1' } });
  let result;
  try {
    result = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    console.log(`error: ${script} wrote no result (${report})`);
  }
  tally.suite(title, result, code);
  rmSync(dir, { recursive: true, force: true });
}

const vscodeSuites = [
  ['integration tests in VS Code (extension host, mocha)', 'test/integration/runTests.mjs'],
  ['UI tests in VS Code (command palette, panel, themes, cancel)', 'test/ui/run.mjs'],
  ['every panel in every built-in VS Code theme: series at least 3:1 against the background', 'test/ui/themes.mjs'],
  ['the packaged VSIX installed in VS Code (install, sweep)', 'test/vsix/run.mjs'],
];
if (await realVSCode(vscodeSuites.length)) {
  for (const [title, script] of vscodeSuites) suite(title, script);
}

if (tally.skips.length > 0) console.log(`skipped here:\n  ${tally.skips.join('\n  ')}`);
console.log(tally.summary());
process.exit(status !== 0 || tally.failed > 0 ? 1 : 0);
