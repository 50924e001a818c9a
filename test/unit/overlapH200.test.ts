/**
 * The overlap records one H200 printed (bench/results/h200x1-2026-12-04-overlap, host -> GPU,
 * GPU -> host and GPU-local copies beside a GEMM, an FMA kernel and a STREAM triad) read as the
 * panel, the CLI and the advice read them: every line is a valid record, and the classes the
 * view gives these real rows are the ones the figures show.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { overlapView } from '../../src/core/collective/overlap';
import type { OverlapPoint } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';

const DIR = join(__dirname, '../../bench/results/h200x1-2026-12-04-overlap');

function points(file: string): OverlapPoint[] {
  const out: OverlapPoint[] = [];
  for (const line of readFileSync(join(DIR, file), 'utf8').split('\n')) {
    if (!line.startsWith('{"type":"overlap"')) continue;
    const parsed = parseLine(line);
    expect(parsed.kind, line).toBe('record');
    if (parsed.kind === 'record') out.push(parsed.record as OverlapPoint);
  }
  return out;
}

const row = (file: string, compute: string, path: string, cus: number | undefined, size = 256 << 20) => {
  const r = overlapView(points(file)).rows.find(
    (x) => x.compute === compute && x.path === path && x.cus === cus && x.copySizeBytes === size,
  );
  expect(r, `${file} ${compute} ${path} ${cus}`).toBeDefined();
  return r!;
};

describe('one H200, overlap beside GEMM, FMA and triad', () => {
  it('every record of the three runs validates: 3 computes x (2 alone + 2 sizes x 3 copies)', () => {
    for (const file of ['ov-h2d.ndjson', 'ov-d2h.ndjson', 'ov-local.ndjson']) {
      const ps = points(file);
      expect(ps).toHaveLength(24);
      expect(new Set(ps.map((p) => p.telemetry))).toEqual(new Set(['nvml']));
      expect(ps.every((p) => p.simulated === false)).toBe(true);
    }
  });

  it('host -> GPU: the copy engine leaves the GEMM its SMs; the SM copy takes its share', () => {
    expect(row('ov-h2d.ndjson', 'gemm', 'engine/host', undefined).decidedBy).toBe('cus');
    expect(row('ov-h2d.ndjson', 'triad', 'cu/host', 33).decidedBy).toBe('cus');
    // FMA blocks run on the copy's SMs too: more kept than the arithmetic, the copy pays.
    const fma = row('ov-h2d.ndjson', 'fma', 'cu/host', 33);
    expect(fma.decidedBy).toBe('shared');
    expect(fma.keptFraction).toBeGreaterThan(fma.cuArithmetic! + 0.05);
    expect(fma.bandwidthKept).toBeLessThan(0.95);
  });

  it('GPU -> host: an SM copy into host memory costs the GEMM far more than its SMs', () => {
    const gemm = row('ov-d2h.ndjson', 'gemm', 'cu/host', 33);
    expect(gemm.keptFraction).toBeLessThan(0.1);
    expect(gemm.cuArithmetic).toBe(0.75);
    expect(gemm.decidedBy).toBe('other');
    expect(row('ov-d2h.ndjson', 'gemm', 'engine/host', undefined).decidedBy).toBe('cus');
  });

  it('GPU-local: the triad shares HBM with the copy; a claim names a copy that lost its bandwidth', () => {
    expect(row('ov-local.ndjson', 'triad', 'engine/host', undefined).decidedBy).toBe('memory');
    const view = overlapView(points('ov-local.ndjson'));
    const claim = view.claims.find((c) => c.compute === 'gemm' && c.sizeBytes === 64 << 20 && c.cus === 33);
    expect(claim?.text).toMatch(/The copies kept 5\.5% \(engine\/host\)/);
  });
});
