/**
 * Hand-made `overlap` records in the shape the helper prints them (docs/COLLECTIVES.md,
 * "overlap": compute kinds gemm, fma, triad; the copy measured alone; the CUs the copy holds and
 * the CU arithmetic; what moved the bytes; where the clocks came from), and a whole run of them
 * on a 256-CU MI350X node: GEMM where the arithmetic holds (and, beside the GPU-initiated copy,
 * where power decides), FMA, and a STREAM triad where memory bandwidth decides.
 */
import type { OverlapCompute, OverlapPoint, PathName } from '../../src/core/protocol';
import { OVERLAP_BOUND_OF } from '../../src/core/protocol';

export const TOTAL_CUS = 256;
const MiB = 1 << 20;

const LABELS: Record<OverlapCompute, string> = {
  gemm: 'hipblasLtMatmul bf16 8192^3 (hipBLASLt)',
  fma: 'FMA-bound kernel fp32, 2048x256',
  triad: 'STREAM triad fp32, 3 x 1 GiB, 2048x256',
};

/** What the helper says moved the bytes on AMD, per path. */
export function mechanismOf(path: PathName, cus?: number): string {
  switch (path) {
    case 'cu/host':
      return `load/store kernel on ${cus} CUs (highest-priority stream)`;
    case 'engine/host':
      return 'hipMemcpyAsync device-to-device NoCU (SDMA), started by the host';
    case 'engine/device':
      return 'rocSHMEM put from a kernel in PE processes (GPU-initiated SDMA)';
    default:
      return 'load/store kernel started by a kernel';
  }
}

/** The CUs a copy path holds while it copies (cu/host its cus, engine/host none, engine/device the issuing workgroup's one). */
export function cusUsedOf(path: PathName, cus?: number): number {
  return path.startsWith('cu/') ? cus! : path === 'engine/device' ? 1 : 0;
}

/** An alone phase of `compute`: its rate, clock and power. */
export function aloneRecord(
  compute: OverlapCompute,
  o: {
    tflops: number;
    gbps?: number;
    clock?: number;
    power?: number;
    simulated?: boolean;
    phase?: 'alone-before' | 'alone-after';
  },
): OverlapPoint {
  return {
    type: 'overlap',
    compute,
    bound: OVERLAP_BOUND_OF[compute],
    computeLabel: LABELS[compute],
    phase: o.phase ?? 'alone-before',
    path: 'alone',
    copySizeBytes: 0,
    durationMs: 1500,
    computeTflops: o.tflops,
    computeGbps: compute === 'triad' ? (o.gbps ?? null) : null,
    keptFraction: null,
    copyGbps: null,
    copyAloneGbps: null,
    bandwidthKept: null,
    copies: 0,
    totalCus: TOTAL_CUS,
    cusUsed: null,
    cuArithmetic: null,
    mechanism: null,
    smClockMHz: o.clock ?? 2400,
    memClockMHz: 2000,
    powerW: o.power ?? 800,
    powerLimitW: 1000,
    throttleReasons: [],
    telemetry: o.simulated ? 'model' : 'amd-smi',
    simulated: o.simulated ?? false,
  };
}

/** A beside phase: `compute` kept `kept` of its alone rate beside the copy, which kept `bandwidthKept` of its own. */
export function besideRecord(
  compute: OverlapCompute,
  path: PathName,
  o: {
    kept: number;
    cus?: number;
    sizeBytes?: number;
    aloneTflops?: number;
    copyAloneGbps?: number;
    bandwidthKept?: number;
    clock?: number;
    power?: number;
    simulated?: boolean;
  },
): OverlapPoint {
  const used = cusUsedOf(path, o.cus);
  const copyAlone = o.copyAloneGbps ?? 60;
  const bandwidthKept = o.bandwidthKept ?? 0.99;
  const aloneTflops = o.aloneTflops ?? 1000;
  return {
    ...aloneRecord(compute, { tflops: aloneTflops * o.kept, clock: o.clock, power: o.power, simulated: o.simulated }),
    phase: 'beside',
    path,
    ...(o.cus !== undefined ? { cus: o.cus } : {}),
    copySizeBytes: o.sizeBytes ?? 256 * MiB,
    computeGbps: compute === 'triad' ? aloneTflops * o.kept * 6 : null,
    keptFraction: o.kept,
    copyGbps: copyAlone * bandwidthKept,
    copyAloneGbps: copyAlone,
    bandwidthKept,
    copies: 100,
    cusUsed: used,
    cuArithmetic: (TOTAL_CUS - used) / TOTAL_CUS,
    mechanism: mechanismOf(path, o.cus),
  };
}

/** The same record as a run saved before the CU arithmetic printed it: none of the new fields. */
export function oldRecord(p: OverlapPoint): OverlapPoint {
  const {
    bound: _b,
    computeGbps: _g,
    copyAloneGbps: _a,
    bandwidthKept: _k,
    totalCus: _t,
    cusUsed: _u,
    cuArithmetic: _c,
    mechanism: _m,
    telemetry: _e,
    ...old
  } = p;
  return old;
}

/**
 * The records of one overlap run on 256 CUs, two copy sizes:
 * - GEMM at 256 MiB: the arithmetic holds beside cu/host 32 and 64 CUs and engine/host; beside
 *   engine/device the clock falls at the power cap (power). At 64 MiB it loses more than the 32
 *   CUs taken (other).
 * - FMA: the arithmetic holds everywhere.
 * - triad: memory-bound, keeps about the same beside every path (memory).
 */
export function overlapRunRecords(simulated = false): OverlapPoint[] {
  const s = { simulated };
  const gemm = { aloneTflops: 1300 };
  const triad = { aloneTflops: 0.87, copyAloneGbps: 60 };
  return [
    aloneRecord('gemm', { tflops: 1300, clock: 2400, power: 990, ...s }),
    besideRecord('gemm', 'cu/host', { kept: 0.8, cus: 32, sizeBytes: 64 * MiB, ...gemm, ...s }),
    besideRecord('gemm', 'engine/host', { kept: 0.99, sizeBytes: 64 * MiB, ...gemm, ...s }),
    besideRecord('gemm', 'cu/host', { kept: 0.862, cus: 32, ...gemm, power: 990, ...s }),
    besideRecord('gemm', 'cu/host', { kept: 0.74, cus: 64, ...gemm, power: 985, ...s }),
    besideRecord('gemm', 'engine/host', { kept: 0.991, ...gemm, power: 995, ...s }),
    besideRecord('gemm', 'engine/device', { kept: 0.93, ...gemm, clock: 2330, power: 1000, ...s }),
    aloneRecord('gemm', { tflops: 1290, clock: 2400, power: 990, phase: 'alone-after', ...s }),
    aloneRecord('fma', { tflops: 160, ...s }),
    besideRecord('fma', 'cu/host', { kept: 0.87, cus: 32, aloneTflops: 160, ...s }),
    besideRecord('fma', 'cu/host', { kept: 0.752, cus: 64, aloneTflops: 160, ...s }),
    besideRecord('fma', 'engine/host', { kept: 1.0, aloneTflops: 160, ...s }),
    aloneRecord('fma', { tflops: 160, phase: 'alone-after', ...s }),
    aloneRecord('triad', { tflops: 0.87, gbps: 5200, power: 700, ...s }),
    besideRecord('triad', 'cu/host', { kept: 0.63, cus: 32, bandwidthKept: 0.8, ...triad, ...s }),
    besideRecord('triad', 'cu/host', { kept: 0.62, cus: 64, bandwidthKept: 0.79, ...triad, ...s }),
    besideRecord('triad', 'engine/host', { kept: 0.65, bandwidthKept: 0.78, ...triad, ...s }),
    aloneRecord('triad', { tflops: 0.87, gbps: 5200, power: 700, phase: 'alone-after', ...s }),
  ];
}

/** The run file of `overlapRunRecords`: header, hello, topology, the records, done, run-end. */
export function overlapRunText(o: { id?: string; simulated?: boolean } = {}): string {
  const simulated = o.simulated ?? false;
  const backend = simulated ? 'sim' : 'hip';
  const gpu = (index: number) => ({
    index,
    name: 'AMD Instinct MI350X',
    arch: 'gfx950',
    cus: TOTAL_CUS,
    memoryBytes: 288 * 1024 ** 3,
    engines: [{ id: 0, kind: 'xgmi' }],
  });
  const lines: unknown[] = [
    {
      type: 'run',
      format: 'sdma-lens-run',
      version: 1,
      id: o.id ?? 'overlap-demo',
      command: 'overlap',
      createdAt: '2026-12-04T00:00:00Z',
      target: { kind: 'local' },
      helper: { path: 'sdma-probe', args: ['overlap', '--backend', backend, '--size', '64M,256M'] },
    },
    {
      type: 'hello',
      protocol: 1,
      helper: { name: 'sdma-probe', version: '0.1.0' },
      command: 'overlap',
      backend,
      simulated,
      backendsBuilt: ['sim', 'hip'],
      pid: 1,
    },
    {
      type: 'topology',
      node: { name: 'mi350x-node', vendor: 'amd', model: 'AMD Instinct MI350X', simulated },
      gpus: [gpu(0), gpu(1)],
      links: [{ src: 0, dst: 1, kind: 'xgmi', count: 1, gbpsPerDirection: 64 }],
      libraries: [],
    },
    ...overlapRunRecords(simulated),
    { type: 'done', status: 'ok', samples: 0, elapsedMs: 30_000 },
    { type: 'run-end', status: 'ok', exitCode: 0, signal: null, message: '', endedAt: '2026-12-04T00:00:31Z' },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}
