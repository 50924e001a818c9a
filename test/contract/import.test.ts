/**
 * `sdma-probe import`: a rocprofv3 profile made elsewhere (rocpd database or CSV folder) read
 * by the real helper into protocol records, every line validated against src/core/protocol.ts.
 * The rocpd input is our own format fixture (test/fixtures/rocpd, built from its SQL script);
 * the CSV input is the public rocprofv3 sample, cross-checked with the TypeScript CSV reader.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { CopyOp, Dispatch, HelperRecord } from '../../src/core/protocol';
import { readKernelTrace, readMemoryCopyTrace } from '../support/rocprofv3';
import { helper, records } from './run';

const fixture = (...p: string[]) => join(inject('repoRoot'), 'test', 'fixtures', ...p);
const dispatches = (rs: HelperRecord[]) => rs.filter((r): r is Dispatch => r.type === 'dispatch');
const copies = (rs: HelperRecord[]) => rs.filter((r): r is CopyOp => r.type === 'copy');

/** Import's documented order: hello, dispatch/copy* in start order, warning*, then error? and done. */
function expectImportOrder(rs: HelperRecord[]) {
  const types = rs.map((r) => r.type);
  expect(types[0]).toBe('hello');
  expect(types.at(-1)).toBe('done');
  const firstWarning = types.findIndex((t) => t === 'warning' || t === 'error' || t === 'done');
  for (const t of types.slice(1, firstWarning)) expect(['dispatch', 'copy']).toContain(t);
  for (const t of types.slice(firstWarning, -1)) expect(['warning', 'error']).toContain(t);
  const starts = rs.flatMap((r) => (r.type === 'dispatch' || r.type === 'copy' ? [r.startNs] : []));
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
}

describe('sdma-probe import --rocpd', () => {
  it('reads the rocpd fixture: names, GPUs from the agent table, bytes, directions, times from the first record', () => {
    const r = helper(['import', '--rocpd', fixture('rocpd', 'fixture.db')]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectImportOrder(rs);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'import', backend: 'hip', simulated: false });
    expect(rs.some((x) => x.type === 'topology' || x.type === 'program')).toBe(false);
    expect(rs.filter((x) => x.type === 'warning')).toEqual([]);
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });

    const d = dispatches(rs);
    expect(d.map((x) => [x.name, x.gpu])).toEqual([
      ['fusedComputeA2a(float const*, float* const*, int, int, unsigned long)', 0],
      ['fusedComputeA2a(float const*, float* const*, int, int, unsigned long)', 1],
      ['computeKernel(float*, int)', 1],
      ['fusedComputeA2a(float const*, float* const*, int, int, unsigned long)', 0],
    ]);
    expect(d[0]).toMatchObject({
      mangled: '_Z15fusedComputeA2aPKfPKPfiim',
      startNs: 7,
      endNs: 180007,
      grid: [65536, 1, 1],
      block: [256, 1, 1],
      source: 'rocprofv3',
      correlationId: 12,
    });
    // 9007199255300001 - 9007199254740993: exact although both are beyond 2^53.
    expect(d[3]).toMatchObject({ startNs: 559008, endNs: 740006 });

    const c = copies(rs);
    expect(c.map((x) => [x.label, x.srcGpu, x.dstGpu, x.bytes])).toEqual([
      ['HOST_TO_DEVICE', -1, 0, 8388608],
      ['DEVICE_TO_DEVICE', 0, 1, 16777216],
      ['DEVICE_TO_HOST', 1, -1, 4096],
    ]);
    expect(c[0]).toMatchObject({ mover: 'engine', initiator: 'host', source: 'rocprofv3', startNs: 0, endNs: 507 });
  });

  it('bad input: a clear error record and a non-zero exit, never an empty success', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-import-'));
    try {
      const missing = helper(['import', '--rocpd', join(dir, 'none.db')]);
      expect(missing.status).toBe(1);
      expect(records(missing).find((x) => x.type === 'error')).toMatchObject({ code: 'import-not-found' });

      const text = join(dir, 'notes.db');
      writeFileSync(text, 'these are not the rows you are looking for\n');
      const notDb = helper(['import', '--rocpd', text]);
      expect(notDb.status).toBe(1);
      const rs = records(notDb);
      expectImportOrder(rs);
      expect(rs.find((x) => x.type === 'warning')).toMatchObject({ code: 'rocpd-unreadable' });
      expect(rs.find((x) => x.type === 'error')).toMatchObject({ code: 'import-empty' });
      expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'error' });

      const folder = helper(['import', '--rocpd', dir]);
      expect(folder.status).toBe(1);
      expect(records(folder).find((x) => x.type === 'error')).toMatchObject({ code: 'import-not-a-file' });

      for (const args of [
        ['import'],
        ['import', '--rocpd'],
        ['import', '--rocpd', text, '--rocprofv3-csv', dir],
        ['import', '--what', 'x'],
      ]) {
        const usage = helper(args);
        expect(usage.status).toBe(2);
        expect(records(usage).find((x) => x.type === 'error')).toMatchObject({ code: 'usage' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sdma-probe import --rocprofv3-csv', () => {
  it('reads the public CSV sample as the TypeScript reader does', () => {
    const r = helper(['import', '--rocprofv3-csv', fixture('rocprofv3')]);
    expect(r.status).toBe(0);
    const rs = records(r);
    expectImportOrder(rs);
    const kernels = readKernelTrace(readFileSync(fixture('rocprofv3', 'kernel_trace.csv'), 'utf8'));
    const memcpy = readMemoryCopyTrace(readFileSync(fixture('rocprofv3', 'memory_copy_trace.csv'), 'utf8'));
    const d = dispatches(rs);
    const c = copies(rs);
    expect(d).toHaveLength(kernels.length);
    expect(c).toHaveLength(memcpy.length);
    expect(new Set(d.map((x) => x.name))).toEqual(new Set(kernels.map((k) => k.name)));
    // Times count from the earliest record of either file, durations unchanged.
    const zero = Math.min(...kernels.map((k) => k.startNs), ...memcpy.map((m) => m.startNs));
    const expected = kernels.map((k) => [k.startNs - zero, k.endNs - zero]).sort((a, b) => a[0]! - b[0]!);
    expect(d.map((x) => [x.startNs, x.endNs])).toEqual(expected);
    // The sample predates the Bytes column: said, not hidden.
    expect(rs.find((x) => x.type === 'warning')).toMatchObject({ code: 'rocprofv3-no-bytes' });
  });

  it('a folder without rocprofv3 output is an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdma-import-'));
    try {
      const r = helper(['import', '--rocprofv3-csv', dir]);
      expect(r.status).toBe(1);
      const rs = records(r);
      expect(rs.find((x) => x.type === 'warning')).toMatchObject({ code: 'rocprofv3-no-output' });
      expect(rs.find((x) => x.type === 'error')).toMatchObject({ code: 'import-empty' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
