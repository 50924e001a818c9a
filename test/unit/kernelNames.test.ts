/**
 * Printed kernel names back to the `__global__` kernels of the sources (kernels/names.ts), on
 * names the helper really printed: its `name` (demangled by the C++ runtime) and, for run files
 * whose `name` is still mangled, the `mangled` it kept beside it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectKernels } from '../../src/core/kernels/detect';
import { baseName, matchKernel } from '../../src/core/kernels/names';
import { kernelNameMatches } from '../../src/core/timeline/timelineFilter';

const repo = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

/** Every distinct (name, mangled) pair of the dispatches in a run file. */
function dispatchNames(path: string): { name: string; mangled: string }[] {
  const pairs = new Map<string, string>();
  for (const line of read(path).split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as { type?: string; name?: string; mangled?: string };
    if (r.type === 'dispatch' && r.name && r.mangled) pairs.set(r.name, r.mangled);
  }
  return [...pairs].map(([name, mangled]) => ({ name, mangled }));
}

describe('names CUPTI printed on an H200 (examples/fused-a2a-cuda)', () => {
  const sites = detectKernels(read('examples/fused-a2a-cuda/fused_a2a.cu'));
  const runs = [
    'test/fixtures/runmode/h200x1/runmode-fused-a2a.ndjson',
    'test/fixtures/runmode/runmode-fused-a2a.ndjson',
  ];

  it.each(runs)('%s: each demangled name is its kernel in the unnamed namespace', (run) => {
    const pairs = dispatchNames(run);
    expect(pairs.map((p) => p.name).sort()).toEqual([
      '(anonymous namespace)::computeKernel(float*, unsigned long)',
      '(anonymous namespace)::fusedComputeA2a(float const*, float* const*, int, int, unsigned long)',
    ]);
    for (const { name } of pairs) {
      const m = matchKernel(name, sites);
      expect(m.kind, name).toBe('unique');
      if (m.kind === 'unique') expect(`(anonymous)::${m.site.name}`).toBe(baseName(name));
    }
  });

  it.each(runs)('%s: a run file whose name is still mangled lands on the same kernel', (run) => {
    for (const { name, mangled } of dispatchNames(run)) {
      expect(mangled).toMatch(/^_ZN41_GLOBAL__N__/);
      expect(baseName(mangled)).toBe(baseName(name));
      expect(matchKernel(mangled, sites)).toEqual(matchKernel(name, sites));
      expect(
        kernelNameMatches(mangled, name.slice(name.indexOf('::') + 2, name.indexOf('(', name.indexOf('::')))),
      ).toBe(true);
    }
  });

  it('the timeline filter takes the short name, with or without the unnamed namespace', () => {
    const name = '(anonymous namespace)::fusedComputeA2a(float const*, float* const*, int, int, unsigned long)';
    expect(kernelNameMatches(name, 'fusedComputeA2a')).toBe(true);
    expect(kernelNameMatches(name, '(anonymous namespace)::fusedComputeA2a')).toBe(true);
    expect(kernelNameMatches(name, 'computeKernel')).toBe(false);
  });
});

describe('names rocprofv3 kept (test/fixtures/rocpd)', () => {
  // kernel_name (as compiled) beside display_name (as rocprofv3 prints it) in rocpd_info_kernel_symbol.
  const symbols = [...read('test/fixtures/rocpd/make-fixture.sql').matchAll(/\(\d+, '(_Z\w+)', '([^']+)'\)/g)].map(
    (m) => ({ mangled: m[1]!, name: m[2]! }),
  );

  it('both forms give the kernel name', () => {
    expect(symbols.map((s) => [s.name, baseName(s.name), baseName(s.mangled)])).toEqual([
      ['fusedComputeA2a(float const*, float* const*, int, int, unsigned long)', 'fusedComputeA2a', 'fusedComputeA2a'],
      ['computeKernel(float*, int)', 'computeKernel', 'computeKernel'],
    ]);
  });
});

describe('demangled signatures', () => {
  // As abi::__cxa_demangle prints what g++ mangled (native/tests/demangle_test.cpp holds the pairs).
  it.each([
    ['void addition_kernel<float>(float*, float const*, float const*, int, int)', 'addition_kernel'],
    ['void templated_copy<float, 4>(float const*, float*, unsigned long)', 'templated_copy'],
    ['sdma::detail::in_namespace(int*, int)', 'sdma::detail::in_namespace'],
    ['void a::b::cxx17_nested(char, int)', 'a::b::cxx17_nested'],
    ['void apply<main::{lambda(float)#1}>(main::{lambda(float)#1}, int)', 'apply'],
    ['void k<std::pair<int, float>, 4>(int)', 'k'],
    ['(anonymous namespace)::computeKernel(float*, unsigned long)', '(anonymous)::computeKernel'],
    ['(anonymous namespace)::k', '(anonymous)::k'],
    ['simple(float*) [clone .kd]', 'simple'],
  ])('%s -> %s', (printed, name) => {
    expect(baseName(printed)).toBe(name);
  });

  it('names that were never mangled pass as they are', () => {
    expect(baseName('c_linkage')).toBe('c_linkage');
    expect(baseName('__omp_offloading_10302_2a1c3f_main_l12')).toBe('__omp_offloading_10302_2a1c3f_main_l12');
  });

  it('match the kernels of a source with templates and namespaces', () => {
    const sites = detectKernels(read('test/fixtures/kernels/shapes.hip'));
    const qualified = (printed: string) => {
      const m = matchKernel(printed, sites);
      return m.kind === 'unique' ? m.site.qualifiedName : m.kind;
    };
    expect(qualified('void templated_copy<float, 4>(float const*, float*, unsigned long)')).toBe('templated_copy');
    expect(qualified('sdma::detail::in_namespace(int*, int)')).toBe('sdma::detail::in_namespace');
    expect(qualified('a::b::cxx17_nested(char, int)')).toBe('a::b::cxx17_nested');
    expect(qualified('c_linkage')).toBe('c_linkage');
    expect(qualified('other_kernel(int)')).toBe('none');
  });
});

describe('names still mangled (the length-prefixed identifiers only)', () => {
  it.each([
    ['_Z6simplePf', 'simple'],
    ['_ZL6simplePf', 'simple'],
    ['_ZN4sdma6detail12in_namespaceEPii', 'sdma::detail::in_namespace'],
    ['_Z14templated_copyIfLi4EEvPKT_PS0_m', 'templated_copy'],
    ['_ZN12_GLOBAL__N_113computeKernelEPfm', '(anonymous)::computeKernel'],
  ])('%s -> %s', (mangled, name) => {
    expect(baseName(mangled)).toBe(name);
  });

  it('one that cannot be read stays as it is and matches nothing but itself', () => {
    const sites = detectKernels(read('test/fixtures/kernels/shapes.hip'));
    for (const raw of ['_Z', '_Z15fusedComputeA2', '_Zebra']) {
      expect(baseName(raw)).toBe(raw);
      expect(matchKernel(raw, sites)).toEqual({ kind: 'none' });
    }
    expect(kernelNameMatches('_Z15fusedComputeA2', '_Z15fusedComputeA2')).toBe(true);
    expect(kernelNameMatches('_Z15fusedComputeA2', 'fusedComputeA2')).toBe(false);
  });
});
