/**
 * The collective panel's and table's words: each size says its unit once, and the paths the
 * points report (lsa, sdma, ce, ring/simple, ...) are explained.
 */
import { describe, expect, it } from 'vitest';
import { collectiveAdviceText } from '../../src/core/collective/collectiveAdviceText';
import { collectiveTable } from '../../src/core/collective/collectiveTable';
import { collectiveAdviceOf, collectivePageView } from '../../src/core/collective/collectiveView';
import { transportLegend, transportMeaning } from '../../src/core/collective/transports';
import type { CollectivePoint } from '../../src/core/protocol';
import { applyRecord, applySavedValue, newRun } from '../../src/core/run';
import { header, hello } from '../support/records';

const MiB = 1 << 20;

/** An AMD AlltoAll sweep, default (lsa) against gin-sdma-lib (sdma), five repeats a point, engine ahead from 64 MiB. */
function collectiveRun() {
  const run = newRun({ ...header('coll', ['collective', '--backend', 'sim']), command: 'collective' });
  applySavedValue(run, { ...hello, command: 'collective' });
  for (const variant of ['default', 'gin-sdma-lib'] as const) {
    applyRecord(run, {
      type: 'collective-variant',
      variant,
      supported: true,
      library: { name: 'rccl', version: '2.31.0', path: 'librccl.so' },
      env: {},
      symmetric: variant !== 'default',
      simulated: true,
    });
  }
  const sizes = [1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB];
  const busbw: Record<string, number[]> = { default: [40, 300, 350, 355], 'gin-sdma-lib': [30, 290, 380, 390] };
  for (const variant of ['default', 'gin-sdma-lib'] as const) {
    sizes.forEach((sizeBytes, i) => {
      const b = busbw[variant]![i]!;
      const algbw = (b * 8) / 7;
      const timeUs = sizeBytes / (algbw * 1e3);
      const samplesUs = [-1, -0.5, 0, 0.5, 1].map((f) => timeUs * (1 + f * 0.01));
      const p: CollectivePoint = {
        type: 'collective',
        op: 'alltoall',
        variant,
        ranks: 8,
        sizeBytes,
        count: sizeBytes / 4,
        dtype: 'float',
        inPlace: false,
        iters: 20,
        timeUs,
        algbwGbps: algbw,
        busbwGbps: b,
        wrong: 0,
        transport: variant === 'default' ? 'lsa' : 'sdma',
        simulated: true,
        repeats: 5,
        samplesUs,
      };
      applyRecord(run, p);
    });
  }
  return run;
}

/** Every string a view holds, however deep. */
function strings(x: unknown, out: string[] = []): string[] {
  if (typeof x === 'string') out.push(x);
  else if (x && typeof x === 'object') for (const v of Object.values(x)) strings(v, out);
  return out;
}

/** A size followed by a second unit: "8 MiB bytes", "512 KiB B". */
const DOUBLED_UNIT = /\d (?:B|KiB|MiB|GiB|TiB) (?:bytes|B|KiB|MiB|GiB)\b/;

describe('collective words', () => {
  it('no size in the panel view, the table or the advice says its unit twice', () => {
    const run = collectiveRun();
    const view = collectivePageView(run);
    expect(view.recommendations.some((r) => r.knob === 'NCCL_GIN_A2A_SDMA_MIN_BYTES' && r.value !== undefined)).toBe(
      true,
    );
    for (const s of strings(view)) expect(s).not.toMatch(DOUBLED_UNIT);
    expect(collectiveTable(run)).not.toMatch(DOUBLED_UNIT);
    expect(collectiveAdviceText(collectiveAdviceOf(run), { simulated: true })).not.toMatch(DOUBLED_UNIT);
  });

  it('the table keys each path its points report', () => {
    const table = collectiveTable(collectiveRun());
    expect(table).toContain(
      '# path: lsa = load/store: CU kernels write straight into the peer GPU\u2019s memory (RCCL\u2019s LSA copy kernel); sdma = the SDMA copy engines move the bytes (RCCL\u2019s GIN-SDMA puts), no CUs',
    );
  });

  it("explains lsa, sdma, ce, kernel and NCCL's algorithm/protocol pairs; nothing for a path it does not know", () => {
    expect(transportMeaning('lsa')).toMatch(/^load\/store: CU kernels write straight into the peer GPU/);
    expect(transportMeaning('sdma')).toMatch(/SDMA copy engines/);
    expect(transportMeaning('ce')).toMatch(
      /^the copy engines move the bytes \(NCCL\u2019s copy-engine collectives; RCCL\u2019s/,
    );
    expect(transportMeaning('kernel')).toMatch(/kernels moved the bytes/);
    expect(transportMeaning('ring/simple')).toBe(
      'NCCL\u2019s algorithm / protocol from its tuner: the ring algorithm with the Simple protocol, run by kernels on the SMs/CUs',
    );
    expect(transportMeaning('tree/ll128')).toMatch(/the tree algorithm with the LL128 protocol/);
    expect(transportMeaning('nvls/ll')).toMatch(/the nvls algorithm with the LL protocol/);
    for (const unknown of ['toString', 'constructor', 'ring/bogus', 'x\u001b[2J', ''])
      expect(transportMeaning(unknown)).toBeUndefined();
    expect(transportLegend(['sdma', null, 'lsa', 'sdma', 'weird']).map((t) => t.transport)).toEqual(['sdma', 'lsa']);
  });
});
