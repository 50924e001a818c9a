// The system packages SDMA Lens needs on a Debian machine, in one list: `npm start` checks it
// before any long step, scripts/vscode/provision.mjs before installing the VS Code server,
// and .ci/run installs what it reports missing. Node built-ins only (runs before `npm ci`).
//
//   node scripts/check/prerequisites.mjs [--for start|check|ci]   says what is missing, exit 1 if any
//   node scripts/check/prerequisites.mjs --apt-missing --for ci   prints the missing Debian packages, one line
//
// SDMA_LENS_PREREQ_ROOT=DIR prefixes every header and file path checked (not commands, which
// follow PATH), so the check itself can be tried against an empty tree.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CHROMIUM = process.env.SDMA_LENS_CHROMIUM ?? '/usr/bin/chromium';

/** Node's lowest major version: vitest 4 and the extension's tooling need 20. */
export const NODE_MAJOR = 20;
export const CMAKE_MIN = [3, 20];

// Each entry: a `command` on PATH or a `file`, the Debian package that provides it, and why.
/** Building the bundles and the native helper: `npm start`, `npm test`, always. */
export const BUILD = [
  { command: 'cmake', apt: 'cmake', why: 'builds the native helper', minVersion: CMAKE_MIN },
  { command: 'g++', apt: 'g++', why: 'compiles the native helper (C++17)' },
  { command: 'make', apt: 'make', why: "CMake's build tool" },
];

/**
 * Installing the VS Code server (code-server's native modules, built by node-gyp on first
 * install): only where no desktop `code` is on PATH and the server is not installed yet.
 */
export const SERVER_INSTALL = [
  { command: 'python3', apt: 'python3', why: 'node-gyp' },
  { command: 'pkg-config', apt: 'pkg-config', why: 'node-gyp' },
  { command: 'make', apt: 'make', why: 'node-gyp' },
  { command: 'g++', apt: 'g++', why: 'node-gyp' },
  { file: '/usr/include/gssapi/gssapi.h', apt: 'libkrb5-dev', why: "the VS Code server's kerberos module" },
  { file: '/usr/include/X11/Xlib.h', apt: 'libx11-dev', why: "the VS Code server's native keymap module" },
  {
    file: '/usr/include/X11/extensions/XKBfile.h',
    apt: 'libxkbfile-dev',
    why: "the VS Code server's native keymap module",
  },
  {
    file: '/usr/include/libsecret-1/libsecret/secret.h',
    apt: 'libsecret-1-dev',
    why: "the VS Code server's keychain module",
  },
];

/** Showing the served VS Code's workbench: `npm start -- --check` and the browser tests. */
export const BROWSER = [
  { file: CHROMIUM, apt: 'chromium', why: 'headless browser for the workbench and the panels', absolute: true },
];

/** Only what the full test suite adds (CI): without them those checks are skipped locally. */
export const TESTS = [
  { file: '/usr/include/sqlite3.h', apt: 'libsqlite3-dev', why: "the helper's rocpd (SQLite3) reader" },
  { file: '/usr/include/doctest/doctest.h', apt: 'doctest-dev', why: "the helper's unit tests (native/tests, ctest)" },
  { command: 'clang-format-19', apt: 'clang-format-19', why: 'the C++ layout check (scripts/format.mjs, in npm test)' },
  { file: '/usr/sbin/sshd', apt: 'openssh-server', why: 'the ssh tests run their own sshd on 127.0.0.1' },
  { command: 'hipcc', apt: 'hipcc', why: 'HIP compile checks for gfx90a' },
  {
    command: 'clang++-19',
    apt: 'clang-19',
    why: "HIP compile checks for gfx942; the readers' fuzz harnesses (scripts/fuzz.mjs)",
  },
  {
    file: '/usr/lib/llvm-19/lib/clang/19/include/fuzzer/FuzzedDataProvider.h',
    apt: 'libclang-rt-19-dev',
    why: "clang-19's libFuzzer and sanitizer runtimes for the readers' fuzz harnesses (scripts/fuzz.mjs)",
  },
  {
    command: 'llvm-profdata-19',
    apt: 'llvm-19',
    why: "llvm-profdata-19 and llvm-cov-19 for the fuzz harnesses' coverage (npm run fuzz -- --coverage)",
  },
  {
    file: '/usr/sbin/slurmctld',
    apt: 'slurmctld',
    why: 'the fleet tests run a real Slurm controller (test/slurm/cluster.sh)',
  },
  { file: '/usr/sbin/slurmd', apt: 'slurmd', why: 'the fleet tests run one slurmd per simulated node' },
  { file: '/usr/bin/srun', apt: 'slurm-client', why: 'the fleet tests ask Slurm with salloc, srun, squeue, scancel' },
  { file: '/usr/sbin/munged', apt: 'munge', why: "Slurm's authentication in the fleet tests" },
  { file: '/usr/sbin/ip', apt: 'iproute2', why: 'the fleet tests put each slurmd in its own network namespace' },
];

/** The lists each use needs; `serverInstall` only where the VS Code server must be installed. */
export function requirementsFor(use, { serverInstall = true } = {}) {
  const lists = [BUILD];
  if (use === 'start' || use === 'check' || use === 'ci') {
    if (serverInstall) lists.push(SERVER_INSTALL);
  }
  if (use === 'check' || use === 'ci') lists.push(BROWSER);
  if (use === 'ci') lists.push(TESTS);
  const seen = new Set();
  return lists.flat().filter((r) => !seen.has(r.apt) && seen.add(r.apt));
}

function prefixed(file, entry) {
  const root = process.env.SDMA_LENS_PREREQ_ROOT;
  // The browser path may be an override the user set (SDMA_LENS_CHROMIUM): taken as given.
  return root && !(entry.absolute && process.env.SDMA_LENS_CHROMIUM) ? join(root, file) : file;
}

export function onPath(command, path = process.env.PATH ?? '') {
  return path.split(delimiter).find((d) => d && existsSync(join(d, command)));
}

function versionOf(command) {
  const r = spawnSync(command, ['--version'], { encoding: 'utf8' });
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(r.stdout ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

function older(version, min) {
  for (let i = 0; i < min.length; i++) {
    if ((version[i] ?? 0) !== min[i]) return (version[i] ?? 0) < min[i];
  }
  return false;
}

/** Missing entries of `requirements`, each with `problem` (what exactly is wrong). */
export function missingOf(requirements) {
  const missing = [];
  for (const r of requirements) {
    if (r.file) {
      const file = prefixed(r.file, r);
      if (!existsSync(file)) missing.push({ ...r, problem: `${file} is missing` });
      continue;
    }
    const at = onPath(r.command);
    if (!at) {
      missing.push({ ...r, problem: `${r.command} is not on PATH` });
    } else if (r.minVersion) {
      const v = versionOf(join(at, r.command));
      if (!v || older(v, r.minVersion))
        missing.push({
          ...r,
          problem: `${r.command} ${v ? v.join('.') : '(version unknown)'} is older than ${r.minVersion.join('.')}`,
        });
    }
  }
  return missing;
}

/** Node itself: the running one (major >= NODE_MAJOR) and npm next to it or on PATH. */
export function nodeProblems() {
  const problems = [];
  const major = Number(process.versions.node.split('.')[0]);
  if (major < NODE_MAJOR)
    problems.push(
      `Node.js ${process.versions.node} is older than ${NODE_MAJOR} (Debian bookworm's nodejs package is 18: install Node.js ${NODE_MAJOR} or newer from nodejs.org, NodeSource or nvm)`,
    );
  if (!onPath('npm') && !process.env.npm_execpath) problems.push('npm is not on PATH (install Node.js with npm)');
  return problems;
}

export function aptLine(packages) {
  return `sudo apt-get install -y ${[...new Set(packages)].join(' ')}`;
}

/** One message naming each missing thing, why it is needed and the apt command; undefined when nothing is missing. */
export function describeMissing(missing, nodeIssues = []) {
  if (missing.length === 0 && nodeIssues.length === 0) return undefined;
  const lines = ['missing system prerequisites:'];
  for (const p of nodeIssues) lines.push(`  - ${p}`);
  for (const m of missing) lines.push(`  - ${m.problem} (${m.apt}: ${m.why})`);
  if (missing.length > 0) lines.push('install them with:', `  ${aptLine(missing.map((m) => m.apt))}`);
  return lines.join('\n');
}

/** Everything `use` needs; returns the message, or undefined when all is there. */
export function checkPrerequisites(use, options) {
  return describeMissing(missingOf(requirementsFor(use, options)), nodeProblems());
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const use = args.includes('--for') ? args[args.indexOf('--for') + 1] : 'start';
  if (!['start', 'check', 'ci', 'build'].includes(use)) {
    console.error(`unknown --for ${use}: use start, check, ci or build`);
    process.exit(2);
  }
  const missing = missingOf(requirementsFor(use));
  if (args.includes('--apt-missing')) {
    console.log([...new Set(missing.map((m) => m.apt))].join(' '));
  } else {
    const message = describeMissing(missing, nodeProblems());
    console.log(message ?? `all prerequisites of ${use} are there`);
    process.exit(message ? 1 : 0);
  }
}
