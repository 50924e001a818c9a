/**
 * Imports saved through the RunStore and read back: every fixture becomes a run that lists as
 * ok and opens with its source, its samples or collective points and its notes; the sweep view
 * and the advice work on the imported sweeps, the collective view on the imported collectives.
 * The hand-written run file of docs/PROTOCOL.md opens the same way. Files that are not
 * imported save nothing: an unknown format, nothing that maps, a link, a FIFO, a file too big.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adviseAllPairs } from '../../src/core/advice/advice';
import { collectivePageView } from '../../src/core/collective/collectiveView';
import { IMPORT_MAX_BYTES, ImportError, importResults } from '../../src/core/imports/importRun';
import { RunStore } from '../../src/core/runs/runStore';
import { sweepView } from '../../src/core/sweep/sweepView';

const fixture = (...p: string[]) => join(__dirname, '..', 'fixtures', ...p);

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-import-'));
  store = new RunStore(join(dir, 'runs'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function imported(...p: string[]) {
  const out = await importResults(fixture('imports', ...p), store);
  if (out.kind !== 'imported') throw new Error(`${p.join('/')} went to the helper`);
  return out;
}

async function failure(path: string): Promise<ImportError> {
  const err = await importResults(path, store).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportError);
  return err as ImportError;
}

const runsSaved = () => {
  try {
    return readdirSync(join(dir, 'runs'));
  } catch {
    return [];
  }
};

describe('the hand-written run file of docs/PROTOCOL.md', () => {
  it('opens through the RunStore, lists as ok, and draws as a sweep with advice', async () => {
    mkdirSync(join(dir, 'runs', 'handwritten-example'), { recursive: true });
    copyFileSync(
      fixture('imports', 'handwritten', 'run.ndjson'),
      join(dir, 'runs', 'handwritten-example', 'run.ndjson'),
    );
    const [summary] = await store.list();
    expect(summary).toMatchObject({ id: 'handwritten-example', status: 'ok' });
    expect(summary?.problems).toBeUndefined();
    const run = await store.open('handwritten-example');
    expect(run.problems).toEqual([]);
    expect(run.header.source).toEqual({ tool: 'my-copy-bench', format: 'text', file: 'bench-log.txt', version: '0.3' });
    expect(run.samples).toHaveLength(4);
    expect(run.warnings.map((w) => w.code)).toEqual(['import-unmapped']);
    expect(run.done).toMatchObject({ status: 'ok', samples: 4 });
    expect(run.end).toMatchObject({ status: 'ok', message: '4 samples written by hand' });
    const view = sweepView(run);
    expect(view.pairs.map((p) => p.label)).toEqual(['host → GPU 0']);
    expect(view.series.map((s) => [s.path, s.cus, s.points.length])).toEqual([
      ['cu/host', 32, 2],
      ['engine/host', 0, 2],
    ]);
    // The one sample with per-iteration times has a band; the others are their own band.
    expect(view.series[1]!.points[1]).toMatchObject({ gbpsLow: 16777216 / 330000, gbpsHigh: 16777216 / 310000 });
    const [advice] = adviseAllPairs(run);
    expect(advice).toMatchObject({ vendor: 'nvidia', simulated: false, pairLabel: 'host → GPU 0' });
    // Samples without per-iteration times: the advice says it saw no spread.
    expect(advice!.focus[0]?.uncertainty.join(' ')).toMatch(/summaries, not per-iteration times/);
  });
});

describe('importResults into a RunStore', () => {
  it.each(['h200x1-64K.txt', 'h200x1-1M.csv', 'mi300x-show-iterations.txt'])(
    'TransferBench %s: a sweep run, read back whole; the sweep view and the advice work on it',
    async (name) => {
      const { run, imported: parsed } = await imported('transferbench', name);
      expect(run.header).toMatchObject({
        command: 'sweep',
        source: { tool: 'TransferBench', file: name, version: 'v1.52' },
        helper: { path: '', args: [] },
        target: { kind: 'local' },
      });
      expect(run.header.id).toMatch(/-import-TransferBench-/);
      expect(run.samples.toArray()).toEqual(parsed.samples);
      expect(run.warnings).toEqual(parsed.notes);
      expect(run.problems).toEqual([]);
      expect(run.done).toMatchObject({ status: 'ok', samples: parsed.samples.length });
      const unmapped = parsed.unmappedWhy.reduce((n, w) => n + w.parts, 0);
      expect(run.end?.message).toBe(
        `imported ${parsed.samples.length} samples from TransferBench v1.52 (${name})${unmapped ? `; ${unmapped} parts of it did not map and are kept as notes` : ''}`,
      );
      expect(run.end).toMatchObject({ status: 'ok', exitCode: null, signal: null });
      expect((await store.list()).map((s) => [s.id, s.status])).toEqual([[run.header.id, 'ok']]);
      const view = sweepView(run);
      expect(view.status).toBe('ok');
      expect(view.series.flatMap((s) => s.points).length).toBe(run.samples.length);
      expect(view.simulated).toBe(false);
      for (const a of adviseAllPairs(run)) {
        expect(a.simulated).toBe(false);
        // TransferBench names no GPU: the vendor stays unknown rather than guessed.
        expect(a.vendor).toBe('unknown');
      }
    },
  );

  it('TransferBench host <-> GPU 0: the advice compares DMA with the kernel copy nearest 64 CUs, and one size is not enough for a crossover', async () => {
    const { run } = await imported('transferbench', 'h200x1-16M.txt');
    const advice = adviseAllPairs(run).find((a) => a.pairLabel === 'host → GPU 0')!;
    const focus = advice.focus.find((c) => c.initiator === 'host')!;
    // The run's CU counts for host -> GPU 0 are 1, 8 and 32: 32 is nearest the default 64.
    expect(focus.cus).toBe(32);
    // Each TransferBench run here is one size (the CONFIG SIZE argument).
    expect(focus).toMatchObject({ kind: 'insufficient', confidence: 'none' });
  });

  it.each([['h200x1.txt'], ['h200x1.json']])('nvbandwidth %s: a sweep run on the H200 it names', async (name) => {
    const { run } = await imported('nvbandwidth', name);
    expect(run.header).toMatchObject({
      command: 'sweep',
      source: { tool: 'nvbandwidth', format: name.endsWith('.json') ? 'json' : 'text', version: 'v0.8' },
    });
    expect(run.topology?.node).toEqual({ name: 'vm', vendor: 'nvidia', model: 'NVIDIA H200', simulated: false });
    const view = sweepView(run);
    expect(view.nodeLabel).toBe('NVIDIA H200');
    expect(view.pairs.map((p) => p.label)).toEqual(['host → GPU 0', 'GPU 0 → host', 'GPU 0 local']);
    expect(view.warnings.some((w) => /512 MiB/.test(w))).toBe(true);
    const advice = adviseAllPairs(run);
    expect(advice.every((a) => a.vendor === 'nvidia')).toBe(true);
    expect(advice.find((a) => a.pairLabel === 'host → GPU 0')?.notes.join(' ')).toMatch(
      /NVIDIA, host → GPU 0: cudaMemcpyAsync runs on the copy engines/,
    );
  });

  it.each([
    // The text shows no command line or environment (unknown); the JSON shows both (default).
    ['mi300x-alltoall.txt', 'alltoall', 10, 'unknown'],
    ['mi300x-allgather.json', 'allgather', 10, 'default'],
  ] as const)(
    'rccl-tests %s: a collective run; the collective view draws its curves',
    async (name, op, points, variant) => {
      const { run, imported: parsed } = await imported('rccl-tests', name);
      expect(run.header).toMatchObject({ command: 'collective', source: { tool: 'rccl-tests', file: name } });
      expect(run.collectives).toEqual(parsed.collectives);
      expect(run.collectives).toHaveLength(points);
      expect(run.end?.message).toMatch(new RegExp(`^imported ${points} collective points from rccl-tests`));
      const view = collectivePageView(run);
      expect(view).toMatchObject({
        command: 'collective',
        status: 'ok',
        simulated: false,
        node: 'AMD Instinct MI300X x8',
      });
      expect(view.curves.map((c) => [c.op, c.variant, c.inPlace, c.points.length])).toEqual([
        [op, variant, false, points / 2],
        [op, variant, true, points / 2],
      ]);
      expect(run.collectiveVariants?.map((v) => [v.variant, v.mode])).toEqual([[variant, 'single-process']]);
      expect(view.curves[0]!.points.map((p) => p.busbwGbps)).toEqual(
        run.collectives!.filter((p) => !p.inPlace).map((p) => p.busbwGbps),
      );
      // One variant only: no crossover can be read, and the view says so rather than invent one.
      expect(view.crossovers[0]).toMatchObject({ kind: 'insufficient' });
      if (parsed.unmappedWhy.length > 0)
        expect(view.notes.some((n) => n.startsWith('import-unmapped: size 0'))).toBe(true);
    },
  );

  it('a file where nothing maps (an nccl-tests collective the protocol has no op for) saves nothing and says why', async () => {
    const file = join(dir, 'sendrecv.txt');
    writeFileSync(
      file,
      readFileSync(fixture('imports', 'nccl-tests', 'alltoall-g1.txt'), 'utf8').replace(
        'alltoall_perf',
        'sendrecv_perf',
      ),
    );
    const err = await failure(file);
    expect(err.failure).toBe('nothing-imported');
    expect(err.message).toContain(
      '(14 parts: sendrecv_perf runs no collective the protocol knows (allgather, alltoall)); nothing was saved',
    );
    expect(runsSaved()).toEqual([]);
  });

  it('a file of no known format saves nothing', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'measured 51 GB/s yesterday, 49 today\n');
    const err = await failure(file);
    expect(err.failure).toBe('unknown-format');
    expect(err.message).toBe(
      'notes.txt: no known format: not the output of TransferBench, nvbandwidth, nccl-tests or rccl-tests (no header or result line of theirs was found); nothing was saved',
    );
    expect(runsSaved()).toEqual([]);
  });

  it('a run file of SDMA Lens itself is named as such, with what to do instead, not guessed as a cut-off JSON output', async () => {
    const file = join(dir, 'run.ndjson');
    writeFileSync(file, readFileSync(fixture('runs', 'sim-sweep-seed1.ndjson')));
    const err = await failure(file);
    expect(err.failure).toBe('sdma-lens-run');
    expect(err.message).toBe(
      "run.ndjson is an SDMA Lens run file (run sim-sweep-seed1, sweep), not another tool's output; nothing was imported or saved. Open it as a run instead: in VS Code, Open Run (the file's Explorer menu, or the Runs view); in the CLI, its id with --runs-dir DIR (DIR: the folder holding its run folder) in sdma-lens runs, advise or compare",
    );
    expect(err.message).not.toMatch(/cut off|nccl-tests/);
    expect(runsSaved()).toEqual([]);
  });

  it('refuses a symbolic link, a FIFO and a file over the limit without reading them; a missing file is named', async () => {
    const link = join(dir, 'link.txt');
    symlinkSync(fixture('imports', 'nvbandwidth', 'h200x1.txt'), link);
    expect(await failure(link)).toMatchObject({
      failure: 'refused',
      message: `${link} is a symbolic link, not a regular file; refused (import the file itself)`,
    });
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // No writer ever opens the FIFO: a blocking read would hang here.
    expect(await failure(fifo)).toMatchObject({
      failure: 'refused',
      message: `${fifo} is a FIFO (named pipe), not a regular file; refused (import the file itself)`,
    });
    const big = join(dir, 'big.txt');
    writeFileSync(big, '');
    truncateSync(big, IMPORT_MAX_BYTES + 1);
    expect(await failure(big)).toMatchObject({
      failure: 'refused',
      message: `${big} is larger than 64 MiB, more than any output these tools write; refused`,
    });
    expect(await failure(join(dir, 'none.txt'))).toMatchObject({
      failure: 'missing',
      message: `${join(dir, 'none.txt')} does not exist`,
    });
    expect(runsSaved()).toEqual([]);
  });

  it("a rocpd database or a folder is the helper's to read: nothing is saved here", async () => {
    expect(await importResults(fixture('rocpd', 'fixture.db'), store)).toEqual({
      kind: 'helper',
      path: fixture('rocpd', 'fixture.db'),
      what: 'rocpd',
    });
    expect(await importResults(fixture('rocprofv3'), store)).toEqual({
      kind: 'helper',
      path: fixture('rocprofv3'),
      what: 'rocprofv3-csv',
    });
    expect(runsSaved()).toEqual([]);
  });
});
