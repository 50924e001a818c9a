import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fastPredicate } from '../../src/core/fastCheck';
import {
  DeviceSpanSchema,
  DoneSchema,
  ErrorSchema,
  LibraryCallsSchema,
  MatrixCellSchema,
  MatrixTotalSchema,
  ProgressSchema,
  SampleSchema,
  TopologySchema,
  WarningSchema,
} from '../../src/core/protocol';
import { sample } from '../support/records';

/** Values chosen to sit on every edge the schemas draw: types, signs, integers, limits, NaN. */
const oddValue = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    true,
    false,
    '',
    'cu',
    'engine',
    'host',
    'device',
    'sample',
    'x'.repeat(5000),
    0,
    -0,
    1,
    -1,
    0.5,
    1023,
    1024,
    Number.NaN,
    Infinity,
    -Infinity,
    2 ** 53,
    [],
    [1, 2],
    [-1],
    [Number.NaN],
    {},
    { a: 1 },
  ),
  fc.double(),
  fc.integer({ min: -5, max: 2000 }),
  fc.string(),
  fc.array(fc.oneof(fc.double(), fc.integer(), fc.string()), { maxLength: 4 }),
);

/** A valid record with some fields replaced by odd values, some removed, and maybe an extra key. */
function mutations(base: Record<string, unknown>) {
  const keys = Object.keys(base);
  return fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...keys), oddValue, { maxKeys: 3 }),
      drop: fc.subarray(keys, { maxLength: 2 }),
      extra: fc.option(fc.tuple(fc.string(), oddValue)),
    })
    .map(({ replace, drop, extra }) => {
      const out: Record<string, unknown> = { ...base, ...replace };
      for (const k of drop) delete out[k];
      if (extra) out[`x_${extra[0]}`] = extra[1];
      return out;
    });
}

const topology = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'), 'utf8')
    .split('\n')
    .find((l) => l.includes('"topology"'))!,
);

const cases: [string, v.GenericSchema, Record<string, unknown>][] = [
  [
    'sample',
    SampleSchema,
    {
      ...sample(),
      medianNs: 10,
      mode: 'pipelined',
      opsPerIter: 4,
      label: 'proxy-initiated',
      engineIds: [2, 3],
      traced: true,
      cusSeen: 8,
    },
  ],
  ['progress', ProgressSchema, { type: 'progress', done: 3, total: 10, message: 'x' }],
  ['done', DoneSchema, { type: 'done', status: 'ok', samples: 3, elapsedMs: 1.5 }],
  ['warning', WarningSchema, { type: 'warning', code: 'simulated', message: 'm' }],
  ['error', ErrorSchema, { type: 'error', code: 'usage', message: 'm', detail: 'd', hint: 'h' }],
  ['topology', TopologySchema, topology],
  [
    'matrix-cell',
    MatrixCellSchema,
    {
      type: 'matrix-cell',
      mover: 'engine',
      initiator: 'host',
      src: 3,
      dst: 5,
      sizeBytes: 268435456,
      cus: 0,
      engines: 1,
      iters: 20,
      medianNs: 4.4e6,
      meanNs: 4.5e6,
      minNs: 4.3e6,
      maxNs: 4.9e6,
      gbps: 61,
      gbpsMean: 59.6,
      validated: true,
      mode: 'pipelined',
      opsPerIter: 4,
      label: 'proxy-initiated',
    },
  ],
  [
    'matrix-cell, all pairs at once',
    MatrixCellSchema,
    {
      type: 'matrix-cell',
      mover: 'cu',
      initiator: 'host',
      src: 0,
      dst: 1,
      sizeBytes: 268435456,
      cus: 64,
      engines: 0,
      iters: 3,
      medianNs: 4.8e6,
      meanNs: 4.8e6,
      minNs: 4.7e6,
      maxNs: 4.9e6,
      gbps: 55.9,
      gbpsMean: 55.9,
      validated: true,
      concurrent: true,
    },
  ],
  [
    'matrix-total',
    MatrixTotalSchema,
    {
      type: 'matrix-total',
      mover: 'engine',
      initiator: 'host',
      sizeBytes: 268435456,
      cus: 0,
      pairs: 56,
      iters: 3,
      bytes: 45097156608,
      seconds: 0.0164,
      gbps: 2752.4,
      gpus: [
        { gpu: 0, sendGbps: 393.4, receiveGbps: 392.2 },
        { gpu: 1, sendGbps: 390.3, receiveGbps: 394.5 },
      ],
    },
  ],
  [
    'library-calls',
    LibraryCallsSchema,
    {
      type: 'library-calls',
      library: 'rccl',
      op: 'AllToAll',
      transport: 'sdma',
      sizeKind: 'bytesPerPeer',
      minBytes: 524288,
      maxBytes: 1048576,
      calls: 38,
      ranks: 8,
      evidence: 'AllToAll GIN: transport=sdma bytesPerPeer=524288 threads=64',
    },
  ],
  // Run mode sends up to 200,000 of these per run: they must take the fast path.
  [
    'device-span',
    DeviceSpanSchema,
    {
      type: 'device-span',
      gpu: 1,
      cu: 77,
      xcc: 0,
      label: 'a2a',
      startNs: 431_002_117,
      endNs: 431_019_840,
      bytes: 131072,
      peer: 0,
      mover: 'cu',
      pull: false,
    },
  ],
  [
    'device-span of a scope on another XCC',
    DeviceSpanSchema,
    {
      type: 'device-span',
      gpu: 7,
      cu: 31,
      xcc: 7,
      label: 'compute',
      startNs: -12,
      endNs: 0,
      bytes: 0,
      peer: -1,
      mover: 'engine',
      pull: true,
    },
  ],
  [
    'error of a matrix cell',
    ErrorSchema,
    {
      type: 'error',
      code: 'peer-access',
      message: 'm',
      hint: 'h',
      cell: { mover: 'cu', initiator: 'device', src: 1, dst: 0 },
    },
  ],
];

describe('the ingest fast path read off the schemas', () => {
  it.each(cases)('%s: never accepts what the schema rejects (property)', (_name, schema, base) => {
    const fast = fastPredicate(schema)!;
    expect(fast).toBeDefined();
    fc.assert(
      fc.property(mutations(base), (record) => !fast(record) || v.safeParse(schema, record).success),
      { numRuns: 3000 },
    );
  });

  it.each(cases)('%s: accepts the valid record, so the fast path is really taken', (_name, schema, base) => {
    expect(v.safeParse(schema, base).success).toBe(true);
    expect(fastPredicate(schema)!(base)).toBe(true);
  });

  it('declines schemas it cannot read (e.g. unions), leaving them to valibot', () => {
    expect(fastPredicate(v.union([v.string(), v.number()]))).toBeUndefined();
    expect(fastPredicate(v.object({ a: v.pipe(v.string(), v.regex(/x/)) }))).toBeUndefined();
  });
});
