/**
 * The sample line reader (sampleLine.ts) against JSON.parse + isPlainSample: on the helper's real
 * sample lines (the run fixtures), on random lines of the helper's form (every field, numbers of
 * every form JSON allows, strings with and without escapes, evidence of every source), and on
 * tens of thousands of byte-level mutations of both (characters deleted, inserted, replaced,
 * spans repeated, fields swapped). For every line the reader either declines it, or gives what
 * JSON.parse gives and isPlainSample accepts, field by field (numbers by Object.is, so -0 is not
 * 0; a field absent from one is absent from the other). The tables built both ways, the reader's
 * with the declined lines parsed as readRunFile parses them, hold the same samples, and a run
 * file of these lines read by readRunFile and readRunFileSync holds them too.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/protocol';
import { PLAIN_SAMPLE_FIELDS, SampleSchema, isPlainSample } from '../../src/core/protocol';
import { SampleTable } from '../../src/core/sampleTable';
import { SAMPLE_LINE_CURRENT, SAMPLE_LINE_START, SampleLineReader } from '../../src/core/runs/sampleLine';
import { readRunFile, readRunFileSync } from '../../src/core/runs/runStore';
import { header as runHeader } from '../support/records';

/** xorshift32: the same cases on every run, so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  const next = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  return {
    int: next,
    pick: <T>(xs: readonly T[]): T => xs[next(xs.length)]!,
    chance: (p: number) => next(1e6) < p * 1e6,
  };
}

const FIXTURES = join(__dirname, '..', 'fixtures');
/** Every sample line of the fixtures (the helper's own output, saved). */
const REAL: string[] = [
  ...readdirSync(join(FIXTURES, 'runs'))
    .filter((f) => f.endsWith('.ndjson'))
    .map((f) => join(FIXTURES, 'runs', f)),
  join(FIXTURES, 'imports', 'handwritten', 'run.ndjson'),
].flatMap((f) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(SAMPLE_LINE_START)),
);

/** Equal as JSON.parse's values are: numbers by Object.is, objects by their own keys in order. */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join('\u0000') !== kb.join('\u0000')) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** What the JSON.parse path makes of a line: the sample, or undefined (not JSON, or not plain). */
function parsed(line: string): Sample | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isPlainSample(value) ? value : undefined;
}

/** The reader's answer for `line` checked against the JSON.parse path's; true when the reader took it. */
function check(reader: SampleLineReader, line: string): boolean {
  const got = reader.read(line);
  if (got === undefined) return false;
  const want = parsed(line);
  if (want === undefined) throw new Error(`read a line JSON.parse + isPlainSample refuse: ${line}`);
  const fields = PLAIN_SAMPLE_FIELDS as readonly string[];
  for (const key of Object.keys(want))
    if (!fields.includes(key)) throw new Error(`read a line with a field outside the schema (${key}): ${line}`);
  for (const f of fields) {
    const g = (got as unknown as Record<string, unknown>)[f];
    const w = (want as unknown as Record<string, unknown>)[f];
    if (!same(g, w))
      throw new Error(`field ${f}: read ${JSON.stringify(g)} (${String(g)}), JSON.parse gives ${String(w)}: ${line}`);
  }
  return true;
}

/** The sample `i` of a table as a plain object, with its times as the table gives them. */
function row(t: SampleTable, i: number): unknown {
  const times = new Float64Array(Math.max(0, t.timesCountAt(i)));
  t.copyTimes(i, times);
  return { sample: t.at(i), count: t.timesCountAt(i), times: [...times] };
}

function expectSameTables(a: SampleTable, b: SampleTable): void {
  expect(b.length).toBe(a.length);
  for (let i = 0; i < a.length; i++)
    if (!same(row(a, i), row(b, i)))
      throw new Error(`sample ${i}: ${JSON.stringify(row(b, i))} is not ${JSON.stringify(row(a, i))}`);
}

/** Both ways: the JSON.parse path alone, and the reader with the JSON.parse path for what it declines. */
function tables(lines: readonly string[]): { viaParse: SampleTable; viaReader: SampleTable; read: number } {
  const viaParse = new SampleTable();
  const viaReader = new SampleTable();
  const reader = new SampleLineReader();
  let read = 0;
  for (const line of lines) {
    const p = parsed(line);
    if (p) viaParse.push(p);
    if (check(reader, line)) {
      read++;
      viaReader.push(reader.read(line)!);
    } else if (p) viaReader.push(p);
  }
  return { viaParse, viaReader, read };
}

// ---- random lines of the helper's form, and raw texts of every form JSON allows ----

type R = ReturnType<typeof rng>;

/** A number as JSON may write it: any sign, leading digits, fraction and exponent, and what JSON.stringify writes. */
function numberText(r: R): string {
  switch (r.int(6)) {
    case 0:
      return JSON.stringify(r.pick([0, -0, 1, 2, 10, 32, 64, 1023, 1024, -1, 4096, 2 ** 31, 2 ** 32, 2 ** 53 + 2]));
    case 1:
      return JSON.stringify(r.int(1e9) / 10 ** r.int(12));
    case 2:
      return JSON.stringify((r.int(1e9) * 1e9 + r.int(1e9)) / 10 ** r.int(24));
    case 3:
      return JSON.stringify(
        r.pick([1e21, 1e-7, 1.5e300, 5e-324, 1.7976931348623157e308, 123456789012345, 1234567890123456]),
      );
    default: {
      const digits = (n: number) => Array.from({ length: n }, () => String(r.int(10))).join('');
      let s = r.chance(0.2) ? '-' : '';
      s += r.chance(0.3) ? '0' : String(1 + r.int(9)) + digits(r.int(20));
      if (r.chance(0.5)) s += `.${digits(1 + r.int(20))}`;
      if (r.chance(0.2)) s += `${r.pick(['e', 'E'])}${r.pick(['', '+', '-'])}${digits(1 + r.int(3))}`;
      return s;
    }
  }
}

function stringText(r: R, words: readonly string[]): string {
  if (r.chance(0.8)) return JSON.stringify(r.pick(words));
  const chars = ['a', ' ', '"', '\\', '\n', '\u0001', '\u00e9', '\u2028', '\ud800', '}', ']', ',', ':', '😀'];
  return JSON.stringify(Array.from({ length: r.int(8) }, () => r.pick(chars)).join(''));
}

const EVIDENCE = [
  {
    source: 'simulated',
    observed: 'cu',
    verdict: 'matches',
    detail: 'simulated: the model carried the bytes as labelled',
  },
  { source: 'simulated', observed: 'engine', verdict: 'matches', detail: 'simulated' },
  {
    source: 'kfd-sdma',
    observed: 'engine',
    verdict: 'matches',
    detail: 'd',
    copyKind: 'k',
    channelId: 3,
    records: 2,
    sdmaUs: 5,
    engineUs: 1.25,
  },
  { source: 'kfd-sdma', observed: 'cu', verdict: 'contradicts', detail: 'x}y' },
  { source: 'cupti', observed: 'unknown', verdict: 'unverified', detail: 'q"uote' },
];

/** A number 0 or more, in any of the forms JSON allows for one: what JSON.stringify writes, and others. */
function nonNegativeText(r: R): string {
  switch (r.int(5)) {
    case 0:
      return String(r.int(2 ** 31));
    case 1:
      return JSON.stringify(r.int(1e7) / 10 ** r.int(8));
    case 2:
      return JSON.stringify((r.int(1e9) * (1 + r.int(1e6))) / 7 ** r.int(20));
    case 3:
      return r.pick([
        '0.0',
        '1.50',
        '1E3',
        '1.5e+3',
        '15e-1',
        '0e0',
        '12345678901234.5',
        '9007199254740993',
        '0.1000000000000000055511151231257827',
      ]);
    default:
      return JSON.stringify(r.pick([0, 1, 32, 64, 1e21, 1e-7, 5e-324, 123456789012345, 1234567890123456]));
  }
}

/** One random line of the helper's form: each field in the schema's order, most present, values mostly valid. */
function randomLine(r: R): string {
  const mover = r.pick(['cu', 'engine', 'cu', 'engine', 'both']);
  const odd = (valid: () => string) => () => (r.chance(0.97) ? valid() : numberText(r));
  const count = (min: number, max: number) => odd(() => String(min + r.int(max - min + 1)));
  const nonNegative = odd(() => nonNegativeText(r));
  const word = (words: readonly string[], others: readonly string[]) => () =>
    r.chance(0.97) ? JSON.stringify(r.pick(words)) : stringText(r, others);
  const value: Record<string, () => string> = {
    mover: () => JSON.stringify(mover),
    initiator: word(['host', 'device'], ['Host']),
    src: count(-1, 1023),
    dst: count(-1, 1024),
    sizeBytes: count(1, 2 ** 31),
    cus: count(0, 300),
    engines: count(0, 16),
    iters: count(1, 100),
    timesNs: () =>
      `[${Array.from({ length: r.int(12) }, () => (r.chance(0.6) ? String(r.int(2 ** 33)) : nonNegative())).join(',')}]`,
    meanNs: nonNegative,
    minNs: nonNegative,
    maxNs: nonNegative,
    stdevNs: nonNegative,
    gbps: nonNegative,
    gbpsMax: nonNegative,
    validated: () => (r.chance(0.97) ? r.pick(['true', 'false']) : r.pick(['null', '1', '"true"'])),
    medianNs: nonNegative,
    gbpsMedian: nonNegative,
    mode: word(['pipelined', 'one-shot'], ['both']),
    opsPerIter: count(1, 64),
    label: word(['', 'rocshmem-sdma', 'l'.repeat(4096)], ['l'.repeat(4097), 'a']),
    engineIds: () => `[${Array.from({ length: r.int(4) }, count(0, 16)).join(',')}]`,
    traced: () => (r.chance(0.97) ? r.pick(['true', 'false']) : '0'),
    cusSeen: count(0, 300),
    series: word(['runtime-default'], ['explicit', 'nope']),
    runtimeRule: word(['rule', 'r'.repeat(256)], ['s']),
    moverEvidence: () => {
      const fits = EVIDENCE.filter((e) => e.verdict !== 'matches' || e.observed === mover);
      return JSON.stringify(r.chance(0.9) && fits.length > 0 ? r.pick(fits) : r.pick(EVIDENCE));
    },
    wavesPerCu: count(1, 64),
    waveSize: () => r.pick(['32', '64', '64', '32', '16', '32.0']),
    split: count(2, 64),
    splitOver: word(['channels'], ['other']),
    batch: count(1, 1024),
    shmemSdma: word(['library'], ['x']),
  };
  // The fields the schema requires: nearly always written, the others often left out.
  const required = new Set(
    Object.entries(SampleSchema.entries)
      .filter(([, schema]) => schema.type !== 'optional')
      .map(([field]) => field),
  );
  let line = SAMPLE_LINE_START;
  for (const f of PLAIN_SAMPLE_FIELDS.slice(1))
    if (required.has(f) ? r.chance(0.995) : r.chance(0.4)) line += `,"${f}":${value[f]!()}`;
  return `${line}}`;
}

/** Characters a mutation inserts: JSON's punctuation, digits, number signs, spaces, escapes, and some beyond ASCII. */
const INSERTS = [...'"\\ ,:{}[]0123456789-+.eEtrufalsn\t\n\r', '\u0000', '\u00a0', '\u2028', '\ufeff', '\ud83d'];

/** `line` changed at random: a character deleted, inserted or replaced, a span repeated, two fields swapped, or a few of these. */
function mutate(r: R, line: string): string {
  let s = line;
  for (let k = 1 + r.int(3); k > 0; k--) {
    const at = r.int(s.length + 1);
    switch (r.int(6)) {
      case 0:
        s = s.slice(0, at) + s.slice(at + 1);
        break;
      case 1:
        s = s.slice(0, at) + r.pick(INSERTS) + s.slice(at);
        break;
      case 2:
        s = s.slice(0, at) + r.pick(INSERTS) + s.slice(at + 1);
        break;
      case 3: {
        const len = 1 + r.int(24);
        s = s.slice(0, at + len) + s.slice(at, at + len) + s.slice(at + len);
        break;
      }
      case 4: {
        // Two fields (`,"key":value` up to the next `,"`) swapped, or one repeated.
        const starts = [...s.matchAll(/,"[A-Za-z]+":/g)].map((m) => m.index);
        if (starts.length < 2) break;
        const i = r.int(starts.length - 1);
        const [a, b, c] = [starts[i]!, starts[i + 1]!, starts[i + 2] ?? s.length - 1];
        s = r.chance(0.5)
          ? s.slice(0, a) + s.slice(b, c) + s.slice(a, b) + s.slice(c)
          : s.slice(0, c) + s.slice(a, b) + s.slice(c);
        break;
      }
      default: {
        // A number's text replaced by another form of it (or of another number).
        const numbers = [...s.matchAll(/-?\d[\d.eE+-]*/g)];
        if (numbers.length === 0) break;
        const m = r.pick(numbers);
        s = s.slice(0, m.index) + numberText(r) + s.slice(m.index + m[0].length);
      }
    }
  }
  return s;
}

describe('sample lines read without JSON.parse', () => {
  it('knows every field of the schema, in its order', () => {
    expect(SAMPLE_LINE_CURRENT).toBe(true);
  });

  it("reads every real sample line of the helper's, as JSON.parse and isPlainSample do", () => {
    expect(REAL.length).toBeGreaterThan(50);
    const { viaParse, viaReader, read } = tables(REAL);
    // Every one of them taken, not parsed: the point of the reader.
    expect(read).toBe(REAL.length);
    expectSameTables(viaParse, viaReader);
  });

  it('reads lines with every optional field, and numbers of every form, as JSON.parse does', () => {
    const r = rng(7);
    const lines = Array.from({ length: 20_000 }, () => randomLine(r));
    const { viaParse, viaReader, read } = tables(lines);
    // Most are taken (a test that declined everything would prove nothing), not all.
    expect(read).toBeGreaterThan(1000);
    expect(read).toBeLessThan(lines.length);
    expectSameTables(viaParse, viaReader);
  });

  it('reads 16 to 22 significant digits as JSON.parse does, on both sides of 2^53 and wherever the point is', () => {
    const r = rng(13);
    const REAL_LINE = REAL[0]!;
    const digits = (n: number) => Array.from({ length: n }, () => String(r.int(10))).join('');
    const texts: string[] = [];
    for (let k = 0; k < 30_000; k++) {
      // Integers of 16 to 22 digits around 2^53 (9007199254740992) and anywhere, then a point anywhere in them.
      const around = String(9007199254740992 + r.int(2001) - 1000);
      const whole = r.chance(0.5) ? around + digits(r.int(7)) : String(1 + r.int(9)) + digits(15 + r.int(7));
      const cut = 1 + r.int(whole.length - 1);
      texts.push(r.chance(0.2) ? whole : `${whole.slice(0, cut)}.${whole.slice(cut)}`);
      // And what JSON.stringify writes of the doubles the helper prints (times of 16-17 digits).
      texts.push(JSON.stringify((r.int(2 ** 30) + r.int(1e6) / 7) / 10 ** r.int(6)));
    }
    const lines: string[] = [];
    for (let k = 0; k < texts.length; k += 10)
      lines.push(REAL_LINE.replace(/"timesNs":\[[^\]]*\]/, `"timesNs":[${texts.slice(k, k + 10).join(',')}]`));
    const { viaParse, viaReader, read } = tables(lines);
    expect(read).toBe(lines.length);
    expectSameTables(viaParse, viaReader);
  });

  it('declines, or reads exactly as JSON.parse does, every mutation of real and random lines', () => {
    const r = rng(11);
    const bases = [...REAL, ...Array.from({ length: 400 }, () => randomLine(r))];
    const lines: string[] = [];
    for (let k = 0; k < 40_000; k++) lines.push(mutate(r, r.pick(bases)));
    const { viaParse, viaReader, read } = tables(lines);
    expect(read).toBeGreaterThan(1000);
    expectSameTables(viaParse, viaReader);
  });

  it('declines what it is not sure of, each in turn', () => {
    const reader = new SampleLineReader();
    const base = REAL[0]!;
    expect(reader.read(base)).toBeDefined();
    const iters = /"iters":\d+/;
    const declined = [
      base.replace('"mover":"cu"', '"mover": "cu"'),
      base.replace('"mover":"cu"', '"mover":"c\\u0075"'),
      base.replace(iters, '"iters":010'),
      base.replace(iters, '"iters":+10'),
      base.replace(iters, '"iters":10.'),
      base.replace(iters, '"iters":.5'),
      base.replace(iters, '"iters":1e'),
      base.replace(iters, '"iters":10,"iters":10'),
      base.replace(iters, '"iters":10,"extra":1'),
      base.replace('"validated":true', '"validated":true,"mover":"cu"'),
      `${base} `,
      `${base}x`,
      base.slice(0, -1),
      base.replace('{"type":"sample"', '{"type":"sample" '),
    ];
    // Each differs from the line read, and the difference is one the reader declines.
    for (const line of declined) expect(line).not.toBe(base);
    for (const line of declined) expect(reader.read(line), line).toBeUndefined();
    // Still reads after declining (nothing left over from a line cut short).
    const got = reader.read(base) as unknown as Record<string, unknown>;
    const want = JSON.parse(base) as Record<string, unknown>;
    for (const f of PLAIN_SAMPLE_FIELDS) expect(same(got[f], want[f]), f).toBe(true);
  });

  describe('in a run file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-sample-line-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('read by readRunFile and readRunFileSync holds what the JSON.parse path holds', async () => {
      const r = rng(5);
      const bases = [...REAL, ...Array.from({ length: 200 }, () => randomLine(r))];
      const lines = [
        ...REAL,
        ...Array.from({ length: 3000 }, () => (r.chance(0.5) ? r.pick(bases) : mutate(r, r.pick(bases)))),
      ]
        // A line of the file as the file's reader gets it back: no newline, UTF-8 (a lone surrogate is U+FFFD).
        .map((l) => Buffer.from(l.replace(/\n/g, '')).toString('utf8'));
      const header = JSON.stringify(runHeader('x', []));
      const file = join(dir, 'run.ndjson');
      writeFileSync(file, `${[header, ...lines].join('\n')}\n`);
      const { viaParse } = tables(lines);
      expect(viaParse.length).toBeGreaterThan(REAL.length);
      expectSameTables(viaParse, readRunFileSync(file).samples);
      expectSameTables(viaParse, (await readRunFile(file)).samples);
    });
  });
});
