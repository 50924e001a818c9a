/**
 * The plain sample check (`isPlainSample`, the fast path of reading a run file and of
 * `validateRecord`) against the full schema: on the simulator's samples, on samples with every
 * optional field, and on 60,000 random mutations of them (fields removed, set to values at and
 * past each bound, of the wrong type, the evidence's fields likewise), the two must give the same
 * answer: accepted by the check exactly when the schema accepts it and its evidence verdict is
 * consistent. A check that let through anything the schema refuses, or refused a plain valid
 * sample, fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { Mover, ObservedMover } from '../../src/core/protocol';
import {
  MoverEvidenceSchema,
  PLAIN_EVIDENCE_FIELDS,
  PLAIN_SAMPLE_FIELDS,
  SampleSchema,
  isPlainSample,
  validateRecord,
  verdictOf,
} from '../../src/core/protocol';

/** xorshift32: the same cases on every run, so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** The full verdict: the schema, then the evidence's verdict against the sample's mover. */
function schemaAccepts(value: unknown): boolean {
  const r = v.safeParse(SampleSchema, value);
  if (!r.success) return false;
  const e = r.output.moverEvidence;
  return !e || e.verdict === verdictOf(r.output.mover as Mover, e.observed as ObservedMover);
}

const simSamples = (): Record<string, unknown>[] =>
  readFileSync(join(__dirname, '..', 'fixtures', 'runs', 'sim-sweep-seed1.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"sample"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A sample with every field of the schema present and valid. */
const FULL: Record<string, unknown> = {
  type: 'sample',
  mover: 'engine',
  initiator: 'device',
  src: -1,
  dst: 1023,
  sizeBytes: 1,
  cus: 0,
  engines: 2,
  iters: 1,
  timesNs: [0, 1.5, 4294967296],
  meanNs: 0,
  minNs: 0.5,
  maxNs: 7,
  stdevNs: 0,
  gbps: 12.5,
  gbpsMax: 13,
  validated: false,
  medianNs: 3,
  gbpsMedian: 12,
  mode: 'one-shot',
  opsPerIter: 1,
  label: 'rocshmem-sdma',
  engineIds: [0, 3],
  traced: true,
  cusSeen: 0,
  series: 'runtime-default',
  runtimeRule: 'x'.repeat(256),
  moverEvidence: {
    source: 'kfd-sdma',
    observed: 'engine',
    verdict: 'matches',
    detail: 'd'.repeat(256),
    copyKind: 'k'.repeat(16),
    channelType: 'async-memcpy',
    channelId: 4294967295,
    kernel: 'kernel',
    records: 0,
    sdmaUs: 5,
    engineUs: 1.25,
  },
  wavesPerCu: 64,
  waveSize: 32,
  split: 64,
  splitOver: 'channels',
  batch: 1024,
  shmemSdma: 'library',
};

/** Values at and past every bound the schemas have, of every JSON type and then some. */
const ODD: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  2,
  -1,
  -2,
  1.5,
  32,
  64,
  65,
  1023,
  1024,
  1025,
  4294967295,
  4294967296,
  Number.MAX_SAFE_INTEGER + 2,
  Infinity,
  -Infinity,
  NaN,
  '',
  '1',
  'k'.repeat(16),
  'k'.repeat(17),
  'd'.repeat(256),
  'd'.repeat(257),
  'l'.repeat(4096),
  'l'.repeat(4097),
  'cu',
  'engine',
  'host',
  'device',
  'unknown',
  'one-shot',
  'pipelined',
  'runtime-default',
  'engines',
  'streams',
  'channels',
  'forced',
  'library',
  'off',
  'matches',
  'contradicts',
  'not-observed',
  'none',
  'kfd-sdma',
  'cupti',
  'rocshmem-log',
  'simulated',
  'sample',
  [],
  [0],
  [1, 2],
  [-1],
  [1.5],
  [Infinity],
  ['1'],
  [null],
  {},
  { source: 'simulated', observed: 'cu', verdict: 'matches', detail: '' },
  { source: 'simulated', observed: 'engine', verdict: 'matches', detail: '' },
  { source: 'none', observed: 'unknown', verdict: 'not-observed', detail: 'x' },
  { source: 'none', observed: 'unknown', verdict: 'matches', detail: 'x' },
];

function mutate(base: Record<string, unknown>, pick: (n: number) => number): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  const edits = 1 + pick(3);
  for (let k = 0; k < edits; k++) {
    const field = PLAIN_SAMPLE_FIELDS[pick(PLAIN_SAMPLE_FIELDS.length)]!;
    const evidence = out.moverEvidence;
    if (field === 'moverEvidence' && typeof evidence === 'object' && evidence !== null && pick(2) === 0) {
      // An edit inside the evidence.
      const e = { ...(evidence as Record<string, unknown>) };
      const key = PLAIN_EVIDENCE_FIELDS[pick(PLAIN_EVIDENCE_FIELDS.length)]!;
      const x = ODD[pick(ODD.length)];
      if (x === undefined) delete e[key];
      else e[key] = x;
      out.moverEvidence = e;
      continue;
    }
    const x = field === 'timesNs' && pick(2) === 0 ? [1, 2, ODD[pick(ODD.length)], 4] : ODD[pick(ODD.length)];
    if (x === undefined) delete out[field];
    else out[field] = x;
  }
  // Now and then a field the schema does not know (kept out of the table, never refused).
  if (pick(8) === 0) out.extra = ODD[pick(ODD.length)];
  return out;
}

describe('isPlainSample, the plain check of a sample', () => {
  it('knows the fields of the sample and evidence schemas, in their order', () => {
    expect([...PLAIN_SAMPLE_FIELDS]).toEqual(Object.keys(SampleSchema.entries));
    expect([...PLAIN_EVIDENCE_FIELDS]).toEqual(Object.keys(MoverEvidenceSchema.entries));
  });

  it('accepts the helper samples and a sample with every field', () => {
    for (const s of [...simSamples(), FULL]) {
      expect(schemaAccepts(s)).toBe(true);
      expect(isPlainSample(s)).toBe(true);
    }
  });

  it('refuses what is not a sample object', () => {
    for (const x of [null, undefined, 1, 'sample', [], [FULL], { ...FULL, type: 'matrix-cell' }])
      expect(isPlainSample(x)).toBe(false);
  });

  it('gives the same answer as the schema on 60,000 mutated samples', () => {
    const pick = rng(20261204);
    const bases = [...simSamples(), FULL];
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 60_000; i++) {
      // Sometimes a mutation of a mutation, to reach pairs of odd fields.
      let s = mutate(bases[pick(bases.length)]!, pick);
      if (pick(4) === 0) s = mutate(s, pick);
      const full = schemaAccepts(s);
      const plain = isPlainSample(s);
      if (plain !== full) expect({ case: i, sample: s, plain }).toEqual({ case: i, sample: s, plain: full });
      // validateRecord, fast path or not, says the same.
      expect(validateRecord(s).kind === 'record').toBe(full);
      if (full) accepted++;
      else refused++;
    }
    // Both sides of the boundary were reached, many times.
    expect(accepted).toBeGreaterThan(2_000);
    expect(refused).toBeGreaterThan(5_000);
  });

  it('refuses an evidence verdict that contradicts the sample, as validateRecord does', () => {
    const s = { ...FULL, moverEvidence: { ...(FULL.moverEvidence as object), verdict: 'contradicts' } };
    expect(isPlainSample(s)).toBe(false);
    expect(validateRecord(s).kind).toBe('malformed');
  });
});
