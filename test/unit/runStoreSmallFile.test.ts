import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applySavedValue, newRun } from '../../src/core/run';
import { RunStore } from '../../src/core/runs/runStore';
import { SampleTable } from '../../src/core/sampleTable';
import { done, header, hello, sample } from '../support/records';

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-small-'));
  store = new RunStore(dir);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A small sweep's lines: samples between progress lines, with lines that look like samples but are not. */
function sweepLines(samples: number): string[] {
  const lines = [JSON.stringify(hello)];
  for (let i = 0; i < samples; i++) {
    lines.push(JSON.stringify({ type: 'progress', done: i + 1, total: samples }));
    lines.push(JSON.stringify(sample({ sizeBytes: 4096 * (i + 1), mover: i % 3 === 0 ? 'engine' : 'cu' })));
  }
  // Start as a sample does, yet refused (a bad size) or cut off: counted ahead, never added.
  lines.push(JSON.stringify(sample({ sizeBytes: -1 })));
  lines.push('{"type":"sample","mover":"cu"');
  lines.push(JSON.stringify(done));
  return lines;
}

/** What each line folded in turn gives (run.ts), the reader's reference. */
function reference(id: string, lines: string[]) {
  const run = newRun(header(id));
  for (const [i, l] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(l);
    } catch {
      run.problems.push(`line ${i + 2} of run.ndjson is not valid JSON (cut off or damaged); skipped`);
      continue;
    }
    applySavedValue(run, value);
  }
  return run;
}

describe('a small run file read whole in one chunk', () => {
  it.each([1, 78, 300])('makes its columns once for %i samples, and reads what each line folded gives', async (n) => {
    const id = `small-${n}`;
    const lines = sweepLines(n);
    const w = store.create(header(id));
    for (const l of lines) w.appendLine(l);
    w.close();
    const want = reference(id, lines);
    const reserve = vi.spyOn(
      SampleTable.prototype as unknown as { reserve(c: number, exact?: boolean): void },
      'reserve',
    );
    for (const run of [store.openSync(id), await store.open(id)]) {
      expect(run.samples.toArray()).toEqual(want.samples.toArray());
      expect(run.samples.length).toBe(n);
      expect(run.problems).toEqual(want.problems);
      expect(run.progress).toEqual(want.progress);
      expect(run.done).toEqual(want.done);
    }
    // One reserve a read: the samples counted ahead (the two refused lines among them), no regrowth,
    // and no trim where the two are within the slack `trim` keeps (a 32nd).
    const once = [[n + 2], ...(2 > n / 32 ? [[n, true]] : [])];
    expect(reserve.mock.calls).toEqual([...once, ...once]);
  });
});
