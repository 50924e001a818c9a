/** The `kernel:` term of the timeline filter: quoting, matching the names profilers print, and the events it keeps. */
import { describe, expect, it } from 'vitest';
import {
  FilterSyntaxError,
  filterMask,
  kernelFilter,
  kernelNameMatches,
  parseFilter,
  quoteFilterValue,
} from '../../src/core/timeline/timelineFilter';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { KIND_KERNEL, KIND_PACKET, KIND_TRANSFER } from '../../src/core/timeline/timelineModel';

describe('kernel: syntax', () => {
  it('reads bare names, quoted names with spaces, templates and commas, and escapes', () => {
    expect(parseFilter('kernel:step').kernels).toEqual(['step']);
    expect(parseFilter('kernel:"void ns::k<float, 4>(float*, int)"').kernels).toEqual([
      'void ns::k<float, 4>(float*, int)',
    ]);
    expect(parseFilter('kernel:"a b","c, d" kernel:e').kernels).toEqual(['a b', 'c, d', 'e']);
    expect(parseFilter('kernel:"say \\"hi\\" \\\\ there"').kernels).toEqual(['say "hi" \\ there']);
    expect(parseFilter('kind:transfer kernel:"k<2>(int)"  gpu:1')).toEqual({
      kinds: [5],
      kernels: ['k<2>(int)'],
      gpus: [1],
    });
  });

  it('quotes any name so that it reads back as itself', () => {
    const names = [
      'void ns::k<float, 4>(float*, int)',
      'weird "name" \\ with, everything',
      '(anonymous namespace)::f(float const*)',
    ];
    expect(parseFilter(kernelFilter(names)).kernels).toEqual(names);
    expect(quoteFilterValue('a"b')).toBe('"a\\"b"');
  });

  it('rejects bad syntax with a message that says how to write it', () => {
    const bad: [string, RegExp][] = [
      ['kernel:"unclosed name', /quote is not closed/],
      ['kernel:', /needs a name/],
      ['kernel:"a"b', /comma after the quoted name/],
      ['kernel:a"b c"', /put the whole name in double quotes/],
      ['kernel:a,', /needs a name/],
      ['kind:"kernel"', /quotes are for kernel names only/],
      ['gpu:', /needs a value/],
      ['kernels:k', /unknown field "kernels"/],
    ];
    for (const [query, message] of bad) {
      expect(() => parseFilter(query), query).toThrow(FilterSyntaxError);
      expect(() => parseFilter(query), query).toThrow(message);
    }
  });
});

describe('kernel names', () => {
  const printed = 'void ns::k<float, 4>(float*, int)';
  it('matches the printed name, its qualified name and its short name, not other kernels', () => {
    expect(kernelNameMatches(printed, printed)).toBe(true);
    expect(kernelNameMatches(printed, 'ns::k')).toBe(true);
    expect(kernelNameMatches(printed, 'k')).toBe(true);
    expect(kernelNameMatches(printed, 'k<float, 4>')).toBe(true);
    expect(kernelNameMatches(printed, 'other::k')).toBe(false);
    expect(kernelNameMatches('void ns::other_k(int)', 'k')).toBe(false);
    expect(kernelNameMatches('(anonymous namespace)::f(float const*)', 'f')).toBe(true);
    expect(kernelNameMatches('(anonymous namespace)::f(float const*)', '(anonymous namespace)::f')).toBe(true);
    expect(kernelNameMatches('_Z4stepPf', 'step')).toBe(true);
  });
});

describe('kernel: mask', () => {
  // GPU 0: k<float> [100, 200] and other [150, 400]; a copy [180, 190], a transfer [300, 350];
  // GPU 1: k<float> [1000, 1100], a packet [1050, 1060] and one [5000, 5100].
  const ev: [number, number, number, number, number][] = [
    // kind, gpu, start, end, label
    [KIND_KERNEL, 0, 100, 200, 0],
    [KIND_KERNEL, 0, 150, 400, 1],
    [KIND_PACKET, 0, 180, 190, 2],
    [KIND_TRANSFER, 0, 300, 350, -1],
    [KIND_KERNEL, 1, 1000, 1100, 0],
    [KIND_PACKET, 1, 1050, 1060, 2],
    [KIND_PACKET, 1, 5000, 5100, 2],
  ];
  const n = ev.length;
  const t: TimelineColumns = {
    count: n,
    kind: Uint8Array.from(ev, (e) => e[0]),
    op: new Uint8Array(n).fill(1),
    path: new Uint8Array(n),
    gpu: Uint16Array.from(ev, (e) => e[1]),
    lane: new Uint32Array(n),
    id: Int32Array.from(ev, (_e, i) => i),
    ref: new Int32Array(n).fill(-1),
    startNs: Float64Array.from(ev, (e) => e[2]),
    endNs: Float64Array.from(ev, (e) => e[3]),
    queuedNs: new Float64Array(n).fill(-1),
    bytes: new Float64Array(n).fill(1024),
    label: Int32Array.from(ev, (e) => e[4]),
    labels: ['void k<float>(float*)', 'other(int)', 'HtoD'],
  };
  const kept = (q: string) => [...filterMask(t, parseFilter(q))];

  it('keeps the launches and what overlaps them on their GPU, hiding other kernels even when they overlap', () => {
    expect(kept('kernel:k')).toEqual([1, 0, 1, 0, 1, 1, 0]);
    expect(kept('kernel:other')).toEqual([0, 1, 1, 1, 0, 0, 0]);
    expect(kept('kernel:k,other')).toEqual([1, 1, 1, 1, 1, 1, 0]);
    expect(kept('kernel:"void k<float>(float*)" gpu:1')).toEqual([0, 0, 0, 0, 1, 1, 0]);
    expect(kept('kernel:k kind:packet')).toEqual([0, 0, 1, 0, 0, 1, 0]);
    expect(kept('kernel:nothing')).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('keeps nothing in a timeline without names (a sweep timeline has no kernels to name)', () => {
    const { label: _l, labels: _ls, ...unnamed } = t;
    expect(kept('kind:kernel').filter(Boolean)).toHaveLength(3);
    expect([...filterMask(unnamed, parseFilter('kernel:k'))].every((x) => x === 0)).toBe(true);
  });
});
