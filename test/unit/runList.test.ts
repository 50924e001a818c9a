/**
 * The runs listing (runList.ts): summaries from each file's ends, kept by the file's identity
 * so a second listing re-reads only what changed, and what makes a folder a run checked every
 * time, cached or not.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_FILE_NAME } from '../../src/core/run';
import { HEAD_BYTES, RunList, TAIL_BYTES, summarizeRunFile } from '../../src/core/runs/runList';
import { mapBounded } from '../../src/core/fleetRun/fleetLoad';
import { RunStore } from '../../src/core/runs/runStore';
import { done, header, hello, sample } from '../support/records';

let dir: string;
let elsewhere: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-list-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  if (elsewhere) rmSync(elsewhere, { recursive: true, force: true });
  elsewhere = undefined;
});

const end = (status: string, extra: object = {}) =>
  JSON.stringify({
    type: 'run-end',
    status,
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-11-30T00:00:01.000Z',
    ...extra,
  });

function save(root: string, id: string, lines: string[]): void {
  const w = new RunStore(root).create(header(id));
  for (const l of lines) w.appendLine(l);
  w.close();
}

describe('RunList with its cache', () => {
  it('reads every run once, then none while the folder is unchanged', async () => {
    for (const id of ['a', 'b', 'c']) save(dir, id, [JSON.stringify(hello), end('ok')]);
    const list = new RunList(dir, { cache: true });
    const first = await list.list();
    expect(list.lastRead).toBe(3);
    const again = await list.list();
    expect(list.lastRead).toBe(0);
    expect(again).toEqual(first);
  });

  it('re-reads a run whose size changed, and one whose modification time alone changed', async () => {
    save(dir, 'grows', [JSON.stringify(hello)]);
    save(dir, 'touched', [JSON.stringify(hello), end('ok')]);
    const list = new RunList(dir, { cache: true });
    expect((await list.list()).map((s) => [s.id, s.status])).toEqual([
      ['touched', 'ok'],
      ['grows', 'incomplete'],
    ]);
    appendFileSync(join(dir, 'grows', RUN_FILE_NAME), `${end('error')}\n`);
    // Same size, new content and a new time: a file rewritten in place.
    const touched = join(dir, 'touched', RUN_FILE_NAME);
    const text = `${JSON.stringify(header('touched'))}\n${JSON.stringify(hello)}\n${end('ok')}\n`;
    writeFileSync(touched, text.replace('"ok"', '"ko"'));
    utimesSync(touched, new Date(2030, 0, 1), new Date(2030, 0, 1));
    const after = await list.list();
    expect(list.lastRead).toBe(2);
    expect(after.find((s) => s.id === 'grows')?.status).toBe('error');
    expect(after.find((s) => s.id === 'touched')?.status).toBe('incomplete'); // "ko" is no status: an unreadable end
  });

  it('lists a new run and drops a deleted one', async () => {
    save(dir, 'old', [end('ok')]);
    const list = new RunList(dir, { cache: true });
    await list.list();
    save(dir, 'new', [end('ok')]);
    rmSync(join(dir, 'old'), { recursive: true });
    expect((await list.list()).map((s) => s.id)).toEqual(['new']);
    expect(list.lastRead).toBe(1);
  });

  it('refuses a run folder replaced by a link even when its summary was cached', async () => {
    save(dir, 'r', [JSON.stringify(hello), end('ok')]);
    const list = new RunList(dir, { cache: true });
    expect((await list.list()).map((s) => s.id)).toEqual(['r']);
    elsewhere = mkdtempSync(join(tmpdir(), 'sdma-list-elsewhere-'));
    renameSync(join(dir, 'r'), join(elsewhere, 'r'));
    symlinkSync(join(elsewhere, 'r'), join(dir, 'r'));
    expect(await list.list()).toEqual([]);
  });

  it('refuses a run file replaced by a link even when its summary was cached', async () => {
    save(dir, 'r', [JSON.stringify(hello), end('ok')]);
    const list = new RunList(dir, { cache: true });
    await list.list();
    elsewhere = mkdtempSync(join(tmpdir(), 'sdma-list-elsewhere-'));
    renameSync(join(dir, 'r', RUN_FILE_NAME), join(elsewhere, RUN_FILE_NAME));
    symlinkSync(join(elsewhere, RUN_FILE_NAME), join(dir, 'r', RUN_FILE_NAME));
    const [s] = await list.list();
    expect(s).toMatchObject({ id: 'r', status: 'corrupt' });
    expect(s?.error).toMatch(/symbolic link/);
  });

  it('without a cache, reads every run every time', async () => {
    save(dir, 'a', [end('ok')]);
    const list = new RunList(dir);
    await list.list();
    await list.list();
    expect(list.lastRead).toBe(1);
  });
});

describe('a summary from the ends of a run file', () => {
  it('finds the hello and the end of a run far larger than head and tail, and the end problem count', async () => {
    const samples = Array.from({ length: 400 }, (_, i) => JSON.stringify(sample({ sizeBytes: 4096 * (i + 1) })));
    save(dir, 'big', [
      JSON.stringify(hello),
      JSON.stringify({ type: 'host-problem', message: 'first' }),
      ...samples,
      JSON.stringify(done),
      end('ok', { problems: 3, firstProblem: 'first' }),
    ]);
    const s = summarizeRunFile('big', join(dir, 'big'), join(dir, 'big', RUN_FILE_NAME));
    expect(s.bytes).toBeGreaterThan(10 * (HEAD_BYTES + TAIL_BYTES));
    expect(s).toMatchObject({ status: 'ok', simulated: true, problems: { count: 3, first: 'first' } });
  });

  it('reads a header and a hello longer than the first head', async () => {
    const longHello = { ...hello, backendsBuilt: Array.from({ length: 800 }, (_, i) => `b${i}`) };
    save(dir, 'long', [
      JSON.stringify(longHello),
      ...Array.from({ length: 100 }, () => JSON.stringify(sample())),
      end('ok'),
    ]);
    const s = summarizeRunFile('long', join(dir, 'long'), join(dir, 'long', RUN_FILE_NAME));
    expect(s).toMatchObject({ status: 'ok', simulated: true });
  });

  it('reads a last line longer than the first tail (a run-end with a long message)', async () => {
    const samples = Array.from({ length: 100 }, () => JSON.stringify(sample()));
    save(dir, 'long-end', [JSON.stringify(hello), ...samples, end('error', { message: 'e'.repeat(3 * TAIL_BYTES) })]);
    const s = summarizeRunFile('long-end', join(dir, 'long-end'), join(dir, 'long-end', RUN_FILE_NAME));
    expect(s).toMatchObject({ status: 'error', simulated: true });
    expect(s.problems).toBeUndefined();
  });

  it('a run of its header alone is incomplete, with no problem', async () => {
    save(dir, 'h', []);
    const s = summarizeRunFile('h', join(dir, 'h'), join(dir, 'h', RUN_FILE_NAME));
    expect(s).toMatchObject({ status: 'incomplete' });
    expect(s.problems).toBeUndefined();
  });

  it('never throws and gives a status for any bytes after a header (fuzz)', () => {
    mkdirSync(join(dir, 'f'));
    const file = join(dir, 'f', RUN_FILE_NAME);
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constant(JSON.stringify(hello)), fc.constant(end('ok'))), { maxLength: 20 }),
        fc.boolean(),
        fc.nat(20_000),
        (lines, torn, pad) => {
          const body = [JSON.stringify(header('f')), ...lines, 'x'.repeat(pad)].join('\n');
          writeFileSync(file, torn ? body : `${body}\n`);
          const s = summarizeRunFile('f', join(dir, 'f'), file);
          expect(['ok', 'incomplete', 'error', 'crashed', 'cancelled', 'running']).toContain(s.status);
          if (s.problems) expect(s.problems.count).toBeGreaterThan(0);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('mapBounded', () => {
  it('keeps the order of the items and never runs more than the limit at once', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapBounded(
      Array.from({ length: 100 }, (_, i) => i),
      7,
      async (x) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, (x * 7) % 5));
        inFlight--;
        return x * 2;
      },
    );
    expect(out).toEqual(Array.from({ length: 100 }, (_, i) => i * 2));
    expect(most).toBe(7);
  });

  it('starts nothing more once cancelled, and throws', async () => {
    const ac = new AbortController();
    let started = 0;
    const p = mapBounded(
      Array.from({ length: 100 }, (_, i) => i),
      4,
      async (x) => {
        started++;
        if (x === 9) ac.abort(new Error('cancelled'));
        await new Promise((r) => setTimeout(r, 1));
        return x;
      },
      ac.signal,
    );
    await expect(p).rejects.toThrow('cancelled');
    expect(started).toBeLessThanOrEqual(10 + 4);
  });
});
