/**
 * SampleTable (src/core/sampleTable.ts): a run's samples as columns. Every field comes back as
 * pushed, absent ones absent; numbers that do not fit the narrow columns (fractional, -0, the
 * host endpoint -1, times of 2^32 ns and more) widen them without changing a value; the
 * table's memory stays under 200 bytes a helper-shaped sample; samples grouped from the columns
 * (groupsOf) are those alike in the fields asked. And readRunFile's progress and
 * cancel, polled per chunk.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sample } from '../../src/core/protocol';
import { SampleSchema } from '../../src/core/protocol';
import { runHeader } from '../../src/core/run';
import type { GroupField } from '../../src/core/sampleTable';
import { SHARE_BUILT_MAX, SampleTable } from '../../src/core/sampleTable';
import { RunReadCancelled, readRunFile } from '../../src/core/runs/runStore';

const helperSample: Sample = {
  type: 'sample',
  mover: 'cu',
  initiator: 'host',
  src: 0,
  dst: 1,
  sizeBytes: 4096,
  cus: 1,
  engines: 0,
  iters: 20,
  timesNs: [
    5801, 5700, 5713, 5824, 5290, 5877, 5631, 5995, 5922, 5495, 5644, 6198, 5556, 5476, 5401, 6015, 5674, 5968, 5557,
    5624,
  ],
  meanNs: 5718.1,
  minNs: 5290,
  maxNs: 6198,
  stdevNs: 230.7,
  gbps: 0.716328,
  gbpsMax: 0.774291,
  validated: true,
  medianNs: 5687,
  gbpsMedian: 0.720239,
  mode: 'pipelined',
  moverEvidence: {
    source: 'simulated',
    observed: 'cu',
    verdict: 'matches',
    detail: 'simulated: the model carried the bytes as labelled',
  },
};

/** Every optional field of the schema set. */
const everything: Sample = {
  ...helperSample,
  src: -1,
  dst: 1023,
  sizeBytes: 2 ** 40,
  opsPerIter: 4,
  label: 'proxy-initiated',
  engineIds: [0, 3, 7],
  traced: false,
  cusSeen: 12,
  series: 'runtime-default',
  runtimeRule: 'HSA_ENABLE_SDMA=1 below 1 MiB',
  wavesPerCu: 4,
  waveSize: 64,
  split: 2,
  splitOver: 'engines',
  batch: 8,
  shmemSdma: 'library',
};

/** Fields `groupsOf` is asked for in the tests: strings, numbers, a boolean, a nested field. */
const GROUP_FIELDS = ['mover', 'src', 'cus', 'wavesPerCu', 'label', 'validated', 'traced', 'moverEvidence'] as const;

/**
 * `groupsOf(fields)` against its definition on the samples themselves: two samples share a group
 * exactly when the fields' values are alike (the nested ones all together), groups numbered in
 * the order they first appear, `first` each group's first sample.
 */
function expectGroupsOf(
  t: SampleTable,
  all: readonly Sample[],
  fields: readonly GroupField[],
  rows?: readonly number[],
): void {
  // Given rows, the samples at them, in that order; `first` still indices in the table.
  const samples = rows ? rows.map((i) => all[i]!) : all;
  const at = (k: number) => (rows ? rows[k]! : k);
  const nested = fields.some((f) => f === 'moverEvidence' || f === 'engineIds');
  const alike = (s: Sample) =>
    JSON.stringify([
      ...fields.filter((f) => f !== 'moverEvidence' && f !== 'engineIds').map((f) => s[f] ?? null),
      nested ? [s.moverEvidence ?? null, s.engineIds ?? null] : null,
    ]);
  const { group, first } = t.groupsOf(fields, rows);
  expect(group).toHaveLength(samples.length);
  const seen = new Map<string, number>();
  const firsts: number[] = [];
  samples.forEach((s, i) => {
    const key = alike(s);
    if (!seen.has(key)) {
      seen.set(key, firsts.length);
      firsts.push(at(i));
    }
    expect(group[i], `sample ${i}`).toBe(seen.get(key));
  });
  expect(first).toStrictEqual(firsts);
}

/** Every field `pick` may be asked for. */
const PICK_FIELDS = Object.keys(SampleSchema.entries).filter((f): f is GroupField => f !== 'type' && f !== 'timesNs');

/**
 * What is read of some samples (`rows`) from the columns without building them, against the
 * samples themselves: groups, one number field, some fields (`pick`), the iteration times.
 */
function expectRowReads(t: SampleTable, samples: readonly Sample[], rows: readonly number[]): void {
  expectGroupsOf(t, samples, GROUP_FIELDS, rows);
  expectGroupsOf(t, samples, ['series', 'src', 'dst', 'moverEvidence'], rows);
  for (const f of ['sizeBytes', 'medianNs', 'src', 'wavesPerCu'] as const)
    expect([...t.numbersOf(f, rows)]).toStrictEqual(rows.map((i) => samples[i]![f] ?? NaN));
  const scratch = new Float64Array(64);
  for (const i of rows) {
    const s = samples[i]!;
    expect(t.numberAt('meanNs', i)).toBe(s.meanNs);
    expect(t.numberAt('gbpsMedian', i)).toBe(s.gbpsMedian ?? NaN);
    const fields = PICK_FIELDS.filter((_, k) => (i + k) % 3 !== 0);
    const want = Object.fromEntries(fields.filter((f) => s[f] !== undefined).map((f) => [f, s[f]]));
    expect(t.pick(i, fields)).toStrictEqual(want);
    expect(t.timesCountAt(i)).toBe(s.timesNs ? s.timesNs.length : -1);
    scratch.fill(-1);
    t.copyTimes(i, scratch);
    expect([...scratch.subarray(0, s.timesNs?.length ?? 0)]).toStrictEqual(s.timesNs ?? []);
  }
  expect(() => t.numbersOf('sizeBytes', [t.length])).toThrow(RangeError);
  expect(() => t.pick(-1, ['src'])).toThrow(RangeError);
  expect(() => t.groupsOf(['src'], [0.5])).toThrow(RangeError);
}

describe('SampleTable', () => {
  it('gives back every field as pushed, absent ones absent, in the schema order', () => {
    const only: Sample = {
      type: 'sample',
      mover: 'engine',
      initiator: 'device',
      src: 1,
      dst: 0,
      sizeBytes: 1,
      cus: 0,
      engines: 1,
      iters: 1,
      meanNs: 3,
      gbps: 0.5,
      validated: false,
    };
    const t = SampleTable.from([helperSample, everything, only]);
    expect(t.length).toBe(3);
    expect(t.toArray()).toStrictEqual([helperSample, everything, only]);
    expect(Object.keys(t.at(2)!)).toEqual(Object.keys(only));
    expect(JSON.stringify(t.at(0))).toBe(JSON.stringify(helperSample));
    expect(t.at(-1)).toStrictEqual(only);
    expect(t.at(3)).toBeUndefined();
    expect(JSON.parse(JSON.stringify({ samples: t }))).toEqual({ samples: [helperSample, everything, only] });
  });

  it('widens a column to Float64 for a value the narrow one cannot hold, keeping the earlier values', () => {
    const t = new SampleTable();
    t.push(helperSample);
    t.push({ ...helperSample, timesNs: [0.5, 2 ** 32, 7], cus: 2 ** 31, meanNs: -0 });
    t.push({ ...helperSample, timesNs: [] });
    t.push({ ...helperSample, timesNs: undefined });
    const [a, b, c, d] = t.toArray();
    expect(a).toStrictEqual(helperSample);
    expect(b!.timesNs).toEqual([0.5, 2 ** 32, 7]);
    expect(b!.cus).toBe(2 ** 31);
    expect(Object.is(b!.meanNs, -0)).toBe(true);
    expect(c!.timesNs).toEqual([]);
    expect(d).not.toHaveProperty('timesNs');
  });

  it('gives read-only samples (frozen, their times and nested fields too); `mapped` makes a changed table', () => {
    const t = SampleTable.from([helperSample]);
    expect(() => (t.at(0)!.timesNs![0] = 1)).toThrow(TypeError);
    expect(() => ((t.at(0) as { gbps: number }).gbps = 1)).toThrow(TypeError);
    expect(() => (t.at(0)!.moverEvidence!.detail = 'x')).toThrow(TypeError);
    expect(t.at(0)).toStrictEqual(helperSample);
    expect(t.mapped((s) => ({ ...s, dst: 0 })).at(0)!.dst).toBe(0);
    // toArray's array is the caller's own: changing it changes nothing stored.
    const a = t.toArray();
    a.pop();
    expect(t.toArray()).toHaveLength(1);
  });

  it('builds a small table once while its samples are held, and a pushed sample is seen', () => {
    const t = SampleTable.from([helperSample, { ...helperSample, dst: 2 }]);
    const first = t.toArray();
    expect(t.at(1)).toBe(first[1]);
    expect([...t][0]).toBe(first[0]);
    t.push({ ...helperSample, dst: 3 });
    expect(t.at(2)!.dst).toBe(3);
    expect(t.toArray().map((s) => s.dst)).toEqual([1, 2, 3]);
  });

  it('builds each sample of a big table on demand (nothing shared past SHARE_BUILT_MAX)', () => {
    const t = new SampleTable();
    for (let i = 0; i <= SHARE_BUILT_MAX; i++) t.push({ ...helperSample, meanNs: i });
    expect(t.at(5)).not.toBe(t.at(5));
    expect(t.at(5)).toStrictEqual(t.at(5));
  });

  it('holds a helper-shaped sample in under 200 bytes of columns', () => {
    const t = new SampleTable();
    for (let i = 0; i < 10_000; i++) t.push({ ...helperSample, sizeBytes: 4096 * (1 + (i % 17)), meanNs: 5718.1 + i });
    t.trim();
    expect(t.columnBytes() / t.length).toBeLessThan(200);
    expect(t.at(9_999)!.meanNs).toBe(5718.1 + 9_999);
  });

  it('grows a full column by an eighth once told what to expect (doubling otherwise), and gives the same samples', () => {
    const make = (i: number): Sample => ({ ...helperSample, meanNs: 5718.1 + i, label: `p${i % 3}` });
    const told = new SampleTable();
    told.expect(1000, helperSample.timesNs!.length);
    const plain = new SampleTable();
    for (let i = 0; i < 1001; i++) {
      told.push(make(i));
      plain.push(make(i));
    }
    // Before trim: 1125 slots told (1000 + 1000 / 8), 2048 by doubling; the pool alike.
    const tight = SampleTable.from(plain.toArray());
    tight.trim();
    expect(told.columnBytes() / tight.columnBytes()).toBeLessThan(1.15);
    expect(plain.columnBytes() / tight.columnBytes()).toBeGreaterThan(1.2);
    expect(told.toArray()).toStrictEqual(plain.toArray());
    told.trim();
    expect(told.toArray()).toStrictEqual(plain.toArray());
  });

  it('codes nested fields that alternate between a few values the same as the plain array', () => {
    const evidence = (detail: string) => ({
      source: 'simulated' as const,
      observed: 'cu' as const,
      verdict: 'matches' as const,
      detail,
    });
    const pattern = [0, 1, 0, 1, 2, 0, 3, 4, 5, 0, 1, 5, 6, 0];
    const samples: Sample[] = pattern.map((k, i) => ({
      ...helperSample,
      sizeBytes: 4096 * (i + 1),
      ...(k === 6 ? {} : { moverEvidence: evidence(`d${k}`) }),
      ...(k === 5 ? { engineIds: [1, 2] } : {}),
    }));
    const t = SampleTable.from(samples);
    expect(t.toArray()).toStrictEqual(samples.map((s) => v.parse(SampleSchema, s)));
  });

  it('builds a sample right after a column is added to a table whose samples were already built', () => {
    // `second` has a field no sample had (a new column, before `batch` in the schema's order)
    // and lacks the last one `first` has: as many fields as `first`, a shape of its own.
    const first: Sample = { ...helperSample, batch: 2 };
    const second: Sample = { ...helperSample, cusSeen: 4 };
    for (const t of [SampleTable.from([first]), SampleTable.from([first]).select([0])]) {
      expect(t.toArray()).toStrictEqual([first]);
      t.push(second);
      expect(t.toArray()).toStrictEqual([first, second]);
    }
  });

  it('groups samples alike in some fields, from the columns, in the order the groups appear', () => {
    // More groups than a sweep cycles through, met in turn, out of turn and again; fields absent from some samples.
    const samples: Sample[] = Array.from({ length: 300 }, (_, i) => {
      const { label: _label, traced: _traced, engineIds: _ids, ...rest } = everything;
      const k = i % 6 === 5 ? (i * 7) % 11 : i % 6;
      const s: Sample = {
        ...rest,
        mover: k % 2 === 0 ? 'cu' : 'engine',
        cus: k < 3 ? 8 : 64,
        moverEvidence: { ...helperSample.moverEvidence!, detail: `run ${k % 4}` },
        validated: k % 3 === 0,
        sizeBytes: 4096 * (i + 1),
      };
      if (k === 4) return { ...s, label: `l${k}`, traced: true, engineIds: [k] };
      // A fraction and -0 make Float64 columns (NaN where absent; -0 alike to 0).
      if (k === 7) return { ...s, wavesPerCu: 0.5, src: -0 };
      if (k === 9) {
        const { moverEvidence: _e, wavesPerCu: _w, ...bare } = s;
        return bare;
      }
      return s;
    });
    const t = SampleTable.from(samples);
    expectGroupsOf(t, samples, GROUP_FIELDS);
    expectGroupsOf(t, samples, ['cus']);
    expectGroupsOf(t, samples, ['engineIds', 'cus']);
    expectGroupsOf(t, samples, ['series', 'wavesPerCu', 'label']);
    expectRowReads(t, samples, [299, 5, 5, 0, 11, 7, 9, 4, ...Array.from({ length: 40 }, (_, i) => (i * 37) % 300)]);
    // No field: one group. No sample: none.
    expect(t.groupsOf([]).first).toStrictEqual([0]);
    expect(new SampleTable().groupsOf(GROUP_FIELDS)).toStrictEqual({ group: new Int32Array(0), first: [] });
    // The iteration times are not a field it groups by.
    expect(() => t.groupsOf(['timesNs' as GroupField])).toThrow(RangeError);
  });

  it('is the plain array it stands for, for any valid samples (fast-check)', () => {
    const count = fc.nat({ max: 2 ** 33 });
    const real = fc.oneof(fc.double({ min: 0, max: 1e12, noNaN: true }), count);
    const sample = fc.record(
      {
        type: fc.constant('sample' as const),
        mover: fc.constantFrom('cu', 'engine'),
        initiator: fc.constantFrom('host', 'device'),
        src: fc.integer({ min: -1, max: 1023 }),
        dst: fc.integer({ min: -1, max: 1023 }),
        sizeBytes: fc.integer({ min: 1, max: 2 ** 40 }),
        cus: count,
        engines: count,
        iters: fc.integer({ min: 1, max: 1000 }),
        timesNs: fc.array(real, { maxLength: 8 }),
        meanNs: real,
        minNs: real,
        maxNs: real,
        stdevNs: real,
        gbps: real,
        gbpsMax: real,
        validated: fc.boolean(),
        medianNs: real,
        gbpsMedian: real,
        mode: fc.constantFrom('pipelined', 'latency'),
        opsPerIter: fc.integer({ min: 1, max: 64 }),
        label: fc.string({ maxLength: 20 }),
        engineIds: fc.array(fc.nat(16), { maxLength: 4 }),
        traced: fc.boolean(),
        cusSeen: count,
        runtimeRule: fc.string({ maxLength: 30 }),
        waveSize: fc.constantFrom(32 as const, 64 as const),
        shmemSdma: fc.constantFrom('forced', 'library', 'off'),
      },
      {
        requiredKeys: [
          'type',
          'mover',
          'initiator',
          'src',
          'dst',
          'sizeBytes',
          'cus',
          'engines',
          'iters',
          'meanNs',
          'gbps',
          'validated',
        ],
      },
    );
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 60 }), (raw, picks) => {
        // Only what the schema accepts reaches a table, in the schema's output form.
        const samples = raw.flatMap((s) => {
          const r = v.safeParse(SampleSchema, s);
          return r.success ? [r.output] : [];
        });
        const t = SampleTable.from(samples);
        expect(t.toArray()).toStrictEqual(samples);
        t.trim();
        expect([...t]).toStrictEqual(samples);
        expectGroupsOf(t, samples, GROUP_FIELDS);
        expectGroupsOf(t, samples, ['engineIds', 'shmemSdma', 'iters']);
        // Some of the samples, in any order, repeated: read from the columns as the samples have them.
        const rows = samples.length > 0 ? picks.map((x) => x % samples.length) : [];
        expectRowReads(t, samples, rows);
      }),
      { numRuns: 300 },
    );
  });
});

describe('readRunFile, progress and cancel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sdma-sampletable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'run.ndjson');
  const points = 6000; // about 3.5 MB: four chunks
  writeFileSync(
    file,
    [
      JSON.stringify(runHeader('big', 'sweep', 'sdma-probe', ['sweep'])),
      ...Array.from({ length: points }, (_, i) => JSON.stringify({ ...helperSample, sizeBytes: 4096 + i })),
      '',
    ].join('\n'),
  );

  it('reports the bytes read after each chunk, up to the whole file', async () => {
    const seen: [number, number][] = [];
    const run = await readRunFile(file, { onProgress: (read, total) => seen.push([read, total]) });
    expect(run.samples.length).toBe(points);
    expect(run.samples.at(-1)!.sizeBytes).toBe(4096 + points - 1);
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThan(seen[i - 1]![0]);
    expect(seen.at(-1)![0]).toBe(seen.at(-1)![1]);
  });

  it('stops at the next chunk once cancelled, with RunReadCancelled', async () => {
    const ac = new AbortController();
    let chunks = 0;
    const read = readRunFile(file, {
      signal: ac.signal,
      onProgress: () => {
        if (++chunks === 1) ac.abort();
      },
    });
    await expect(read).rejects.toBeInstanceOf(RunReadCancelled);
    expect(chunks).toBe(1);
  });
});
