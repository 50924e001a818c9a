import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunFileError, RunStore, makeRunId } from '../../src/core/runs/runStore';
import { done, header, hello, line, sample } from '../support/records';

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-store-'));
  store = new RunStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function save(id: string, lines: string[]) {
  const w = store.create(header(id));
  for (const l of lines) w.appendLine(l);
  w.close();
}

const end = (status: string) =>
  JSON.stringify({
    type: 'run-end',
    status,
    exitCode: 0,
    signal: null,
    message: '',
    endedAt: '2026-11-30T00:00:01.000Z',
  });

describe('RunStore', () => {
  it('lists runs newest first with their status', async () => {
    save('2026-11-30T01-00-00-000Z-sweep-sim-aaaa', [JSON.stringify(hello), JSON.stringify(done), end('ok')]);
    save('2026-11-30T02-00-00-000Z-sweep-sim-bbbb', [JSON.stringify(hello), JSON.stringify(sample())]);
    const list = await store.list();
    expect(list.map((r) => [r.id.slice(11, 13), r.status])).toEqual([
      ['02', 'incomplete'],
      ['01', 'ok'],
    ]);
  });

  it('lists a run with a corrupt header as corrupt instead of failing the list; a folder without a run file is not a run', async () => {
    save('good', [end('ok')]);
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'run.ndjson'), '\u0000\u0001garbage\n');
    mkdirSync(join(dir, 'empty'));
    const list = await store.list();
    expect(list.find((r) => r.id === 'bad')).toMatchObject({ status: 'corrupt' });
    expect(list.find((r) => r.id === 'empty')).toBeUndefined();
    expect(list.find((r) => r.id === 'good')).toMatchObject({ status: 'ok' });
    await expect(store.open('bad')).rejects.toThrow(RunFileError);
  });

  it('opens a run whose middle lines are damaged, keeping every readable record', async () => {
    save('r', [
      JSON.stringify(hello),
      JSON.stringify(sample({ sizeBytes: 4096 })),
      '{"type":"sample","siz',
      '\u0000\u0000',
      JSON.stringify(sample({ sizeBytes: 8192 })),
    ]);
    appendFileSync(store.fileOf('r'), '{"type":"samp'); // torn last line: the host died mid-write
    const run = await store.open('r');
    expect(run.samples.map((s) => s.sizeBytes)).toEqual([4096, 8192]);
    expect(run.problems).toHaveLength(3);
    expect(run.end).toBeUndefined();
    expect((await store.list())[0]?.status).toBe('incomplete');
  });

  it('refuses ids that would leave the runs folder', () => {
    for (const id of ['..', '../x', 'a/b', '', 'x'.repeat(200), '.', 'a\nb'])
      expect(() => store.dirOf(id)).toThrow(RunFileError);
  });

  it('deletes a run and its files', async () => {
    save('gone', [line(hello).trim()]);
    writeFileSync(join(dir, 'gone', 'timeline.sdmatl'), 'x');
    await store.delete('gone');
    expect(await store.list()).toEqual([]);
  });

  it('lists nothing when the folder does not exist yet', async () => {
    expect(await new RunStore(join(dir, 'missing')).list()).toEqual([]);
  });

  it('makes sortable, safe ids', () => {
    const id = makeRunId('sweep', 'sim', new Date('2026-11-30T01:02:03.456Z'));
    expect(id).toMatch(/^2026-11-30T01-02-03-456Z-sweep-sim-[a-z0-9]{4}$/);
    expect(makeRunId('../../x', 'a b', new Date(0))).toMatch(/^1970-01-01T00-00-00-000Z-x-ab-/);
  });

  it('refuses a FIFO, a device and a link where a run file should be, without blocking on them', async () => {
    save('good', [JSON.stringify(hello), JSON.stringify(done), end('ok')]);
    mkdirSync(join(dir, 'fifo'));
    execFileSync('mkfifo', [join(dir, 'fifo', 'run.ndjson')]); // nobody ever writes to it: an open for reading would wait forever
    mkdirSync(join(dir, 'device'));
    symlinkSync('/dev/zero', join(dir, 'device', 'run.ndjson')); // a link, and behind it a file without end
    mkdirSync(join(dir, 'link'));
    symlinkSync(store.fileOf('good'), join(dir, 'link', 'run.ndjson'));
    const t0 = performance.now();
    const list = await store.list();
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(list.find((r) => r.id === 'fifo')).toMatchObject({
      status: 'corrupt',
      error: expect.stringMatching(/fifo\/run\.ndjson is a FIFO \(named pipe\), not a regular file; refused/),
    });
    expect(list.find((r) => r.id === 'device')?.error).toMatch(/is a symbolic link, not a regular file/);
    expect(list.find((r) => r.id === 'link')?.error).toMatch(/link\/run\.ndjson is a symbolic link/);
    expect(list.find((r) => r.id === 'good')).toMatchObject({ status: 'ok' });
    await expect(store.open('fifo')).rejects.toThrow(RunFileError);
    await expect(store.open('fifo')).rejects.toThrow(join(dir, 'fifo', 'run.ndjson'));
    await expect(store.open('link')).rejects.toThrow(/symbolic link/);
  });

  it('says how many problems a run that ended had, and the first, without reading it all', async () => {
    save('p', [
      JSON.stringify(hello),
      JSON.stringify({ type: 'host-problem', message: 'skipped a malformed line from the helper: x' }),
      JSON.stringify({
        ...JSON.parse(end('ok')),
        problems: 7,
        firstProblem: 'skipped a malformed line from the helper: x',
      }),
    ]);
    save('torn', [JSON.stringify(hello), JSON.stringify({ type: 'host-problem', message: 'first one' })]);
    appendFileSync(store.fileOf('torn'), '{"type":"samp');
    save('clean', [JSON.stringify(hello), end('ok')]);
    const list = await store.list();
    expect(list.find((r) => r.id === 'p')?.problems).toEqual({
      count: 7,
      first: 'skipped a malformed line from the helper: x',
    });
    expect(list.find((r) => r.id === 'torn')?.problems).toEqual({ count: 2, first: 'first one' });
    expect(list.find((r) => r.id === 'clean')?.problems).toBeUndefined();
  });
});
