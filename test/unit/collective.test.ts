import { describe, expect, it } from 'vitest';
import {
  collectiveAdvice,
  curvesOf,
  findCollectiveCrossover,
  isOffPath,
  overlapView,
  variantEnv,
} from '../../src/core/collective/collective';
import { algbwGbps, busbwFactor, busbwGbps, sweepSizes } from '../support/collectiveFormulas';
import type { CollectivePageView } from '../../src/core/collective/collectiveMessages';
import {
  parseCollectiveHostMessage,
  parseCollectiveWebviewMessage,
} from '../../src/core/collective/collectiveMessages';
import type { CollectivePoint, CollectiveVariant, OverlapPoint } from '../../src/core/protocol';
import { validateRecord } from '../../src/core/protocol';
import { LIMITS } from '../../src/core/limits';

/** A point whose five repeats spread +-`spread` around the time its busbw gives (0: one repeat). */
function point(
  op: CollectivePoint['op'],
  variant: CollectivePoint['variant'],
  sizeBytes: number,
  busbw: number,
  transport: string | null = null,
  ranks = 8,
  spread = 0.01,
): CollectivePoint {
  const algbw = (busbw * ranks) / (ranks - 1);
  const timeUs = sizeBytes / (algbw * 1e3);
  const samplesUs = spread > 0 ? [-1, -0.5, 0, 0.5, 1].map((f) => timeUs * (1 + f * spread)) : [timeUs];
  return {
    type: 'collective',
    op,
    variant,
    ranks,
    sizeBytes,
    count: sizeBytes / 4,
    dtype: 'float',
    inPlace: false,
    iters: 20,
    timeUs,
    algbwGbps: algbw,
    busbwGbps: busbw,
    wrong: 0,
    transport,
    simulated: true,
    repeats: samplesUs.length,
    samplesUs,
  };
}

describe('nccl-tests formulas', () => {
  // nccl-tests src/common.cu: algBw = bytes / 1e9 / seconds; all_gather.cu and alltoall.cu:
  // busBw = algBw * (nranks - 1) / nranks.
  it('algbw is bytes each rank receives over time, in 1e9 B/s', () => {
    expect(algbwGbps(1 << 30, 10_000)).toBeCloseTo(107.374, 3);
    expect(algbwGbps(268435456, 552.4)).toBeCloseTo(485.96, 1);
  });
  it('busbw is algbw x (n-1)/n for AllGather and AlltoAll', () => {
    expect(busbwFactor('allgather', 8)).toBeCloseTo(0.875);
    expect(busbwFactor('alltoall', 2)).toBe(0.5);
    expect(busbwGbps('allgather', 8, 1 << 30, 10_000)).toBeCloseTo(93.952, 3);
    expect(busbwGbps('alltoall', 1, 1 << 20, 1)).toBe(0);
  });
  it('-b/-e/-f step like nccl-tests: multiply by the factor, or add -i when the factor is 1', () => {
    expect(sweepSizes(1024, 8192, 2)).toEqual([1024, 2048, 4096, 8192]);
    expect(sweepSizes(65536, 1 << 30, 4)).toHaveLength(8);
    expect(sweepSizes(1000, 3500, 1, 1000)).toEqual([1000, 2000, 3000]);
    expect(sweepSizes(10, 5, 2)).toEqual([]);
  });
});

describe('variant environment from the knob catalog', () => {
  it('gin-sdma-lib: RCCL prerequisites and the NCCL_GIN_TYPE of the version', () => {
    // RCCL_ENABLE_INTRANET is a topology switch, not a GIN prerequisite (Anvil SDMA runs on one node without it).
    // The NCCL_GIN_A2A_* values force librccl's AlltoAll GIN path to SDMA puts at every size.
    expect(variantEnv('gin-sdma-lib', '2.31.0', 'rccl')).toEqual({
      NCCL_GIN_ENABLE: '1',
      NCCL_GIN_TYPE: '7',
      NCCL_GIN_A2A_ENABLE: '1',
      NCCL_GIN_A2A_MIN_BYTES: '0',
      NCCL_GIN_A2A_SDMA_MIN_BYTES: '0',
      NCCL_CUMEM_ENABLE: '1',
      NCCL_DMABUF_ENABLE: '1',
      HSA_NO_SCRATCH_RECLAIM: '1',
    });
    expect(variantEnv('gin-sdma-lib', '2.30.8', 'rccl')?.NCCL_GIN_TYPE).toBe('6');
    expect(variantEnv('gin-sdma-lib', '2.30.5', 'rccl')?.NCCL_GIN_TYPE).toBe('5');
    expect(variantEnv('gin-sdma-lib', '2.28.3', 'rccl')).toBeUndefined();
  });
  it('gin-sdma-lib: the Anvil SDMA GIN type by version, as the helper has it (native/tests/collective_sim_test.cpp)', () => {
    const table: [string, string | undefined][] = [
      ['2.30.3', undefined],
      ['2.30.4', '5'],
      ['2.30.6', '5'],
      ['2.30.7', '6'],
      ['2.30.99', '6'],
      ['2.31.0', '7'],
      ['2.32.1', '7'],
    ];
    for (const [version, type] of table)
      expect(variantEnv('gin-sdma-lib', version, 'rccl')?.NCCL_GIN_TYPE, version).toBe(type);
  });
  it('ce: NCCL_CTA_POLICY=2 (ZERO as a number: NCCL before 2.29.2 reads only numbers, and ZERO there silently means 0); none before 2.28', () => {
    expect(variantEnv('ce', '2.28.9', 'nccl')).toEqual({ NCCL_CTA_POLICY: '2', NCCL_CUMEM_ENABLE: '1' });
    expect(variantEnv('ce', '2.29.2', 'nccl')?.NCCL_CTA_POLICY).toBe('2');
    expect(variantEnv('ce', '2.27.7', 'nccl')).toBeUndefined();
    expect(variantEnv('default', '2.28.9', 'nccl')).toEqual({});
  });
});

describe('curves and crossover', () => {
  const sizes = [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20];
  const base = [20, 70, 155, 212, 243];
  const ce = [12, 48, 165, 252, 305];
  const points = [
    ...sizes.map((s, i) => point('allgather', 'default', s, base[i]!, 'ring/simple', 2)),
    ...sizes.map((s, i) => point('allgather', 'ce', s, ce[i]!, 'ce', 2)),
  ];

  it('groups points into sorted curves per op, variant and form', () => {
    const curves = curvesOf([...points].reverse());
    expect(curves.map((c) => `${c.op}/${c.variant}`)).toEqual(['allgather/ce', 'allgather/default']);
    expect(curves[0]!.points.map((p) => p.sizeBytes)).toEqual(sizes);
  });
  it('finds where the engine variant starts to win and stays ahead, with the crossing between the two sizes around it', () => {
    const c = findCollectiveCrossover(points, 'allgather', 'ce');
    expect(c).toMatchObject({
      kind: 'crossover',
      fromBytes: 16 << 20,
      lastDefaultBytes: 4 << 20,
      confidence: 'clear',
      repeats: 5,
      uncertainty: [],
    });
    expect(c.estimateBytes!).toBeGreaterThan(4 << 20);
    expect(c.estimateBytes!).toBeLessThan(16 << 20);
    expect(c.rangeBytes![0]).toBeLessThanOrEqual(c.estimateBytes!);
    expect(c.rangeBytes![1]).toBeGreaterThanOrEqual(c.estimateBytes!);
    expect(c.text).toMatch(
      /^allgather: ce stays ahead from 16 MiB, crossing near [\d.]+ MiB \(between [\d.]+ MiB and [\d.]+ MiB\); default was ahead at 4 MiB \(5 repeats per point, 2 ranks\)\.$/,
    );
  });
  it('overlapping intervals at the size below the crossover make it uncertain, not a made-up winner', () => {
    // 2% apart at 4 MiB with +-3% repeats: the intervals overlap.
    const close = [
      ...sizes.map((s, i) => point('allgather', 'default', s, base[i]!, 'ring/simple', 2, 0.03)),
      ...sizes.map((s, i) => point('allgather', 'ce', s, i === 1 ? 71.4 : ce[i]!, 'ce', 2, 0.03)),
    ];
    const c = findCollectiveCrossover(close, 'allgather', 'ce');
    expect(c.kind).toBe('crossover');
    expect(c.confidence).toBe('uncertain');
    expect(c.uncertainty).toEqual(['the intervals of both variants overlap at 4 MiB']);
  });
  it('a single repeat per point gives no interval and no clear verdict (the old rule read a winner from one mean)', () => {
    const once = points.map((p) => point(p.op, p.variant, p.sizeBytes, p.busbwGbps, p.transport, 2, 0));
    const c = findCollectiveCrossover(once, 'allgather', 'ce');
    expect(c.confidence).not.toBe('clear');
    expect(c.verdicts.every((x) => x.verdict === 'tie')).toBe(true);
    expect(c.verdicts[0]!.why).toMatch(/1 repeat at 1 MiB, too few for an interval/);
  });
  it('judges only points where each variant took its own path: an engine "win" on the load/store path is not a win', () => {
    // The engine variant fell back to lsa below 16 MiB and "won" there by noise: the old rule placed the crossover at 1 MiB.
    const fellBack = [
      ...sizes.map((s, i) => point('alltoall', 'default', s, [40, 100, 200, 300, 350][i]!, 'lsa')),
      ...sizes.map((s, i) =>
        point('alltoall', 'gin-sdma-lib', s, [44, 110, 190, 330, 390][i]!, i < 2 ? 'lsa' : 'sdma'),
      ),
    ];
    const c = findCollectiveCrossover(fellBack, 'alltoall', 'gin-sdma-lib');
    expect(c.verdicts.map((x) => x.verdict)).toEqual(['path', 'path', 'default', 'engine', 'engine']);
    expect(c).toMatchObject({
      kind: 'crossover',
      fromBytes: 64 << 20,
      lastDefaultBytes: 16 << 20,
      confidence: 'clear',
    });
    // When the size just below the candidate is off its path, the crossover is uncertain.
    const gap = fellBack.map((p) =>
      p.variant === 'gin-sdma-lib' && p.sizeBytes === 16 << 20 ? { ...p, transport: 'lsa' } : p,
    );
    const u = findCollectiveCrossover(gap, 'alltoall', 'gin-sdma-lib');
    expect(u.confidence).toBe('uncertain');
    expect(u.uncertainty).toEqual(['gin-sdma-lib ran lsa, not its own path, at 16 MiB']);
    // A path the run did not record is not its own either.
    const unrecorded = fellBack.map((p) => ({ ...p, transport: null }));
    expect(
      findCollectiveCrossover(unrecorded, 'alltoall', 'gin-sdma-lib').verdicts.every((x) => x.verdict === 'path'),
    ).toBe(true);
  });
  it('says when one path wins everywhere, or when there is too little data', () => {
    const always = sizes.map((s) => point('alltoall', 'gin-sdma-lib', s, 400, 'sdma'));
    const def = sizes.map((s) => point('alltoall', 'default', s, 300, 'lsa'));
    expect(findCollectiveCrossover([...always, ...def], 'alltoall', 'gin-sdma-lib').kind).toBe('engine-always');
    expect(findCollectiveCrossover(def, 'alltoall', 'gin-sdma-lib').kind).toBe('insufficient');
    const tie = sizes.map((s) => point('alltoall', 'gin-sdma-lib', s, 301, 'sdma'));
    expect(findCollectiveCrossover([...tie, ...def], 'alltoall', 'gin-sdma-lib')).toMatchObject({
      kind: 'no-clear-winner',
      confidence: 'none',
    });
    const slower = sizes.map((s) => point('alltoall', 'gin-sdma-lib', s, 200, 'sdma'));
    expect(findCollectiveCrossover([...slower, ...def], 'alltoall', 'gin-sdma-lib')).toMatchObject({
      kind: 'default-always',
      confidence: 'clear',
    });
  });
  it('marks engine-variant points that ran another path', () => {
    expect(isOffPath(point('allgather', 'gin-sdma-lib', 1 << 20, 10, 'lsa'))).toBe(true);
    expect(isOffPath(point('allgather', 'gin-sdma-lib', 1 << 20, 10, 'sdma'))).toBe(false);
    expect(isOffPath(point('allgather', 'default', 1 << 20, 10, 'lsa'))).toBe(false);
    expect(isOffPath(point('allgather', 'ce', 1 << 20, 10, null))).toBe(false);
  });
});

function overlap(
  path: OverlapPoint['path'],
  kept: number | null,
  clock: number,
  power: number,
  cus?: number,
): OverlapPoint {
  return {
    type: 'overlap',
    compute: 'gemm',
    computeLabel: 'gemm',
    phase: path === 'alone' ? 'alone-before' : 'beside',
    path,
    cus,
    copySizeBytes: path === 'alone' ? 0 : 1 << 28,
    durationMs: 1500,
    computeTflops: 670 * (kept ?? 1),
    keptFraction: kept,
    copyGbps: path === 'alone' ? null : 390,
    copies: 10,
    smClockMHz: clock,
    memClockMHz: 3201,
    powerW: power,
    powerLimitW: 700,
    throttleReasons: ['sw-power-cap'],
    simulated: false,
  };
}

describe('overlap view', () => {
  it('tells power losses from lost SMs by clock and power', () => {
    const view = overlapView([
      overlap('alone', null, 1500, 694),
      overlap('engine/host', 0.963, 1458, 699),
      overlap('cu/host', 0.745, 1634, 678, 32),
    ]);
    expect(view.alone.gemm?.tflops).toBeCloseTo(670);
    expect(view.rows.find((r) => r.path === 'engine/host')?.cause).toBe('power');
    expect(view.rows.find((r) => r.path === 'cu/host')?.cause).toBe('sms');
    expect(view.rows.find((r) => r.path === 'cu/host')?.label).toBe('cu/host 32 CUs');
  });
});

describe('collective advice', () => {
  const variants: CollectiveVariant[] = [
    {
      type: 'collective-variant',
      variant: 'default',
      supported: true,
      library: { name: 'rccl', version: '2.31.0', path: 'x' },
      env: {},
      symmetric: false,
      simulated: true,
    },
    {
      type: 'collective-variant',
      variant: 'gin-sdma-lib',
      supported: true,
      library: { name: 'rccl', version: '2.31.0', path: 'x' },
      env: {},
      symmetric: true,
      simulated: true,
    },
  ];
  const sizes = [1 << 20, 16 << 20, 64 << 20, 256 << 20];
  const a2a = [
    ...sizes.map((s, i) => point('alltoall', 'default', s, [40, 300, 350, 355][i]!, 'lsa')),
    ...sizes.map((s, i) => point('alltoall', 'gin-sdma-lib', s, [30, 290, 380, 390][i]!, 'sdma')),
  ];
  it("AMD AlltoAll: librccl's NCCL_GIN_A2A_SDMA_MIN_BYTES per peer at the crossing, with the sizes that change path, the version and how to verify", () => {
    const a = collectiveAdvice('amd', variants, a2a);
    const c = a.crossovers.find((x) => x.op === 'alltoall')!;
    const t = a.recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')!;
    // Per peer: the crossing (bytes each rank receives) over 8 ranks, rounded up to whole KiB; >= goes to SDMA.
    expect(Number(t.value)).toBe(Math.ceil(c.estimateBytes! / 8 / 1024) * 1024);
    expect(Number(t.value)).toBeGreaterThan((16 << 20) / 8);
    expect(Number(t.value)).toBeLessThanOrEqual((64 << 20) / 8);
    expect(t.confidence).toBe('clear');
    expect(t.evidence).toMatch(
      /of the sizes measured, 64 MiB \(8 MiB per peer\), 256 MiB \(32 MiB per peer\) go by SDMA, 1 MiB \(128 KiB per peer\), 16 MiB \(2 MiB per peer\) by the LSA copy kernel\. None of them changes path against the default \(8 MiB per peer\)\./,
    );
    expect(t.evidence).toMatch(/Assumes RCCL 2\.31\.0 \(the library the run loaded\)/);
    expect(t.evidence).toMatch(/AllToAll GIN: transport=sdma bytesPerPeer=N/);
    expect(a.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')?.value).toBe('7');
  });
  it('AMD: never an rccl-tests name; AllGather gets a note, not a knob; an RCCL before the knob gets no value', () => {
    const ag = a2a.map((p) => ({ ...p, op: 'allgather' as const }));
    const a = collectiveAdvice('amd', variants, [...a2a, ...ag]);
    expect(a.recommendations.map((r) => r.knob).filter((k) => k.startsWith('NCCL_GIN_ANVIL'))).toEqual([]);
    expect(a.notes.join(' ')).toMatch(/allgather: librccl has no size threshold of its own/);
    const old = variants.map((v) => ({ ...v, library: { ...v.library, version: '2.30.4' } }));
    const t = collectiveAdvice('amd', old, a2a).recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')!;
    expect(t.value).toBeUndefined();
    expect(t.evidence).toMatch(/RCCL 2\.30\.4 \(the library the run loaded\) predates NCCL_GIN_A2A_SDMA_MIN_BYTES/);
  });
  it('NVIDIA: NCCL_CTA_POLICY says it takes the whole communicator and names the sizes where it loses', () => {
    const nv = a2a.map((p) => ({
      ...p,
      op: 'allgather' as const,
      variant: p.variant === 'gin-sdma-lib' ? ('ce' as const) : p.variant,
      transport: p.variant === 'gin-sdma-lib' ? 'ce' : 'ring/simple',
    }));
    const ce = variants.map((v) => ({
      ...v,
      variant: v.variant === 'gin-sdma-lib' ? ('ce' as const) : v.variant,
      library: { name: 'nccl', version: '2.28.9', path: 'x' },
    }));
    const a = collectiveAdvice('nvidia', ce, nv, [
      overlap('alone', null, 1500, 694),
      overlap('engine/host', 0.963, 1458, 699),
    ]);
    const r = a.recommendations[0]!;
    expect(r).toMatchObject({ knob: 'NCCL_CTA_POLICY', value: '2', confidence: 'uncertain' });
    expect(r.evidence).toMatch(/applies to every collective of the communicator, at every size/);
    expect(r.evidence).toMatch(/It loses to the default at allgather 1 MiB, allgather 16 MiB\./);
    expect(a.cuBudget[0]).toContain('lost to power');
    expect(a.recommendations.some((x) => x.knob === 'NCCL_SYM_CE_THRESHOLD')).toBe(false);
  });
});

describe('protocol and panel messages', () => {
  it('validates collective records and rejects a wrong op', () => {
    expect(validateRecord(point('allgather', 'default', 1 << 20, 10)).kind).toBe('record');
    expect(validateRecord({ ...point('allgather', 'default', 1 << 20, 10), op: 'allreduce' }).kind).toBe('malformed');
    expect(validateRecord(overlap('cu/host', 0.8, 1500, 600, 8)).kind).toBe('record');
  });
  it('repeats and samplesUs are optional, and come together: as many samples as repeats, each finite and 0 or more', () => {
    const base = point('alltoall', 'gin-sdma-lib', 1 << 20, 10, 'sdma');
    expect(validateRecord({ ...base, repeats: 3, samplesUs: [1, 2.5, 0] }).kind).toBe('record');
    for (const bad of [
      { repeats: 3, samplesUs: [1, 2] },
      { repeats: 2 },
      { samplesUs: [1, 2] },
      { repeats: 0, samplesUs: [] },
      { repeats: 2, samplesUs: [1, -1] },
      { repeats: 2, samplesUs: [1, Number.NaN] },
      { repeats: 2, samplesUs: [1, Infinity] },
      { repeats: 1.5, samplesUs: [1] },
      // More repeats than the helper's limit: refused, so samplesUs stays bounded in a run file.
      {
        repeats: LIMITS.collectiveRepeatsMax + 1,
        samplesUs: Array.from({ length: LIMITS.collectiveRepeatsMax + 1 }, () => 1),
      },
    ]) {
      expect(validateRecord({ ...base, ...bad }).kind, JSON.stringify(bad)).toBe('malformed');
    }
  });
  it('accepts only the page messages the host understands', () => {
    expect(parseCollectiveWebviewMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(parseCollectiveWebviewMessage({ type: 'copy-exports' })).toEqual({ type: 'copy-exports' });
    expect(parseCollectiveWebviewMessage({ type: 'run-command', command: 'rm' })).toBeUndefined();
    expect(parseCollectiveWebviewMessage({ type: 'webview-error', message: 'x'.repeat(5000) })).toBeUndefined();
  });
  it('the page draws only a collective view that passes the schema', () => {
    const variants: CollectiveVariant[] = [
      {
        type: 'collective-variant',
        variant: 'default',
        supported: true,
        library: { name: 'rccl', version: '2.31.0', path: 'x' },
        env: {},
        symmetric: false,
        simulated: true,
      },
    ];
    const points = [
      point('allgather', 'default', 1 << 20, 40, 'lsa'),
      point('allgather', 'default', 16 << 20, 300, 'lsa'),
    ];
    const advice = collectiveAdvice('amd', variants, points, [
      overlap('alone', null, 1500, 694),
      overlap('cu/host', 0.745, 1634, 678, 32),
    ]);
    const view: CollectivePageView = {
      runId: 'r1',
      title: 'Collectives',
      command: 'collective',
      status: 'complete',
      simulated: true,
      node: 'sim x8',
      mode: 'rank-per-process',
      launcher: 'helper',
      progress: { done: 2, total: 2 },
      variants,
      curves: curvesOf(points),
      crossovers: [],
      overlap: overlapView([overlap('alone', null, 1500, 694), overlap('cu/host', 0.745, 1634, 678, 32)]),
      recommendations: advice.recommendations.map((r) => ({
        knob: r.knob,
        value: r.value,
        evidence: r.evidence,
        confidence: r.confidence,
      })),
      cuBudget: advice.cuBudget,
      notes: [],
      exports: '',
    };
    expect(view.curves.length).toBeGreaterThan(0);
    expect(parseCollectiveHostMessage({ type: 'collective-view', view })).toEqual({ type: 'collective-view', view });
    const badPoint = { ...view.curves[0]!.points[0]!, busbwGbps: '<img src=x onerror=alert(1)>' };
    expect(
      parseCollectiveHostMessage({
        type: 'collective-view',
        view: { ...view, curves: [{ ...view.curves[0]!, points: [badPoint] }] },
      }),
    ).toBeUndefined();
    expect(
      parseCollectiveHostMessage({ type: 'collective-view', view: { ...view, command: 'rm -rf' } }),
    ).toBeUndefined();
    expect(parseCollectiveHostMessage({ type: 'sweep', view })).toBeUndefined();
  });
});
