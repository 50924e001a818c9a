/**
 * The record validator against hostile lines: 100,000 mutations of real helper output (run
 * files of the simulator and of 1x H200 in test/fixtures) — bytes flipped, cut, spliced from
 * other lines, values swapped for odd ones. `parseLine` must never throw, and whatever it
 * accepts must pass the full schema, not only the fast path. The lines include the
 * `collective-variant` records the nccl-tests / rccl-tests importer makes of its fixtures (with
 * `mode`, `variantBasis`, `variantUnknowns`), `overlap` records in the helper's shape with the CU
 * arithmetic (hand-made: triad, the copy alone, the CUs, the mechanism, the telemetry) and as
 * the 2x H200 run saved them before it, and the importer itself is fed mutated outputs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { RecordType } from '../../src/core/protocol';
import { RECORD_SCHEMAS, RECORD_TYPES, parseLine, validateRecord } from '../../src/core/protocol';
import type { ImportedRun } from '../../src/core/imports/importedRun';
import { isNcclTestsJson, parseNcclTestsJson, parseNcclTestsText } from '../../src/core/imports/ncclTestsOutput';
import { oldRecord, overlapRunRecords } from '../support/overlapRecords';

const FIXTURES = [
  'runs/sim-sweep-seed1.ndjson',
  'runs/sim-matrix-seed1.ndjson',
  'runs/sim-matrix-concurrent-seed1.ndjson',
  'runmode/h200x1/runmode-fused-a2a.ndjson',
  'runmode/h200x1/runmode-cancel.ndjson',
];
const MUTATED_LINES = 100_000;
/** nccl-tests / rccl-tests outputs the importer is fed, mutated. */
const IMPORT_FIXTURES = [
  'nccl-tests/alltoall-g1.txt',
  'nccl-tests/alltoall-g1.json',
  'nccl-tests/h200x8-allgather-ce.txt',
  'nccl-tests/h200x1-allgather-ce-info.txt',
  'rccl-tests/mi300x-alltoall.txt',
  'rccl-tests/mi300x-allgather.json',
  'rccl-tests/mi355x-alltoall-gin-dev.json',
  'rccl-tests/mi355x-alltoall-gin-dev.txt',
  'rccl-tests/mi355x-alltoall-gin-lib.txt',
];
const importFixture = (f: string) => readFileSync(join(__dirname, '..', 'fixtures', 'imports', f), 'utf8');
const parseImported = (f: string, text: string): ImportedRun =>
  f.endsWith('.json') ? parseNcclTestsJson(JSON.parse(text), f) : parseNcclTestsText(text, f);
/** The records an import of each fixture makes, as run-file lines. */
const importedLines = () =>
  IMPORT_FIXTURES.flatMap((f) => {
    const r = parseImported(f, importFixture(f));
    return [...r.variants, ...r.collectives.slice(0, 4), ...r.notes].map((x) => JSON.stringify(x));
  });

/** Overlap records: hand-made with every field of the CU arithmetic, simulated or not, and the 2x H200 run's (saved before it). */
const overlapLines = () => [
  ...[...overlapRunRecords(), ...overlapRunRecords(true)].flatMap((p) => [
    JSON.stringify(p),
    JSON.stringify(oldRecord(p)),
  ]),
  ...readFileSync(join(__dirname, '../../bench/results/h200x2-collectives-2026-11-30/overlap.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"overlap"')),
];

/** xorshift32: the same lines on every run, so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const ODD = [
  'null',
  '-1',
  '1e309',
  '"\\u0000"',
  '[]',
  '{}',
  'true',
  '"x"',
  '9007199254740993',
  '-0',
  '""',
  '"\\ud800"',
  '1.5',
];

function mutate(line: string, others: string[], pick: (n: number) => number): string {
  switch (pick(7)) {
    case 0: {
      // one byte changed
      const i = pick(line.length);
      return line.slice(0, i) + String.fromCharCode(pick(128)) + line.slice(i + 1);
    }
    case 1:
      // cut off, as a crash mid-write leaves it
      return line.slice(0, pick(line.length));
    case 2: {
      // the front of one line, the back of another
      const other = others[pick(others.length)]!;
      return line.slice(0, pick(line.length)) + other.slice(pick(other.length));
    }
    case 3: {
      // a value replaced by an odd one
      const values = [...line.matchAll(/:(-?[\d.e+]+|"[^"]*"|true|false|null)/g)];
      if (values.length === 0) return line;
      const m = values[pick(values.length)]!;
      return `${line.slice(0, m.index + 1)}${ODD[pick(ODD.length)]}${line.slice(m.index + m[0].length)}`;
    }
    case 4: {
      // a key renamed
      const keys = [...line.matchAll(/"([a-zA-Z]+)":/g)];
      if (keys.length === 0) return line;
      const k = keys[pick(keys.length)]!;
      return `${line.slice(0, k.index)}"${k[1]}_"${line.slice(k.index + k[0].length - 1)}`;
    }
    case 5: {
      // the record's type swapped for another's
      const type = RECORD_TYPES[pick(RECORD_TYPES.length)]!;
      return line.replace(/"type":"[^"]*"/, `"type":"${type}"`);
    }
    default: {
      // a run of random bytes inserted
      const i = pick(line.length);
      let junk = '';
      for (let n = pick(16) + 1; n > 0; n--) junk += String.fromCharCode(pick(256));
      return line.slice(0, i) + junk + line.slice(i);
    }
  }
}

describe('parseLine against 100,000 mutated lines of real helper output', () => {
  it('never throws, and every line it accepts passes the full schema', () => {
    const lines = FIXTURES.flatMap((f) => readFileSync(join(__dirname, '..', 'fixtures', f), 'utf8').split('\n'))
      .concat(importedLines())
      .concat(overlapLines())
      .filter(
        (l) =>
          l.startsWith('{"type":') &&
          !l.startsWith('{"type":"run"') &&
          !l.startsWith('{"type":"run-end"') &&
          !l.startsWith('{"type":"host-problem"'),
      );
    expect(lines.length).toBeGreaterThan(100);
    const pick = rng(0x5d3a);
    const tally = { threw: 0, accepted: 0, malformed: 0, unknownType: 0, acceptedButInvalid: 0 };
    for (let i = 0; i < MUTATED_LINES; i++) {
      const line = mutate(lines[pick(lines.length)]!, lines, pick);
      let result;
      try {
        result = parseLine(line);
      } catch {
        tally.threw++;
        continue;
      }
      if (result.kind === 'record') {
        tally.accepted++;
        const schema = RECORD_SCHEMAS[result.record.type as RecordType] as v.GenericSchema;
        if (!v.safeParse(schema, JSON.parse(line)).success) tally.acceptedButInvalid++;
      } else if (result.kind === 'malformed') tally.malformed++;
      else tally.unknownType++;
    }
    console.log(
      `parseLine fuzz: ${MUTATED_LINES} mutated lines from ${lines.length} real ones: ${JSON.stringify(tally)}`,
    );
    expect(tally.threw).toBe(0);
    expect(tally.acceptedButInvalid).toBe(0);
    // The mutations must actually reach both sides of the validator.
    expect(tally.accepted).toBeGreaterThan(1000);
    expect(tally.malformed).toBeGreaterThan(10_000);
  }, 120_000);
});

/** Line-level mutations of a tool's output, with NCCL INFO lines of odd values among them. */
function mutateOutput(text: string, pick: (n: number) => number): string {
  const lines = text.split('\n');
  const names = ['NCCL_GIN_TYPE', 'NCCL_CTA_POLICY', 'NCCL_GIN_ENABLE', 'NCCL_GIN_A2A_ENABLE', 'NCCL_P2P_LEVEL'];
  const values = ['7', '-1', '2', '0x7', '99999999999999999999', 'ZERO', '\u001b[2J', '', '7.5', 'x'.repeat(5000)];
  for (let n = pick(6) + 1; n > 0; n--) {
    const i = pick(lines.length);
    switch (pick(5)) {
      case 0:
        lines.splice(
          i,
          0,
          `h:1:1 [0] NCCL INFO ${names[pick(names.length)]} set by environment to ${values[pick(values.length)]}.`,
        );
        break;
      case 1:
        lines.splice(i, 1);
        break;
      case 2:
        lines.splice(i, 0, lines[pick(lines.length)] ?? '');
        break;
      default: {
        const line = lines[i] ?? '';
        const at = pick(line.length + 1);
        lines[i] = line.slice(0, at) + String.fromCharCode(pick(256)) + line.slice(at + pick(3));
      }
    }
  }
  return lines.join('\n');
}

describe('the nccl-tests / rccl-tests importer against mutated outputs', () => {
  it('never throws; every record it makes passes the protocol, with one collective-variant record', () => {
    const pick = rng(0x1c0de);
    const tally = { parsed: 0, notJson: 0, threw: 0, invalid: 0, variants: {} as Record<string, number> };
    for (let i = 0; i < 3000; i++) {
      const f = IMPORT_FIXTURES[pick(IMPORT_FIXTURES.length)]!;
      const text = mutateOutput(importFixture(f), pick);
      let r: ImportedRun;
      // As detectFormat does: JSON that parses, with results and config (detect.ts).
      try {
        if (f.endsWith('.json') && !isNcclTestsJson(JSON.parse(text))) throw new Error('not nccl-tests JSON');
      } catch {
        tally.notJson++;
        continue;
      }
      try {
        r = parseImported(f, text);
      } catch (err) {
        if (tally.threw === 0)
          console.log(`threw on ${f}: ${(err as Error).stack?.split('\n').slice(0, 4).join(' | ')}`);
        tally.threw++;
        continue;
      }
      tally.parsed++;
      for (const rec of [...(r.topology ? [r.topology] : []), ...r.variants, ...r.collectives, ...r.notes])
        if (validateRecord(rec).kind !== 'record') {
          if (tally.invalid === 0)
            console.log(
              `invalid from ${f}: ${JSON.stringify(validateRecord(rec))} ${JSON.stringify(rec).slice(0, 300)}`,
            );
          tally.invalid++;
        }
      expect(r.variants).toHaveLength(1);
      const v = r.variants[0]!.variant;
      tally.variants[v] = (tally.variants[v] ?? 0) + 1;
    }
    console.log(`importer fuzz: ${JSON.stringify(tally)}`);
    expect(tally.threw).toBe(0);
    expect(tally.invalid).toBe(0);
    expect(tally.parsed).toBeGreaterThan(1000);
    // The mutations reach several decisions, not one.
    expect(Object.keys(tally.variants).length).toBeGreaterThanOrEqual(4);
  }, 120_000);
});
