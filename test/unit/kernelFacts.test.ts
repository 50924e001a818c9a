import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectKernels } from '../../src/core/kernels/detect';
import { factsBySite, kernelFactsText } from '../../src/core/profile/kernelFacts';
import { parseLine } from '../../src/core/protocol';
import { applyRecord, newRun } from '../../src/core/run';
import { summariesBySite, summarizeProfile } from '../../src/core/profile/profileSummary';
import { header } from '../support/records';

/** The run-mode output recorded on 2x H200 with examples/fused-a2a-cuda, folded like the extension does. */
function recordedRun() {
  const run = newRun({ ...header('h200'), command: 'run' });
  for (const line of readFileSync(join(__dirname, '../fixtures/runmode/runmode-fused-a2a.ndjson'), 'utf8').split(
    '\n',
  )) {
    if (!line) continue;
    const r = parseLine(line);
    if (r.kind === 'record') applyRecord(run, r.record);
  }
  return run;
}

describe('kernel facts above the source', () => {
  it('places the recorded H200 launches on the kernels of the CUDA example, with a one-line summary', () => {
    const run = recordedRun();
    const summary = summarizeProfile(run.dispatches, run.copies);
    const sites = detectKernels(readFileSync(join(__dirname, '../../examples/fused-a2a-cuda/fused_a2a.cu'), 'utf8'));
    const { bySite } = summariesBySite(summary.kernels, sites);
    expect(bySite.length).toBeGreaterThan(0);
    for (const { site, kernels } of bySite) {
      const text = kernelFactsText(kernels)!;
      const launches = kernels.reduce((n, k) => n + k.launches, 0);
      expect(text.summary, site.qualifiedName).toMatch(
        new RegExp(`^[\\d.]+ (ns|µs|ms|s) avg x ${launches} launch(es)?`),
      );
      expect(text.details).toMatch(/launches, .* in all/);
    }
  });

  it('adds template instances up and names the SDMA share of the bytes', () => {
    const base = { gpus: [0], minNs: 1000, maxNs: 3000, sources: ['cupti' as const] };
    const bytes = (cu: number, engine: number) => ({
      'cu/host': 0,
      'cu/device': cu,
      'engine/host': 0,
      'engine/device': engine,
    });
    const text = kernelFactsText([
      {
        ...base,
        name: 'k<float>(float*)',
        launches: 30,
        totalNs: 36e6,
        avgNs: 1.2e6,
        cusSeen: 64,
        bytesByPath: bytes(0.1e9, 1.5e9),
      },
      {
        ...base,
        name: 'k<double>(double*)',
        launches: 10,
        totalNs: 13.6e6,
        avgNs: 1.36e6,
        cusSeen: 32,
        bytesByPath: bytes(0.05e9, 0.45e9),
      },
    ])!;
    expect(text.summary).toBe('1.24 ms avg x 40 launches - 64 CUs - 1.96 GiB moved, 93% by SDMA');
    expect(text.details).toMatch(/2 instances/);
    expect(text.printedName).toBe('k<float>(float*)');
    expect(kernelFactsText([])).toBeUndefined();
  });
});

describe('ambiguous names', () => {
  it('puts a launch that could be two kernels on both, marked ambiguous, and a unique one on its own', () => {
    const sites = detectKernels(
      'namespace a { __global__ void k() {} }\nnamespace b { __global__ void k() {} }\n__global__ void solo() {}\n',
    );
    const base = {
      gpus: [0],
      minNs: 1000,
      maxNs: 1000,
      sources: ['cupti' as const],
      bytesByPath: { 'cu/host': 0, 'cu/device': 0, 'engine/host': 0, 'engine/device': 0 },
    };
    const facts = factsBySite(
      [
        { ...base, name: 'k()', launches: 2, totalNs: 2000, avgNs: 1000 },
        { ...base, name: 'solo()', launches: 1, totalNs: 1000, avgNs: 1000 },
      ],
      sites,
    );
    expect(facts.get('a::k')?.summary).toMatch(/\(ambiguous\)$/);
    expect(facts.get('b::k')?.details).toMatch(/ambiguous: 2 kernels here match k\(\)/);
    expect(facts.get('solo')?.summary).toMatch(/^1\.00 µs avg x 1 launch$/);
    // What the lens's timeline filters on: the same launches, and the same doubt.
    expect(facts.get('a::k')).toMatchObject({
      printedNames: ['k()'],
      ambiguous: 'ambiguous: 2 kernels here match k()',
    });
    expect(facts.get('solo')?.printedNames).toEqual(['solo()']);
    expect(facts.get('solo')?.ambiguous).toBeUndefined();
  });
});
