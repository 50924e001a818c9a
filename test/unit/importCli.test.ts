/**
 * `sdma-lens import FILE...` in-process (test/support/cli.ts) on the fixtures: per file the run
 * id, the tool and version, what was imported and its headline numbers as imported; a file of
 * no known format, a link and a FIFO exit 2 with nothing saved for them; a file where nothing
 * maps exits 1. The rocprofv3 way through the helper is test/contract/cliRuns.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseImport } from '../../src/core/imports/importRun';
import type { ImportedRun } from '../../src/core/imports/importedRun';
import { RunStore } from '../../src/core/runs/runStore';
import { runCli } from '../support/cli';

const fixture = (...p: string[]) => join(__dirname, '..', 'fixtures', 'imports', ...p);
const parsed = (...p: string[]) => parseImport(readFileSync(fixture(...p)), p.at(-1)!) as ImportedRun;

let dir: string;
let runsDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-import-cli-'));
  runsDir = join(dir, 'runs');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(['import', ...args, '--runs-dir', runsDir]);
const saved = () => {
  try {
    return readdirSync(runsDir).sort();
  } catch {
    return [];
  }
};

describe('sdma-lens import FILE...', () => {
  it('imports several files, one run each, and prints each run id, tool, version, counts and numbers', async () => {
    const files = [
      fixture('transferbench', 'h200x1-1M.txt'),
      fixture('nvbandwidth', 'h200x1.json'),
      fixture('rccl-tests', 'mi300x-alltoall.txt'),
    ];
    const r = await cli(...files);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    const runs = await new RunStore(runsDir).list();
    expect(runs).toHaveLength(3);
    expect(runs.every((x) => x.status === 'ok')).toBe(true);
    const ids = [...r.out.matchAll(/^# .* -> run (\S+)$/gm)].map((m) => m[1]);
    expect(ids.sort()).toEqual(runs.map((x) => x.id).sort());
    expect(r.out).toContain('# h200x1-1M.txt: TransferBench v1.52 text output -> run ');
    expect(r.out).toContain('# imported 10 samples from TransferBench v1.52 (h200x1-1M.txt)\n');
    expect(r.out).toContain('# h200x1.json: nvbandwidth v0.8 json output -> run ');
    expect(r.out).toContain('# mi300x-alltoall.txt: rccl-tests 2.18.1-develop:0b1c7d2 text output -> run ');
    expect(r.out).toContain(
      '# imported 10 collective points from rccl-tests 2.18.1-develop:0b1c7d2 (mi300x-alltoall.txt); 2 parts of it did not map and are kept as notes',
    );
    // Every headline number of every file, as the parser read it from the file.
    for (const s of parsed('transferbench', 'h200x1-1M.txt').samples)
      expect(r.out).toMatch(new RegExp(`^  ${s.mover}/host .* ${s.gbps.toString().replace('.', '\\.')} +10$`, 'm'));
    for (const s of parsed('nvbandwidth', 'h200x1.json').samples) expect(r.out).toContain(` ${s.gbps} `);
    for (const p of parsed('rccl-tests', 'mi300x-alltoall.txt').collectives)
      expect(r.out).toContain(
        `${p.timeUs}`.padStart(12) + `${p.algbwGbps}`.padStart(12) + `${p.busbwGbps}`.padStart(12),
      );
    expect(r.out).toContain('# not mapped: size 0 float out-of-place');
    expect(r.out).toContain('# assumed: nvbandwidth prints no buffer size');
    expect(r.out.match(/^# saved: /gm)).toHaveLength(3);
  });

  it("--json: the run id, source and the imported records; --buffer-size sets nvbandwidth's size", async () => {
    const r = await cli(fixture('nvbandwidth', 'h200x1.txt'), '--json', '--buffer-size', '1G');
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as {
      runId: string;
      source: unknown;
      status: string;
      samples: { sizeBytes: number; gbps: number }[];
      notes: { code: string }[];
    };
    expect(saved()).toEqual([out.runId]);
    expect(out.source).toEqual({ tool: 'nvbandwidth', format: 'text', file: 'h200x1.txt', version: 'v0.8' });
    expect(out.status).toBe('ok');
    expect(out.samples.map((s) => s.gbps)).toEqual([55.4, 55.29, 51.35, 46.48, 2095.62]);
    expect(out.samples.every((s) => s.sizeBytes === 1024 ** 3)).toBe(true);
    expect(out.notes.map((n) => n.code)).toEqual(['import-assumed', 'import-assumed']);
  });

  it('a file of no known format: exit 2, the file and the reason named, nothing saved for it; the others still import', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'copied 1 GiB in 20 ms\n');
    const r = await cli(notes, fixture('transferbench', 'h200x1-64K.csv'));
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'sdma-lens: notes.txt: no known format: not the output of TransferBench, nvbandwidth, nccl-tests or rccl-tests (no header or result line of theirs was found); nothing was saved\n',
    );
    expect(saved()).toHaveLength(1);
    expect(r.out).toContain('# h200x1-64K.csv: TransferBench v1.52 csv output -> run ');
    const alone = await cli(notes);
    expect(alone.code).toBe(2);
    expect(saved()).toHaveLength(1);
  });

  it('a link and a FIFO are refused (exit 2), nothing saved; a missing file is named', async () => {
    const link = join(dir, 'result.txt');
    symlinkSync(fixture('nvbandwidth', 'h200x1.txt'), link);
    const fifo = join(dir, 'result.pipe');
    execFileSync('mkfifo', [fifo]);
    for (const [path, what] of [
      [link, 'a symbolic link'],
      [fifo, 'a FIFO (named pipe)'],
    ] as const) {
      const r = await cli(path);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`sdma-lens: ${path} is ${what}, not a regular file; refused (import the file itself)\n`);
    }
    const missing = await cli(join(dir, 'gone.txt'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('gone.txt does not exist');
    expect(saved()).toEqual([]);
  });

  it('a known format where nothing maps: exit 1 and why, nothing saved', async () => {
    const file = join(runsDir, '..', 'sendrecv.txt');
    writeFileSync(
      file,
      readFileSync(fixture('nccl-tests', 'alltoall-g1.txt'), 'utf8').replace('alltoall_perf', 'sendrecv_perf'),
    );
    const r = await cli(file);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'sdma-lens: sendrecv.txt: nccl-tests 2.19.6 text output, but nothing in it maps to SDMA Lens collective points (14 parts: sendrecv_perf runs no collective the protocol knows (allgather, alltoall)); nothing was saved\n',
    );
    expect(saved()).toEqual([]);
  });

  it('no file, or a bad --buffer-size: a usage error', async () => {
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.err).toContain('sdma-lens import: needs one or more files');
    const bad = await cli(fixture('nvbandwidth', 'h200x1.txt'), '--buffer-size', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('"lots" is not a size');
    expect(saved()).toEqual([]);
  });
});
