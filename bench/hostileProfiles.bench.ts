/**
 * `npm run bench -- hostileProfiles`: what the helper does with profiles and trace lines others
 * hand a user, one row per hostile input: a rocpd database whose `kernels` view recurses, times at
 * the int64 extremes, a rocprofv3 CSV folder holding a link to /dev/zero, a FIFO, a 20 MB CSV, an
 * unterminated quote, an out-of-range timestamp, and in run mode a device span that ends before it
 * starts and a trace line with 1e300 in an integer field.
 *
 * Each row runs `sdma-probe` as users' tools do, under a 2 GiB address-space limit and a 30 s
 * timeout (so the old behaviour cannot take the machine down), and prints its peak memory
 * (/usr/bin/time's maximum resident set size), its wall time, how long it took to stop after SIGTERM where the
 * row sends one, and what the user sees (exit status, the done record, error and warning codes).
 * With SDMA_PROBE_BEFORE naming an older build, every row also runs that build in the same run:
 * the before/after table. The reference is the same helper importing the small clean rocprofv3
 * fixture in the same run.
 *
 * Needs the sqlite3 command-line tool for the crafted databases (Debian package sqlite3).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const LIMIT_BYTES = 2 * 1024 ** 3;
const TIMEOUT_MS = 30_000;

interface Outcome {
  status: number | null;
  signal: string | null;
  ms: number;
  stopMs: number | null;
  peakMiB: number;
  said: string;
  stdout: string;
}

/** The helper's pid: the one child of /usr/bin/time (prlimit execs the command). */
function childOf(pid: number): number | null {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return kids.length ? Number(kids[0]) : null;
  } catch {
    return null;
  }
}

/** What the user sees: the exit, the done record's status, error codes and warning codes (counted). */
function summary(stdout: string, status: number | null, signal: string | null): string {
  const errors: string[] = [];
  const warnings = new Map<string, number>();
  let done = '';
  let records = 0;
  let backwards = 0;
  let oddGpu = 0;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const r = JSON.parse(line) as {
        type?: string;
        code?: string;
        status?: string;
        startNs?: number;
        endNs?: number;
        gpu?: number;
        srcGpu?: number;
      };
      if (r.type === 'error') errors.push(r.code ?? '?');
      else if (r.type === 'warning') warnings.set(r.code ?? '?', (warnings.get(r.code ?? '?') ?? 0) + 1);
      else if (r.type === 'done') done = r.status ?? '';
      else if (r.type === 'dispatch' || r.type === 'copy') {
        records++;
        if ((r.endNs ?? 0) < (r.startNs ?? 0)) backwards++;
        const gpu = r.gpu ?? r.srcGpu ?? 0;
        if (gpu < -1 || gpu > 1023) oddGpu++;
      }
    } catch {
      errors.push('unreadable line');
    }
  }
  const exit = signal ? `killed (${signal}${signal === 'SIGKILL' ? ': limit or timeout' : ''})` : `exit ${status}`;
  const parts = [exit, done ? `done ${done}` : 'no done record', `${records} records`];
  if (backwards) parts.push(`${backwards} ending before they start`);
  if (oddGpu) parts.push(`${oddGpu} on GPU index out of range`);
  if (errors.length) parts.push(`error ${errors.join(', ')}`);
  if (warnings.size) parts.push(`warning ${[...warnings.keys()].join(', ')}`);
  return parts.join('; ');
}

/**
 * `argv` under the limits, its peak RSS from /usr/bin/time (the whole life of the process); with
 * `termAfterMs`, SIGTERM to the helper at that time and the time it took to end.
 */
function limited(argv: string[], termAfterMs?: number): Promise<Outcome> {
  return new Promise<Outcome>((done) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M', 'prlimit', `--as=${LIMIT_BYTES}`, '--', ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stdoutBytes = 0;
    child.stdout.on('data', (c: Buffer) => {
      stdoutBytes += c.length;
      if (stdoutBytes < 64 * 1024 * 1024) stdout += c.toString('utf8');
    });
    let stderrTail = '';
    child.stderr.on('data', (c: Buffer) => {
      stderrTail = (stderrTail + c.toString('utf8')).slice(-4096);
    });
    let termAt: number | null = null;
    const signalHelper = (signal: NodeJS.Signals) => {
      const pid = childOf(child.pid!);
      if (pid !== null) process.kill(pid, signal);
    };
    const term =
      termAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            termAt = performance.now();
            signalHelper('SIGTERM');
          }, termAfterMs);
    const kill = setTimeout(() => signalHelper('SIGKILL'), TIMEOUT_MS);
    child.on('close', (status) => {
      const end = performance.now();
      clearTimeout(kill);
      if (term) clearTimeout(term);
      const lines = stderrTail.trimEnd().split('\n');
      const peak = Number(lines.pop());
      // /usr/bin/time says "Command terminated by signal N" when the helper was killed.
      const killed = /terminated by signal (\d+)/.exec(lines.join('\n'));
      const signal = killed ? (killed[1] === '9' ? 'SIGKILL' : `signal ${killed[1]}`) : null;
      done({
        status: killed ? null : status,
        signal,
        ms: end - t0,
        stopMs: termAt === null ? null : end - termAt,
        peakMiB: Number.isFinite(peak) ? peak / 1024 : NaN,
        said: '',
        stdout,
      });
    });
    child.on('error', () =>
      done({ status: null, signal: null, ms: 0, stopMs: null, peakMiB: NaN, said: 'could not start', stdout: '' }),
    );
  }).then((o) => ({ ...o, said: o.said || summary(o.stdout, o.status, o.signal) }));
}

function sqlite(db: string, sql: string): void {
  const r = spawnSync('sqlite3', [db], { input: sql, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlite3 ${db}: ${r.stderr || r.error?.message}`);
}

interface Case {
  input: string;
  argv: (helper: string) => string[];
  termAfterMs?: number;
}

async function main(): Promise<void> {
  const repo = resolve(__dirname, '..', '..', '..');
  const helper = process.argv[2] ?? join(repo, 'native', 'build', 'sdma-probe');
  const before = process.env.SDMA_PROBE_BEFORE;
  const work = mkdtempSync(join(tmpdir(), 'sdma-hostile-profiles-'));
  const fixtures = join(repo, 'test', 'fixtures');
  const cases: Case[] = [];

  // rocpd: a 4 KB database whose documented `kernels` view recurses without end.
  const recursive = join(work, 'recursive.db');
  sqlite(
    recursive,
    `${readFileSync(join(fixtures, 'rocpd', 'make-fixture.sql'), 'utf8').replace(/CREATE VIEW kernels AS[\s\S]*?;\n/, '')}
CREATE VIEW kernels AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
  SELECT hex(zeroblob(2048)) AS name, 2 AS agent_id, n AS start, n + 1 AS "end", 1 AS grid_x, 1 AS grid_y, 1 AS grid_z,
         1 AS workgroup_x, 1 AS workgroup_y, 1 AS workgroup_z, n AS correlation_id, 1 AS kernel_id FROM r;`,
  );
  cases.push({
    input: 'import --rocpd: beside the real tables, the `kernels` view is a recursive CTE (SIGTERM at 1 s)',
    argv: (h) => [h, 'import', '--rocpd', recursive],
    termAfterMs: 1000,
  });

  // rocpd: times at the int64 extremes.
  const extremes = join(work, 'extremes.db');
  sqlite(
    extremes,
    `${readFileSync(join(fixtures, 'rocpd', 'make-fixture.sql'), 'utf8')}
INSERT INTO rocpd_kernel_dispatch VALUES (9, 2, 1, -9223372036854775808, 9223372036854775807, 1, 1, 1, 1, 1, 1, 2);
INSERT INTO rocpd_memory_copy VALUES (9, 1, 1, 2, 9223372036854775807, 9223372036854775807, -9223372036854775808, 1);`,
  );
  // rocpd: 3 million dispatch rows in its real table, for a cancel in the middle of the read.
  const many = join(work, 'many.db');
  sqlite(
    many,
    `${readFileSync(join(fixtures, 'rocpd', 'make-fixture.sql'), 'utf8')}
WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 3000009)
INSERT INTO rocpd_kernel_dispatch SELECT i, 2, 1, i * 1000, i * 1000 + 500, 256, 1, 1, 65536, 1, 1, 2 FROM n;`,
  );
  cases.push({
    input: 'import --rocpd: 3 million dispatches in the real table (SIGTERM at 1 s)',
    argv: (h) => [h, 'import', '--rocpd', many],
    termAfterMs: 1000,
  });
  cases.push({
    input: 'import --rocpd: a dispatch from INT64_MIN to INT64_MAX, a copy reversed across the whole range',
    argv: (h) => [h, 'import', '--rocpd', extremes],
  });

  // CSV folders.
  const csvDir = (name: string, place: (dir: string) => void) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    place(dir);
    return dir;
  };
  const zero = csvDir('zero', (d) => symlinkSync('/dev/zero', join(d, 'x_kernel_trace.csv')));
  cases.push({
    input: 'import --rocprofv3-csv: x_kernel_trace.csv is a link to /dev/zero',
    argv: (h) => [h, 'import', '--rocprofv3-csv', zero],
  });
  const fifo = csvDir('fifo', (d) => spawnSync('mkfifo', [join(d, 'x_kernel_trace.csv')]));
  cases.push({
    input: 'import --rocprofv3-csv: x_kernel_trace.csv is a FIFO',
    argv: (h) => [h, 'import', '--rocprofv3-csv', fifo],
  });
  const kernelCsv = readFileSync(join(fixtures, 'rocprofv3', 'kernel_trace.csv'), 'utf8')
    .trimEnd()
    .split('\n');
  const header = kernelCsv[0]!;
  const row = kernelCsv[1]!;
  const big = csvDir('big', (d) => {
    const rows: string[] = [header];
    let bytes = header.length;
    for (let i = 0; bytes < 20 * 1024 * 1024; i++) {
      rows.push(row);
      bytes += row.length + 1;
    }
    writeFileSync(join(d, 'x_kernel_trace.csv'), `${rows.join('\n')}\n`);
  });
  cases.push({
    input: 'import --rocprofv3-csv: a 20 MB kernel_trace.csv',
    argv: (h) => [h, 'import', '--rocprofv3-csv', big],
  });
  const quote = csvDir('quote', (d) => {
    const rows = [header, ...kernelCsv.slice(1, 3)];
    rows.push(rows[1]!.replace(/"([^"]*)"/, '"$1'));
    rows.push(...kernelCsv.slice(1));
    writeFileSync(join(d, 'x_kernel_trace.csv'), `${rows.join('\n')}\n`);
  });
  cases.push({
    input: `import --rocprofv3-csv: an unterminated quote in row 3 of ${kernelCsv.length + 2}`,
    argv: (h) => [h, 'import', '--rocprofv3-csv', quote],
  });
  const range = csvDir('range', (d) => {
    const cols = header.split(',').map((c) => c.replaceAll('"', ''));
    const at = cols.indexOf('Start_Timestamp');
    // The row's cells (quoted ones may hold commas); the regex's last, empty match is not a cell.
    const cells = row
      .match(/("[^"]*"|[^,]*)(,|$)/g)!
      .map((c) => c.replace(/,$/, ''))
      .slice(0, cols.length);
    cells[at] = '99999999999999999999';
    writeFileSync(join(d, 'x_kernel_trace.csv'), `${header}\n${row}\n${cells.join(',')}\n`);
  });
  cases.push({
    input: 'import --rocprofv3-csv: Start_Timestamp 99999999999999999999',
    argv: (h) => [h, 'import', '--rocprofv3-csv', range],
  });
  const sparse = csvDir('sparse', (d) => spawnSync('truncate', ['-s', '3G', join(d, 'x_kernel_trace.csv')]));
  cases.push({
    input: 'import --rocprofv3-csv: a 3 GiB kernel_trace.csv of NULs, no newline (SIGTERM at 1 s)',
    argv: (h) => [h, 'import', '--rocprofv3-csv', sparse],
    termAfterMs: 1000,
  });

  // Run mode: trace lines a program appends to $SDMA_LENS_TRACE_FILE.
  const appendLine = (line: string) => [
    'run',
    '--backend',
    'sim',
    '--',
    '/bin/sh',
    '-c',
    'printf "%s\\n" "$0" >> "$SDMA_LENS_TRACE_FILE"',
    line,
  ];
  const reversed = JSON.stringify({
    k: 'dev',
    gpu: 0,
    label: 'x',
    cu: 1,
    monoStartNs: 200_000_000,
    monoEndNs: 100_000_000,
    bytes: 1,
    peer: 1,
  });
  cases.push({
    input: 'run: one device span whose start lies 100 ms after its end',
    argv: (h) => [h, ...appendLine(reversed)],
  });
  const huge =
    '{"k":"dev","gpu":1e300,"label":"x","cu":-1e19,"monoStartNs":1e300,"monoEndNs":1e999,"bytes":1,"peer":1}';
  cases.push({
    input: 'run: 1e300, -1e19 and 1e999 in integer fields of a trace line',
    argv: (h) => [h, ...appendLine(huge)],
  });

  const reference = await limited([helper, 'import', '--rocprofv3-csv', join(fixtures, 'rocprofv3')]);
  console.log(
    `reference: import of the clean rocprofv3 fixture: ${reference.said}, ${reference.ms.toFixed(0)} ms, ${reference.peakMiB.toFixed(1)} MiB peak`,
  );
  console.log(`limits for every row: ${LIMIT_BYTES / 1024 ** 3} GiB of address space, ${TIMEOUT_MS / 1000} s\n`);
  const builds: [string, string][] = before
    ? [
        ['before', before],
        ['after', helper],
      ]
    : [['this build', helper]];
  console.log('| input | build | memory peak | wall time | stop after SIGTERM | what the user sees |');
  console.log('|---|---|---|---|---|---|');
  let worst = 0;
  for (const c of cases) {
    for (const [label, build] of builds) {
      const o = await limited(c.argv(build), c.termAfterMs);
      if (label !== 'before') worst = Math.max(worst, o.peakMiB);
      const stop = o.stopMs === null ? '-' : `${o.stopMs.toFixed(0)} ms`;
      console.log(
        `| ${c.input} | ${label} | ${o.peakMiB.toFixed(1)} MiB | ${o.ms.toFixed(0)} ms | ${stop} | ${o.said.replaceAll('|', '/')} |`,
      );
    }
  }
  console.log(
    `\nworst peak of this build over the rows: ${worst.toFixed(1)} MiB; reference ${reference.peakMiB.toFixed(1)} MiB; ratio ${(worst / reference.peakMiB).toFixed(2)}`,
  );
  rmSync(work, { recursive: true, force: true });
}

void main();
