import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adviseFromRun, engineAt, followCrossover, shellExports } from '../../src/core/advice/advice';
import type { Crossover } from '../../src/core/advice/crossover';
import { adviceText } from '../../src/core/advice/adviceText';
import { knob } from '../../src/core/advice/knobs';
import type { Sample } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { applyRecord, newRun } from '../../src/core/run';
import type { Run } from '../../src/core/run';
import { readRunFile } from '../../src/core/runs/runStore';
import { header, sample } from '../support/records';

const KiB = 1024;
const fixture = () => readRunFile(join(__dirname, '../fixtures/runs/sim-sweep-seed1.ndjson'));

function withLibraries(run: Run, libraries: { name: string; version: string }[]): Run {
  if (!run.topology) throw new Error('fixture has no topology');
  return { ...run, topology: { ...run.topology, libraries } };
}

describe('advice from a real simulator run', () => {
  it('recommends per-put thresholds from the device-initiated crossover, each in its own comparison, with the evidence', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 8 });
    expect(advice.simulated).toBe(true);
    expect(advice.notes.join()).toMatch(/simulated/);
    const anvil = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD')!;
    // Device-initiated, 8 CUs: the engine stays ahead from 256 KiB; the Anvil backend sends puts ABOVE its value to SDMA,
    // and the value is the crossing itself (in whole KiB), inside the range the crossover gives.
    const device = advice.focus.find((c) => c.initiator === 'device')!;
    expect(anvil.basis).toBe('measured-crossover');
    expect(Number(anvil.value)).toBe(Math.round(device.estimateBytes! / KiB) * KiB);
    expect(Number(anvil.value)).toBeGreaterThanOrEqual(Math.floor(device.rangeBytes![0]));
    expect(Number(anvil.value)).toBeLessThanOrEqual(Math.ceil(device.rangeBytes![1]));
    expect(anvil.evidence).toMatch(
      /engine when the size is above it\) follows the measured crossover near \d+(\.\d+)? KiB \(between [\d.]+ KiB and [\d.]+ KiB\) against cu\/device on 8 CUs/,
    );
    expect(anvil.evidence).toMatch(/of your sizes, 256 KiB, .* go to SDMA, 4 KiB, 16 KiB, 64 KiB, 128 KiB stay on CUs/);
    // rocSHMEM's threshold switches at the value (>=), so it is the size itself.
    expect(advice.recommendations.find((r) => r.knob === 'ROCSHMEM_SDMA_THRESHOLD')?.value).toBe(anvil.value);
    // librccl's AlltoAll: estimated from point-to-point, never 'clear', and how to verify it on the node.
    const a2a = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')!;
    expect(a2a).toMatchObject({ value: anvil.value, confidence: 'uncertain' });
    expect(a2a.evidence).toMatch(/AllToAll GIN: transport=sdma/);
  });

  it('never writes the rccl-tests names into a run of the library, and says why', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 8 });
    expect(
      advice.recommendations.map((r) => r.knob).filter((k) => /_THRESHOLD_(ALLGATHER|ALLTOALL|BROADCAST)$/.test(k)),
    ).toEqual([]);
    expect(advice.notes.join(' ')).toMatch(/read only by rccl-tests' device-API kernels/);
  });

  it('host-started copies between GPUs: ROC_P2P_SDMA_SIZE in KiB, following the crossover; no HSA_FORCE_SDMA_SIZE (GPU-local only)', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 8 });
    const host = advice.focus.find((c) => c.initiator === 'host')!;
    const p2p = advice.recommendations.find((r) => r.knob === 'ROC_P2P_SDMA_SIZE')!;
    expect(p2p.value).toMatch(/^\d+$/);
    // CLR sends a peer copy to SDMA when it is larger than value KiB: the crossover's size goes to
    // SDMA; below the threshold the load/store median is the faster, above it the engine's (the
    // threshold follows where the medians cross, which may lie among sizes whose spreads overlap).
    const kib = Number(p2p.value) * 1024;
    expect(host.fromBytes!).toBeGreaterThan(kib);
    expect(host.estimateBracket![0]).toBeLessThanOrEqual(kib);
    const between = host.verdicts.filter((v) => v.sizeBytes > kib && v.sizeBytes < host.fromBytes!);
    expect(between.every((v) => v.engineMedianNs <= v.cuMedianNs)).toBe(true);
    expect(advice.recommendations.some((r) => r.knob === 'HSA_FORCE_SDMA_SIZE')).toBe(false);
    expect(advice.recommendations.some((r) => r.knob === 'HSA_ENABLE_SDMA' || r.knob === 'HSA_ENABLE_PEER_SDMA')).toBe(
      false,
    );
  });

  it("an AMD run that does not record CLR's blit cuts at 0 says its engine/host samples up to 1 MiB may not have been SDMA", async () => {
    const old = await fixture();
    const advice = adviseFromRun(old, { loadStoreCus: 8 });
    expect(advice.notes.join(' ')).toMatch(
      /does not record that ROC_P2P_SDMA_SIZE and GPU_FORCE_BLIT_COPY_SIZE were 0 .* host-initiated thresholds below 1 MiB are uncertain/,
    );
    const p2p = advice.recommendations.find((r) => r.knob === 'ROC_P2P_SDMA_SIZE')!;
    if (Number(p2p.value) < 1024) expect(p2p.confidence).not.toBe('clear');
    const forced: Run = {
      ...old,
      hello: {
        ...old.hello!,
        runtimeKnobs: [
          { name: 'ROC_P2P_SDMA_SIZE', value: '0', previous: null, setBy: 'helper' },
          { name: 'GPU_FORCE_BLIT_COPY_SIZE', value: '0', previous: null, setBy: 'helper' },
        ],
      },
    };
    expect(adviseFromRun(forced, { loadStoreCus: 8 }).notes.join(' ')).not.toMatch(
      /does not record that ROC_P2P_SDMA_SIZE/,
    );
  });

  it('every threshold says which library version it assumed and where that came from; a version without the knob gets no value', async () => {
    const unknown = adviseFromRun(await fixture(), { loadStoreCus: 8 });
    const anvil = unknown.recommendations.find((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD')!;
    expect(anvil.evidence).toMatch(
      /Assumes RCCL 2\.30\.4 and later, where NCCL_GIN_ANVIL_SDMA_THRESHOLD works as described; the version on the node was not detected\.$/,
    );
    const known = adviseFromRun(withLibraries(await fixture(), [{ name: 'rccl', version: '2.31.2' }]), {
      loadStoreCus: 8,
    });
    expect(known.recommendations.find((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD')!.evidence).toMatch(
      /Assumes RCCL 2\.31\.2 \(version the helper read on [^)]+\)\.$/,
    );
    const given = adviseFromRun(await fixture(), { loadStoreCus: 8, libraries: { rccl: '2.30.5' } });
    const a2a = given.recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')!;
    expect(a2a.value).toBeUndefined();
    expect(a2a.confidence).toBe('none');
    expect(a2a.evidence).toMatch(
      /RCCL 2\.30\.5 \(version given to the advice\) is outside 2\.30\.7 and later, where NCCL_GIN_A2A_SDMA_MIN_BYTES exists: no value is suggested\.$/,
    );
  });

  it('never guesses NCCL_GIN_TYPE: unknown version -> options and no value', async () => {
    const advice = adviseFromRun(await fixture());
    const gin = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')!;
    expect(gin.value).toBeUndefined();
    expect(gin.evidence).toMatch(/not detected/);
    expect(gin.evidence).toMatch(/7 for RCCL 2\.31\.0 and later/);
  });

  it.each([
    ['2.31.2', '7', 'clear'],
    ['2.30.8', '6', 'clear'],
    ['2.30.5', '5', 'uncertain'],
  ])('NCCL_GIN_TYPE for RCCL %s is %s, with where the version came from', async (version, value, confidence) => {
    const advice = adviseFromRun(withLibraries(await fixture(), [{ name: 'rccl', version }]));
    const gin = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')!;
    expect(gin).toMatchObject({ value, confidence });
    expect(gin.evidence).toMatch(/version the helper read on /);
    expect(gin.evidence).toMatch(/Verify on the node: NCCL_DEBUG=INFO/);
  });

  it('RCCL before the Anvil SDMA backend (2.28.9) gets no NCCL_GIN_TYPE value', async () => {
    const advice = adviseFromRun(withLibraries(await fixture(), [{ name: 'rccl', version: '2.28.9' }]));
    const gin = advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')!;
    expect(gin.value).toBeUndefined();
    expect(gin.confidence).toBe('none');
    expect(gin.evidence).toMatch(/RCCL 2\.28\.9 has no GIN SDMA backend/);
  });

  it('an override beats what the helper detected', async () => {
    const advice = adviseFromRun(withLibraries(await fixture(), [{ name: 'rccl', version: '2.28.9' }]), {
      libraries: { rccl: '2.31.0' },
    });
    expect(advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')?.value).toBe('7');
  });

  it('does the CU arithmetic: 64 CUs of 256 -> 192 left, SDMA -> 255, 1.33x', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 64 });
    expect(advice.cuBudget).toMatchObject({
      totalCus: 256,
      loadStoreCus: 64,
      computeCusWithLoadStore: 192,
      computeCusWithEngine: 255,
      measured: false,
    });
    expect(advice.cuBudget!.computeGain).toBeCloseTo(255 / 192, 5);
    expect(advice.cuBudget!.text).not.toMatch(/assumed/);
    // Not given: the 64 is an assumption, and the text says so.
    expect(adviseFromRun(await fixture()).cuBudget!.text).toMatch(
      /^The 64 CUs of the load\/store path are assumed \(RCCL's channel count on MI300-class GPUs, not read from your library's log/,
    );
  });

  it('compares with the nearest measured CU count and says so', async () => {
    const advice = adviseFromRun(await fixture(), { loadStoreCus: 48 });
    expect(advice.loadStoreCus).toBe(64);
    expect(advice.notes.join()).toMatch(/nearest count measured/);
  });

  it('copies as shell exports only what has a value', async () => {
    const text = shellExports(adviseFromRun(await fixture()));
    expect(text).toMatch(/^export NCCL_GIN_ENABLE=1$/m);
    expect(text).not.toMatch(/NCCL_GIN_TYPE/);
  });

  it('degenerate runs give notes, not numbers', () => {
    const empty = adviseFromRun(newRun(header()));
    expect(empty.notes.join()).toMatch(/no samples/);
    expect(empty.recommendations.filter((r) => r.basis === 'measured-crossover')).toEqual([]);
    const onePath = newRun(header());
    applyRecord(onePath, sample({ mover: 'cu', initiator: 'device' }));
    expect(adviseFromRun(onePath).notes.join()).toMatch(/No device-initiated paths/);
  });
});

describe('followCrossover', () => {
  const MiB = 1 << 20;
  const crossover = (estimateBytes: number, rangeBytes: [number, number], fromBytes: number): Crossover => ({
    initiator: 'device',
    engine: 'engine/device',
    cu: 'cu/device',
    cus: 8,
    kind: 'crossover',
    fromBytes,
    estimateBytes,
    rangeBytes,
    uncertainty: [],
    confidence: 'clear',
    verdicts: [],
    missingBytes: [],
    repetitions: 20,
    explanation: '',
  });

  it('puts the threshold at the crossing, not at the next user size: 3 MiB above a 1.76 MiB crossing goes to SDMA', () => {
    // Measured 1 MiB (load/store ahead) and 4 MiB (engine ahead), crossing interpolated near 1.76 MiB.
    const c = crossover(1.76 * MiB, [1.6 * MiB, 1.9 * MiB], 4 * MiB);
    const sizes = [96 * KiB, 384 * KiB, 3 * MiB, 24 * MiB];
    const anvil = followCrossover(knob('NCCL_GIN_ANVIL_SDMA_THRESHOLD')!, c, sizes, [1 * MiB, 4 * MiB]);
    expect(anvil.value).toBe(Math.round((1.76 * MiB) / KiB) * KiB);
    expect(anvil.sizes).toMatch(/^of your sizes, 3 MiB, 24 MiB go to SDMA, 96 KiB, 384 KiB stay on CUs/);
    expect(anvil.sizes).toMatch(/outside the measured 1 MiB\.\.4 MiB: extrapolated/);
    expect(anvil.words).toMatch(/follows the measured crossover near 1\.76 MiB \(between 1\.6 MiB and 1\.9 MiB\)/);
    // A KiB knob compared with >: the crossing in whole KiB, rounded down.
    expect(followCrossover(knob('ROC_P2P_SDMA_SIZE')!, c, sizes, [1 * MiB, 4 * MiB]).value).toBe(
      Math.floor((1.76 * MiB) / KiB),
    );
    // A >= knob: rounded up, so the crossing itself goes to SDMA.
    expect(followCrossover(knob('NCCL_GIN_A2A_SDMA_MIN_BYTES')!, c, [], [1 * MiB, 4 * MiB]).value).toBe(
      Math.round((1.76 * MiB) / KiB) * KiB,
    );
  });

  it('names the user sizes inside the crossing range as near it', () => {
    const c = crossover(1.76 * MiB, [1.5 * MiB, 2 * MiB], 4 * MiB);
    expect(followCrossover(knob('ROCSHMEM_SDMA_THRESHOLD')!, c, [1.9 * MiB], [1 * MiB, 4 * MiB]).sizes).toMatch(
      /1\.9 MiB \(near the crossing: either path within its spread\) go to SDMA/,
    );
  });

  it('never contradicts the crossover: sizes above its range go to SDMA, sizes below stay on CUs (property)', () => {
    const names = [
      'NCCL_GIN_ANVIL_SDMA_THRESHOLD',
      'ROCSHMEM_SDMA_THRESHOLD',
      'ROC_P2P_SDMA_SIZE',
      'NCCL_GIN_A2A_SDMA_MIN_BYTES',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 8 * KiB, max: 2 ** 33 }),
        fc.double({ min: 1.05, max: 4, noNaN: true }),
        fc.constantFrom(...names),
        fc.array(fc.integer({ min: 1, max: 2 ** 34 }), { maxLength: 12 }),
        (lo, ratio, name, user) => {
          const hi = Math.round(lo * ratio);
          const est = Math.sqrt(lo * hi);
          const k = knob(name)!;
          const { value } = followCrossover(k, crossover(est, [lo, hi], hi), user, [lo / 2, hi * 2]);
          const step = k.scale === 'KiB' ? KiB : 1;
          return user.every((b) =>
            b > hi + step ? engineAt(k, value, b) : b < lo - step ? !engineAt(k, value, b) : true,
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('advice on random noisy runs stays inside the measured range (property)', () => {
    const sizes = [4, 16, 64, 256, 1024, 4096].map((k) => k * KiB);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.2, max: 5, noNaN: true }), { minLength: 12, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 2 ** 32 }), { maxLength: 8 }),
        (factors, messageSizes) => {
          const run = newRun(header());
          sizes.forEach((sizeBytes, i) => {
            for (const [mover, f] of [
              ['cu', factors[i]!],
              ['engine', factors[i + 6]!],
            ] as const) {
              const meanNs = (sizeBytes / 40) * f + 3000;
              applyRecord(
                run,
                sample({
                  mover,
                  initiator: 'device',
                  sizeBytes,
                  cus: mover === 'cu' ? 8 : 1,
                  meanNs,
                  timesNs: [meanNs * 0.97, meanNs, meanNs * 1.03],
                }),
              );
            }
          });
          const advice = adviseFromRun(run, { loadStoreCus: 8, messageSizes });
          // In bytes: a KiB knob's value times 1024, within one KiB of the range for rounding up.
          return advice.recommendations
            .filter((r) => r.basis === 'measured-crossover' && r.value !== undefined)
            .every((r) => {
              const bytes = Number(r.value) * (knob(r.knob)?.scale === 'KiB' ? KiB : 1);
              return bytes >= sizes[0]! - KiB && bytes <= sizes.at(-1)! + KiB;
            });
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * The 2x H200 sweep of bench/results/h200x2-2026-11-30 (cu/* on 1 and 132 SMs, 20+
 * repetitions a point), and the shapes of data users bring: counts measured for one
 * initiator only, one repetition a point, paths measured over different size ranges.
 */
describe('advice on real 2x H200 data', () => {
  const MiB = 1 << 20;
  function h200(keep: (s: Sample) => boolean = () => true, change: (s: Sample) => Sample = (s) => s): Run {
    const run = newRun(header('h200x2'));
    for (const line of readFileSync(
      join(__dirname, '../../bench/results/h200x2-2026-11-30/raw/sweep.ndjson'),
      'utf8',
    ).split('\n')) {
      const r = line ? parseLine(line) : undefined;
      if (r?.kind !== 'record') continue;
      if (r.record.type === 'sample') {
        if (keep(r.record)) applyRecord(run, change(r.record));
      } else applyRecord(run, r.record);
    }
    return run;
  }
  const focusOf = (run: Run, initiator: string, loadStoreCus?: number) =>
    adviseFromRun(run, loadStoreCus ? { loadStoreCus } : {}).focus.find((c) => c.initiator === initiator)!;

  it('compares each initiator at the CU count nearest the asked one among those measured for it', () => {
    // cu/device only on 1 SM, cu/host on 1 and 132: asked for 64, device must use 1, not report "not enough sizes".
    const run = h200((s) => !(s.mover === 'cu' && s.initiator === 'device' && s.cus === 132));
    const advice = adviseFromRun(run, { loadStoreCus: 64 });
    const device = advice.focus.find((c) => c.initiator === 'device')!;
    const host = advice.focus.find((c) => c.initiator === 'host')!;
    expect(device.cus).toBe(1);
    expect(device.kind).toBe('crossover');
    expect(host.cus).toBe(132);
    expect(advice.notes.join(' ')).toMatch(
      /device-initiated copies are compared with 1, the nearest count measured for them/,
    );
    expect(adviceText(advice)).toMatch(
      /device-initiated, against 1 CU: engine\/device stays ahead of cu\/device on 1 CU from/,
    );
  });

  it('states a load/store win at every size, with where to measure next, in the focus and in the other counts', () => {
    // Up to 16 MiB all 132 SMs beat the proxied engine (the real crossover is near 45 MiB).
    const run = h200((s) => s.sizeBytes <= 16 * MiB);
    const at132 = focusOf(run, 'device', 132);
    expect(at132.kind).toBe('cu-always');
    expect(at132.explanation).toMatch(
      /cu\/device on 132 CUs is ahead of engine\/device at every measured size up to 16 MiB/,
    );
    expect(at132.measureNext).toBe('To find where engine/device takes over, measure above 16 MiB.');
    const text = adviceText(adviseFromRun(run, { loadStoreCus: 1 }));
    expect(text).toMatch(/at other CU counts: .*device-initiated on 132 CUs: load\/store at every size up to 16 MiB/);
  });

  it('with one repetition a point, the uncertainty is the repetitions and the interval is the two sizes around the crossing', () => {
    const run = h200(undefined, (s) => ({ ...s, iters: 1, timesNs: [s.medianNs ?? s.meanNs] }));
    const device = focusOf(run, 'device', 132);
    expect(device.kind).toBe('crossover');
    expect(device.confidence).toBe('uncertain');
    expect(device.uncertainty).toEqual([
      expect.stringMatching(/^only 1 repetition per point, too few to judge the spread/),
    ]);
    expect(device.rangeBytes).toEqual([16 * MiB, 64 * MiB]);
    expect(device.explanation).toMatch(/between 16 MiB and 64 MiB/);
    expect(device.explanation).not.toMatch(/±/);
    // With the real 20+ repetitions: a clear result and a narrow interval.
    const real = focusOf(h200(), 'device', 132);
    expect(real.confidence).toBe('clear');
    expect(real.uncertainty).toEqual([]);
    expect(real.rangeBytes![1] / real.rangeBytes![0]).toBeLessThan(1.2);
  });

  it('paths measured over different size ranges: says where to measure both, instead of "no crossover"', () => {
    // The in-kernel copy measured up to 16 MiB, the proxied engine from 256 MiB.
    const run = h200(
      (s) => s.initiator !== 'device' || (s.mover === 'cu' ? s.sizeBytes <= 16 * MiB : s.sizeBytes >= 256 * MiB),
    );
    const device = focusOf(run, 'device', 132);
    expect(device.kind).toBe('insufficient');
    expect(device.measureNext).toBe(
      'cu/device was measured from 4 KiB to 16 MiB, engine/device from 256 MiB to 1 GiB: measure both from 16 MiB to 256 MiB.',
    );
  });

  it('NCCL_SYM_CE_THRESHOLD: never on an H200 (sm_90, where NCCL does not read it); on sm_100 in elements, above the value', () => {
    const onH200 = adviseFromRun(h200());
    expect(onH200.recommendations.find((r) => r.knob === 'NCCL_SYM_CE_THRESHOLD')).toBeUndefined();
    expect(onH200.notes.join(' ')).toMatch(
      /NCCL_SYM_CE_THRESHOLD acts only on Blackwell \(sm_100\) and newer, all-direct NVLink; this node's GPU is sm_90, where NCCL never reads it/,
    );
    const blackwell = h200();
    for (const g of blackwell.topology!.gpus) g.arch = 'sm_100';
    const onB200 = adviseFromRun(blackwell).recommendations.find((r) => r.knob === 'NCCL_SYM_CE_THRESHOLD')!;
    expect(onB200.evidence).toMatch(/elements per rank, engine when the size is above it/);
  });
});

describe('advice on a run that names no GPU vendor', () => {
  it('says the settings are the AMD ones and do not apply on NVIDIA', () => {
    const run = newRun(header('imported'));
    run.samples.push(
      sample({ mover: 'engine', initiator: 'device', engines: 1, cus: 1 }),
      sample({ mover: 'cu', initiator: 'device', cus: 64 }),
    );
    expect(adviseFromRun(run).notes.join(' ')).toMatch(
      /does not say whose GPUs it measured .*on NVIDIA GPUs they do not apply/,
    );
  });
});
