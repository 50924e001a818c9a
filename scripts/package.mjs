#!/usr/bin/env node
// `npm run package`: the installable, platform-specific VSIX.
//
//   1. the production bundle (minified, no source maps) into a staging folder, so the
//      working tree keeps its development build;
//   2. the prebuilt helper bin/sdma-probe (backends sim + cuda; hip is built on the node at
//      first use, since ROCm versions vary), with static libstdc++/libgcc and the CUDA static
//      runtime so it starts on machines without a GPU driver, stripped; the CUPTI injection
//      library Profile loads sits next to it when the CUDA toolkit has CUPTI;
//   3. `vsce package --target <target> --no-dependencies` (everything is bundled by esbuild),
//      with the files .vscodeignore allows.
//
//   --target T     VS Code platform target (default: this machine's, e.g. linux-x64); the
//                  helper is compiled here, so only this machine's target can be made
//   --sim-only     no CUDA backend (needed where nvcc is missing)
//   --jobs N       parallel compile jobs (default: every core this process may use)
//   --out FILE     where the VSIX goes (default: sdma-lens-<target>-<version>.vsix)
//
// The helper builds in native/build-package/helper-<cuda|sim>/; the staging folder is
// native/build-package/vsix/. Both are ignored by git. The helper folder records the source
// hash (the extension's, over the native sources the package ships) and the CMake options of
// its build (sdma-lens-build.json): a package of the same sources with the same options reuses
// that build as it is, and says so; otherwise it builds (incrementally).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MiB = 1024 * 1024;
const SIZE_GOAL = 8 * MiB;
/** CUDA architectures the prebuilt helper carries when nvcc knows them: Ampere, Hopper, Blackwell (data centre, then RTX). */
const CUDA_ARCHS = [80, 90, 100, 120];

class PackageError extends Error {}

function parseArgs(argv) {
  const o = { target: undefined, simOnly: false, jobs: availableParallelism(), out: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new PackageError(`${a} needs a value`);
      return v;
    };
    if (a === '--target') o.target = value();
    else if (a === '--sim-only') o.simOnly = true;
    else if (a === '--jobs') {
      o.jobs = Number(value());
      if (!Number.isInteger(o.jobs) || o.jobs < 1) throw new PackageError('--jobs needs a whole number >= 1');
    } else if (a === '--out') o.out = resolve(value());
    else throw new PackageError(`unknown option ${a} (use --target T, --sim-only, --jobs N, --out FILE)`);
  }
  return o;
}

/** VS Code's name for this machine's platform, e.g. linux-x64. */
function hostTarget() {
  const arch = { x64: 'x64', arm64: 'arm64', arm: 'armhf' }[process.arch] ?? process.arch;
  return `${process.platform === 'win32' ? 'win32' : process.platform}-${arch}`;
}

/** Runs a program (argument array, no shell); throws with its output's tail when it fails. */
function run(cmd, args, { cwd = root, quiet = false, env } = {}) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: quiet ? 'pipe' : 'inherit',
    env: env ? { ...process.env, ...env } : process.env,
    maxBuffer: 64 * MiB,
  });
  if (r.error) throw new PackageError(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) {
    const tail = quiet ? `\n${`${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n')}` : '';
    throw new PackageError(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})${tail}`);
  }
  return r.stdout ?? '';
}

function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

function findNvcc() {
  const candidates = [
    process.env.CUDACXX,
    onPath('nvcc'),
    process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'bin', 'nvcc'),
    '/usr/local/cuda/bin/nvcc',
  ];
  return candidates.find((c) => c && existsSync(c));
}

/** `80;90-real;...`: real code for each architecture nvcc supports, and PTX of the oldest for newer GPUs to JIT. */
function cudaArchitectures(nvcc) {
  const listed = run(nvcc, ['--list-gpu-arch'], { quiet: true });
  const known = new Set([...listed.matchAll(/compute_(\d+)/g)].map((m) => Number(m[1])));
  const archs = CUDA_ARCHS.filter((a) => known.has(a));
  if (archs.length === 0)
    throw new PackageError(
      `${nvcc} supports none of the architectures ${CUDA_ARCHS.join(', ')} (it lists: ${[...known].join(', ')})`,
    );
  return { archs, cmake: archs.map((a, i) => (i === 0 ? `${a}` : `${a}-real`)).join(';') };
}

function seconds(t0) {
  return ((performance.now() - t0) / 1000).toFixed(1);
}

/** The native sources the package ships (stage() copies them): they make the helper. */
const SHIPPED_NATIVE = ['CMakeLists.txt', 'cmake', 'cupti', 'include', 'src'];
const BUILD_RECORD = 'sdma-lens-build.json';

/**
 * The key of a reusable helper build: a content hash of the native sources the package ships
 * (each file's path and bytes, in name order), the recipe of the extension's `sourceHash`
 * (src/core/runtime/helper.ts), which this Node script cannot import. A difference between
 * the two recipes would only cost a rebuild here, never a wrong reuse: the key is compared
 * with keys this function wrote.
 */
function shippedSourceHash() {
  const native = join(root, 'native');
  const files = [];
  const skipped = (name) => name === 'build' || name.startsWith('build-') || name.startsWith('.');
  const walk = (dir, rel) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (rel === '' && !SHIPPED_NATIVE.includes(e.name)) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!skipped(e.name)) walk(join(dir, e.name), path);
      } else if (e.isFile()) files.push(path);
    }
  };
  walk(native, '');
  const hash = createHash('sha256');
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(native, f)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The build folder's record, when it holds a finished build of these sources with these options. */
function reusableBuild(buildDir, record) {
  const file = join(buildDir, BUILD_RECORD);
  if (!existsSync(file) || !existsSync(join(buildDir, 'sdma-probe'))) return undefined;
  try {
    const was = JSON.parse(readFileSync(file, 'utf8'));
    return was.sourceHash === record.sourceHash && JSON.stringify(was.cmakeArgs) === JSON.stringify(record.cmakeArgs)
      ? was
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Configures and builds the helper (the target sdma_helper: sdma-probe and the CUPTI library),
 * unless its folder holds a build of the same sources with the same options; returns its
 * folder and how long the compile took.
 */
function buildHelper({ simOnly, jobs }) {
  const cmakeArgs = [
    '-S',
    join(root, 'native'),
    '-DCMAKE_BUILD_TYPE=Release',
    '-DSDMA_PROBE_BUILD_TESTS=OFF',
    '-DSDMA_PROBE_WITH_HIP=OFF',
  ];
  // Only the C and C++ runtimes' support libraries are linked statically: glibc stays shared,
  // so the helper runs on distributions with a glibc at least as new as the build machine's.
  const staticRuntime = '-static-libstdc++ -static-libgcc';
  cmakeArgs.push(`-DCMAKE_EXE_LINKER_FLAGS=${staticRuntime}`, `-DCMAKE_SHARED_LINKER_FLAGS=${staticRuntime}`);
  // SQLite (the rocpd reader) linked in when its static library is there, so nothing more is needed on the node.
  const sqliteStatic = [
    '/usr/lib/x86_64-linux-gnu/libsqlite3.a',
    '/usr/lib/aarch64-linux-gnu/libsqlite3.a',
    '/usr/lib64/libsqlite3.a',
  ].find((p) => existsSync(p));
  if (sqliteStatic) cmakeArgs.push(`-DSQLite3_LIBRARY=${sqliteStatic}`);
  let variant = 'sim';
  let archs = [];
  if (simOnly) {
    cmakeArgs.push('-DSDMA_PROBE_WITH_CUDA=OFF', '-DSDMA_PROBE_WITH_CUPTI=OFF');
  } else {
    const nvcc = findNvcc();
    if (!nvcc) {
      throw new PackageError(
        'nvcc (the CUDA compiler) was not found on PATH, in $CUDACXX, $CUDA_HOME/bin or /usr/local/cuda/bin, so the prebuilt helper cannot have its cuda backend. Install the CUDA toolkit, or run `npm run package -- --sim-only` for a package whose helper has the simulator only.',
      );
    }
    const arch = cudaArchitectures(nvcc);
    archs = arch.archs;
    variant = 'cuda';
    cmakeArgs.push(
      '-DSDMA_PROBE_WITH_CUDA=ON',
      `-DCMAKE_CUDA_COMPILER=${nvcc}`,
      `-DCMAKE_CUDA_ARCHITECTURES=${arch.cmake}`,
    );
  }
  const buildDir = join(root, 'native', 'build-package', `helper-${variant}`);
  console.log(
    `> helper (${variant}${archs.length ? `, CUDA architectures ${archs.join(', ')}` : ''}) in ${relative(root, buildDir)} with ${jobs} jobs`,
  );
  const record = { sourceHash: shippedSourceHash(), cmakeArgs };
  const reused = reusableBuild(buildDir, record);
  if (reused) {
    console.log(
      `  reusing the helper built ${reused.built} in ${relative(root, buildDir)} (sources ${record.sourceHash}, the same CMake options)`,
    );
    return { buildDir, variant, archs, buildSeconds: '0.0', reused: true };
  }
  const t0 = performance.now();
  // A build that fails or is stopped leaves no record that could be taken for a finished one.
  rmSync(join(buildDir, BUILD_RECORD), { force: true });
  run('cmake', [...cmakeArgs, '-B', buildDir], { quiet: true });
  run('cmake', ['--build', buildDir, '--parallel', String(jobs), '--target', 'sdma_helper']);
  writeFileSync(
    join(buildDir, BUILD_RECORD),
    `${JSON.stringify({ ...record, built: new Date().toISOString() }, null, 2)}\n`,
  );
  return { buildDir, variant, archs, buildSeconds: seconds(t0), reused: false };
}

/** What the shipped helper must be: it starts without a GPU driver and links no CUDA library. */
function checkHelper(probe) {
  const ldd = run('ldd', [probe], { quiet: true });
  const cudaLibs = ldd.split('\n').filter((l) => /libcuda\.so|libcudart|libstdc\+\+|libgcc_s/.test(l));
  if (cudaLibs.length > 0)
    throw new PackageError(`${probe} links libraries the package must not depend on:\n${cudaLibs.join('\n')}`);
  const version = run(probe, ['--version'], { quiet: true }).trim();
  const info = run(probe, ['info', '--backend', 'auto'], { quiet: true });
  const hello = JSON.parse(info.split('\n')[0]);
  if (hello.type !== 'hello') throw new PackageError(`${probe} info did not start with a hello record`);
  return { version, backend: hello.backend, simulated: hello.simulated, ldd: ldd.trim() };
}

/** The shipped native binaries whose dynamic sections checkDynamicSections reads. */
const SHIPPED_BINARIES = ['sdma-probe', 'libsdma_lens_cupti.so'];

/**
 * What one shipped binary's dynamic section (`readelf -d` output) must not hold: a NEEDED
 * libcupti (CUPTI is dlopen'ed at run time, native/cupti/cupti_loader.hpp, so the helper and
 * the injection library load where no CUPTI is installed) or a RUNPATH / RPATH entry outside
 * $ORIGIN (a folder of the build machine). Returns the problems, empty when there are none.
 */
export function dynamicSectionProblems(name, readelfDynamic) {
  const problems = [];
  for (const line of readelfDynamic.split('\n')) {
    const needed = /\(NEEDED\)\s+Shared library: \[([^\]]*)\]/.exec(line);
    if (needed && /^libcupti(\.|$)/.test(needed[1]))
      problems.push(`${name} has NEEDED ${needed[1]}: CUPTI must be loaded at run time, not linked`);
    const path = /\((RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]/.exec(line);
    if (!path) continue;
    for (const entry of path[2].split(':'))
      if (!/^\$(ORIGIN|\{ORIGIN\})(\/|$)/.test(entry))
        problems.push(
          `${name} has ${path[1]} ${entry === '' ? '(an empty entry: the working folder)' : entry}, outside $ORIGIN`,
        );
  }
  return problems;
}

/** The staged helper and CUPTI library link no CUPTI and carry no build machine's library folders. */
function checkDynamicSections(bin) {
  const problems = [];
  for (const name of SHIPPED_BINARIES) {
    const file = join(bin, name);
    if (!existsSync(file)) continue;
    problems.push(...dynamicSectionProblems(name, run('readelf', ['-d', file], { quiet: true })));
  }
  if (problems.length > 0)
    throw new PackageError(`the shipped binaries' dynamic sections:\n  ${problems.join('\n  ')}`);
}

/** The image paths README.md shows (Markdown and <img>), relative ones only. */
function readmeImages() {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  const found = [...text.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g), ...text.matchAll(/<img[^>]+src="([^"]+)"/g)].map(
    (m) => m[1],
  );
  return found.filter((p) => !/^[a-z]+:/i.test(p));
}

function stage({ buildDir }) {
  const dir = join(root, 'native', 'build-package', 'vsix');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'package.nls.json', 'LICENSE', 'CHANGELOG.md', '.vscodeignore'])
    copyFileSync(join(root, f), join(dir, f));
  copyFileSync(join(root, 'README.md'), join(dir, 'README.md'));
  cpSync(join(root, 'images'), join(dir, 'images'), { recursive: true });
  // The activity bar icon and the walkthrough's pages.
  cpSync(join(root, 'media'), join(dir, 'media'), { recursive: true });
  // The message bundle vscode.l10n reads (package.json "l10n"), and any translation beside it.
  cpSync(join(root, 'l10n'), join(dir, 'l10n'), { recursive: true });
  cpSync(join(root, 'docs'), join(dir, 'docs'), { recursive: true });
  for (const d of ['src', 'cmake', 'cupti', 'include']) {
    if (existsSync(join(root, 'native', d)))
      cpSync(join(root, 'native', d), join(dir, 'native', d), { recursive: true });
  }
  copyFileSync(join(root, 'native', 'CMakeLists.txt'), join(dir, 'native', 'CMakeLists.txt'));

  console.log('> production bundle (minified, no source maps)');
  run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production', '--outdir', join(dir, 'dist')], {
    quiet: true,
  });
  chmodSync(join(dir, 'dist', 'cli.js'), 0o755);

  const bin = join(dir, 'bin');
  mkdirSync(bin);
  copyFileSync(join(buildDir, 'sdma-probe'), join(bin, 'sdma-probe'));
  run('strip', [join(bin, 'sdma-probe')], { quiet: true });
  chmodSync(join(bin, 'sdma-probe'), 0o755);
  const cupti = join(buildDir, 'libsdma_lens_cupti.so');
  if (existsSync(cupti)) {
    copyFileSync(cupti, join(bin, 'libsdma_lens_cupti.so'));
    run('strip', ['--strip-unneeded', join(bin, 'libsdma_lens_cupti.so')], { quiet: true });
  }
  copyFileSync(join(root, 'scripts', 'package', 'sdma-lens'), join(bin, 'sdma-lens'));
  chmodSync(join(bin, 'sdma-lens'), 0o755);
  return dir;
}

/** The VSIX's entries, with their Unix modes, from `zipinfo`. */
function listVsix(file) {
  const out = run('zipinfo', ['-l', file], { quiet: true });
  const entries = [];
  for (const line of out.split('\n')) {
    // -rwxr-xr-x  2.0 unx  4678248 b- 1923456 defN 25-Dec-01 19:50 extension/bin/sdma-probe
    const m = /^([-dl][rwxsStT-]{9})\s+\S+\s+\S+\s+(\d+)\s+\S+\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(line);
    if (m) entries.push({ mode: m[1], size: Number(m[2]), packed: Number(m[3]), path: m[4] });
  }
  return entries;
}

function checkVsix(file, { images }) {
  const entries = listVsix(file);
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const problems = [];
  const need = [
    'extension/package.json',
    'extension/dist/extension.js',
    'extension/dist/cli.js',
    'extension/dist/execa.js',
    'extension/dist/timelineEngine.js',
    'extension/dist/fleetReader.js',
    'extension/bin/sdma-probe',
    'extension/bin/sdma-lens',
    'extension/native/CMakeLists.txt',
    'extension/images/icon.png',
    'extension/package.nls.json',
    'extension/media/activity.svg',
    'extension/media/walkthrough/sweep.md',
    'extension/l10n/bundle.l10n.json',
  ];
  for (const p of need) if (!byPath.has(p)) problems.push(`${p} is missing`);
  for (const p of ['extension/bin/sdma-probe', 'extension/bin/sdma-lens', 'extension/dist/cli.js']) {
    const e = byPath.get(p);
    if (e && !e.mode.includes('x')) problems.push(`${p} is not executable (${e.mode})`);
  }
  // vsce rewrote the README's relative links against `repository`: each image must exist at
  // the path its https URL names.
  for (const img of images)
    if (!existsSync(join(root, img))) problems.push(`the README's image ${img} is not in the repository`);
  const maps = entries.filter((e) => e.path.endsWith('.map'));
  if (maps.length > 0) problems.push(`source maps in the package: ${maps.map((e) => e.path).join(', ')}`);
  const strays = entries.filter((e) =>
    /(^|\/)(node_modules|build|build-package|test|\.vscode-test)\//.test(e.path.replace(/^extension\//, '')),
  );
  if (strays.length > 0)
    problems.push(
      `files that do not belong in the package: ${strays
        .slice(0, 5)
        .map((e) => e.path)
        .join(', ')}`,
    );
  const cli = readFileSync(join(root, 'native', 'build-package', 'vsix', 'dist', 'cli.js'), 'utf8');
  if (!cli.startsWith('#!/usr/bin/env node\n')) problems.push('dist/cli.js does not start with #!/usr/bin/env node');
  // The command bundles dist/cli.js requires by name (scripts/build.mjs, CLI_BUNDLES): each must ship.
  const bundles = new Set([...cli.matchAll(/["'`](cli-[a-z]+\.js)["'`]/g)].map((m) => m[1]));
  if (bundles.size === 0) problems.push('dist/cli.js names no command bundle (dist/cli-<name>.js)');
  for (const b of bundles) if (!byPath.has(`extension/dist/${b}`)) problems.push(`extension/dist/${b} is missing`);
  if (problems.length > 0) throw new PackageError(`the package is not right:\n  ${problems.join('\n  ')}`);
  return entries;
}

export async function packageVsix(argv = []) {
  const o = parseArgs(argv);
  const host = hostTarget();
  const target = o.target ?? host;
  if (target !== host) {
    throw new PackageError(
      `the helper is compiled on this machine (${host}), so a ${target} package cannot be made here; run npm run package on a ${target} machine`,
    );
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const out = o.out ?? join(root, `${pkg.name}-${target}-${pkg.version}.vsix`);
  const t0 = performance.now();
  const helper = buildHelper(o);
  const dir = stage({ buildDir: helper.buildDir });
  checkDynamicSections(join(dir, 'bin'));
  const probe = checkHelper(join(dir, 'bin', 'sdma-probe'));
  console.log(
    `  ${probe.version}; without a GPU driver: --backend auto uses ${probe.backend}${probe.simulated ? ' (simulated)' : ''}`,
  );

  console.log('> vsce package');
  const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  if (!existsSync(vsce)) throw new PackageError('@vscode/vsce is not installed; run npm install');
  rmSync(out, { force: true });
  // The details page of an installed extension is a webview that shows images only from https:
  // (relative, file and data: sources are dropped), so vsce rewrites the README's relative
  // links against `repository` (raw/HEAD for images, blob/HEAD for documents).
  run(process.execPath, [vsce, 'package', '--target', target, '--no-dependencies', '--out', out], {
    cwd: dir,
    quiet: true,
  });
  const entries = checkVsix(out, { images: readmeImages() });

  const size = statSync(out).size;
  console.log(`\n${entries.length} files:`);
  for (const e of entries) console.log(`  ${e.mode} ${String(e.size).padStart(9)}  ${e.path}`);
  console.log(
    helper.reused
      ? `\nhelper build: reused native/build-package/helper-${helper.variant} (same sources and options)`
      : `\nhelper build: ${helper.buildSeconds} s with ${o.jobs} jobs (incremental when native/build-package/helper-${helper.variant} exists)`,
  );
  console.log(`package: ${out}`);
  console.log(
    `size: ${(size / MiB).toFixed(2)} MiB (${size} bytes; goal <= ${SIZE_GOAL / MiB} MiB)${size > SIZE_GOAL ? '  -- OVER THE GOAL' : ''}`,
  );
  console.log(`total: ${seconds(t0)} s`);
  return { vsix: out, size, entries, helper, probe };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await packageVsix(process.argv.slice(2));
  } catch (err) {
    if (err instanceof PackageError) {
      console.error(`package: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
