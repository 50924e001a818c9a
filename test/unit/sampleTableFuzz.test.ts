/**
 * The saved-run reader's storage against hostile lines: the sample lines of a real run file
 * (test/fixtures/runs/sim-sweep-seed1.ndjson), mutated (values swapped for odd ones: -0,
 * fractions, huge numbers, long strings, missing and extra fields), fed through the record
 * validator as readRunFile feeds them. Whatever it accepts goes into a SampleTable, and the
 * table must give back exactly what the schema's own output is, sample by sample; a rejected
 * line never reaches it. A whole mutated file read with readRunFile (and readRunFileSync) holds
 * the same samples: its lines are of the helper's form, so most are read by the sample line
 * reader (sampleLine.ts; test/unit/sampleLine.test.ts fuzzes it byte by byte).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/protocol';
import { SampleSchema, validateRecord } from '../../src/core/protocol';
import { SampleTable } from '../../src/core/sampleTable';
import { readRunFile, readRunFileSync } from '../../src/core/runs/runStore';

const lines = readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8').trim().split('\n');
const header = lines[0]!;
const sampleLines = lines.filter((l) => l.startsWith('{"type":"sample"'));
const FIELDS = Object.keys(SampleSchema.entries);

const odd = fc.oneof(
  fc.constantFrom(-0, -1, 0.5, 2 ** 31, 2 ** 32, 2 ** 53, 1e300, -1e-300, null, true, '', 'x'.repeat(300), [], {}),
  fc.double(),
  fc.integer(),
  fc.string({ maxLength: 40 }),
  fc.array(fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e12, noNaN: true })), { maxLength: 30 }),
);
const mutation = fc.record({
  line: fc.nat(sampleLines.length - 1),
  edits: fc.array(
    fc.tuple(fc.constantFrom(...FIELDS, 'extra', 'moverEvidence.detail', 'moverEvidence.verdict'), fc.option(odd)),
    {
      maxLength: 4,
    },
  ),
});

function mutate(m: { line: number; edits: [string, unknown][] }): Record<string, unknown> {
  const value = JSON.parse(sampleLines[m.line]!) as Record<string, unknown>;
  for (const [field, x] of m.edits) {
    const [top, inner] = field.split('.') as [string, string | undefined];
    if (inner !== undefined) {
      if (typeof value[top] === 'object' && value[top] !== null) (value[top] as Record<string, unknown>)[inner] = x;
    } else if (x === null) delete value[top];
    else value[top] = x;
  }
  return value;
}

describe('SampleTable against mutated sample lines', () => {
  it('holds exactly what the schema accepts, as the schema outputs it', () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 30 }), (ms) => {
        const table = new SampleTable();
        const expected: Sample[] = [];
        for (const m of ms) {
          // Through JSON, as a line of a file is.
          const value: unknown = JSON.parse(JSON.stringify(mutate(m)));
          const result = validateRecord(value);
          if (result.kind !== 'record' || result.record.type !== 'sample') continue;
          table.push(result.record);
          expected.push(v.parse(SampleSchema, value));
        }
        expect(table.toArray()).toStrictEqual(expected);
        table.trim();
        expect(table.toArray()).toStrictEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('a mutated run file read back holds the samples the schema accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-sampletable-fuzz-'));
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 20 }), async (ms) => {
          const values = ms.map((m) => JSON.parse(JSON.stringify(mutate(m))) as unknown);
          const file = join(dir, 'run.ndjson');
          writeFileSync(file, [header, ...values.map((x) => JSON.stringify(x)), ''].join('\n'));
          const run = await readRunFile(file);
          const accepted = values
            .filter((x) => validateRecord(x).kind === 'record')
            .map((x) => v.parse(SampleSchema, x));
          expect(run.samples.toArray()).toStrictEqual(accepted);
          expect(run.samples.length + run.problems.length).toBe(values.length);
          // The synchronous reader (a fleet's), through the same line reader, holds the same.
          expect(readRunFileSync(file).samples.toArray()).toStrictEqual(accepted);
        }),
        { numRuns: 200 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('select gives the samples at its indices, column by column, and numbersOf the field of each', () => {
    fc.assert(
      fc.property(
        fc.array(mutation, { minLength: 0, maxLength: 25 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.array(mutation, { maxLength: 3 }),
        (ms, picks, more) => {
          const table = new SampleTable();
          for (const m of ms) {
            const result = validateRecord(JSON.parse(JSON.stringify(mutate(m))));
            if (result.kind === 'record' && result.record.type === 'sample') table.push(result.record);
          }
          const before = table.toArray();
          const indices = table.length === 0 ? [] : picks.map((p) => p % table.length);
          const chosen = table.select(indices);
          expect(chosen.toArray()).toStrictEqual(indices.map((i) => before[i]));
          for (const field of ['sizeBytes', 'meanNs', 'cusSeen'] as const)
            expect([...chosen.numbersOf(field)]).toStrictEqual(indices.map((i) => before[i]![field] ?? NaN));
          // The copy grows on its own; the table it came from is unchanged.
          const added: Sample[] = [];
          for (const m of more) {
            const result = validateRecord(JSON.parse(JSON.stringify(mutate(m))));
            if (result.kind === 'record' && result.record.type === 'sample') {
              chosen.push(result.record);
              added.push(v.parse(SampleSchema, JSON.parse(JSON.stringify(result.record))));
            }
          }
          expect(chosen.toArray()).toStrictEqual([...indices.map((i) => before[i]), ...added]);
          expect(table.toArray()).toStrictEqual(before);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('select refuses an index outside the table', () => {
    const table = SampleTable.from(
      sampleLines.slice(0, 3).map((l) => {
        const r = validateRecord(JSON.parse(l));
        if (r.kind !== 'record' || r.record.type !== 'sample') throw new Error('fixture line is not a sample');
        return r.record;
      }),
    );
    expect(() => table.select([0, 3])).toThrow(RangeError);
    expect(() => table.select([-1])).toThrow(RangeError);
    expect(() => table.select([0.5])).toThrow(RangeError);
    expect(table.select([2, 2, 0]).toArray()).toStrictEqual([table.at(2), table.at(2), table.at(0)]);
  });

  it('expect makes room ahead without changing what the table holds, and ignores a count it cannot use', () => {
    const samples = sampleLines.map((l) => {
      const r = validateRecord(JSON.parse(l));
      if (r.kind !== 'record' || r.record.type !== 'sample') throw new Error('fixture line is not a sample');
      return r.record;
    });
    for (const count of [Number.NaN, -5, 0, 3, samples.length, samples.length * 1.01, samples.length * 3, Infinity]) {
      const table = new SampleTable();
      table.expect(count);
      for (const s of samples) table.push(s);
      table.trim();
      expect(table.toArray()).toStrictEqual(SampleTable.from(samples).toArray());
      expect(table.length).toBe(samples.length);
    }
  });
});
