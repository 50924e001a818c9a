/**
 * `sdma-probe collective` and `sdma-probe overlap` end to end on the simulated node (every
 * record validated against src/core/protocol.ts, the formulas recomputed, the variant
 * environment compared with the one built from the knob catalog), and the records of the
 * 2x H200 run in bench/results checked against the same contract and its acceptance figures.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { variantEnv } from '../../src/core/collective/collective';
import { algbwGbps, busbwGbps } from '../support/collectiveFormulas';
import { collectivePageView } from '../../src/core/collective/collectiveView';
import { RUN_FORMAT, RUN_FORMAT_VERSION, applyRecord, newRun } from '../../src/core/run';
import type { CollectivePoint, CollectiveVariant, HelperRecord, OverlapPoint } from '../../src/core/protocol';
import { parseLine } from '../../src/core/protocol';
import { helper, records } from './run';

const MEASURED = 'bench/results/h200x2-collectives-2026-11-30';

function of<T extends HelperRecord['type']>(rs: HelperRecord[], type: T): Extract<HelperRecord, { type: T }>[] {
  return rs.filter((r): r is Extract<HelperRecord, { type: T }> => r.type === type);
}

function checkFormulas(p: CollectivePoint) {
  // The records carry 6 significant digits.
  expect(p.algbwGbps).toBeCloseTo(algbwGbps(p.sizeBytes, p.timeUs), Math.max(0, 5 - Math.ceil(Math.log10(p.algbwGbps + 1))));
  expect(p.busbwGbps / p.algbwGbps).toBeCloseTo((p.ranks - 1) / p.ranks, 4);
  expect(busbwGbps(p.op, p.ranks, p.sizeBytes, p.timeUs) / p.busbwGbps).toBeCloseTo(1, 4);
  expect(p.sizeBytes % p.ranks).toBe(0);
}

describe('collective on the simulated node', () => {
  const run = helper(['collective', '--backend', 'sim', '-b', '64K', '-e', '1G', '-f', '4']);
  const rs = records(run);

  it('exits 0 with hello, topology, variants, points and done', () => {
    expect(run.status).toBe(0);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'collective', backend: 'sim', simulated: true });
    expect(rs[1]?.type).toBe('topology');
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    expect(of(rs, 'collective-variant').map((v) => v.variant)).toEqual(['default', 'gin-sdma']);
    // 8 sizes: AllGather out-of-place and in-place, AlltoAll out-of-place, two variants.
    expect(of(rs, 'collective')).toHaveLength(8 * 3 * 2);
  });

  it('algbw and busbw follow the nccl-tests definitions at every point, data checked', () => {
    for (const p of of(rs, 'collective')) {
      checkFormulas(p);
      expect(p.ranks).toBe(8);
      expect(p.wrong).toBe(0);
      expect(p.simulated).toBe(true);
    }
  });

  it('the gin-sdma environment is the one the knob catalog gives for the reported RCCL version', () => {
    const gin = of(rs, 'collective-variant').find((v) => v.variant === 'gin-sdma')!;
    expect(gin.symmetric).toBe(true);
    expect(gin.env).toEqual(variantEnv('gin-sdma', gin.library.version));
    expect(of(rs, 'collective-variant').find((v) => v.variant === 'default')!.env).toEqual({});
  });

  it('each gin-sdma point says which path ran: lsa at or below the per-rank threshold, sdma above', () => {
    for (const p of of(rs, 'collective').filter((x) => x.variant === 'gin-sdma' && x.op === 'allgather')) {
      expect(p.transport).toBe(p.sizeBytes / p.ranks > 256 * 1024 ? 'sdma' : 'lsa');
      expect(p.transportEvidence).toContain('transport=');
    }
  });

  it('reproduces the cited figure: AllGather 128 MiB busbw near 390 GB/s with GIN-SDMA', () => {
    const r = helper(['collective', '--backend', 'sim', '-b', '128M', '-e', '128M', '--ops', 'allgather', '--in-place', 'off']);
    const gin = of(records(r), 'collective').find((p) => p.variant === 'gin-sdma')!;
    expect(gin.busbwGbps).toBeGreaterThan(370);
    expect(gin.busbwGbps).toBeLessThan(400);
  });

  it('honours a threshold set in the environment, as the library would', () => {
    const r = spawnSync(inject('helperPath'), ['collective', '--backend', 'sim', '-b', '64M', '-e', '64M', '--ops', 'allgather', '--variants', 'gin-sdma'], {
      encoding: 'utf8',
      env: { ...process.env, NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER: String(16 << 20) },
    });
    const points = r.stdout
      .split('\n')
      .filter((l) => l.length > 0)
      .map(parseLine)
      .flatMap((x) => (x.kind === 'record' && x.record.type === 'collective' ? [x.record] : []));
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect(p.transport).toBe('lsa');
  });

  it('refuses bad arguments with a usage error and exit 2', () => {
    for (const args of [['-b', '1X'], ['--variants', 'ce'], ['-b', '1M', '-e', '1K'], ['--ops', 'allreduce'], ['--gpus', '0']]) {
      const r = helper(['collective', '--backend', 'sim', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(records(r).find((x) => x.type === 'error')).toMatchObject({ code: 'usage' });
    }
  });

  it('prints its own usage for --help', () => {
    const r = helper(['collective', '--help']);
    expect(r.status).toBe(0);
    expect(r.lines.join('\n')).toContain('sdma-probe collective');
  });
});

describe('the collective panel view of a simulated run', () => {
  it('draws both variants per operation, marks the crossover and feeds the advice', () => {
    const run = newRun({ type: 'run', format: RUN_FORMAT, version: RUN_FORMAT_VERSION, id: 'sim-collective', command: 'collective', createdAt: new Date(0).toISOString(), target: { kind: 'local' }, helper: { path: 'sdma-probe', args: [] } });
    for (const r of records(helper(['collective', '--backend', 'sim', '-b', '64K', '-e', '1G', '-f', '4']))) applyRecord(run, r);
    for (const r of of(records(helper(['overlap', '--backend', 'sim', '--phase-ms', '100'])), 'overlap')) applyRecord(run, r);
    const view = collectivePageView(run);
    expect(view.simulated).toBe(true);
    expect(view.curves.map((c) => `${c.op}/${c.variant}/${c.inPlace}`)).toContain('allgather/gin-sdma/false');
    const ag = view.crossovers.find((c) => c.op === 'allgather')!;
    expect(ag.kind).toBe('crossover');
    expect(ag.fromBytes).toBeGreaterThan(1 << 20);
    // Below the GIN threshold the gin-sdma points ran lsa: flagged, and said so.
    expect(view.curves.find((c) => c.variant === 'gin-sdma' && c.op === 'allgather' && !c.inPlace)!.points[0]!.offPath).toBe(true);
    expect(view.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')?.value).toBe('7');
    expect(view.recommendations.find((r) => r.knob === 'NCCL_GIN_ANVIL_SDMA_THRESHOLD_ALLGATHER')?.value).toMatch(/^\d+$/);
    expect(view.overlap.rows.length).toBe(10);
    expect(view.cuBudget.length).toBeGreaterThan(0);
    expect(view.exports).toContain('export NCCL_GIN_TYPE=7');
  });
});

describe('overlap on the simulated node', () => {
  const run = helper(['overlap', '--backend', 'sim', '--phase-ms', '100']);
  const rs = records(run);
  const points = of(rs, 'overlap');

  it('runs each compute alone, beside every path and alone again', () => {
    expect(run.status).toBe(0);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'overlap' });
    for (const compute of ['gemm', 'fma'] as const) {
      const mine = points.filter((p) => p.compute === compute);
      expect(mine.map((p) => p.phase)).toEqual(['alone-before', 'beside', 'beside', 'beside', 'beside', 'beside', 'alone-after']);
      expect(mine.filter((p) => p.path === 'cu/host').map((p) => p.cus)).toEqual([8, 16, 32]);
    }
  });

  it('kept is the beside throughput over the mean of the alone runs, with clocks and power', () => {
    for (const compute of ['gemm', 'fma'] as const) {
      const mine = points.filter((p) => p.compute === compute);
      const alone = mine.filter((p) => p.path === 'alone');
      const mean = alone.reduce((a, p) => a + p.computeTflops, 0) / alone.length;
      for (const p of mine) {
        expect(p.smClockMHz).not.toBeNull();
        expect(p.powerLimitW).not.toBeNull();
        if (p.path === 'alone') {
          expect(p.keptFraction).toBeNull();
          expect(p.copyGbps).toBeNull();
        } else {
          expect(p.keptFraction! * mean).toBeCloseTo(p.computeTflops, 1);
          expect(p.copyGbps).toBeGreaterThan(0);
        }
      }
    }
    const gemm = points.filter((p) => p.compute === 'gemm');
    const cu32 = gemm.find((p) => p.path === 'cu/host' && p.cus === 32)!;
    const engine = gemm.find((p) => p.path === 'engine/host')!;
    expect(cu32.keptFraction!).toBeLessThan(engine.keptFraction!);
  });

  it('refuses a copy that would take every CU', () => {
    const r = helper(['overlap', '--backend', 'sim', '--cus', '256']);
    expect(r.status).toBe(2);
  });
});

describe(`the 2x H200 run (${MEASURED})`, () => {
  const root = inject('repoRoot');
  const read = (name: string) => {
    const lines = readFileSync(join(root, MEASURED, name), 'utf8').split('\n').filter((l) => l.length > 0);
    return lines.map((l, i) => {
      const r = parseLine(l);
      if (r.kind !== 'record') throw new Error(`${name}:${i + 1} is not a valid record: ${r.kind === 'malformed' ? r.reason : r.type}`);
      return r.record;
    });
  };

  it('every record validates and every point was checked and correct', () => {
    for (const name of ['collective.ndjson', 'collective-256M-repeat.ndjson']) {
      for (const p of of(read(name), 'collective')) {
        checkFormulas(p);
        expect(p.wrong).toBe(0);
        expect(p.simulated).toBe(false);
      }
    }
    expect(of(read('overlap.ndjson'), 'overlap').length).toBe(14);
  });

  it('busbw at 256 MiB is within 5% of torch.distributed in the same run', () => {
    const torch = JSON.parse(readFileSync(join(root, MEASURED, 'torch.json'), 'utf8')) as { points: { op: string; sizeBytes: number; busbwGbps: number }[] };
    const points = of(read('collective.ndjson'), 'collective');
    for (const op of ['allgather', 'alltoall'] as const) {
      const mine = points.find((p) => p.op === op && p.variant === 'default' && !p.inPlace && p.sizeBytes === 256 << 20)!;
      const ref = torch.points.find((p) => p.op === op && p.sizeBytes === 256 << 20)!;
      expect(Math.abs(mine.busbwGbps / ref.busbwGbps - 1)).toBeLessThan(0.05);
    }
  });

  it('the ce variant ran on the copy engines and the env is the catalog one', () => {
    const rs = read('collective.ndjson');
    const ce: CollectiveVariant = of(rs, 'collective-variant').find((v) => v.variant === 'ce')!;
    expect(ce.env).toEqual(variantEnv('ce', ce.library.version));
    for (const p of of(rs, 'collective').filter((x) => x.variant === 'ce')) expect(p.transport).toBe('ce');
  });

  it('overlap: the GEMM loses more beside an SM copy than beside the copy engine, with power evidence', () => {
    const gemm: OverlapPoint[] = of(read('overlap.ndjson'), 'overlap').filter((p) => p.compute === 'gemm');
    const kept = (path: string, cus?: number) => gemm.find((p) => p.path === path && p.cus === cus)!.keptFraction!;
    expect(kept('engine/host')).toBeGreaterThan(0.9);
    expect(kept('cu/host', 32)).toBeLessThan(0.8);
    expect(kept('cu/host', 8)).toBeGreaterThan(kept('cu/host', 32));
    const alone = gemm.find((p) => p.phase === 'alone-before')!;
    expect(alone.throttleReasons).toContain('sw-power-cap');
    expect(alone.powerW! / alone.powerLimitW!).toBeGreaterThan(0.95);
  });
});
