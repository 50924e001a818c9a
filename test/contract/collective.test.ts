/**
 * `sdma-probe collective` and `sdma-probe overlap` end to end on the simulated node (every
 * record validated against src/core/protocol.ts, the formulas recomputed, the variant
 * environment compared with the one built from the knob catalog), and the records of the
 * 2x H200 run in bench/results checked against the same contract and its acceptance figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { variantEnv } from '../../src/core/collective/collective';
import { LIMITS } from '../../src/core/limits';
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

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function checkFormulas(p: CollectivePoint) {
  // The records carry 6 significant digits.
  expect(p.algbwGbps).toBeCloseTo(
    algbwGbps(p.sizeBytes, p.timeUs),
    Math.max(0, 5 - Math.ceil(Math.log10(p.algbwGbps + 1))),
  );
  expect(p.busbwGbps / p.algbwGbps).toBeCloseTo((p.ranks - 1) / p.ranks, 4);
  expect(busbwGbps(p.op, p.ranks, p.sizeBytes, p.timeUs) / p.busbwGbps).toBeCloseTo(1, 4);
  expect(p.sizeBytes % p.ranks).toBe(0);
}

describe('collective on the simulated node', () => {
  const run = helper(['collective', '--backend', 'sim', '-b', '64K', '-e', '1G', '-f', '4']);
  const rs = records(run);

  /** The ce variant's points (RCCL's copy-engine collectives): none when the node refused it. */
  const cePoints = () => of(rs, 'collective').filter((p) => p.variant === 'ce');

  it('exits 0 with hello, topology, variants, points and done', () => {
    expect(run.status).toBe(0);
    expect(rs[0]).toMatchObject({ type: 'hello', command: 'collective', backend: 'sim', simulated: true });
    expect(rs[1]?.type).toBe('topology');
    expect(rs.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    // AMD's default set: the library's kernels, its copy-engine collectives, its AlltoAll GIN-SDMA path.
    expect(of(rs, 'collective-variant').map((v) => v.variant)).toEqual(['default', 'ce', 'gin-sdma-lib']);
    // 8 sizes: default AllGather out-of-place and in-place and AlltoAll out-of-place; gin-sdma-lib
    // AlltoAll only (librccl has no in-library GIN-SDMA AllGather); ce where the node has it.
    expect(of(rs, 'collective').filter((p) => p.variant === 'default')).toHaveLength(8 * 3);
    expect(of(rs, 'collective').filter((p) => p.variant === 'gin-sdma-lib')).toHaveLength(8);
    expect(of(rs, 'collective')).toHaveLength(8 * 3 + 8 + cePoints().length);
  });

  it('the default mode is rank-per-process, started by the helper, on every variant record', () => {
    for (const v of of(rs, 'collective-variant')) {
      expect(v.mode, v.variant).toBe('rank-per-process');
      expect(v.launcher, v.variant).toBe('helper');
    }
  });

  it('the ce variant runs on the copy engines where its conditions hold, and names the ones that do not where not', () => {
    const ce = of(rs, 'collective-variant').find((v) => v.variant === 'ce')!;
    if (ce.supported) {
      expect(new Set(cePoints().map((p) => p.op))).toEqual(new Set(['allgather', 'alltoall']));
      for (const p of cePoints()) {
        expect(p.transport).toBe('ce');
        expect(p.cusUsed?.count, `${p.op} ${p.sizeBytes}`).toBe(0);
      }
    } else {
      expect(cePoints()).toEqual([]);
      const failed = (ce.conditions ?? []).filter((c) => !c.ok);
      expect(failed.length).toBeGreaterThan(0);
      for (const c of failed) expect(ce.reason).toContain(c.name);
    }
  });

  it('every point says how many CUs one rank used and where that came from (the model, on the simulated node)', () => {
    for (const p of of(rs, 'collective')) {
      expect(p.cusUsed, `${p.variant} ${p.op} ${p.sizeBytes}`).toBeDefined();
      expect(p.cusUsed!.source).toBe('model');
      expect(Number.isInteger(p.cusUsed!.count)).toBe(true);
      if (p.variant === 'default') expect(p.cusUsed!.count!).toBeGreaterThan(0);
    }
  });

  it('progress counts the points that run, one variant at a time (rank processes per variant): the skipped gin-sdma-lib AllGather points are not in its total', () => {
    const progress = of(rs, 'progress');
    const points = of(rs, 'collective');
    const variants = of(rs, 'collective-variant').map((v) => v.variant);
    for (const [i, variant] of variants.entries()) {
      const mine = progress.filter((p) => (p.message ?? '').startsWith(`variant ${i + 1} of ${variants.length}: `));
      const total = points.filter((p) => p.variant === variant).length;
      expect(
        mine.map((p) => p.total),
        variant,
      ).toEqual(mine.map(() => total));
      expect(mine.at(-1), variant).toMatchObject({ done: total, total });
    }
    expect(points.filter((p) => p.variant === 'gin-sdma-lib')).toHaveLength(8);
  });

  it('each point was timed --repeats times (default 5): timeUs, algbw and busbw are those of the median', () => {
    for (const p of of(rs, 'collective')) {
      expect(p.repeats).toBe(5);
      expect(p.samplesUs).toHaveLength(5);
      expect(p.timeUs).toBe(median(p.samplesUs!));
    }
  });

  it('algbw and busbw follow the nccl-tests definitions at every point, data checked', () => {
    for (const p of of(rs, 'collective')) {
      checkFormulas(p);
      expect(p.ranks).toBe(8);
      expect(p.wrong).toBe(0);
      expect(p.simulated).toBe(true);
    }
  });

  it('the gin-sdma-lib environment is the one the knob catalog gives for the reported RCCL version', () => {
    const gin = of(rs, 'collective-variant').find((v) => v.variant === 'gin-sdma-lib')!;
    expect(gin.symmetric).toBe(true);
    expect(gin.env).toEqual(variantEnv('gin-sdma-lib', gin.library.version, 'rccl'));
    expect(of(rs, 'collective-variant').find((v) => v.variant === 'default')!.env).toEqual({});
  });

  it('gin-sdma-lib runs no AllGather: one variant-op-unsupported warning says why', () => {
    expect(of(rs, 'collective').filter((p) => p.variant === 'gin-sdma-lib' && p.op === 'allgather')).toEqual([]);
    const skipped = of(rs, 'warning').filter((w) => w.code === 'variant-op-unsupported');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.message).toMatch(/no in-library GIN-SDMA AllGather/);
    expect(skipped[0]!.message).toMatch(/rccl-tests/);
    // The default variant still runs AllGather.
    expect(of(rs, 'collective').some((p) => p.variant === 'default' && p.op === 'allgather')).toBe(true);
  });

  it("gin-sdma-lib AlltoAll is forced to SDMA at every size, and each point says so in the library's log line form", () => {
    const gin = of(rs, 'collective-variant').find((v) => v.variant === 'gin-sdma-lib')!;
    expect(gin.env).toMatchObject({
      NCCL_GIN_A2A_ENABLE: '1',
      NCCL_GIN_A2A_MIN_BYTES: '0',
      NCCL_GIN_A2A_SDMA_MIN_BYTES: '0',
    });
    expect(gin.env).not.toHaveProperty('RCCL_ENABLE_INTRANET');
    const points = of(rs, 'collective').filter((p) => p.variant === 'gin-sdma-lib');
    expect(points).toHaveLength(8);
    for (const p of points) {
      expect(p.op).toBe('alltoall');
      expect(p.transport).toBe('sdma');
      expect(p.transportEvidence).toBe(
        `AllToAll GIN: transport=sdma bytesPerPeer=${p.sizeBytes / p.ranks} (simulated)`,
      );
    }
  });

  it("the variant's own forcing values win over the process environment, as the library reads them", () => {
    const r = helper(
      ['collective', '--backend', 'sim', '-b', '64K', '-e', '64M', '-f', '16', '--variants', 'gin-sdma-lib'],
      30_000,
      {
        ...process.env,
        NCCL_GIN_A2A_SDMA_MIN_BYTES: String(1 << 30),
        NCCL_GIN_A2A_MIN_BYTES: String(1 << 30),
      },
    );
    expect(r.status).toBe(0);
    const points = of(records(r), 'collective');
    expect(points.length).toBe(3);
    for (const p of points) expect(p.transport).toBe('sdma');
  });

  it('reproduces the cited figure: AlltoAll 2 GiB busbw near 423 GB/s with GIN-SDMA', () => {
    const r = helper([
      'collective',
      '--backend',
      'sim',
      '-b',
      '2G',
      '-e',
      '2G',
      '--ops',
      'alltoall',
      '--variants',
      'gin-sdma-lib',
    ]);
    const gin = of(records(r), 'collective').find((p) => p.variant === 'gin-sdma-lib')!;
    expect(gin.busbwGbps).toBeGreaterThan(410);
    expect(gin.busbwGbps).toBeLessThan(435);
  });

  it('--repeats 3: three samples per point, timeUs their median, algbw and busbw from it', () => {
    const r = helper([
      'collective',
      '--backend',
      'sim',
      '-b',
      '1M',
      '-e',
      '64M',
      '-f',
      '8',
      '--repeats',
      '3',
      '--variants',
      'default,gin-sdma-lib',
    ]);
    expect(r.status).toBe(0);
    const points = of(records(r), 'collective');
    expect(points.length).toBe(3 * 3 + 3);
    for (const p of points) {
      expect(p.repeats).toBe(3);
      expect(p.samplesUs).toHaveLength(3);
      for (const x of p.samplesUs!) expect(Number.isFinite(x) && x >= 0).toBe(true);
      expect(p.timeUs).toBe(median(p.samplesUs!));
      checkFormulas(p);
      // Each repeat draws noise of its own.
      expect(new Set(p.samplesUs).size).toBe(3);
    }
  });

  it('--seed: the same seed gives the same records, another seed other samples', () => {
    const run = (seed: string) => {
      const r = helper([
        'collective',
        '--backend',
        'sim',
        '-b',
        '64K',
        '-e',
        '16M',
        '-f',
        '16',
        '--repeats',
        '4',
        '--seed',
        seed,
      ]);
      expect(r.status).toBe(0);
      return r.lines.filter((l) => l.startsWith('{"type":"collective'));
    };
    const a = run('7');
    expect(a.length).toBeGreaterThan(0);
    expect(run('7')).toEqual(a);
    const b = run('8');
    expect(b).toHaveLength(a.length);
    const samples = (lines: string[]) =>
      lines.map((l) => JSON.parse(l) as { samplesUs?: number[] }).flatMap((x) => x.samplesUs ?? []);
    const sa = samples(a);
    const sb = samples(b);
    expect(sb).toHaveLength(sa.length);
    expect(sb.every((x, i) => x !== sa[i])).toBe(true);
  });

  it(`--repeats is 1..${LIMITS.collectiveRepeatsMax}: 0 and ${LIMITS.collectiveRepeatsMax + 1} are usage errors`, () => {
    for (const repeats of ['0', String(LIMITS.collectiveRepeatsMax + 1), 'x']) {
      const r = helper(['collective', '--backend', 'sim', '-b', '1M', '-e', '1M', '--repeats', repeats]);
      expect(r.status, repeats).toBe(2);
      expect(records(r).find((x) => x.type === 'error')).toMatchObject({
        code: 'usage',
        message: expect.stringContaining('--repeats'),
      });
      expect(records(r).some((x) => x.type === 'collective')).toBe(false);
    }
    const r = helper([
      'collective',
      '--backend',
      'sim',
      '-b',
      '1M',
      '-e',
      '1M',
      '--ops',
      'alltoall',
      '--variants',
      'default',
      '--repeats',
      String(LIMITS.collectiveRepeatsMax),
    ]);
    expect(r.status).toBe(0);
    expect(of(records(r), 'collective')[0]!.samplesUs).toHaveLength(LIMITS.collectiveRepeatsMax);
  });

  it('gin-sdma-lib asked for AllGather alone: its variant record, the warning, and no points', () => {
    const r = helper([
      'collective',
      '--backend',
      'sim',
      '-b',
      '1M',
      '-e',
      '4M',
      '--ops',
      'allgather',
      '--variants',
      'gin-sdma-lib',
    ]);
    expect(r.status).toBe(0);
    const rs2 = records(r);
    expect(of(rs2, 'collective-variant').map((v) => v.variant)).toEqual(['gin-sdma-lib']);
    expect(of(rs2, 'warning').map((w) => w.code)).toContain('variant-op-unsupported');
    expect(of(rs2, 'collective')).toEqual([]);
    expect(rs2.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
  });

  it('refuses bad arguments with a usage error and exit 2', () => {
    for (const args of [
      ['-b', '1X'],
      ['--variants', 'gin-sdma-bogus'],
      ['--mode', 'threads'],
      ['--mode', ''],
      ['-b', '1M', '-e', '1K'],
      ['--ops', 'allreduce'],
      ['--gpus', '0', '--mode', 'single-process'],
      ['--rank-fault', 'explode:1@1'],
      ['--rank-timeout', '0'],
    ]) {
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

describe('collective --mode on the simulated node', () => {
  const args = ['collective', '--backend', 'sim', '-b', '1M', '-e', '16M', '-f', '4', '--repeats', '3'];
  for (const mode of ['single-process', 'rank-per-process'] as const) {
    it(`--mode ${mode}: every variant record says it (a launcher only with rank-per-process), every point its CUs`, () => {
      const r = helper([...args, '--mode', mode]);
      expect(r.status).toBe(0);
      const rs = records(r);
      const variants = of(rs, 'collective-variant');
      expect(variants.length).toBeGreaterThan(0);
      for (const v of variants) {
        expect(v.mode, v.variant).toBe(mode);
        if (mode === 'rank-per-process') expect(v.launcher, v.variant).toBe('helper');
        else expect(v.launcher, v.variant).toBeUndefined();
      }
      const points = of(rs, 'collective');
      expect(points.length).toBeGreaterThan(0);
      for (const p of points) {
        expect(p.cusUsed, `${p.variant} ${p.op} ${p.sizeBytes}`).toMatchObject({ source: 'model' });
        expect(Number.isInteger(p.cusUsed!.count)).toBe(true);
      }
    });
  }

  it('without --mode the run is rank-per-process, as with it', () => {
    const r = helper(args);
    expect(r.status).toBe(0);
    expect(new Set(of(records(r), 'collective-variant').map((v) => v.mode))).toEqual(new Set(['rank-per-process']));
  });

  it('--variants gin-sdma still runs the library path under its new name, with a variant-renamed warning', () => {
    const r = helper([...args, '--ops', 'alltoall', '--variants', 'gin-sdma']);
    expect(r.status).toBe(0);
    const rs = records(r);
    expect(r.lines.some((l) => l.includes('"variant":"gin-sdma"'))).toBe(false);
    expect(of(rs, 'collective-variant').map((v) => v.variant)).toEqual(['gin-sdma-lib']);
    expect(of(rs, 'warning').map((w) => w.code)).toContain('variant-renamed');
  });
});

describe('the collective panel view of a simulated run', () => {
  it('draws the variants each operation ran, marks the crossover and feeds the advice', () => {
    const run = newRun({
      type: 'run',
      format: RUN_FORMAT,
      version: RUN_FORMAT_VERSION,
      id: 'sim-collective',
      command: 'collective',
      createdAt: new Date(0).toISOString(),
      target: { kind: 'local' },
      helper: { path: 'sdma-probe', args: [] },
    });
    for (const r of records(helper(['collective', '--backend', 'sim', '-b', '64K', '-e', '1G', '-f', '4'])))
      applyRecord(run, r);
    for (const r of of(
      records(helper(['overlap', '--backend', 'sim', '--phase-ms', '100', '--compute', 'gemm,fma'])),
      'overlap',
    ))
      applyRecord(run, r);
    const view = collectivePageView(run);
    expect(view.simulated).toBe(true);
    const curves = view.curves.map((c) => `${c.op}/${c.variant}/${c.inPlace}`);
    expect(curves).toContain('alltoall/gin-sdma-lib/false');
    // gin-sdma-lib runs AlltoAll only: AllGather is compared with ce, where the node ran it.
    expect(curves).not.toContain('allgather/gin-sdma-lib/false');
    expect(view.crossovers.some((c) => c.op === 'allgather' && c.engineVariant === 'gin-sdma-lib')).toBe(false);
    expect(view.mode).toBe('rank-per-process');
    expect(view.launcher).toBe('helper');
    // The CU budget counts the model's figure, not the assumed 64.
    expect(view.cus?.source).toBe('model');
    const a2a = view.crossovers.find((c) => c.op === 'alltoall' && c.engineVariant === 'gin-sdma-lib')!;
    expect(a2a.kind).toBe('crossover');
    expect(a2a.fromBytes).toBeGreaterThan(1 << 20);
    // Forced to SDMA at every size, no gin-sdma point is off its path.
    expect(
      view.curves.find((c) => c.variant === 'gin-sdma-lib' && c.op === 'alltoall')!.points.every((p) => !p.offPath),
    ).toBe(true);
    expect(view.recommendations.find((r) => r.knob === 'NCCL_GIN_TYPE')?.value).toBe('7');
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
      expect(mine.map((p) => p.phase)).toEqual([
        'alone-before',
        'beside',
        'beside',
        'beside',
        'beside',
        'beside',
        'alone-after',
      ]);
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
    const lines = readFileSync(join(root, MEASURED, name), 'utf8')
      .split('\n')
      .filter((l) => l.length > 0);
    return lines.map((l, i) => {
      const r = parseLine(l);
      if (r.kind !== 'record')
        throw new Error(`${name}:${i + 1} is not a valid record: ${r.kind === 'malformed' ? r.reason : r.type}`);
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
    const torch = JSON.parse(readFileSync(join(root, MEASURED, 'torch.json'), 'utf8')) as {
      points: { op: string; sizeBytes: number; busbwGbps: number }[];
    };
    const points = of(read('collective.ndjson'), 'collective');
    for (const op of ['allgather', 'alltoall'] as const) {
      const mine = points.find(
        (p) => p.op === op && p.variant === 'default' && !p.inPlace && p.sizeBytes === 256 << 20,
      )!;
      const ref = torch.points.find((p) => p.op === op && p.sizeBytes === 256 << 20)!;
      expect(Math.abs(mine.busbwGbps / ref.busbwGbps - 1)).toBeLessThan(0.05);
    }
  });

  it('the ce variant ran on the copy engines and the env is the catalog one', () => {
    const rs = read('collective.ndjson');
    const ce: CollectiveVariant = of(rs, 'collective-variant').find((v) => v.variant === 'ce')!;
    expect(ce.env).toEqual(variantEnv('ce', ce.library.version, ce.library.name === 'rccl' ? 'rccl' : 'nccl'));
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
