/**
 * `readRunFile` reads the bytes of a run file and splits them itself: against the plain reading
 * (the whole file decoded, split on '\n', each line through the run reducer) on files that put a
 * line, and a multi-byte character, across the megabyte a read takes; with blank lines, CRLF
 * ends, damaged and invalid lines between the samples; a last line with no newline.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Run } from '../../src/core/run';
import { applySavedValue, newRun, RunHeaderSchema } from '../../src/core/run';
import { RunFileError, RunStore, readRunFile, readRunFileSync } from '../../src/core/runs/runStore';
import { SampleTable } from '../../src/core/sampleTable';
import * as v from 'valibot';
import { header, hello, sample } from '../support/records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sdma-readrun-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The plain reading the reader must equal. */
function plainRead(file: string): Run {
  const lines = readFileSync(file, 'utf8').split('\n');
  const run = newRun(v.parse(RunHeaderSchema, JSON.parse(lines[0]!)));
  lines.slice(1).forEach((line, i) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      run.problems.push(`line ${i + 2} of run.ndjson is not valid JSON (cut off or damaged); skipped`);
      return;
    }
    applySavedValue(run, value);
  });
  return run;
}

function same(a: Run, b: Run) {
  expect(a.samples.length).toBe(b.samples.length);
  expect(a.samples.toArray()).toEqual(b.samples.toArray());
  expect(a.problems).toEqual(b.problems);
  expect(a.hello).toEqual(b.hello);
  expect(a.header).toEqual(b.header);
}

describe('readRunFile', () => {
  it('reads a file of over 2 MB the same as the whole file decoded and split, multi-byte labels across the reads', async () => {
    const lines = [JSON.stringify(header('r')), JSON.stringify(hello)];
    let chars = 0;
    for (let i = 0; chars < 2.5 * 1024 * 1024; i++) {
      chars += lines.at(-1)!.length + 1;
      const k = i % 50;
      if (k === 7) lines.push('{"type":"sample","sizeBytes":');
      else if (k === 11) lines.push('');
      else if (k === 13) lines.push(`${JSON.stringify(sample({ sizeBytes: 4096 + i }))}\r`);
      else if (k === 17) lines.push(JSON.stringify(sample({ sizeBytes: 0 })));
      else if (k === 19) lines.push(JSON.stringify({ ...sample(), moverEvidence: { source: 'x' } }));
      else lines.push(JSON.stringify(sample({ sizeBytes: 4096 + i, label: `µs → GB/s ${'€'.repeat(i % 37)} 𝄞` })));
    }
    const file = join(dir, 'run.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const got = await readRunFile(file);
    same(got, plainRead(file));
    // The synchronous reader (a fleet's small runs) reads the same.
    same(readRunFileSync(file), got);
    expect(got.samples.length).toBeGreaterThan(5000);
    expect(got.problems.length).toBeGreaterThan(100);
  });

  it('decodes a character whose bytes a read boundary splits, at every offset around it', async () => {
    for (const shift of [0, 1, 2, 3]) {
      const head = `${JSON.stringify(header('r'))}\n`;
      // The 4-byte character starts `shift` bytes before the first megabyte ends.
      const filler = 1024 * 1024 - Buffer.byteLength(head) - shift - 40;
      const big = JSON.stringify(sample({ label: `${'a'.repeat(filler % 4000)}` }));
      const pad: string[] = [];
      let bytes = Buffer.byteLength(head);
      while (bytes + big.length + 1 < 1024 * 1024 - shift - 200) {
        pad.push(big);
        bytes += big.length + 1;
      }
      const before = 1024 * 1024 - shift - bytes;
      const prefix = '{"type":"warning","code":"w","message":"';
      const line = `${prefix}${'b'.repeat(before - prefix.length)}𝄞 after"}`;
      const file = join(dir, `run${shift}.ndjson`);
      writeFileSync(file, `${head}${pad.map((l) => `${l}\n`).join('')}${line}\n${big}`);
      const run = await readRunFile(file);
      expect(run.warnings[0]!.message.endsWith('𝄞 after')).toBe(true);
      same(run, plainRead(file));
    }
  });

  it('reads a big ASCII file (whole lines decoded a window at a time) the same, and sizes its columns from the first chunk', async () => {
    const lines = [JSON.stringify(header('r')), JSON.stringify(hello)];
    // The first sample's line is the shortest: the count is not to be estimated from it alone.
    lines.push(JSON.stringify(sample({ sizeBytes: 1 })));
    let bytes = 0;
    for (let i = 0; bytes < 5 * 1024 * 1024; i++) {
      const k = i % 97;
      let line: string;
      if (k === 7) line = '{"type":"sample","sizeBytes":';
      else if (k === 11) line = '';
      else if (k === 13) line = `${JSON.stringify(sample({ sizeBytes: 4096 + i }))}\r`;
      else if (k === 17) line = JSON.stringify(sample({ sizeBytes: 0 }));
      else if (k === 19) line = JSON.stringify({ ...sample(), moverEvidence: { source: 'x' } });
      // ASCII bytes that decode to other characters, and a line longer than a decoding window.
      else if (k === 23) line = JSON.stringify(sample({ label: 'LABEL' })).replace('LABEL', '\\u00b5s \\u2192 GB/s');
      else if (k === 29 && i % 3 === 0)
        line = JSON.stringify({ type: 'warning', code: 'w', message: 'x'.repeat(40_000 + i) });
      // Now and then a window with a character that is not ASCII.
      else if (k === 31 && i % 5 === 0) line = JSON.stringify(sample({ label: `µs ${i}` }));
      else
        line = JSON.stringify(
          sample({ sizeBytes: 4096 + i, meanNs: 20_000 + (i % 1000) / 10, label: `run ${i % 13}` }),
        );
      lines.push(line);
      bytes += line.length + 1;
    }
    const file = join(dir, 'run.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const expect_ = vi.spyOn(SampleTable.prototype, 'expect');
    try {
      const got = await readRunFile(file);
      same(got, plainRead(file));
      same(readRunFileSync(file), got);
      expect(got.samples.length).toBeGreaterThan(8000);
      expect(got.problems.length).toBeGreaterThan(100);
      // Told once, from the lines of the first chunk: within a few percent of the count (not the
      // 10% and more over that the first, shortest, line alone implies).
      expect(expect_).toHaveBeenCalled();
      const told = expect_.mock.calls[0]![0];
      expect(told / got.samples.length).toBeGreaterThan(1);
      expect(told / got.samples.length).toBeLessThan(1.04);
    } finally {
      expect_.mockRestore();
    }
  });

  it('reads synchronously only what the asynchronous reader reads: a linked run folder and a FIFO are refused', () => {
    const store = new RunStore(join(dir, 'runs'));
    const w = store.create(header('real'));
    w.appendValue(sample());
    w.close();
    symlinkSync(join(store.root, 'real'), join(store.root, 'linked'));
    expect(store.openSync('real').samples.length).toBe(1);
    expect(() => store.openSync('linked')).toThrow(RunFileError);
    expect(() => store.openSync('missing')).toThrow(RunFileError);
    mkdirSync(join(store.root, 'fifo'));
    execFileSync('mkfifo', [join(store.root, 'fifo', 'run.ndjson')]);
    expect(() => store.openSync('fifo')).toThrow(/FIFO/);
  });
});
