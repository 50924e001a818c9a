// `npm run fuzz`: the libFuzzer harnesses of the helper's readers of outside data (native/fuzz:
// NDJSON lines, the rocSHMEM PE records, the trace collector, NCCL/RCCL log lines, rocprofv3
// CSV, rocpd databases, the line splitter, the KFD sysfs files, the rank bootstrap's id file and
// launcher environment). Builds them with clang 19 under ASan + UBSan (every finding fatal) into
// native/build-fuzz, replays every known hostile input (native/fuzz/regressions/<harness>/),
// then fuzzes each harness for a while on a scratch copy of its corpus.
//
//   node scripts/fuzz.mjs [--seconds N] [--harness NAME]... [--jobs N] [--merge] [--coverage] [--keep-going]
//
//   --seconds N     fuzzing time per harness (default 15; 0 only builds and replays)
//   --harness NAME  only this harness (repeat it, or a comma list)
//   --jobs N        harnesses fuzzed at once (default 1)
//   --merge         add the fewest scratch inputs that reach code the committed corpus does not
//                   to native/fuzz/corpus/<harness>/
//   --coverage      then a coverage build (native/build-fuzz-cov) replays the corpus and prints
//                   the line and region coverage of each harness's parser sources
//   --keep-going    fuzz on after a crash (libFuzzer -fork=1, crashes, timeouts and OOMs kept)
//
// Standard output carries one line per harness, "ok   NAME: ...", "FAIL NAME: ..." or
// "skip NAME: ..." (npm test counts them, scripts/check/tally.mjs), with indented details;
// progress goes to standard error. Exit 1 on any crash, sanitizer report or failed regression.
// Crash inputs are kept under native/build-fuzz/artifacts/<harness>/, full logs under
// native/build-fuzz/logs/; a crash worth keeping becomes a regression file by copying it into
// native/fuzz/regressions/<harness>/.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { onPath } from './check/prerequisites.mjs';
import { buildJobs, root } from './prepare.mjs';

const FUZZ_DIR = join(root, 'native', 'fuzz');
const BUILD = join(root, 'native', 'build-fuzz');
const COVERAGE_BUILD = join(root, 'native', 'build-fuzz-cov');
const CLANG = 'clang++-19';
const LIMITS = ['-rss_limit_mb=2048', '-malloc_limit_mb=1024', '-timeout=10'];
const INSTALL = 'sudo apt-get install -y clang-19 libclang-rt-19-dev llvm-19';

/** Per harness: the parser sources whose coverage it reports (under native/src) and libFuzzer's -max_len. */
const HARNESSES = {
  fuzz_library_log: { sources: ['backend/library_log_line.cpp', 'profile/library_log.cpp'], maxLen: 8192 },
  fuzz_line_splitter: { sources: ['util/safe_file.cpp'], maxLen: 4096 },
  fuzz_rocpd_file: { sources: ['profile/rocpd_reader.cpp'], maxLen: 65536 },
  fuzz_rocpd_rows: { sources: ['profile/rocpd_reader.cpp'], maxLen: 8192 },
  fuzz_rocprof_csv: { sources: ['profile/rocm_sources.cpp', 'profile/csv_rows.cpp'], maxLen: 16384 },
  fuzz_ndjson_line: { sources: ['util/ndjson_reader.cpp'], maxLen: 4096 },
  fuzz_pe_records: { sources: ['backends/gpu/rocshmem_launcher.cpp', 'util/ndjson_reader.cpp'], maxLen: 16384 },
  fuzz_trace_collector: { sources: ['profile/trace_collector.cpp', 'util/ndjson_reader.cpp'], maxLen: 16384 },
  fuzz_kfd_sysfs: { sources: ['backend/kfd_sdma.cpp'], maxLen: 4096 },
  fuzz_bootstrap_id: { sources: ['commands/rank_bootstrap.cpp'], maxLen: 4096 },
  fuzz_launcher_env: { sources: ['commands/rank_bootstrap.cpp'], maxLen: 4096 },
};

// ---------------------------------------------------------------------------------------------
function parseArgs(argv) {
  const o = { seconds: 15, harnesses: [], jobs: 1, merge: false, coverage: false, keepGoing: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--seconds') o.seconds = whole(value(), a);
    else if (a === '--jobs') o.jobs = Math.max(1, whole(value(), a));
    else if (a === '--harness') o.harnesses.push(...value().split(',').filter(Boolean));
    else if (a === '--merge') o.merge = true;
    else if (a === '--coverage') o.coverage = true;
    else if (a === '--keep-going') o.keepGoing = true;
    else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument ${a}`);
  }
  return o;
}

function whole(text, flag) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) usage(`${flag} takes a whole number, not ${text}`);
  return n;
}

function usage(problem) {
  const text = readFileSync(new URL(import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('//'))
    .map((l) => l.slice(3))
    .join('\n');
  if (problem) console.error(`${problem}\n`);
  (problem ? console.error : console.log)(text);
  process.exit(problem ? 2 : 0);
}

const progress = (line) => process.stderr.write(`${line}\n`);
const rel = (p) => relative(root, p) || '.';
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function filesIn(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/** A command run to its end: status and both outputs. */
function runSync(command, args, options = {}) {
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  return {
    status: r.error ? -1 : (r.status ?? -1),
    signal: r.signal,
    out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`,
  };
}

/** The same, without blocking the other harnesses: resolves with status and output; killed after `limitMs`. */
function runAsync(command, args, { env, limitMs }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', (err) => chunks.push(Buffer.from(err.message)));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status: status ?? -1, signal, out: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

// ---------------------------------------------------------------------------------------------
/** Why the harnesses cannot be built here, or undefined. */
function missingTools() {
  if (!onPath('cmake')) return 'cmake is not installed (sudo apt-get install -y cmake)';
  if (!onPath(CLANG)) return `clang-19 is not installed (${INSTALL})`;
  // libFuzzer and the sanitizer runtimes: a two-line fuzzer must compile and link.
  const dir = mkdtempSync(join(tmpdir(), 'sdma-fuzz-probe-'));
  try {
    writeFileSync(
      join(dir, 'probe.cpp'),
      '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n',
    );
    const r = runSync(CLANG, ['-fsanitize=fuzzer,address,undefined', join(dir, 'probe.cpp'), '-o', join(dir, 'probe')]);
    if (r.status !== 0) return `clang-19 cannot link a libFuzzer program, libclang-rt-19-dev is missing (${INSTALL})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return undefined;
}

/** Why --coverage cannot run here, or undefined. */
function missingCoverageTools() {
  const tool = ['llvm-profdata-19', 'llvm-cov-19'].find((t) => !onPath(t));
  return tool ? `${tool} is not installed (${INSTALL})` : undefined;
}

function configureAndBuild(dir, extra, what) {
  const t0 = performance.now();
  progress(`> building ${what} in ${rel(dir)} (clang-19, ${buildJobs()} jobs)`);
  const generator = onPath('ninja') ? ['-G', 'Ninja'] : [];
  const haveCache = existsSync(join(dir, 'CMakeCache.txt'));
  const configure = runSync('cmake', [
    '-S',
    'native',
    '-B',
    dir,
    ...(haveCache ? [] : generator),
    '--no-warn-unused-cli',
    '-DCMAKE_CXX_COMPILER=clang++-19',
    '-DCMAKE_C_COMPILER=clang-19',
    '-DSDMA_PROBE_FUZZ=ON',
    '-DSDMA_PROBE_WITH_CUDA=OFF',
    '-DSDMA_PROBE_WITH_HIP=OFF',
    '-DSDMA_PROBE_WITH_CUPTI=OFF',
    '-DSDMA_PROBE_BUILD_TESTS=OFF',
    ...extra,
  ]);
  if (configure.status !== 0) return { ok: false, out: configure.out, notes: [] };
  // The fuzz folder's CMake warnings say which harnesses it leaves out and why.
  const notes = [...configure.out.matchAll(/fuzz: ([^\n]*(?:\n {2}[^\n]+)*)/g)].map((m) =>
    m[1].replace(/\s+/g, ' ').trim(),
  );
  const build = runSync('cmake', ['--build', dir, '--target', 'sdma_fuzz', '--parallel', String(buildJobs())]);
  progress(`  ${build.status === 0 ? 'built' : 'build failed'} in ${seconds(performance.now() - t0)}`);
  return { ok: build.status === 0, out: build.out, notes };
}

/** The scratch corpus of one harness: its committed seeds, plus the rocpd databases made now. */
function scratchCorpus(harness, scratch, makeDb) {
  const dir = join(scratch, 'corpus', harness);
  mkdirSync(dir, { recursive: true });
  for (const f of filesIn(join(FUZZ_DIR, 'corpus', harness))) copyFileSync(f, join(dir, basename(f)));
  if (harness === 'fuzz_rocpd_file') {
    const fixtures = join(root, 'test', 'fixtures', 'rocpd');
    if (existsSync(join(fixtures, 'fixture.db'))) copyFileSync(join(fixtures, 'fixture.db'), join(dir, 'fixture.db'));
    const base = join(fixtures, 'make-fixture.sql');
    const variants = [
      [],
      ...filesIn(join(FUZZ_DIR, 'seeds', 'rocpd'))
        .filter((f) => f.endsWith('.sql'))
        .map((f) => [f]),
    ];
    for (const v of variants) {
      const name = `made-${v.length ? basename(v[0], '.sql') : 'fixture'}.db`;
      const r = runSync(makeDb, [join(dir, name), base, ...v]);
      if (r.status !== 0) progress(`  could not make the seed ${name}: ${r.out.trim()}`);
    }
  }
  return dir;
}

/** What a libFuzzer run said, in one line: UBSan's runtime error, else the sanitizer's or libFuzzer's summary. */
function summaryOf(out, status, signal) {
  const line =
    /^LineSplitter broke .*$/m.exec(out)?.[0] ??
    /^\S+: runtime error: .*$/m.exec(out)?.[0] ??
    /==\d+==\s*ERROR: (libFuzzer: .*)$/m.exec(out)?.[1] ??
    /^SUMMARY: .*$/m.exec(out)?.[0] ??
    /==\d+==\s*ERROR: (.*)$/m.exec(out)?.[1];
  if (line) return line.trim().replaceAll(`${root}/`, '');
  return signal ? `killed by ${signal}` : `exit ${status}`;
}

function sanitizerReport(out) {
  return /ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|LineSplitter broke/.test(
    out,
  );
}

/** One input run once on its own: crashed or not, and the one-line summary. */
function replayOne(bin, file, env, artifactDir) {
  // libFuzzer writes the input it crashed on again: into `artifactDir`, not here.
  const r = runSync(bin, [...LIMITS, `-artifact_prefix=${artifactDir}/replayed-`, '-runs=1', file], {
    env,
    timeout: 120000,
    killSignal: 'SIGKILL',
  });
  const crashed = r.status !== 0 || sanitizerReport(r.out);
  return { crashed, summary: crashed ? summaryOf(r.out, r.status, r.signal) : '' };
}

/** Every regression input of a harness, each run once on its own. */
function replayRegressions(harness, bin, env, scratch) {
  return filesIn(join(FUZZ_DIR, 'regressions', harness)).map((file) => ({
    file,
    ...replayOne(bin, file, env, join(scratch, 'tmp')),
  }));
}

const CRASH_FILE = /^(crash|leak|timeout|oom)-/;

async function fuzzOne(harness, bin, corpusDir, options, env) {
  const artifacts = join(BUILD, 'artifacts', harness);
  mkdirSync(artifacts, { recursive: true });
  mkdirSync(join(BUILD, 'logs'), { recursive: true });
  const before = new Set(readdirSync(artifacts));
  const seeds = filesIn(corpusDir).length;
  const dict = join(FUZZ_DIR, 'dict', `${harness}.dict`);
  const args = [
    corpusDir,
    `-max_total_time=${options.seconds}`,
    ...LIMITS,
    `-artifact_prefix=${artifacts}/`,
    '-print_final_stats=1',
    `-max_len=${HARNESSES[harness]?.maxLen ?? 4096}`,
    ...(existsSync(dict) ? [`-dict=${dict}`] : []),
    ...(options.keepGoing ? ['-fork=1', '-ignore_crashes=1', '-ignore_timeouts=1', '-ignore_ooms=1'] : []),
  ];
  progress(`> fuzzing ${harness} for ${options.seconds} s (${seeds} seed inputs)`);
  const t0 = performance.now();
  const r = await runAsync(bin, args, { env, limitMs: (options.seconds + 180) * 1000 });
  const ms = performance.now() - t0;
  const log = join(BUILD, 'logs', `${harness}.log`);
  writeFileSync(log, r.out);
  // Plain runs end with libFuzzer's final stats; a fork run with its last status line.
  const fork = [...r.out.matchAll(/^#(\d+): cov: \d+ ft: \d+ corp: (\d+) exec\/s:? (\d+)/gm)].at(-1);
  const runs = Number(
    /stat::number_of_executed_units:\s*(\d+)/.exec(r.out)?.[1] ?? /Done (\d+) runs/.exec(r.out)?.[1] ?? fork?.[1] ?? 0,
  );
  const execPerSec = Number(
    /stat::average_exec_per_sec:\s*(\d+)/.exec(r.out)?.[1] ?? fork?.[3] ?? (runs / Math.max(1, ms / 1000)).toFixed(0),
  );
  const crashes = readdirSync(artifacts)
    .filter((f) => CRASH_FILE.test(f) && !before.has(f))
    .map((f) => join(artifacts, f));
  const reported = crashes.length > 0 || (!options.keepGoing && (r.status !== 0 || sanitizerReport(r.out)));
  // Each kept input says what it does when run again on its own (a fork run's log interleaves
  // its jobs); the first few, the rest are only listed.
  const found = crashes.slice(0, 12).map((file) => ({ file, summary: replayOne(bin, file, env, env.TMPDIR).summary }));
  if (reported && found.length === 0) found.push({ file: undefined, summary: summaryOf(r.out, r.status, r.signal) });
  return { runs, execPerSec, corpus: filesIn(corpusDir).length, seeds, crashes, reported, found, log, ms };
}

function mergeInto(harness, bin, corpusDir, env) {
  const committed = join(FUZZ_DIR, 'corpus', harness);
  mkdirSync(committed, { recursive: true });
  const before = filesIn(committed).length;
  const prefix = `-artifact_prefix=${join(BUILD, 'artifacts', harness)}/`;
  // Only inputs that reach code the corpus does not (edges, not hit counts), the fewest that
  // do: the committed corpus stays small.
  const r = runSync(bin, ['-set_cover_merge=1', '-use_counters=0', ...LIMITS, prefix, committed, corpusDir], {
    env,
    timeout: 600000,
  });
  const added = filesIn(committed).length - before;
  return r.status === 0
    ? `merged ${added} input${added === 1 ? '' : 's'} that reach new code into ${rel(committed)}`
    : `merge failed: ${summaryOf(r.out, r.status, r.signal)}`;
}

/** Coverage of each harness's parser sources over its corpus (committed, made and found). */
function coverageReport(harnesses, corpora, scratch) {
  const built = configureAndBuild(
    COVERAGE_BUILD,
    ['-DSDMA_PROBE_FUZZ_COVERAGE=ON'],
    'the coverage build of the harnesses',
  );
  if (!built.ok) {
    console.log(`  coverage: the coverage build failed:\n${built.out.split('\n').slice(-20).join('\n')}`);
    return false;
  }
  console.log("coverage of the parser sources (lines, regions) over each harness's corpus:");
  for (const harness of harnesses) {
    const bin = join(COVERAGE_BUILD, 'fuzz', harness);
    if (!existsSync(bin) || !corpora[harness]) continue;
    const dir = join(scratch, 'coverage', harness);
    mkdirSync(dir, { recursive: true });
    const env = { ...process.env, LLVM_PROFILE_FILE: join(dir, '%p.profraw'), TMPDIR: join(scratch, 'tmp') };
    const replay = runSync(bin, [corpora[harness], join(FUZZ_DIR, 'corpus', harness)], {
      env,
      timeout: 600000,
      killSignal: 'SIGKILL',
    });
    const raws = filesIn(dir).filter((f) => f.endsWith('.profraw'));
    if (raws.length === 0) {
      console.log(`  ${harness}: no profile (${summaryOf(replay.out, replay.status, replay.signal)})`);
      continue;
    }
    const profdata = join(dir, 'merged.profdata');
    runSync('llvm-profdata-19', ['merge', '-sparse', ...raws, '-o', profdata]);
    const sources = HARNESSES[harness]?.sources ?? [];
    const exported = runSync('llvm-cov-19', ['export', bin, `-instr-profile=${profdata}`]);
    let data;
    try {
      data = JSON.parse(exported.out).data[0];
    } catch {
      console.log(`  ${harness}: llvm-cov-19 export failed`);
      continue;
    }
    const parts = sources.map((s) => {
      const f = data.files.find((x) => x.filename.endsWith(`/native/src/${s}`));
      if (!f) return `${s} (not linked)`;
      const { lines, regions } = f.summary;
      // A file also holds what no harness calls (folder walks, process setup): the functions
      // the corpus reached, and how much of them it ran, say how deep it got.
      const functions = data.functions.filter((fn) => fn.filenames[0] === f.filename);
      const reached = functions.filter((fn) => fn.count > 0);
      const code = reached.flatMap((fn) => fn.regions.filter((r) => r[7] === 0 && r[5] === 0));
      const ran = code.filter((r) => r[4] > 0).length;
      const depth = code.length ? `${((100 * ran) / code.length).toFixed(1)}%` : '-';
      return `${s} ${lines.percent.toFixed(1)}% lines, ${regions.percent.toFixed(1)}% regions (${reached.length}/${functions.length} functions reached, ${depth} of their regions)`;
    });
    console.log(`  ${harness}: ${parts.join('; ')}`);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
async function main() {
  const options = parseArgs(process.argv.slice(2));
  const all = readdirSync(FUZZ_DIR)
    .filter((f) => /^fuzz_\w+\.cpp$/.test(f))
    .map((f) => f.slice(0, -4))
    .sort();
  const unknown = options.harnesses.filter((h) => !all.includes(h));
  if (unknown.length) usage(`no harness ${unknown.join(', ')} (there are ${all.join(', ')})`);
  const harnesses = options.harnesses.length ? all.filter((h) => options.harnesses.includes(h)) : all;

  const missing = missingTools();
  if (missing) {
    for (const h of harnesses) console.log(`skip ${h}: ${missing}`);
    return 0;
  }
  const built = configureAndBuild(BUILD, [], 'the fuzz harnesses (libFuzzer, ASan, UBSan)');
  if (!built.ok) {
    console.log(
      built.out
        .split('\n')
        .slice(-40)
        .map((l) => `  ${l}`)
        .join('\n'),
    );
    for (const h of harnesses) console.log(`FAIL ${h}: the fuzz build failed (${rel(BUILD)}, output above)`);
    return 1;
  }

  const scratch = mkdtempSync(join(tmpdir(), 'sdma-fuzz-'));
  mkdirSync(join(scratch, 'tmp'), { recursive: true });
  // Harness temporary files (the rocpd databases) go to the scratch folder, so that an input
  // that kills its process leaves nothing behind.
  const env = { ...process.env, TMPDIR: join(scratch, 'tmp'), UBSAN_OPTIONS: 'print_stacktrace=1' };
  const makeDb = join(BUILD, 'fuzz', 'fuzz_make_db');
  const corpora = {};
  const results = {};
  let failed = false;
  try {
    const queue = [];
    for (const h of harnesses) {
      const bin = join(BUILD, 'fuzz', h);
      if (!existsSync(bin)) {
        const note = built.notes.find((n) => n.includes(h) || (h.startsWith('fuzz_rocpd') && n.includes('rocpd')));
        console.log(`skip ${h}: not built here${note ? ` (${note})` : ''}`);
        continue;
      }
      progress(`> replaying the regression inputs of ${h}`);
      const regressions = replayRegressions(h, bin, env, scratch);
      corpora[h] = scratchCorpus(h, scratch, makeDb);
      results[h] = { regressions };
      queue.push(h);
    }
    if (options.seconds > 0) {
      const workers = Array.from({ length: Math.min(options.jobs, queue.length) }, async () => {
        while (queue.length) {
          const h = queue.shift();
          results[h].fuzz = await fuzzOne(h, join(BUILD, 'fuzz', h), corpora[h], options, env);
        }
      });
      await Promise.all(workers);
    }

    for (const h of harnesses) {
      const r = results[h];
      if (!r) continue;
      const bad = r.regressions.filter((x) => x.crashed);
      const f = r.fuzz;
      const parts = [];
      if (f)
        parts.push(
          `${f.runs} runs in ${seconds(f.ms)} (${f.execPerSec} exec/s), corpus ${f.corpus} inputs (${f.seeds} seeds)`,
        );
      parts.push(`${r.regressions.length - bad.length}/${r.regressions.length} regression inputs pass`);
      const crashed = bad.length > 0 || (f && f.reported);
      failed ||= crashed;
      if (!crashed) {
        console.log(`ok   ${h}: ${parts.join(', ')}, no crash`);
        continue;
      }
      const what = f?.reported
        ? `${Math.max(1, f.crashes.length)} crash${f.crashes.length > 1 ? 'es' : ''} found`
        : 'no new crash';
      console.log(`FAIL ${h}: ${what}, ${parts.join(', ')}`);
      for (const x of bad) console.log(`  regression ${rel(x.file)}: ${x.summary}`);
      if (f?.reported) {
        for (const x of f.found) console.log(`  ${x.file ? `${rel(x.file)}: ` : ''}${x.summary}`);
        for (const c of f.crashes.slice(f.found.length)) console.log(`  ${rel(c)}`);
        console.log(`  reproduce: ${rel(join(BUILD, 'fuzz', h))} FILE; log: ${rel(f.log)}`);
      }
    }

    if (options.merge) {
      for (const h of Object.keys(corpora))
        console.log(`  ${h}: ${mergeInto(h, join(BUILD, 'fuzz', h), corpora[h], env)}`);
    }
    const noCoverage = options.coverage && missingCoverageTools();
    if (noCoverage) console.log(`  coverage: not measured, ${noCoverage}`);
    else if (options.coverage && !coverageReport(Object.keys(corpora), corpora, scratch)) failed = true;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
