/**
 * How a collective run's ranks ran and what each call cost in CUs: the records' new fields
 * (mode, launcher, conditions, cusUsed) as the validator takes and refuses them, the old
 * variant name read under the new one, the mode of a run from its records, the advice on the
 * new names (RCCL's copy-engine collectives advised as NCCL's, the CU budget from the points),
 * the views (panel table, CLI table, JSON view) and the comparison that refuses mixed modes.
 */
import { describe, expect, it } from 'vitest';
import {
  collectiveAdvice,
  collectiveLauncherOf,
  collectiveModeOf,
  defaultPathCus,
  findCollectiveCrossover,
  isOffPath,
} from '../../src/core/collective/collective';
import { collectiveAdviceText } from '../../src/core/collective/collectiveAdviceText';
import { cusUsedText, modeText, variantRows } from '../../src/core/collective/collectiveLabels';
import { collectiveTableModel } from '../../src/core/collective/collectivePanelTable';
import { collectiveTable } from '../../src/core/collective/collectiveTable';
import { collectiveAdviceOf, collectivePageView } from '../../src/core/collective/collectiveView';
import { parseCollectiveHostMessage } from '../../src/core/collective/collectiveMessages';
import { CompareError, compareRuns } from '../../src/core/compare/compare';
import type {
  CollectiveMode,
  CollectivePoint,
  CollectiveVariant,
  CollectiveVariantName,
  CusUsed,
} from '../../src/core/protocol';
import { VARIANT_CONDITIONS_MAX, parseLine, validateRecord } from '../../src/core/protocol';
import type { Run } from '../../src/core/run';
import { applyRecord, applySavedValue, newRun } from '../../src/core/run';
import { tableCsv } from '../../src/core/tables/tableText';
import { header, hello } from '../support/records';

const MiB = 1 << 20;

function variant(
  name: CollectiveVariantName,
  over: Partial<CollectiveVariant> = {},
  library = { name: 'rccl', version: '2.31.0', path: 'librccl.so.1' },
): CollectiveVariant {
  return {
    type: 'collective-variant',
    variant: name,
    supported: true,
    library,
    env: {},
    symmetric: name !== 'default',
    simulated: false,
    ...over,
  };
}

/** A point whose five repeats spread 1% around the time its busbw gives. */
function point(
  op: CollectivePoint['op'],
  name: CollectiveVariantName,
  sizeBytes: number,
  busbw: number,
  transport: string | null,
  cusUsed?: CusUsed,
  ranks = 8,
): CollectivePoint {
  const algbw = (busbw * ranks) / (ranks - 1);
  const timeUs = sizeBytes / (algbw * 1e3);
  const samplesUs = [-1, -0.5, 0, 0.5, 1].map((f) => timeUs * (1 + f * 0.01));
  return {
    type: 'collective',
    op,
    variant: name,
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
    simulated: false,
    repeats: 5,
    samplesUs,
    ...(cusUsed ? { cusUsed } : {}),
  };
}

const log = (count: number): CusUsed => ({
  count,
  source: 'log',
  evidence: `NCCL INFO Channel 00/${count} : 0[0] -> 1[1] via P2P/IPC`,
});
const zeroCta: CusUsed = { count: 0, source: 'zero-cta', evidence: 'graph capture: 0 kernels, 4 copies' };

const SIZES = [1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB];

/** An AMD run: default AllGather and AlltoAll on the library's kernels, ce on both (ahead from 64 MiB), gin-sdma-lib on AlltoAll. */
function amdRun(mode?: CollectiveMode, id = 'coll-amd'): Run {
  const run = newRun({ ...header(id, ['collective', '--backend', 'hip']), command: 'collective' });
  applySavedValue(run, { ...hello, command: 'collective', backend: 'hip', simulated: false });
  const common = mode ? { mode, ...(mode === 'rank-per-process' ? { launcher: 'helper' as const } : {}) } : {};
  for (const name of ['default', 'ce', 'gin-sdma-lib'] as const) applyRecord(run, variant(name, common));
  for (const op of ['allgather', 'alltoall'] as const) {
    SIZES.forEach((s, i) => {
      // The default path holds more channels as sizes grow: 32 CUs up to 16 MiB, 64 from 64 MiB.
      applyRecord(
        run,
        point(
          op,
          'default',
          s,
          [40, 300, 350, 355][i]!,
          op === 'alltoall' ? 'lsa' : 'ring/simple',
          log(i < 2 ? 32 : 64),
        ),
      );
      applyRecord(run, point(op, 'ce', s, [20, 200, 380, 400][i]!, 'ce', zeroCta));
    });
  }
  SIZES.forEach((s, i) => applyRecord(run, point('alltoall', 'gin-sdma-lib', s, [30, 290, 380, 390][i]!, 'sdma')));
  return run;
}

describe('collective-variant: mode, launcher, conditions, imported basis', () => {
  it('takes the new fields, each optional (a run saved before them reads as it did)', () => {
    expect(validateRecord(variant('default')).kind).toBe('record');
    const full = variant('ce', {
      supported: false,
      reason: 'hipMemcpyBatchAsync needs ROCm >= 7.1',
      mode: 'rank-per-process',
      launcher: 'srun',
      conditions: [
        { name: 'hipMemcpyBatchAsync', want: '>= 7.1', found: '7.0.2', ok: false },
        { name: 'NCCL_CTA_POLICY', want: '2', found: '', ok: true },
      ],
    });
    expect(validateRecord(full)).toEqual({ kind: 'record', record: full });
    const imported = variant('gin-sdma-dev', {
      mode: 'unknown',
      variantBasis: ['all_to_all_perf -D 3'],
      variantUnknowns: ['NCCL_GIN_TYPE'],
    });
    expect(validateRecord(imported).kind).toBe('record');
  });

  it('refuses an unknown variant, mode or launcher with a message that names the values it takes', () => {
    const bad = (over: Record<string, unknown>) => validateRecord({ ...variant('default'), ...over });
    expect(bad({ variant: 'gin-sdma-x' })).toEqual({
      kind: 'malformed',
      reason: 'collective-variant.variant: must be one of "default", "ce", "gin-sdma-lib", "gin-sdma-dev", "unknown"',
    });
    expect(bad({ mode: 'threads' })).toMatchObject({
      kind: 'malformed',
      reason: expect.stringMatching(/^collective-variant\.mode: must be one of "rank-per-process", "single-process"/),
    });
    expect(bad({ mode: 'rank-per-process', launcher: 'torchrun' })).toMatchObject({
      kind: 'malformed',
      reason: expect.stringMatching(/^collective-variant\.launcher: must be one of "helper", "srun", "mpirun"$/),
    });
  });

  it('a launcher belongs to a rank-per-process variant only', () => {
    expect(validateRecord(variant('default', { mode: 'single-process', launcher: 'helper' }))).toEqual({
      kind: 'malformed',
      reason: 'collective-variant: launcher: only a rank-per-process variant has a launcher',
    });
    expect(validateRecord(variant('default', { launcher: 'helper' })).kind).toBe('malformed');
  });

  it('bounds the conditions and their strings, and the imported basis', () => {
    const c = { name: 'x', want: '1', found: '0', ok: false };
    expect(validateRecord(variant('ce', { conditions: Array(VARIANT_CONDITIONS_MAX).fill(c) })).kind).toBe('record');
    expect(validateRecord(variant('ce', { conditions: Array(VARIANT_CONDITIONS_MAX + 1).fill(c) })).kind).toBe(
      'malformed',
    );
    expect(validateRecord(variant('ce', { conditions: [{ ...c, name: 'n'.repeat(257) }] })).kind).toBe('malformed');
    expect(validateRecord(variant('ce', { conditions: [{ ...c, ok: 'yes' }] } as never)).kind).toBe('malformed');
    expect(validateRecord(variant('unknown', { variantBasis: Array(65).fill('x') })).kind).toBe('malformed');
    expect(validateRecord(variant('unknown', { variantUnknowns: ['x'.repeat(4097)] })).kind).toBe('malformed');
  });
});

describe('collective point: cusUsed and one rank', () => {
  const base = point('alltoall', 'default', MiB, 40, 'lsa');
  it('takes a count and its source, null when nothing said; a one-GPU point (ranks 1, busbw 0)', () => {
    for (const cusUsed of [log(64), zeroCta, { count: 80, source: 'model' }, { count: null, source: 'unknown' }])
      expect(validateRecord({ ...base, cusUsed }).kind, JSON.stringify(cusUsed)).toBe('record');
    expect(validateRecord({ ...base, ranks: 1, busbwGbps: 0 }).kind).toBe('record');
  });
  it('refuses a source it does not know, and a count its source contradicts', () => {
    expect(validateRecord({ ...base, cusUsed: { count: 4, source: 'guess' } })).toMatchObject({
      kind: 'malformed',
      reason: expect.stringMatching(
        /^collective\.cusUsed\.source: must be one of "log", "zero-cta", "model", "unknown"$/,
      ),
    });
    for (const cusUsed of [
      { count: 64, source: 'unknown' },
      { count: 3, source: 'zero-cta' },
      { count: -1, source: 'log' },
      { count: 1.5, source: 'log' },
      { count: 70_000, source: 'log' },
      { source: 'log' },
      { count: 4, source: 'log', evidence: 'x'.repeat(4097) },
    ])
      expect(validateRecord({ ...base, cusUsed }).kind, JSON.stringify(cusUsed)).toBe('malformed');
  });
});

describe('the old variant name', () => {
  it('gin-sdma in a saved run (or from an older helper) reads as gin-sdma-lib, in both record types', () => {
    const oldVariant = { ...variant('default'), variant: 'gin-sdma' };
    const oldPoint = { ...point('alltoall', 'default', MiB, 40, 'sdma'), variant: 'gin-sdma' };
    const v = parseLine(JSON.stringify(oldVariant));
    const p = parseLine(JSON.stringify(oldPoint));
    expect(v.kind === 'record' && v.record.type === 'collective-variant' && v.record.variant).toBe('gin-sdma-lib');
    expect(p.kind === 'record' && p.record.type === 'collective' && p.record.variant).toBe('gin-sdma-lib');
    // The value read is not changed in place.
    expect(oldPoint.variant).toBe('gin-sdma');
  });
  it('a saved run of the old name advises as one of the new: its points are on their path and compared', () => {
    const run = newRun({ ...header('old', ['collective']), command: 'collective' });
    applySavedValue(run, { ...hello, command: 'collective' });
    for (const name of ['default', 'gin-sdma'])
      applySavedValue(run, { ...variant('default'), variant: name, simulated: true });
    SIZES.forEach((s, i) => {
      applySavedValue(run, { ...point('alltoall', 'default', s, [40, 300, 350, 355][i]!, 'lsa'), simulated: true });
      applySavedValue(run, {
        ...point('alltoall', 'default', s, [30, 290, 380, 390][i]!, 'sdma'),
        variant: 'gin-sdma',
        simulated: true,
      });
    });
    expect(run.problems).toEqual([]);
    expect(run.collectives!.filter((p) => p.variant === 'gin-sdma-lib')).toHaveLength(4);
    expect(run.collectives!.some(isOffPath)).toBe(false);
    const advice = collectiveAdviceOf(run);
    expect(advice.crossovers.find((c) => c.op === 'alltoall')).toMatchObject({
      engineVariant: 'gin-sdma-lib',
      kind: 'crossover',
    });
    expect(advice.recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')?.value).toBeDefined();
    // Saved before the mode was recorded: single-process.
    expect(collectivePageView(run).mode).toBe('single-process');
  });
  it('no other name is renamed', () => {
    expect(validateRecord({ ...variant('default'), variant: 'gin-sdma-device' }).kind).toBe('malformed');
    expect(validateRecord({ ...variant('default'), variant: 'GIN-SDMA' }).kind).toBe('malformed');
  });
});

describe('collectiveModeOf', () => {
  it('the mode the records name; single-process for records saved before it; unknown for an import or records that disagree', () => {
    expect(collectiveModeOf([])).toBe('single-process');
    expect(collectiveModeOf([variant('default'), variant('ce')])).toBe('single-process');
    expect(collectiveModeOf([variant('default', { mode: 'rank-per-process', launcher: 'mpirun' })])).toBe(
      'rank-per-process',
    );
    expect(collectiveModeOf([variant('default', { mode: 'single-process' })])).toBe('single-process');
    expect(collectiveModeOf([variant('unknown', { mode: 'unknown' })])).toBe('unknown');
    expect(collectiveModeOf([variant('default', { mode: 'rank-per-process' }), variant('ce')])).toBe('unknown');
  });
  it('the launcher of a rank-per-process run only', () => {
    expect(collectiveLauncherOf([variant('default', { mode: 'rank-per-process', launcher: 'srun' })])).toBe('srun');
    expect(collectiveLauncherOf([variant('default', { mode: 'single-process' })])).toBeUndefined();
    expect(collectiveLauncherOf([variant('default')])).toBeUndefined();
  });
});

describe('advice on the new names', () => {
  it('AMD ce is advised as NVIDIA ce is: NCCL_CTA_POLICY for RCCL, the communicator-wide scope and the sizes where it loses', () => {
    const advice = collectiveAdviceOf(amdRun('rank-per-process'));
    const ce = advice.crossovers.filter((c) => c.engineVariant === 'ce');
    expect(ce.map((c) => c.op).sort()).toEqual(['allgather', 'alltoall']);
    const r = advice.recommendations.find((x) => x.knob === 'NCCL_CTA_POLICY')!;
    expect(r).toMatchObject({ library: 'rccl', value: '2', confidence: 'uncertain' });
    expect(r.evidence).toMatch(/applies to every collective of the communicator, at every size/);
    expect(r.evidence).toMatch(
      /It loses to the default at allgather 1 MiB, allgather 16 MiB, alltoall 1 MiB, alltoall 16 MiB\./,
    );
    expect(r.evidence).toMatch(/RCCL's copy-engine collectives \(hipMemcpyBatchAsync from the host\)/);
    expect(r.evidence).toMatch(/Assumes RCCL 2\.31\.0/);
  });

  it('AMD AlltoAll is compared with each engine variant that ran it; gin-sdma-lib keeps its per-peer threshold', () => {
    const advice = collectiveAdviceOf(amdRun('rank-per-process'));
    expect(
      advice.crossovers
        .filter((c) => c.op === 'alltoall')
        .map((c) => c.engineVariant)
        .sort(),
    ).toEqual(['ce', 'gin-sdma-lib']);
    expect(advice.crossovers.some((c) => c.op === 'allgather' && c.engineVariant === 'gin-sdma-lib')).toBe(false);
    expect(advice.recommendations.find((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES')?.value).toBeDefined();
    expect(advice.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')?.value).toBe('7');
    // No GIN-SDMA AllGather in librccl: said once, no rccl-tests knob.
    expect(advice.notes.filter((n) => n.startsWith('allgather: librccl has no size threshold'))).toHaveLength(1);
  });

  it('an AMD run of ce alone gets no NCCL_GIN_TYPE; ce off its path is off path on AMD too', () => {
    const run = amdRun('rank-per-process');
    run.collectives = run.collectives!.filter((p) => p.variant !== 'gin-sdma-lib');
    run.collectiveVariants = run.collectiveVariants!.filter((v) => v.variant !== 'gin-sdma-lib');
    expect(collectiveAdviceOf(run).recommendations.map((r) => r.knob)).toEqual(['NCCL_CTA_POLICY']);
    expect(isOffPath(point('allgather', 'ce', MiB, 10, 'ring/simple'))).toBe(true);
    expect(isOffPath(point('alltoall', 'gin-sdma-dev', MiB, 10, 'lsa'))).toBe(true);
    expect(isOffPath(point('alltoall', 'unknown', MiB, 10, 'sdma'))).toBe(false);
  });

  it('a gin-sdma-dev crossover (rccl-tests device kernels, imported) is shown, and no library setting follows from it', () => {
    const points = SIZES.flatMap((s, i) => [
      point('allgather', 'default', s, [40, 300, 350, 355][i]!, 'ring/simple'),
      point('allgather', 'gin-sdma-dev', s, [30, 290, 380, 390][i]!, 'sdma'),
    ]);
    const advice = collectiveAdvice('amd', [variant('gin-sdma-dev', { mode: 'unknown' })], points);
    expect(advice.crossovers.map((c) => `${c.op}/${c.engineVariant}/${c.kind}`)).toEqual([
      'allgather/gin-sdma-dev/crossover',
    ]);
    expect(advice.notes.join(' ')).toMatch(/gin-sdma-dev is rccl-tests' device-API GIN-SDMA kernels/);
    expect(advice.recommendations.some((r) => r.knob.startsWith('NCCL_GIN_ANVIL'))).toBe(false);
  });

  it('an unsupported variant is a note with its reason and the conditions it did not meet', () => {
    const run = amdRun('rank-per-process');
    run.collectiveVariants = run.collectiveVariants!.map((v) =>
      v.variant === 'ce'
        ? {
            ...v,
            supported: false,
            reason: 'hipMemcpyBatchAsync is missing',
            hint: 'install ROCm 7.12 or later',
            conditions: [
              { name: 'NCCL_CTA_POLICY', want: '2', found: '2', ok: true },
              { name: 'hipMemcpyBatchAsync', want: 'ROCm >= 7.12', found: '', ok: false },
            ],
          }
        : v,
    );
    const note = collectiveAdviceOf(run).notes.find((n) => n.startsWith('ce did not run'));
    expect(note).toBe(
      'ce did not run: hipMemcpyBatchAsync is missing (install ROCm 7.12 or later). Conditions not met: hipMemcpyBatchAsync wants ROCm >= 7.12, found nothing.',
    );
  });
});

describe('the CU budget from the points', () => {
  it("takes the largest count the default path's points logged where an engine variant was ahead, and says it came from the log", () => {
    const run = amdRun('rank-per-process');
    const cus = collectiveAdviceOf(run).cus!;
    expect(cus).toMatchObject({ count: 64, source: 'log', sizeBytes: 64 * MiB });
    expect(cus.text).toMatch(
      /^The default path's kernels held up to 64 CUs per rank at the sizes where an engine variant was ahead/,
    );
    expect(cus.text).toMatch(/from the library's log/);
    expect(cus.text).toMatch(/ce held up to 0/);
  });

  it('a larger count at a size where the default won is not the budget: only the sizes that matter count', () => {
    const run = amdRun('rank-per-process');
    run.collectives = run.collectives!.map((p) =>
      p.variant === 'default' && p.sizeBytes === MiB ? { ...p, cusUsed: log(128) } : p,
    );
    expect(collectiveAdviceOf(run).cus!.count).toBe(64);
  });

  it('assumes 64 CUs, and says so, when no point said; leaves the rest of the GPU to compute with its CU count', () => {
    const run = amdRun('rank-per-process');
    run.collectives = run.collectives!.map(({ cusUsed: _drop, ...p }) => p);
    const cus = defaultPathCus(run.collectives, collectiveAdviceOf(run).crossovers, { cusPerGpu: 256 })!;
    expect(cus.source).toBe('assumed');
    expect(cus.count).toBe(64);
    expect(cus.text).toMatch(
      /64 CUs are assumed \(RCCL's channel count on MI300-class GPUs\), not read from the library's log/,
    );
    expect(cus.text).toMatch(/Of 256 CUs per GPU the default path leaves 192 to compute beside it/);
    // A point whose count is unknown says nothing either.
    const unknown = run.collectives.map((p) => ({ ...p, cusUsed: { count: null, source: 'unknown' as const } }));
    expect(defaultPathCus(unknown, [])?.source).toBe('assumed');
  });

  it("names the simulated node's model as the source, and the advice text prints the budget", () => {
    const run = amdRun('rank-per-process');
    run.collectives = run.collectives!.map((p) =>
      p.cusUsed ? { ...p, cusUsed: { count: p.cusUsed.count, source: 'model' as const } } : p,
    );
    const advice = collectiveAdviceOf(run);
    expect(advice.cus?.text).toMatch(/from the simulated node's model/);
    expect(collectiveAdviceText(advice, { simulated: false })).toMatch(
      /^# CU budget: The default path's kernels held up to 64 CUs/m,
    );
  });
});

describe('the views', () => {
  const run = amdRun('rank-per-process');

  it("the page view carries the mode, the launcher, each point's CUs and the budget, and passes the page schema", () => {
    const view = collectivePageView(run);
    expect(view.mode).toBe('rank-per-process');
    expect(view.launcher).toBe('helper');
    const def = view.curves.find((c) => c.op === 'alltoall' && c.variant === 'default')!;
    expect(def.points.map((p) => p.cusUsed?.count)).toEqual([32, 32, 64, 64]);
    expect(def.points[0]!.cusUsed).toEqual(log(32));
    expect(view.cus?.source).toBe('log');
    expect(parseCollectiveHostMessage({ type: 'collective-view', view })).toEqual({ type: 'collective-view', view });
    expect(parseCollectiveHostMessage({ type: 'collective-view', view: { ...view, mode: 'threads' } })).toBeUndefined();
  });

  it('the panel table (CSV and Markdown) has the CUs, their source and the mode on every row', () => {
    const table = collectiveTableModel(collectivePageView(run));
    expect(table.columns.slice(-4)).toEqual(['CUs used', 'CUs source', 'mode', 'launcher']);
    const csv = tableCsv(table).split('\r\n');
    expect(csv[0]).toMatch(/,CUs used,CUs source,mode,launcher$/);
    expect(csv.find((l) => l.startsWith('alltoall,default,out-of-place,64 MiB'))).toMatch(
      /,64,log,rank-per-process,helper$/,
    );
    expect(csv.find((l) => l.startsWith('alltoall,gin-sdma-lib,out-of-place,64 MiB'))).toMatch(
      /,,,rank-per-process,helper$/,
    );
    expect(table.notes?.[0]).toMatch(/mode rank-per-process \(launcher helper\)$/);
  });

  it("the CLI table says the mode, lists the variants with the refused one's reason and conditions, and a CUs column", () => {
    const refused = amdRun('single-process');
    refused.collectiveVariants = refused.collectiveVariants!.map((v) =>
      v.variant === 'gin-sdma-lib'
        ? {
            ...v,
            supported: false,
            reason: 'RCCL 2.28.3 has no Anvil SDMA GIN type',
            conditions: [{ name: 'RCCL', want: '>= 2.30.4', found: '2.28.3', ok: false }],
          }
        : v,
    );
    refused.collectives = refused.collectives!.filter((p) => p.variant !== 'gin-sdma-lib');
    const text = collectiveTable(refused);
    expect(text).toContain('# mode: single-process: one process drives every GPU (as nccl-tests -g N)');
    expect(text).toMatch(
      /^# gin-sdma-lib {2}no {3}rccl 2\.31\.0 {7}RCCL 2\.28\.3 has no Anvil SDMA GIN type; RCCL >= 2\.30\.4: found 2\.28\.3 \(not met\)$/m,
    );
    expect(text).toMatch(/^# default {7}yes {2}rccl 2\.31\.0 {7}-$/m);
    const rows = text.split('\n').filter((l) => l.startsWith(' '));
    expect(rows.find((l) => /alltoall +default +out +64 MiB/.test(l))).toContain('64 (log)');
    expect(rows.find((l) => /alltoall +ce +out +64 MiB/.test(l))).toContain('0 (zero-CTA)');
    expect(text).toMatch(/^# CUs: The default path's kernels held up to 64 CUs/m);
  });

  it('a run saved before cusUsed shows "—" for each point; the labels say what they stand for', () => {
    expect(cusUsedText(undefined)).toBe('\u2014');
    expect(cusUsedText({ count: null, source: 'unknown' })).toBe('\u2014');
    expect(cusUsedText({ count: 80, source: 'model' })).toBe('80 (model)');
    expect(modeText('rank-per-process', 'mpirun')).toBe('rank-per-process (launcher mpirun)');
    expect(modeText('single-process')).toBe('single-process');
    expect(
      variantRows([
        variant('ce', {
          supported: false,
          reason: 'r',
          conditions: [
            { name: 'a', want: '1', found: '1', ok: true },
            { name: 'b', want: '2', found: '', ok: false },
          ],
        }),
      ]),
    ).toEqual([
      {
        variant: 'ce',
        supported: 'no',
        library: 'rccl 2.31.0',
        reason: 'r',
        conditions: ['b 2: found unknown (not met)', 'a 1: found 1 (met)'],
      },
    ]);
  });

  it('run text in a condition or the CUs evidence stays one line in the CLI table', () => {
    const hostile = amdRun('rank-per-process');
    hostile.collectiveVariants = hostile.collectiveVariants!.map((v) => ({
      ...v,
      supported: v.variant !== 'ce',
      ...(v.variant === 'ce'
        ? {
            reason: 'no\n# export EVIL=1',
            conditions: [{ name: 'x\u202e', want: '\r1', found: '\u001b[2J', ok: false }],
          }
        : {}),
    }));
    const text = collectiveTable(hostile);
    for (const raw of ['\u001b', '\u202e', '\r']) expect(text.includes(raw), JSON.stringify(raw)).toBe(false);
    expect(text.split('\n').some((l) => l.startsWith('# export EVIL'))).toBe(false);
  });
});

describe('compare: collectives of different modes', () => {
  const a = amdRun('rank-per-process');
  it('refuses, naming both modes and what to do', () => {
    const b = amdRun('single-process');
    expect(() => compareRuns(a, b)).toThrow(CompareError);
    expect(() => compareRuns(a, b)).toThrow(
      /run A \(coll-amd\) is rank-per-process and run B \(coll-amd\) single-process: collectives whose ranks ran differently are not compared .*Rerun A as single-process \(sdma-lens collective --mode single-process, or the sdmaLens\.collective\.mode setting\), or compare it with another rank-per-process run/,
    );
  });
  it('a run saved before the mode counts as single-process: compared with a single-process run, refused beside a rank-per-process one', () => {
    const old = amdRun();
    expect(compareRuns(old, amdRun('single-process')).points.length).toBeGreaterThan(0);
    expect(() => compareRuns(old, a)).toThrow(
      /run A \(coll-amd\) is single-process and run B \(coll-amd\) rank-per-process/,
    );
  });
  it('the same mode compares; an import that cannot tell compares with a note', () => {
    expect(compareRuns(a, amdRun('rank-per-process')).points.length).toBeGreaterThan(0);
    const unknown = amdRun('unknown');
    const c = compareRuns(a, unknown);
    expect(c.notes).toContain(
      'B does not say how its ranks ran (the other is rank-per-process): if they ran differently, the ratios include that',
    );
  });
  it('a baseline run of another mode is not a repeat of A', () => {
    const b = amdRun('rank-per-process', 'b');
    expect(() => compareRuns(a, b, { baselines: [amdRun('single-process', 'base')] })).toThrow(
      /its collective mode is single-process, A's rank-per-process/,
    );
  });
});

describe('crossovers on the new names', () => {
  it('the crossover text names the engine variant it compares', () => {
    const points = amdRun('rank-per-process').collectives!;
    expect(findCollectiveCrossover(points, 'alltoall', 'ce').text).toMatch(/^alltoall: ce stays ahead from 64 MiB/);
    expect(findCollectiveCrossover(points, 'alltoall', 'gin-sdma-lib').engineVariant).toBe('gin-sdma-lib');
  });
});
