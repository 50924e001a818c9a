/**
 * The overlap run against the CU arithmetic: the record's new fields (old runs still valid,
 * hostile values refused), what decided each row (each class reachable, at its boundaries), the
 * engine-against-CU-copy claim lines, the advice per compute kind, and the CLI table and exports.
 * Records are hand-made in the helper's shape (test/support/overlapRecords.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectiveAdvice } from '../../src/core/collective/collective';
import { parseCollectiveHostMessage } from '../../src/core/collective/collectiveMessages';
import { collectiveTableModel } from '../../src/core/collective/collectivePanelTable';
import { collectiveTable } from '../../src/core/collective/collectiveTable';
import { collectivePageView } from '../../src/core/collective/collectiveView';
import {
  BANDWIDTH_KEPT_MIN,
  CU_ARITHMETIC_TOLERANCE,
  decidedBy,
  overlapClaims,
  overlapView,
} from '../../src/core/collective/overlap';
import type { OverlapPoint } from '../../src/core/protocol';
import { OVERLAP_MECHANISM_MAX, parseLine, validateRecord } from '../../src/core/protocol';
import { tableCsv, tableMarkdown } from '../../src/core/tables/tableText';
import { runFromText } from '../support/benchRuns';
import {
  TOTAL_CUS,
  aloneRecord,
  besideRecord,
  oldRecord,
  overlapRunRecords,
  overlapRunText,
} from '../support/overlapRecords';

const H200_OVERLAP = join(__dirname, '../../bench/results/h200x2-collectives-2026-11-30/overlap.ndjson');
const h200Lines = () =>
  readFileSync(H200_OVERLAP, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"overlap"'));

describe('the overlap record', () => {
  it('a run saved before the new fields still validates, line by line', () => {
    const lines = h200Lines();
    expect(lines.length).toBe(14);
    for (const line of lines) expect(parseLine(line).kind, line).toBe('record');
    for (const p of overlapRunRecords()) expect(validateRecord(oldRecord(p)).kind).toBe('record');
  });

  it('takes the new fields: triad, bound, the copy alone, the CUs and their arithmetic, the mechanism, the telemetry', () => {
    for (const p of [...overlapRunRecords(), ...overlapRunRecords(true)])
      expect(validateRecord(p), JSON.stringify(p)).toMatchObject({ kind: 'record' });
    const triad = besideRecord('triad', 'engine/device', { kept: 0.7 });
    const r = validateRecord(triad);
    expect(r.kind === 'record' && r.record).toMatchObject({
      compute: 'triad',
      bound: 'memory',
      cusUsed: 1,
      cuArithmetic: 255 / 256,
      mechanism: 'rocSHMEM put from a kernel in PE processes (GPU-initiated SDMA)',
      telemetry: 'amd-smi',
    });
    // Nullable where the phase has none, and telemetry of every kind.
    const alone = aloneRecord('gemm', { tflops: 1 });
    for (const telemetry of ['nvml', 'amd-smi', 'model', 'none'])
      expect(validateRecord({ ...alone, telemetry }).kind).toBe('record');
    expect(validateRecord({ ...alone, totalCus: null }).kind).toBe('record');
    expect(validateRecord({ ...triad, mechanism: 'm'.repeat(OVERLAP_MECHANISM_MAX) }).kind).toBe('record');
    // The helper's 6 significant digits of the arithmetic.
    expect(validateRecord({ ...triad, cuArithmetic: 0.996094 }).kind).toBe('record');
  });

  it('refuses hostile values: non-finite, negative, fractional CUs, used over total, the wrong arithmetic or bound, huge strings', () => {
    const beside = besideRecord('gemm', 'cu/host', { kept: 0.8, cus: 64 });
    const cases: Record<string, unknown>[] = [
      { compute: 'matmul' },
      { bound: 'memory' },
      { bound: 'io' },
      { computeGbps: Number.NaN },
      { computeGbps: -1 },
      { copyAloneGbps: Infinity },
      { copyAloneGbps: '60' },
      { bandwidthKept: -0.1 },
      { bandwidthKept: Number.NaN },
      { totalCus: 0 },
      { totalCus: 255.5 },
      { totalCus: 1e9 },
      { totalCus: -256 },
      { cusUsed: -1 },
      { cusUsed: 2.5 },
      { cusUsed: 300, cuArithmetic: 0 },
      { cuArithmetic: 1.5 },
      { cuArithmetic: -0.25 },
      { cuArithmetic: 0.5 },
      { cuArithmetic: Number.NaN },
      { mechanism: 'm'.repeat(OVERLAP_MECHANISM_MAX + 1) },
      { mechanism: 42 },
      { mechanism: ['load/store'] },
      { telemetry: 'rocm-smi' },
      { telemetry: null },
    ];
    for (const bad of cases) expect(validateRecord({ ...beside, ...bad }).kind, JSON.stringify(bad)).toBe('malformed');
    // As a line: a number too large for a double is Infinity, refused.
    expect(parseLine(JSON.stringify(beside).replace('"copyAloneGbps":60', '"copyAloneGbps":1e309')).kind).toBe(
      'malformed',
    );
    expect(validateRecord({ ...beside, cusUsed: 300, cuArithmetic: 0 })).toMatchObject({
      reason: expect.stringMatching(/cusUsed: the copy cannot hold more CUs than the GPU has/),
    });
  });
});

/** A row's decidedBy from one beside record against an alone GEMM at 2400 MHz. */
function decide(p: OverlapPoint) {
  const alone = { tflops: 1000, gbps: null, smClockMHz: 2400, powerW: 900, powerLimitW: 1000 };
  return decidedBy(p as OverlapPoint & { keptFraction: number }, alone);
}

describe('decided by', () => {
  const cu64 = (o: Partial<Parameters<typeof besideRecord>[2]> & { kept: number }) =>
    besideRecord('gemm', 'cu/host', { cus: 64, ...o });

  it('cus: kept within the tolerance of the CU arithmetic, either side, boundaries included', () => {
    expect(CU_ARITHMETIC_TOLERANCE).toBe(0.05);
    // 64 of 256 CUs: the arithmetic is 75%.
    for (const kept of [0.75, 0.7, 0.8, 0.72]) expect(decide(cu64({ kept })).decidedBy, String(kept)).toBe('cus');
    expect(decide(cu64({ kept: 0.699 })).decidedBy).toBe('other');
    expect(decide(cu64({ kept: 0.801 })).decidedBy).toBe('other');
    expect(decide(cu64({ kept: 0.74 })).why).toBe(
      'the arithmetic holds: kept 74.0% against 75.0% by the CU arithmetic',
    );
    // A memory-bound kernel where the arithmetic holds is counted as holding.
    expect(decide(besideRecord('triad', 'engine/host', { kept: 0.97 })).decidedBy).toBe('cus');
  });

  it('power: the clock fell 1% or more at 95% of the limit or more, and the loss exceeds the arithmetic', () => {
    const engine = (kept: number, clock: number, power: number) =>
      decide(besideRecord('gemm', 'engine/device', { kept, clock, power }));
    expect(engine(0.9, 2376, 950)).toMatchObject({
      decidedBy: 'power',
      why: 'power: kept 90.0% against 99.6% by the CU arithmetic; the SM clock fell 2400 -> 2376 MHz at 950 of 1000 W',
    });
    expect(engine(0.9, 2377, 1000).decidedBy).toBe('other'); // clock fell less than 1%
    expect(engine(0.9, 2300, 949).decidedBy).toBe('other'); // below the cap
    expect(engine(0.96, 2300, 1000).decidedBy).toBe('cus'); // the arithmetic holds first
    // Kept more than the arithmetic is never power.
    expect(decide(cu64({ kept: 0.9, clock: 2300, power: 1000 })).decidedBy).toBe('other');
  });

  it('memory: a memory-bound kernel, or a copy that lost bandwidth too, off the arithmetic', () => {
    expect(BANDWIDTH_KEPT_MIN).toBe(0.95);
    expect(decide(besideRecord('triad', 'cu/host', { kept: 0.62, cus: 64, bandwidthKept: 0.99 }))).toMatchObject({
      decidedBy: 'memory',
      why: 'memory bandwidth, not CUs: kept 62.0% against 75.0% by the CU arithmetic; the copy kept 99.0% of its bandwidth alone (triad is memory-bound)',
    });
    // Memory-bound and kept more than the CUs left: still memory, not CUs, decides.
    expect(decide(besideRecord('triad', 'cu/host', { kept: 0.95, cus: 64 })).decidedBy).toBe('memory');
    expect(decide(besideRecord('gemm', 'engine/host', { kept: 0.9, bandwidthKept: 0.9499 })).decidedBy).toBe('memory');
    expect(decide(besideRecord('gemm', 'engine/host', { kept: 0.9, bandwidthKept: 0.95 })).decidedBy).toBe('other');
    expect(decide(besideRecord('fma', 'engine/host', { kept: 0.9, bandwidthKept: 0.5 })).decidedBy).toBe('memory');
  });

  it("shared: compute-bound, kept more than the arithmetic while the copy lost bandwidth (the copy's CUs ran the compute too)", () => {
    // The one-H200 figures: FMA beside a 33-SM copy of 132 SMs (arithmetic 75%) kept 87.5%, the copy 63%.
    expect(decide(besideRecord('fma', 'cu/host', { kept: 0.875, cus: 64, bandwidthKept: 0.63 }))).toMatchObject({
      decidedBy: 'shared',
      why: "the compute shared the copy's CUs: kept 87.5% against 75.0% by the CU arithmetic; the copy kept 63.0% of its bandwidth alone",
    });
    // The copy kept its bandwidth: no sign of sharing.
    expect(decide(besideRecord('fma', 'cu/host', { kept: 0.875, cus: 64, bandwidthKept: 0.95 })).decidedBy).toBe(
      'other',
    );
    // Memory-bound kernels above the arithmetic stay memory: HBM, not the CUs, limits them.
    expect(decide(besideRecord('triad', 'cu/host', { kept: 0.875, cus: 64, bandwidthKept: 0.63 })).decidedBy).toBe(
      'memory',
    );
    // Below the arithmetic with a starved copy is memory, not sharing.
    expect(decide(besideRecord('fma', 'cu/host', { kept: 0.6, cus: 64, bandwidthKept: 0.63 })).decidedBy).toBe(
      'memory',
    );
  });

  it('other: off the arithmetic for no reason the data shows, both ways; unknown: a run saved before the arithmetic', () => {
    expect(decide(cu64({ kept: 0.6 })).why).toMatch(/^lost more than the CUs taken, for no reason the data shows/);
    expect(decide(cu64({ kept: 0.9 })).why).toMatch(/^kept more than the CUs left/);
    expect(decide(oldRecord(cu64({ kept: 0.6 })))).toEqual({
      decidedBy: 'unknown',
      why: 'the run did not record the CU arithmetic',
    });
  });

  it('the view: rows by compute, size and path, each class reached, triad GB/s alone, the old cause kept', () => {
    const view = overlapView(overlapRunRecords());
    expect(view.sizes).toEqual([64 << 20, 256 << 20]);
    expect(view.rows.map((r) => `${r.compute} ${r.copySizeBytes >> 20} ${r.label} ${r.decidedBy}`)).toEqual([
      'gemm 64 cu/host 32 CUs other',
      'gemm 64 engine/host cus',
      'gemm 256 cu/host 32 CUs cus',
      'gemm 256 cu/host 64 CUs cus',
      'gemm 256 engine/host cus',
      'gemm 256 engine/device power',
      'fma 256 cu/host 32 CUs cus',
      'fma 256 cu/host 64 CUs cus',
      'fma 256 engine/host cus',
      'triad 256 cu/host 32 CUs memory',
      'triad 256 cu/host 64 CUs memory',
      'triad 256 engine/host memory',
    ]);
    expect(view.alone.triad).toMatchObject({ tflops: 0.87, gbps: 5200 });
    expect(view.alone.gemm?.gbps).toBeNull();
    const device = view.rows.find((r) => r.path === 'engine/device')!;
    expect(device).toMatchObject({
      bound: 'compute',
      cusUsed: 1,
      totalCus: TOTAL_CUS,
      cuArithmetic: 255 / 256,
      copyAloneGbps: 60,
      bandwidthKept: 0.99,
      telemetry: 'amd-smi',
      cause: 'power',
    });
    const old = overlapView(overlapRunRecords().map(oldRecord));
    expect(old.rows.every((r) => r.decidedBy === 'unknown' && r.mechanism === null && r.cuArithmetic === null)).toBe(
      true,
    );
  });
});

describe('the claim lines', () => {
  it('a copy that lost its bandwidth is named: the compute kept was paid for', () => {
    const view = overlapView([
      aloneRecord('gemm', { tflops: 1000 }),
      besideRecord('gemm', 'engine/host', { kept: 0.997, bandwidthKept: 0.055 }),
      besideRecord('gemm', 'cu/host', { kept: 0.715, cus: 64, bandwidthKept: 0.849 }),
      aloneRecord('gemm', { tflops: 1000, phase: 'alone-after' }),
    ]);
    expect(view.claims).toHaveLength(1);
    expect(view.claims[0]!.text).toMatch(
      /The copies kept 5\.5% \(engine\/host\) and 84\.9% \(cu\/host 64 CUs\) of their bandwidth alone\.$/,
    );
    const kept = overlapView([
      aloneRecord('gemm', { tflops: 1000 }),
      besideRecord('gemm', 'engine/host', { kept: 0.997 }),
      besideRecord('gemm', 'cu/host', { kept: 0.75, cus: 64 }),
    ]);
    expect(kept.claims[0]!.text).not.toMatch(/of their bandwidth alone/);
  });

  it('GEMM: the arithmetic holds at 255 against 192 CUs; triad: memory bandwidth decides', () => {
    const records = [
      aloneRecord('gemm', { tflops: 1300 }),
      besideRecord('gemm', 'engine/device', { kept: 0.991 }),
      besideRecord('gemm', 'engine/host', { kept: 0.95 }),
      besideRecord('gemm', 'cu/host', { kept: 0.745, cus: 64 }),
      aloneRecord('triad', { tflops: 0.87, gbps: 5200 }),
      besideRecord('triad', 'engine/host', { kept: 0.66, bandwidthKept: 0.78 }),
      besideRecord('triad', 'cu/host', { kept: 0.645, cus: 64, bandwidthKept: 0.8 }),
    ];
    const claims = overlapView(records).claims;
    expect(claims.map((c) => c.text)).toEqual([
      'GEMM (compute-bound), 256 MiB: engine/device keeps 99.1%, cu/host 64 CUs 74.5%: 1.33x measured vs 1.33x by the CU arithmetic (255 against 192 of 256 CUs free) \u2014 the arithmetic holds.',
      'TRIAD (memory-bound), 256 MiB: engine/host keeps 66.0%, cu/host 64 CUs 64.5%: 1.02x measured vs 1.33x by the CU arithmetic (256 against 192 of 256 CUs free) \u2014 memory bandwidth decides, not CUs. The copies kept 78.0% (engine/host) and 80.0% (cu/host 64 CUs) of their bandwidth alone.',
    ]);
    expect(claims[0]).toMatchObject({ verdict: 'holds', enginePath: 'engine/device', cus: 64 });
    expect(claims[0]!.arithmeticRatio).toBeCloseTo(255 / 192, 10);
    expect(claims[0]!.measuredRatio).toBeCloseTo(0.991 / 0.745, 10);
    expect(claims[1]!.verdict).toBe('memory');
  });

  it('one claim per compute kind, copy size and CU count where an engine path and cu/host both ran', () => {
    const claims = overlapView(overlapRunRecords()).claims;
    expect(claims.map((c) => `${c.compute} ${c.sizeBytes >> 20} ${c.cus} ${c.verdict}`)).toEqual([
      'gemm 64 32 other',
      'gemm 256 32 holds',
      'gemm 256 64 holds',
      'fma 256 32 holds',
      'fma 256 64 holds',
      'triad 256 32 memory',
      'triad 256 64 memory',
    ]);
    // Power on the engine side names power; no engine path at a size, no claim there.
    const power = overlapView([
      aloneRecord('gemm', { tflops: 1 }),
      besideRecord('gemm', 'engine/device', { kept: 0.9, clock: 2300, power: 1000 }),
      besideRecord('gemm', 'cu/host', { kept: 0.75, cus: 64 }),
      besideRecord('gemm', 'cu/host', { kept: 0.75, cus: 64, sizeBytes: 1 << 30 }),
    ]).claims;
    expect(power.map((c) => c.verdict)).toEqual(['power']);
    expect(power[0]!.text).toMatch(/\u2014 power decides, not CUs: the clock fell at the cap\.$/);
  });

  it('a run saved before the arithmetic: the measured ratio only, said as such', () => {
    const old = overlapView(h200Lines().map((l) => JSON.parse(l) as OverlapPoint));
    expect(old.claims.length).toBe(6);
    for (const c of old.claims) {
      expect(c.verdict).toBe('unknown');
      expect(c.arithmeticRatio).toBeNull();
      expect(c.text).toMatch(/x measured; the run did not record the CU arithmetic\.$/);
    }
    expect(old.claims[2]!.text).toBe(
      'GEMM (compute-bound), 256 MiB: engine/device keeps 96.4%, cu/host 32 CUs 74.5%: 1.29x measured; the run did not record the CU arithmetic.',
    );
    // A cu/host row that kept nothing makes no ratio.
    expect(
      overlapClaims(
        overlapView([
          besideRecord('gemm', 'engine/host', { kept: 1 }),
          besideRecord('gemm', 'cu/host', { kept: 0, cus: 8 }),
        ]).rows,
      ),
    ).toEqual([]);
  });
});

describe('the advice per compute kind', () => {
  it('says where the arithmetic holds and where memory bandwidth decides, with the figures; never the gain where it does not show', () => {
    const budget = collectiveAdvice('amd', [], [], overlapRunRecords()).cuBudget;
    const of = (prefix: string) => budget.filter((l) => l.startsWith(prefix));
    expect(of('GEMM (compute-bound): ')[0]).toMatch(
      /^GEMM \(compute-bound\): the CU arithmetic holds beside engine\/host 64 MiB \(kept 99\.0% vs 100\.0%\), cu\/host 32 CUs 256 MiB \(kept 86\.2% vs 87\.5%\).*; power decides \(the clock fell at the cap\) beside engine\/device 256 MiB \(kept 93\.0% vs 99\.6%\); off the arithmetic for no reason the data shows beside cu\/host 32 CUs 64 MiB/,
    );
    expect(of('GEMM (compute-bound), measured')[0]).toMatch(
      /the engine path's gain over the CU copy is the CU arithmetic's: .*1\.34x measured vs 1\.33x \(engine\/host over cu\/host 64 CUs, 256 MiB\)/,
    );
    const triad = of('TRIAD');
    expect(triad[0]).toMatch(
      /^TRIAD \(memory-bound\): memory bandwidth decides, not CUs, beside cu\/host 32 CUs 256 MiB \(kept 63\.0% vs 87\.5%, the copy kept 80\.0% of its bandwidth\)/,
    );
    expect(triad[1]).toMatch(/memory bandwidth decides, not the CU arithmetic: 1\.03x measured vs 1\.14x/);
    expect(triad[1]).toMatch(/the CU arithmetic's gain is not shown for TRIAD in this run\.$/);
    expect(triad.join(' ')).not.toMatch(/holds|is the CU arithmetic's/);
    // Every ratio of the arithmetic stands beside a measured one.
    for (const line of budget)
      expect(line.match(/ vs \d\.\d\dx/g)?.length ?? 0, line).toBe(
        line.match(/\d\.\d\dx measured vs \d\.\d\dx/g)?.length ?? 0,
      );
    // No library setting from an overlap run alone.
    expect(collectiveAdvice('amd', [], [], overlapRunRecords()).recommendations).toEqual([]);
  });

  it('simulated runs say simulated on every line', () => {
    const budget = collectiveAdvice('amd', [], [], overlapRunRecords(true)).cuBudget;
    expect(budget.length).toBe(6);
    for (const line of budget) expect(line).toMatch(/^[A-Z]+ \((compute|memory)-bound, simulated\)/);
  });
});

describe('sdma-lens overlap output and exports', () => {
  it('the CLI table: a row per compute, size and path with the new columns, then the claim lines', () => {
    const out = collectiveTable(runFromText(overlapRunText()));
    const lines = out.split('\n');
    expect(lines).toContain(
      '# compute   bound  copy beside it          size       CUs CU arith    kept  copy GB/s alone -> beside  bw kept  decided by         MHz / W  mechanism',
    );
    expect(lines).toContain(
      '     gemm compute  engine/device        256 MiB     1/256    99.6%   93.0%             60.00 -> 59.40    99.0%  power          2330 / 1000  rocSHMEM put from a kernel in PE processes (GPU-initiated SDMA)',
    );
    expect(lines.filter((l) => /^\s+(gemm|fma|triad)\s/.test(l)).length).toBe(12);
    expect(lines.filter((l) => l.startsWith('# claim: ')).length).toBe(7);
    expect(lines).toContain('# clocks and power from: amd-smi');
    expect(out).not.toMatch(/SIMULATED/);
    expect(collectiveTable(runFromText(overlapRunText({ simulated: true })))).toMatch(/^# SIMULATED: /m);
  });

  it('the mechanism is outside text: one line in the terminal, a formula neutralised in CSV, a cell in Markdown', () => {
    const text = overlapRunText().replace(
      'hipMemcpyAsync device-to-device NoCU (SDMA), started by the host',
      '=HYPERLINK(1)|x\\u001b[2J\\nexport X=1',
    );
    const run = runFromText(text);
    expect(run.problems).toEqual([]);
    const out = collectiveTable(run);
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(out.split('\n').some((l) => l.startsWith('export X'))).toBe(false);
    const model = collectiveTableModel(collectivePageView(run));
    expect(model.columns).toEqual([
      'compute',
      'bound',
      'copy path',
      'size',
      'bytes',
      'CUs used',
      'total CUs',
      'CU arithmetic',
      'compute kept',
      'copy GB/s alone',
      'copy GB/s',
      'bandwidth kept',
      'decided by',
      'SM MHz',
      'power W',
      'power limit W',
      'telemetry',
      'mechanism',
      'why',
    ]);
    const csv = tableCsv(model);
    expect(csv).toContain(`"'=HYPERLINK(1)|x\u001b[2J\nexport X=1"`);
    const md = tableMarkdown(model);
    expect(md).toContain('=HYPERLINK(1)\\|x');
    expect(md).toContain('<br>export X=1');
    expect(model.notes).toEqual(expect.arrayContaining([expect.stringMatching(/^TRIAD \(memory-bound\), 256 MiB: /)]));
  });

  it('the page view (and --json) carries rows, sizes and claims, and passes the page schema; a wrong decidedBy does not', () => {
    const view = collectivePageView(runFromText(overlapRunText({ simulated: true })));
    expect(view.simulated).toBe(true);
    expect(view.overlap.claims.length).toBe(7);
    const message = JSON.parse(JSON.stringify({ type: 'collective-view', view })) as unknown;
    expect(parseCollectiveHostMessage(message)).toEqual(message);
    const bad = structuredClone(view);
    (bad.overlap.rows[0] as { decidedBy: string }).decidedBy = 'cus<script>';
    expect(parseCollectiveHostMessage({ type: 'collective-view', view: bad })).toBeUndefined();
  });
});
