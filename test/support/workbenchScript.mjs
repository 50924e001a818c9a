// The frame of the scripts that check SDMA Lens in the served VS Code (test/ui/run.mjs,
// test/vsix/run.mjs): their flags, the named checks, provisioning and set-up failures counted
// as checks, the server and browser stopped, nothing left running, and the summary line and
// --json report that scripts/test.mjs reads.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProvisionError } from '../../scripts/vscode/provision.mjs';
import { MARKER_VARIABLE, leftoverProcesses, newMarker } from '../../scripts/vscode/processes.mjs';
import { checkList } from '../../scripts/vscode/workbench.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const args = process.argv.slice(2);
/** The value after `flag` as a path, or undefined. */
export const valueOf = (flag) => (args.includes(flag) ? resolve(args[args.indexOf(flag) + 1]) : undefined);

/**
 * A copy of examples/hip-sample in `dir`, for a workbench to open: as a new user gets it, so
 * without the runs `npm start` saved in the sample (its .sdma-lens folder).
 */
export function sampleWorkspace(dir) {
  const workspace = join(dir, 'hip-sample');
  const source = join(root, 'examples', 'hip-sample');
  cpSync(source, workspace, { recursive: true, filter: (path) => path !== join(source, '.sdma-lens') });
  return workspace;
}

/**
 * Runs `body({ check, results, tmp, held })` and returns the exit code. `name` heads the summary
 * line; `outDir` gets failure.png when a check fails with a browser open; `tmpPrefix` names the
 * scratch folder `tmp` (removed after); `skipped` is reported when given. `body` puts the server
 * and browser it starts in `held`, so they are stopped whatever happens.
 */
export async function runChecks({ name, outDir, tmpPrefix, skipped, note = '' }, body) {
  const started = performance.now();
  // Inherited by the server, its extension host, the helpers and Chromium: how leftovers are found.
  const marker = newMarker();
  process.env[MARKER_VARIABLE] = marker;
  const { results, check } = checkList();
  const tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
  const held = {};
  try {
    await body({ check, results, tmp, held });
  } catch (err) {
    if (err instanceof ProvisionError) {
      console.error(`error: ${err.message}`);
      results.push({ name: 'provisioning', ok: false });
    } else if (!results.some((r) => !r.ok)) {
      console.error(err instanceof Error ? err.stack : err);
      results.push({ name: 'setup', ok: false });
    }
    if (held.browser) await held.browser.page.screenshot({ path: join(outDir, 'failure.png') }).catch(() => {});
  } finally {
    await held.browser?.close();
    await held.server?.stop();
  }
  // Counted as a check: nothing this run started is still running.
  const left = await leftoverProcesses(marker);
  results.push({ name: 'nothing left running', ok: left.length === 0 });
  console.log(`  ${left.length === 0 ? '✔' : '✘'} nothing left running${left.length ? `: ${left.join(', ')}` : ''}`);
  rmSync(tmp, { recursive: true, force: true });
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const seconds = (performance.now() - started) / 1000;
  const counts =
    skipped === undefined
      ? `${passed} passed, ${failed} failed`
      : `${passed} passed, ${failed} failed, ${skipped} skipped`;
  console.log(`\n${name}: ${counts} in ${seconds.toFixed(1)} s${note}`);
  const jsonOut = valueOf('--json');
  if (jsonOut)
    writeFileSync(
      jsonOut,
      JSON.stringify(skipped === undefined ? { passed, failed, seconds } : { passed, failed, skipped, seconds }),
    );
  return failed === 0 ? 0 : 1;
}
