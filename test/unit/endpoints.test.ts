import { describe, expect, it } from 'vitest';
import { adviseAllPairs, adviseFromRun } from '../../src/core/advice/advice';
import { adviceText } from '../../src/core/advice/adviceText';
import {
  HOST,
  checkPairsOnNode,
  defaultPairs,
  endpointName,
  pairArg,
  pairName,
  parseEndpoint,
  parsePair,
  parsePairList,
} from '../../src/core/endpoints';
import { matrixArgs } from '../../src/core/matrix/matrixOptions';
import { matrixGpus } from '../../src/core/matrix/matrixView';
import { checkPairsOnTopology } from '../../src/core/runtime/nodeInfo';
import type { Initiator, Mover, Topology } from '../../src/core/protocol';
import { parseLine, validateRecord } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { applyRecord, applySavedValue, newRun } from '../../src/core/run';
import { DEFAULT_SWEEP, checkSweepOptions, readEndpoints, sweepArgs } from '../../src/core/sweep/sweepOptions';
import { sweepTable } from '../../src/core/sweep/sweepTable';
import { runTimelineCovers, timelineArgs, timelineFileName, timelineMeta } from '../../src/core/runs/timelineSource';
import { seriesForCus, sweepView, unsupportedOfPair } from '../../src/core/sweep/sweepView';
import { sweepPairs } from '../../src/cli/commands/sweep';
import { endpointList } from '../../src/cli/options';
import { done, header, hello, sample } from '../support/records';

const matrixEndpoints = (text: string) => endpointList('gpus', text);

const topology = (gpus: number, vendor: 'amd' | 'nvidia' = 'amd'): Topology => ({
  type: 'topology',
  node: { name: 'n', vendor, model: vendor === 'amd' ? 'AMD Instinct MI350X' : 'NVIDIA H200', simulated: true },
  host: { numaNodes: 2 },
  gpus: Array.from({ length: gpus }, (_, index) => ({
    index,
    name: `gpu${index}`,
    arch: 'gfx950',
    cus: 256,
    memoryBytes: 1,
    engines: [],
    numaNode: index < 4 ? 0 : 1,
  })),
  links: [{ src: -1, dst: 0, kind: 'pcie', count: 1, gbpsPerDirection: 64 }],
  libraries: [],
});

const unsupported = (src: number, dst: number) => ({
  type: 'path-unsupported',
  mover: 'engine',
  initiator: 'device',
  src,
  dst,
  reason: 'engine/device needs two GPUs',
  points: 3,
});

/** A one-GPU run: host → GPU 0, GPU 0 → host, GPU 0 local; the CU copy wins below 256 KiB, the engine above. */
function oneGpuRun(vendor: 'amd' | 'nvidia' = 'amd'): Run {
  const run = newRun(header('one-gpu', ['sweep', '--backend', 'sim', '--sim-gpus', '1']));
  applySavedValue(run, hello);
  applyRecord(run, topology(1, vendor));
  for (const [src, dst] of [
    [HOST, 0],
    [0, HOST],
    [0, 0],
  ] as const) {
    for (const sizeBytes of [64 << 10, 256 << 10, 1 << 20, 16 << 20]) {
      const points: [Mover, Initiator, number, number][] = [
        ['cu', 'host', 64, sizeBytes < 256 << 10 ? 10_000 : 40_000],
        ['engine', 'host', 0, sizeBytes < 256 << 10 ? 20_000 : 20_000],
      ];
      for (const [mover, initiator, cus, base] of points) {
        const meanNs = (base * sizeBytes) / (64 << 10) / (src === dst ? 10 : 1);
        applyRecord(
          run,
          sample({
            mover,
            initiator,
            src,
            dst,
            sizeBytes,
            cus,
            meanNs,
            timesNs: [meanNs * 0.99, meanNs, meanNs * 1.01],
            minNs: meanNs * 0.99,
            maxNs: meanNs * 1.01,
            gbps: sizeBytes / meanNs,
          }),
        );
      }
    }
    const u = validateRecord(unsupported(src, dst));
    if (u.kind === 'record') applyRecord(run, u.record);
  }
  applySavedValue(run, done);
  return run;
}

describe('endpoint names', () => {
  it('names an endpoint and each kind of pair one way', () => {
    expect(endpointName(HOST)).toBe('host');
    expect(endpointName(3)).toBe('GPU 3');
    expect(pairName({ src: HOST, dst: 0 })).toBe('host → GPU 0');
    expect(pairName({ src: 0, dst: HOST })).toBe('GPU 0 → host');
    expect(pairName({ src: 2, dst: 2 })).toBe('GPU 2 local');
    expect(pairName({ src: 0, dst: 1 })).toBe('GPU 0 → GPU 1');
    expect(pairArg({ src: HOST, dst: 7 })).toBe('host:7');
  });

  it('parses flags and settings, and refuses what is not an endpoint', () => {
    expect(parseEndpoint('host')).toBe(HOST);
    expect(parseEndpoint(' 12 ')).toBe(12);
    expect(() => parseEndpoint('-1')).toThrow(/GPU index 0..1023 or "host"/);
    expect(() => parseEndpoint('1024')).toThrow(/not an endpoint/);
    expect(() => parseEndpoint('cpu')).toThrow(/not an endpoint/);
    expect(parsePairList('host:0,0:host,0:0,host:0')).toEqual([
      { src: -1, dst: 0 },
      { src: 0, dst: -1 },
      { src: 0, dst: 0 },
    ]);
    expect(() => parsePair('host:host')).toThrow(/at least one endpoint must be a GPU/);
    expect(() => parsePair('0-1')).toThrow(/SRC:DST/);
  });

  it('gives the node default by GPU count, and names the GPUs a node lacks', () => {
    expect(defaultPairs(8)).toEqual([{ src: 0, dst: 1 }]);
    expect(defaultPairs(1).map(pairName)).toEqual(['host → GPU 0', 'GPU 0 → host', 'GPU 0 local']);
    expect(defaultPairs(0)).toEqual([]);
    expect(() => checkPairsOnNode([{ src: 0, dst: 9 }], 1)).toThrow(
      /GPU 0 → GPU 9: the node has one GPU \(0\), so there is no GPU 9/,
    );
    expect(() =>
      checkPairsOnNode(
        [
          { src: HOST, dst: 0 },
          { src: 0, dst: 0 },
        ],
        1,
      ),
    ).not.toThrow();
    expect(() => checkPairsOnTopology([{ src: HOST, dst: 0 }], topology(0))).toThrow(/has no GPU/);
  });
});

describe('protocol: endpoints in records', () => {
  it('accepts host (-1) in samples, matrix cells, error cells and timelines', () => {
    expect(validateRecord(sample({ src: -1, dst: 0 })).kind).toBe('record');
    expect(
      validateRecord({
        type: 'error',
        code: 'x',
        message: 'm',
        cell: { mover: 'cu', initiator: 'host', src: 0, dst: -1 },
      }).kind,
    ).toBe('record');
    expect(
      validateRecord({
        type: 'timeline',
        path: '/t.sdmatl',
        format: 'sdmatl',
        version: 1,
        eventCount: 1,
        fileBytes: 10,
        sizeBytes: 4096,
        src: -1,
        dst: 0,
      }).kind,
    ).toBe('record');
    expect(validateRecord(topology(1)).kind).toBe('record');
  });

  it('refuses endpoints below host and above the GPU range, on the fast path too', () => {
    for (const bad of [-2, 1024, 0.5, '0']) {
      const r = validateRecord(sample({ src: bad as number }));
      expect(r.kind).toBe('malformed');
      if (r.kind === 'malformed')
        expect(r.reason).toMatch(/^sample\.src: must be a GPU index in 0..1023, or -1 for host memory/);
    }
    expect(validateRecord({ ...topology(1), gpus: [{ ...topology(1).gpus[0]!, numaNode: -2 }] }).kind).toBe(
      'malformed',
    );
  });

  it('reads path-unsupported records and keeps unknown fields', () => {
    const r = parseLine(JSON.stringify({ ...unsupported(-1, 0), extra: 'later field' }));
    expect(r.kind).toBe('record');
    expect(validateRecord({ ...unsupported(-1, 0), points: -1 }).kind).toBe('malformed');
    expect(validateRecord({ ...unsupported(-1, 0), reason: undefined }).kind).toBe('malformed');
  });

  it('still opens an older run (GPU 0 -> GPU 1, no pairs, no timeline endpoints)', () => {
    const run = newRun(header('old', ['sweep', '--src', '0', '--dst', '1']));
    applySavedValue(run, hello);
    applySavedValue(run, sample());
    applySavedValue(run, {
      type: 'timeline',
      path: '/r/timeline.sdmatl',
      format: 'sdmatl',
      version: 1,
      eventCount: 1,
      fileBytes: 10,
      sizeBytes: 1 << 20,
    });
    applySavedValue(run, done);
    expect(run.problems).toEqual([]);
    const view = sweepView(run);
    expect(view.pairs.map((p) => p.label)).toEqual(['GPU 0 → GPU 1']);
    expect(view.title).toMatch(/· GPU 0 → GPU 1$/);
    expect(timelineMeta(run, 'k', 1 << 20).title).toMatch(/^Timeline · GPU 0 → GPU 1 · 1 MiB/);
    expect(timelineFileName({ sizeBytes: 1 << 20, path: 'cu/host', cus: 8 })).toBe('timeline-1M-cu-host-8.sdmatl');
  });
});

describe('a run with three endpoint pairs', () => {
  const run = oneGpuRun();
  const view = sweepView(run);

  it('shows each pair, in order, with its own series and its unsupported paths', () => {
    expect(view.pairs.map((p) => p.label)).toEqual(['host → GPU 0', 'GPU 0 → host', 'GPU 0 local']);
    expect(view.title).toMatch(/3 endpoint pairs$/);
    const local = seriesForCus(view, 64, { src: 0, dst: 0 });
    expect(local.map((s) => [s.path, s.src, s.dst])).toEqual([
      ['cu/host', 0, 0],
      ['engine/host', 0, 0],
    ]);
    // GPU-local copies in this run are 10x faster: the pair's series are its own, not mixed.
    expect(local[0]!.points[0]!.gbps).toBeCloseTo(
      seriesForCus(view, 64, { src: HOST, dst: 0 })[0]!.points[0]!.gbps * 10,
      6,
    );
    expect(unsupportedOfPair(view, { src: HOST, dst: 0 }).map((u) => u.text)).toEqual([
      'engine/device: not for host → GPU 0: engine/device needs two GPUs',
    ]);
  });

  it('prints a table per pair, keeps the SIMULATED line, and says why a path is missing', () => {
    const text = sweepTable(run);
    expect(text).toContain('# SIMULATED:');
    expect(text).toContain('endpoint pairs: host → GPU 0, GPU 0 → host, GPU 0 local');
    for (const pair of ['host → GPU 0', 'GPU 0 → host', 'GPU 0 local']) {
      expect(text).toContain(`# cu/host, ${pair}: GB/s by CUs carrying the copy`);
      expect(text).toContain(`# copy engine (SDMA) paths, ${pair}: GB/s`);
      expect(text).toContain(`# engine/device: not for ${pair}: engine/device needs two GPUs`);
    }
  });

  it('advises per pair: no process-wide engine switch, HSA_FORCE_SDMA_SIZE only for the GPU-local pair (engine below its value), no device-initiated knobs', () => {
    const all = adviseAllPairs(run);
    expect(all.map((a) => a.pairLabel)).toEqual(['host → GPU 0', 'GPU 0 → host', 'GPU 0 local']);
    const h2d = all[0]!;
    for (const a of all)
      expect(a.recommendations.some((r) => r.knob === 'HSA_ENABLE_SDMA' || r.knob === 'HSA_ENABLE_PEER_SDMA')).toBe(
        false,
      );
    expect(h2d.recommendations.map((r) => r.knob)).not.toContain('HSA_FORCE_SDMA_SIZE');
    expect(h2d.notes.join(' ')).toMatch(
      /hipMemcpy between host and GPU runs on an SDMA engine \(ROCr\); no size threshold moves it/,
    );
    const local = all[2]!.recommendations.find((r) => r.knob === 'HSA_FORCE_SDMA_SIZE');
    if (local?.value !== undefined) expect(local.evidence).toMatch(/go to SDMA \(copies within one GPU through ROCr/);
    expect(h2d.recommendations.some((r) => r.knob.startsWith('NCCL_GIN') || r.knob === 'ROCSHMEM_SDMA_THRESHOLD')).toBe(
      false,
    );
    expect(h2d.notes.join(' ')).toMatch(/device-initiated engine path .* does not exist for host memory/);
    expect(all[2]!.notes.join(' ')).toMatch(/does not exist for a GPU-local copy/);
    expect(adviceText(h2d)).toMatch(/^# Advice for host → GPU 0/);
  });

  it('on NVIDIA says host copies run on the copy engines, with no public knob', () => {
    const a = adviseFromRun(oneGpuRun('nvidia'), { pair: { src: 0, dst: HOST } });
    expect(a.pairLabel).toBe('GPU 0 → host');
    expect(a.recommendations.find((r) => r.knob === 'HSA_ENABLE_SDMA')).toBeUndefined();
    expect(a.notes.join(' ')).toMatch(/cudaMemcpyAsync runs on the copy engines \(CE\); there is no public switch/);
  });

  it('records a point timeline for the pair clicked', () => {
    const args = timelineArgs(
      run,
      { sizeBytes: 1 << 20, path: 'cu/host', cus: 64, src: 0, dst: HOST },
      '/tmp/t.sdmatl',
    );
    expect(args.slice(args.indexOf('--src'), args.indexOf('--src') + 4)).toEqual(['--src', '0', '--dst', 'host']);
    expect(timelineFileName({ sizeBytes: 1 << 20, path: 'cu/host', cus: 64, src: HOST, dst: 0 })).toBe(
      'timeline-1M-cu-host-64-host-0.sdmatl',
    );
    expect(runTimelineCovers(run, { sizeBytes: 1 << 20, path: 'cu/host', cus: 64, src: 0, dst: HOST })).toBe(false);
  });
});

describe('sweep options and settings with endpoints', () => {
  it('turns pairs into --src/--dst for one, --pairs for several, nothing for the node default', () => {
    const args = (pairs: { src: number; dst: number }[]) => sweepArgs({ ...DEFAULT_SWEEP, pairs }).slice(13);
    expect(args([])).toEqual([]);
    expect(args([{ src: HOST, dst: 0 }])).toEqual(['--src', 'host', '--dst', '0']);
    expect(
      args([
        { src: HOST, dst: 0 },
        { src: 0, dst: 0 },
      ]),
    ).toEqual(['--pairs', 'host:0,0:0']);
    expect(sweepArgs({ ...DEFAULT_SWEEP, backend: 'sim', simGpus: 1 })).toContain('--sim-gpus');
  });

  it('refuses host:host, a pair twice, and a simulated GPU count off the simulator', () => {
    expect(() => checkSweepOptions({ ...DEFAULT_SWEEP, pairs: [{ src: -1, dst: -1 }] })).toThrow(/host:host/);
    expect(() =>
      checkSweepOptions({
        ...DEFAULT_SWEEP,
        pairs: [
          { src: 0, dst: 1 },
          { src: 0, dst: 1 },
        ],
      }),
    ).toThrow(/twice/);
    expect(() => checkSweepOptions({ ...DEFAULT_SWEEP, pairs: [{ src: 0, dst: -3 }] })).toThrow(
      /GPU index 0..1023 or host/,
    );
    expect(() => checkSweepOptions({ ...DEFAULT_SWEEP, simGpus: 9 })).toThrow(/1..8/);
    expect(() => checkSweepOptions({ ...DEFAULT_SWEEP, backend: 'hip', simGpus: 2 })).toThrow(
      /only applies to the sim backend/,
    );
  });

  it('checks the sdmaLens.sweep.endpoints value item by item', () => {
    expect(readEndpoints(undefined)).toEqual([]);
    expect(readEndpoints(['host:0', '0:host', '0:0'])).toEqual([
      { src: -1, dst: 0 },
      { src: 0, dst: -1 },
      { src: 0, dst: 0 },
    ]);
    expect(() => readEndpoints('0:1')).toThrow(/list of "SRC:DST" strings/);
    expect(() => readEndpoints(['0:1', 'gpu0:gpu1'])).toThrow(/item 2 \("gpu0:gpu1"\) must be "SRC:DST"/);
    expect(() => readEndpoints([1])).toThrow(/item 1/);
    expect(() => readEndpoints(['host:host'])).toThrow(/item 1: host:host/);
  });
});

describe('CLI endpoint flags', () => {
  it('reads --src/--dst with host, or --pairs, and refuses mixes and halves', () => {
    expect(sweepPairs({})).toEqual([]);
    expect(sweepPairs({ src: 'host', dst: '0' })).toEqual([{ src: -1, dst: 0 }]);
    expect(sweepPairs({ pairs: 'host:0,0:host' })).toEqual([
      { src: -1, dst: 0 },
      { src: 0, dst: -1 },
    ]);
    expect(() => sweepPairs({ src: '0', pairs: '0:1' })).toThrow(/--pairs cannot be combined with --src\/--dst/);
    expect(() => sweepPairs({ dst: '1' })).toThrow(/--dst needs --src too/);
    expect(() => sweepPairs({ src: 'host', dst: 'host' })).toThrow(/not a GPU copy/);
    expect(() => sweepPairs({ src: 'gpu', dst: '0' })).toThrow(/^--src: "gpu" is not an endpoint/);
    expect(() => sweepPairs({ pairs: '0:1,x' })).toThrow(/^--pairs: "x" is not an endpoint pair/);
  });

  it('reads matrix --gpus with host: a host row and column', () => {
    expect(matrixEndpoints('host,0,1')).toEqual([-1, 0, 1]);
    expect(
      matrixArgs({
        backend: 'sim',
        paths: ['cu/host'],
        sizeBytes: 1 << 20,
        iters: 1,
        seed: 1,
        gpus: [-1, 0, 1],
        simGpus: 2,
      }),
    ).toEqual([
      'matrix',
      '--backend',
      'sim',
      '--paths',
      'cu/host',
      '--size',
      '1M',
      '--iters',
      '1',
      '--seed',
      '1',
      '--gpus',
      'host,0,1',
      '--sim-gpus',
      '2',
    ]);
    expect(() => matrixEndpoints('host,zero')).toThrow(/^--gpus: "zero"/);
    const run = newRun({ ...header('m', ['matrix', '--gpus', 'host,0']), command: 'matrix' });
    expect(matrixGpus(run)).toEqual([-1, 0]);
  });
});
