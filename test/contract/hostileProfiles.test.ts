/**
 * The real helper on profiles and trace lines others hand a user (docs/PROFILE.md, "Reading what
 * others hand you"): each case runs `sdma-probe` under a 1 GiB address-space limit and a time
 * limit, so a reader that floods memory or hangs fails here instead of taking the machine down.
 * The crafted rocpd databases (recursive views, int64 extremes, huge cells) are in the native
 * test native/tests/rocpd_reader_test.cpp, which builds them with SQLite's C API.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { HelperRecord } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';

const LIMIT = `--as=${1024 ** 3}`;
const work = mkdtempSync(join(tmpdir(), 'sdma-hostile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function parse(stdout: string): HelperRecord[] {
  return stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l, i) => {
      const r = parseLine(l);
      if (r.kind !== 'record') throw new Error(`line ${i + 1} is not a record: ${l.slice(0, 200)}`);
      return r.record;
    });
}

/** The helper under the memory limit, killed after `timeoutMs`. */
function limited(args: string[], timeoutMs = 20_000) {
  const t0 = performance.now();
  const r = spawnSync('prlimit', [LIMIT, '--', inject('helperPath'), ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, signal: r.signal, ms: performance.now() - t0, records: r.signal ? [] : parse(r.stdout) };
}

const codes = (rs: HelperRecord[], type: 'warning' | 'error') => rs.flatMap((r) => (r.type === type ? [r.code] : []));
const messages = (rs: HelperRecord[]) =>
  rs.flatMap((r) => (r.type === 'warning' || r.type === 'error' ? [r.message] : []));

function folder(name: string, place: (dir: string) => void): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  place(dir);
  return dir;
}

describe('import of a rocprofv3 CSV folder holding what no profiler writes', () => {
  it('does not follow a link to /dev/zero, nor open a FIFO: it says which files it skipped, at once', () => {
    const dir = folder('special', (d) => {
      symlinkSync('/dev/zero', join(d, 'a_kernel_trace.csv'));
      spawnSync('mkfifo', [join(d, 'b_memory_copy_trace.csv')]);
    });
    const r = limited(['import', '--rocprofv3-csv', dir]);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.ms).toBeLessThan(10_000);
    expect(codes(r.records, 'warning')).toContain('rocprofv3-files-skipped');
    expect(messages(r.records).join('\n')).toMatch(/symbolic link/);
    expect(messages(r.records).join('\n')).toMatch(/FIFO/);
    expect(codes(r.records, 'error')).toEqual(['import-empty']);
  });

  it('reports an unterminated quote and keeps the rows after it', () => {
    const lines = readFileSync(join(inject('repoRoot'), 'test', 'fixtures', 'rocprofv3', 'kernel_trace.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    const broken = lines[1]!.replace(/"([^"]*)"/, '"$1');
    const dir = folder('quote', (d) =>
      writeFileSync(join(d, 'x_kernel_trace.csv'), `${[lines[0], lines[1], broken, ...lines.slice(1)].join('\n')}\n`),
    );
    const r = limited(['import', '--rocprofv3-csv', dir]);
    expect(r.status).toBe(0);
    const kept = r.records.filter((x) => x.type === 'dispatch').length;
    // Every well-formed row is read; at most the broken one and the line it swallowed are not.
    expect(kept).toBeGreaterThanOrEqual(lines.length - 1);
    expect(codes(r.records, 'warning')).toContain('rocprofv3-csv-malformed');
  });

  it('drops an out-of-range Start_Timestamp with a warning instead of a wrapped time', () => {
    const lines = readFileSync(join(inject('repoRoot'), 'test', 'fixtures', 'rocprofv3', 'kernel_trace.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    const cols = lines[0]!.split(',').map((c) => c.replaceAll('"', ''));
    const cells = lines[1]!
      .match(/("[^"]*"|[^,]*)(,|$)/g)!
      .map((c) => c.replace(/,$/, ''))
      .slice(0, cols.length);
    cells[cols.indexOf('Start_Timestamp')] = '99999999999999999999';
    const dir = folder('range', (d) =>
      writeFileSync(join(d, 'x_kernel_trace.csv'), `${lines[0]}\n${lines[1]}\n${cells.join(',')}\n`),
    );
    const r = limited(['import', '--rocprofv3-csv', dir]);
    expect(r.status).toBe(0);
    const d = r.records.filter((x) => x.type === 'dispatch');
    expect(d).toHaveLength(1);
    for (const x of d) if (x.type === 'dispatch') expect(x.endNs).toBeGreaterThanOrEqual(x.startNs);
    expect(codes(r.records, 'warning')).toContain('rocprofv3-time-out-of-range');
  });

  it('stops within a second of SIGTERM while reading a 3 GiB file, and says cancelled', async () => {
    const dir = folder('sparse', (d) => spawnSync('truncate', ['-s', '3G', join(d, 'x_kernel_trace.csv')]));
    const child = spawn('prlimit', [LIMIT, '--', inject('helperPath'), 'import', '--rocprofv3-csv', dir], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    // Wait for hello: the helper is reading by then.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const t0 = performance.now();
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(killer);
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(status).toBe(143);
    expect(parse(out).at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
  });
});

describe('import --rocpd of what is not a database file', () => {
  it('refuses a FIFO at once (it would block SQLite) and a link to /dev/zero', () => {
    const fifo = join(work, 'profile.db');
    spawnSync('mkfifo', [fifo]);
    const link = join(work, 'zero.db');
    symlinkSync('/dev/zero', link);
    for (const [path, reason] of [
      [fifo, /FIFO/],
      [link, /symbolic link/],
    ] as const) {
      const r = limited(['import', '--rocpd', path], 10_000);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(codes(r.records, 'error')).toEqual(['import-not-a-file']);
      expect(messages(r.records).join('\n')).toMatch(reason);
    }
  });
});

describe('run mode: trace lines a program appends', () => {
  const appending = (line: string) => [
    'run',
    '--backend',
    'sim',
    '--',
    '/bin/sh',
    '-c',
    'printf "%s\\n" "$0" >> "$SDMA_LENS_TRACE_FILE"',
    line,
  ];

  it('a device span that ends 100 ms before it starts is dropped and said, the run ends (it used to loop until memory ran out)', () => {
    const r = limited(
      appending(
        JSON.stringify({
          k: 'dev',
          gpu: 0,
          label: 'x',
          cu: 1,
          monoStartNs: 200_000_000,
          monoEndNs: 100_000_000,
          bytes: 1,
          peer: 1,
        }),
      ),
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(codes(r.records, 'warning')).toContain('trace-span-reversed');
    expect(r.records.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  it('1e300, -1e19 and 1e999 in integer fields make the line malformed, never a wrapped value', () => {
    const r = limited(
      appending(
        '{"k":"dev","gpu":1e300,"label":"x","cu":-1e19,"monoStartNs":1e300,"monoEndNs":1e999,"bytes":1,"peer":1}',
      ),
    );
    expect(r.status).toBe(0);
    expect(r.records.filter((x) => x.type === 'copy' || x.type === 'dispatch' || x.type === 'device-span')).toEqual([]);
    expect(codes(r.records, 'warning')).toContain('trace-line-malformed');
  });

  it('a trace file that is a FIFO is refused at once with the reason', () => {
    const r = limited([
      'run',
      '--backend',
      'sim',
      '--',
      '/bin/sh',
      '-c',
      'rm -f "$SDMA_LENS_TRACE_FILE"; mkfifo "$SDMA_LENS_TRACE_FILE"',
    ]);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(codes(r.records, 'warning')).toContain('trace-file-unreadable');
    expect(messages(r.records).join('\n')).toMatch(/FIFO/);
  });
});
