import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { validateRecord } from '../../src/core/protocol';
import { applySavedValue, newRun } from '../../src/core/run';
import { RunStore, isPlainProgress, readPlainProgress } from '../../src/core/runs/runStore';
import { header, hello } from '../support/records';

const dir = mkdtempSync(join(tmpdir(), 'sdma-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts: whole, near the edges, and not (negative, -0, fractions, past 2^53, text, null). */
const countish = fc.oneof(
  fc.nat(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 5e-324),
  fc.double(),
  fc.constantFrom('1', null, true, [], {}, [1]),
);
/** Messages around the 4096-character bound, in ASCII and wider characters, and not text. */
const messageish = fc.oneof(
  fc.string(),
  fc.constantFrom(4095, 4096, 4097).map((n) => 'm'.repeat(n)),
  fc.constantFrom(2047, 2048, 2049).map((n) => '😀'.repeat(n)),
  fc.constantFrom(null, 1, [], {}, false),
);
/** Progress records and near misses as JSON text (keys dropped, added, repeated, hostile), parsed as a reader parses them. */
const progressLine = fc
  .record(
    {
      type: fc.constantFrom('progress', 'progress', 'progress', 'Progress', 'sample', 'heartbeat', 1),
      done: countish,
      total: countish,
      message: messageish,
      extra: fc.constantFrom(['x', 1], ['__proto__', { done: 1 }], ['constructor', 'x'], ['type', 'progress']),
    },
    { requiredKeys: [] },
  )
  .map(({ extra, ...fields }) => {
    const parts = Object.entries(fields).map(([k, x]) => `${JSON.stringify(k)}:${JSON.stringify(x)}`);
    if (extra) parts.push(`${JSON.stringify(extra[0])}:${JSON.stringify(extra[1])}`);
    return `{${parts.join(',')}}`;
  });

describe('progress lines checked plainly', () => {
  it('accept exactly what the schema accepts, and give the same progress', () => {
    fc.assert(
      fc.property(progressLine, (line) => {
        const value: unknown = JSON.parse(line);
        const schema = validateRecord(value);
        const isProgress = (value as { type?: unknown }).type === 'progress';
        const plain = isPlainProgress(value);
        expect(plain).toBe(isProgress && schema.kind === 'record');
        if (plain && schema.kind === 'record' && schema.record.type === 'progress') {
          expect(Object.is(value.done, schema.record.done)).toBe(true);
          expect(Object.is(value.total, schema.record.total)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("of the helper's form are read without JSON.parse exactly when parsing and checking them gives progress, the same", () => {
    // The helper's form, and near misses: counts with leading zeros, signs, fractions, exponents,
    // many digits; messages with quotes, escapes, control and wider characters, too long; spaces
    // and what follows the record.
    const digits = fc.oneof(
      { arbitrary: fc.nat().map(String), weight: 8 },
      {
        arbitrary: fc.constantFrom(
          '0',
          '00',
          '07',
          '-1',
          '1.5',
          '1e3',
          '999999999999999',
          '9999999999999999',
          '1'.repeat(400),
          '',
        ),
        weight: 1,
      },
    );
    const message = fc.oneof(
      { arbitrary: fc.string({ unit: fc.constantFrom(...'abc XYZ/->0,9') }), weight: 6 },
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('a"b', 'a\\b', 'a\\"', '\\u0041', 'tab\there', '😀', 'm'.repeat(4096), 'm'.repeat(4097)),
    );
    const line = fc
      .record({
        done: digits,
        total: digits,
        message: fc.option(message),
        space: fc.constantFrom('', '', '', ' '),
        tail: fc.constantFrom('', '', '', ' ', '\r', '}', ',"x":1'),
      })
      .map(
        ({ done, total, message, space, tail }) =>
          `{"type":"progress","done":${space}${done},"total":${total}${message !== null ? `,"message":"${message}"` : ''}}${tail}`,
      );
    const out = [-1, -1];
    let plain = 0;
    fc.assert(
      fc.property(fc.oneof(line, progressLine), (text) => {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          value = undefined;
        }
        const want = value !== undefined && isPlainProgress(value) ? value : undefined;
        // Read plainly only what parsing reads as progress (the rest is parsed, as before), with its counts.
        if (readPlainProgress(text, out)) {
          plain++;
          expect(want, text).toBeDefined();
          expect(Object.keys(want!)).toEqual(['type', 'done', 'total', ...('message' in want! ? ['message'] : [])]);
          expect([Object.is(out[0], want!.done), Object.is(out[1], want!.total)]).toEqual([true, true]);
        } else if (want && /^\{"type":"progress","done":\d{1,15},"total":\d{1,15}(,"message":"[ -~]*")?\}$/.test(text))
          // The helper's own form is read plainly, unless its message's JSON holds a quote or backslash, or it is too long.
          expect(
            /[\\"]/.test(text.slice(text.indexOf('"message":"') + 11, -2)) ||
              ((want as { message?: string }).message?.length ?? 0) > 4096,
          ).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(plain).toBeGreaterThan(100);
    expect(
      readPlainProgress('{"type":"progress","done":1,"total":78,"message":"cu/host 4K 8 CUs, GPU 0 -> GPU 1"}', out),
    ).toBe(true);
    expect(out).toEqual([1, 78]);
    // The longest line of the helper's form (counts of 15 digits, a message of 4096) is still read plainly.
    const n = 10 ** 14 + 7;
    expect(readPlainProgress(`{"type":"progress","done":${n},"total":${n},"message":"${'m'.repeat(4096)}"}`, out)).toBe(
      true,
    );
    expect(out).toEqual([n, n]);
  });

  it('read from a file, fold as run.ts folds each line', () => {
    const store = new RunStore(dir);
    let k = 0;
    fc.assert(
      fc.property(fc.array(progressLine, { maxLength: 12 }), (lines) => {
        const id = `progress-${k++}`;
        const w = store.create(header(id));
        w.appendLine(JSON.stringify(hello));
        for (const l of lines) w.appendLine(l);
        w.close();
        const want = newRun(header(id));
        applySavedValue(want, hello);
        for (const l of lines) applySavedValue(want, JSON.parse(l));
        const run = store.openSync(id);
        expect(run.progress).toEqual(want.progress);
        if (run.progress) expect(Object.is(run.progress.done, want.progress!.done)).toBe(true);
        expect(run.problems).toEqual(want.problems);
        expect(run.samples.length).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
