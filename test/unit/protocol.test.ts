import { describe, expect, it } from 'vitest';
import {
  CollectiveSchema,
  CollectiveVariantSchema,
  CopySchema,
  DeviceSpanSchema,
  DispatchSchema,
  LibraryCallsSchema,
  MatrixCellSchema,
  MatrixTotalSchema,
  OverlapSchema,
  ProgramSchema,
  RECORD_SCHEMAS,
  RECORD_TYPES,
  TimelineSchema,
  parseLine,
} from '../../src/core/protocol';
import { done, hello, sample } from '../support/records';

describe('protocol', () => {
  it('a schema built at its first use is the exported one: one definition of each record', () => {
    expect(RECORD_SCHEMAS.timeline).toBe(TimelineSchema);
    expect(RECORD_SCHEMAS['matrix-cell']).toBe(MatrixCellSchema);
    expect(RECORD_SCHEMAS['matrix-total']).toBe(MatrixTotalSchema);
    expect(RECORD_SCHEMAS['collective-variant']).toBe(CollectiveVariantSchema);
    expect(RECORD_SCHEMAS.collective).toBe(CollectiveSchema);
    expect(RECORD_SCHEMAS.overlap).toBe(OverlapSchema);
    expect(RECORD_SCHEMAS.program).toBe(ProgramSchema);
    expect(RECORD_SCHEMAS.dispatch).toBe(DispatchSchema);
    expect(RECORD_SCHEMAS.copy).toBe(CopySchema);
    expect(RECORD_SCHEMAS['device-span']).toBe(DeviceSpanSchema);
    expect(RECORD_SCHEMAS['library-calls']).toBe(LibraryCallsSchema);
    // Read twice, the same schema: built once.
    for (const type of RECORD_TYPES) expect(RECORD_SCHEMAS[type]).toBe(RECORD_SCHEMAS[type]);
    expect(RECORD_TYPES).toHaveLength(20);
  });

  it('accepts each record type of docs/PROTOCOL.md', () => {
    for (const r of [
      hello,
      sample(),
      done,
      { type: 'progress', done: 1, total: 4 },
      { type: 'heartbeat', elapsedMs: 2001 },
      { type: 'warning', code: 'simulated', message: 'x' },
      { type: 'error', code: 'usage', message: 'bad' },
    ]) {
      expect(parseLine(JSON.stringify(r))).toMatchObject({ kind: 'record', record: { type: r.type } });
    }
  });

  it('device-span: peer -1 is a scope; a CU, XCC or peer outside the hardware ids is refused with the field named', () => {
    const span = {
      type: 'device-span',
      gpu: 0,
      cu: 12,
      xcc: 3,
      label: 'a2a',
      startNs: 10,
      endNs: 20,
      bytes: 0,
      peer: -1,
      mover: 'cu',
      pull: false,
    };
    expect(parseLine(JSON.stringify(span))).toMatchObject({ kind: 'record', record: span });
    for (const [field, value] of [
      ['cu', 1024],
      ['xcc', -1],
      ['peer', -2],
      ['peer', 1.5],
      ['mover', 'sm'],
      ['pull', 0],
    ] as const) {
      const r = parseLine(JSON.stringify({ ...span, [field]: value }));
      expect(r.kind).toBe('malformed');
      expect(r.kind === 'malformed' && r.reason).toMatch(new RegExp(`^device-span\\.${field}: `));
    }
  });

  it('ignores unknown fields but keeps known ones', () => {
    const r = parseLine(JSON.stringify({ ...sample(), futureField: { nested: true } }));
    expect(r.kind).toBe('record');
    expect(r.kind === 'record' && r.record.type === 'sample' && r.record.gbps).toBeGreaterThan(0);
  });

  it('reports an unknown type without failing', () => {
    expect(parseLine('{"type":"hologram","x":1}')).toEqual({ kind: 'unknown-type', type: 'hologram' });
  });

  it.each([
    ['not JSON', '{"type":"sample",'],
    ['an array', '[1,2]'],
    ['no type', '{"x":1}'],
    ['a number type', '{"type":7}'],
    ['a negative size', JSON.stringify(sample({ sizeBytes: -1 }))],
    ['a bad mover', JSON.stringify({ ...sample(), mover: 'dma' })],
    ['a string where a number belongs', JSON.stringify({ ...sample(), gbps: '12' })],
    ['another protocol version', JSON.stringify({ ...hello, protocol: 2 })],
    ['an infinite time', JSON.stringify(sample()).replace('"meanNs":20000', '"meanNs":1e999')],
    ['a prototype-pollution key as type', '{"type":"__proto__"}'],
  ])('calls %s malformed or unknown, with a reason', (_what, text) => {
    const r = parseLine(text);
    expect(r.kind).not.toBe('record');
    if (r.kind === 'malformed') expect(r.reason.length).toBeGreaterThan(5);
  });

  it('names the field that failed', () => {
    const r = parseLine(JSON.stringify({ ...sample(), cus: 1.5 }));
    expect(r).toMatchObject({ kind: 'malformed' });
    expect(r.kind === 'malformed' && r.reason).toMatch(/^sample\.cus/);
  });
});
