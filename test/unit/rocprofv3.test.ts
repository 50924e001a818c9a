import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectKernels } from '../../src/core/kernels/detect';
import { baseName, matchKernel } from '../../src/core/kernels/names';
import { parseCsv } from '../support/csv';
import { TraceFormatError, readKernelTrace, readMemoryCopyTrace, readRcclTrace } from '../support/rocprofv3';

const fixture = (f: string) => readFileSync(join(__dirname, '../fixtures/rocprofv3', f), 'utf8');

describe('rocprofv3 CSV traces (public samples)', () => {
  it('reads kernel dispatches with their names, grid and times', () => {
    const k = readKernelTrace(fixture('kernel_trace.csv'));
    expect(k).toHaveLength(8);
    expect(k[0]).toMatchObject({
      agentId: 2,
      dispatchId: 1,
      name: 'void addition_kernel<float>(float*, float const*, float const*, int, int)',
      gridSize: [1024, 1024, 1],
      workgroupSize: [64, 1, 1],
    });
    for (const d of k) expect(d.endNs).toBeGreaterThan(d.startNs);
    expect(k[0]!.endNs - k[0]!.startNs).toBe(16157);
  });

  it('reads memory copies and RCCL calls', () => {
    const m = readMemoryCopyTrace(fixture('memory_copy_trace.csv'));
    expect(m).toHaveLength(4);
    expect(m[0]).toMatchObject({ direction: 'HOST_TO_DEVICE', srcAgentId: 0, dstAgentId: 2 });
    const r = readRcclTrace(fixture('rccl_trace.csv'));
    expect(r.length).toBeGreaterThan(5);
    expect(r[0]?.function).toBe('ncclGetVersion');
  });

  it('says clearly when a file is not what it should be', () => {
    expect(() => readKernelTrace('"a","b"\n1,2\n')).toThrow(TraceFormatError);
    expect(() => readKernelTrace(fixture('memory_copy_trace.csv'))).toThrow(/missing columns Kernel_Name/);
    expect(() =>
      readMemoryCopyTrace(
        '"Kind","Direction","Stream_Id","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n"MEMORY_COPY","X",1,0,2,1,99999999999999999999,1\n',
      ),
    ).toThrow(/too large/);
  });

  it('parses quoted CSV fields with commas, doubled quotes and CRLF', () => {
    expect(parseCsv('"a,b","c""d"\r\n1,"x\ny"\n')).toEqual([
      ['a,b', 'c"d'],
      ['1', 'x\ny'],
    ]);
  });
});

describe('printed kernel names back to source', () => {
  it('strips return type, templates and parameters', () => {
    expect(baseName('void addition_kernel<float>(float*, float const*, float const*, int, int)')).toBe(
      'addition_kernel',
    );
    expect(baseName('subtract_kernel(float*, float const*, float const*, int, int)')).toBe('subtract_kernel');
    expect(baseName('void sdma::detail::in_namespace(int*, int)')).toBe('sdma::detail::in_namespace');
    expect(baseName('void k<std::pair<int, float>, 4>(int)')).toBe('k');
    expect(baseName('_ZN4sdma6detail12in_namespaceEPii')).toBe('sdma::detail::in_namespace');
    expect(baseName('_Z6simplePf')).toBe('simple');
  });

  it('maps dispatches to detected kernels, and reports ambiguity instead of guessing', () => {
    const sites = detectKernels(fixture('../kernels/shapes.hip'));
    expect(matchKernel('void templated_copy<float, 4>(float const*, float*, unsigned long)', sites)).toMatchObject({
      kind: 'unique',
      site: { name: 'templated_copy' },
    });
    expect(matchKernel('_ZN4sdma6detail12in_namespaceEPii', sites)).toMatchObject({
      kind: 'unique',
      site: { qualifiedName: 'sdma::detail::in_namespace' },
    });
    expect(matchKernel('other_kernel(int)', sites)).toEqual({ kind: 'none' });
    const twice = detectKernels('namespace a { __global__ void k() {} }\nnamespace b { __global__ void k() {} }\n');
    expect(matchKernel('k()', twice)).toMatchObject({ kind: 'ambiguous' });
    expect(matchKernel('void b::k()', twice)).toMatchObject({ kind: 'unique', site: { qualifiedName: 'b::k' } });
  });
});
