#!/usr/bin/env node
// `npm run test:integration`: the mocha suites of test/integration/suite inside a real VS Code,
// through @vscode/test-electron's runTests, in two launches: the sample workspace (trusted) and
// a folder in Restricted Mode.
//
// Which VS Code: $SDMA_LENS_VSCODE_EXECUTABLE (an installed desktop build), else a desktop build
// test-electron downloads (cached in .vscode-test/), else, where that download cannot work
// (offline machines, CI), the VS Code server of code-server in headless Chromium through
// scripts/vscode/code-server-launcher.mjs. SDMA_LENS_VSCODE=code-server skips the download try.
//
//   --json FILE   also write {passed, failed, seconds} for scripts/test.mjs
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? resolve(args[args.indexOf('--json') + 1]) : undefined;
const started = performance.now();

if (process.env.SDMA_LENS_PREPARED !== '1') (await import('../../scripts/prepare.mjs')).prepare();
const esbuild = await import('esbuild');
const { runTests, downloadAndUnzipVSCode } = await import('@vscode/test-electron');
const { MARKER_VARIABLE, leftoverProcesses, newMarker } = await import('../../scripts/vscode/processes.mjs');

const out = join(root, 'node_modules', '.cache', 'sdma-lens-tests', 'integration');
const suiteDir = join(root, 'test', 'integration', 'suite');

async function buildTests() {
  rmSync(out, { recursive: true, force: true });
  const entryPoints = {
    trusted: join(root, 'test/integration/trusted.ts'),
    untrusted: join(root, 'test/integration/untrusted.ts'),
  };
  for (const f of readdirSync(suiteDir).filter((f) => f.endsWith('.test.ts')))
    entryPoints[`suite/${f.replace(/\.ts$/, '')}`] = join(suiteDir, f);
  // Bundled to CommonJS for the extension host; mocha stays one shared instance.
  await esbuild.build({
    entryPoints,
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
}

/** A desktop VS Code executable, or undefined (with the reason printed) when there is none. */
async function desktopVSCode() {
  if (process.env.SDMA_LENS_VSCODE_EXECUTABLE) return process.env.SDMA_LENS_VSCODE_EXECUTABLE;
  if (process.env.SDMA_LENS_VSCODE === 'code-server') return undefined;
  try {
    return await downloadAndUnzipVSCode({ cachePath: join(root, '.vscode-test'), timeout: 15_000 });
  } catch (err) {
    console.log(
      `> no desktop VS Code (${String(err?.message ?? err).split('\n')[0]}); using the VS Code server in headless Chromium`,
    );
    return undefined;
  }
}

/** The helper wrapper of test/integration/suite/support.ts: logs "PID ARGS", then execs the real helper. */
function helperRecorder(dir) {
  const probe = join(root, 'native', 'build', 'sdma-probe');
  if (!existsSync(probe)) throw new Error(`${probe} is not built (npm run build:native)`);
  const script = join(dir, 'sdma-probe');
  writeFileSync(script, `#!/bin/sh\necho "$$ $*" >> '${join(dir, 'invocations.log')}'\nexec '${probe}' "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

function userDataDir(dir, settings) {
  mkdirSync(join(dir, 'User'), { recursive: true });
  writeFileSync(join(dir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  return dir;
}

/**
 * The real Slurm cluster of the fleet tests (test/slurm/cluster.sh), for the fleet command's
 * suite: started when this machine can (root, Slurm installed), else that suite skips itself.
 */
function startSlurm() {
  const script = join(root, 'test', 'slurm', 'cluster.sh');
  if (
    process.getuid?.() !== 0 ||
    !existsSync('/usr/sbin/slurmctld') ||
    !existsSync('/usr/sbin/slurmd') ||
    !existsSync('/usr/bin/srun')
  ) {
    console.log(
      '> no Slurm cluster for the fleet suite (needs root and slurmctld, slurmd, slurm-client, munge); it is skipped',
    );
    return undefined;
  }
  const conf = execFileSync('bash', [script, 'start', '3'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .at(-1);
  return { conf, stop: () => execFileSync('bash', [script, 'stop'], { stdio: 'inherit' }) };
}

async function main() {
  await buildTests();
  const desktop = await desktopVSCode();
  const launcher = join(root, 'scripts', 'vscode', 'code-server-launcher.mjs');
  chmodSync(launcher, 0o755);
  const tmp = mkdtempSync(join(tmpdir(), 'sdma-lens-it-'));
  const results = join(tmp, 'results');
  // Every process of these launches inherits it; see scripts/vscode/processes.mjs.
  const marker = newMarker();
  mkdirSync(results);
  const slurm = startSlurm();
  const launch = async (label, { workspace, settings, keepTrust }) => {
    const t0 = performance.now();
    console.log(`\n> integration tests, ${label} (${desktop ? 'desktop VS Code' : 'VS Code server + Chromium'})`);
    const extraEnv = {
      SDMA_LENS_TEST_RESULTS: results,
      [MARKER_VARIABLE]: marker,
      ...(slurm ? { SLURM_CONF: slurm.conf } : {}),
    };
    let executable = desktop ?? launcher;
    if (keepTrust) {
      if (desktop) {
        // runTests always passes --disable-workspace-trust: a wrapper drops it.
        executable = join(root, 'scripts', 'vscode', 'keep-workspace-trust.sh');
        extraEnv.SDMA_LENS_DESKTOP_EXECUTABLE = desktop;
      } else {
        extraEnv.SDMA_LENS_KEEP_WORKSPACE_TRUST = '1';
      }
    }
    try {
      await runTests({
        vscodeExecutablePath: executable,
        extensionDevelopmentPath: root,
        extensionTestsPath: join(out, label),
        extensionTestsEnv: extraEnv,
        launchArgs: [
          workspace,
          `--user-data-dir=${userDataDir(join(tmp, `user-${label}`), settings)}`,
          '--disable-extensions',
        ],
      });
    } catch (err) {
      console.error(`${label}: ${err?.message ?? err}`);
    }
    console.log(`> ${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };

  try {
    const trustedWs = join(tmp, 'hip-sample');
    cpSync(join(root, 'examples', 'hip-sample'), trustedWs, { recursive: true });
    const recorderDir = join(tmp, 'helper-trusted');
    mkdirSync(recorderDir);
    await launch('trusted', { workspace: trustedWs, settings: { 'sdmaLens.helperPath': helperRecorder(recorderDir) } });

    const untrustedWs = join(tmp, 'untrusted-hip-sample');
    cpSync(join(root, 'examples', 'hip-sample'), untrustedWs, { recursive: true });
    const untrustedRecorder = join(tmp, 'helper-untrusted');
    mkdirSync(untrustedRecorder);
    await launch('untrusted', {
      workspace: untrustedWs,
      keepTrust: true,
      settings: {
        'sdmaLens.helperPath': helperRecorder(untrustedRecorder),
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.emptyWindow': false,
      },
    });

    let passed = 0;
    // A launch whose tests failed also exits non-zero; only one that reported nothing adds a failure.
    let failed = 0;
    let skipped = 0;
    for (const label of ['trusted', 'untrusted']) {
      const file = join(results, `${label}.json`);
      if (!existsSync(file)) {
        console.error(`${label}: the suites reported no result`);
        failed++;
        continue;
      }
      const r = JSON.parse(readFileSync(file, 'utf8'));
      passed += r.passed;
      failed += r.failed;
      skipped += r.pending ?? 0;
    }
    // Counted as a test: nothing the launches started may outlive them.
    const left = await leftoverProcesses(marker);
    if (left.length === 0) passed++;
    else {
      failed++;
      console.error(`processes left behind:\n  ${left.join('\n  ')}`);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`\nintegration: ${passed} passed, ${failed} failed, ${skipped} skipped in ${seconds.toFixed(1)} s`);
    if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ passed, failed, skipped, seconds }));
    return failed === 0 ? 0 : 1;
  } finally {
    slurm?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

process.exit(await main());
