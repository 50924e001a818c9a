import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SweepOptions } from '../../src/core/sweep/sweepOptions';
import { DEFAULT_SWEEP, checkSweepOptions, sweepArgs } from '../../src/core/sweep/sweepOptions';
import { LIMITS } from '../../src/core/limits';

const with_ = (o: Partial<SweepOptions>) => ({ ...DEFAULT_SWEEP, ...o }) as SweepOptions;

describe('sweep options', () => {
  it('turns the defaults into the helper arguments of docs/PROTOCOL.md', () => {
    expect(sweepArgs(DEFAULT_SWEEP)).toEqual([
      'sweep',
      '--backend',
      'auto',
      '--sizes',
      '4K,16K,64K,128K,256K,512K,1M,2M,4M,16M,64M,256M,1G',
      '--paths',
      'cu/host,cu/device,engine/host,engine/device',
      '--cus',
      '1,2,4,8,16,32,64,128,256',
      '--iters',
      '20',
      '--seed',
      '1',
    ]);
  });

  it('asks for the runtime default series only when it is on', () => {
    expect(sweepArgs(DEFAULT_SWEEP)).not.toContain('--runtime-default');
    expect(sweepArgs({ ...DEFAULT_SWEEP, runtimeDefault: false })).not.toContain('--runtime-default');
    expect(sweepArgs({ ...DEFAULT_SWEEP, runtimeDefault: true }).filter((a) => a === '--runtime-default')).toHaveLength(
      1,
    );
  });

  it('keeps each value one argument, whatever characters a path holds', () => {
    const args = sweepArgs(with_({ timelineSizeBytes: 1 << 20, timelineOut: '/tmp/a b;$(touch x)/t.sdmatl' }));
    expect(args.slice(-4)).toEqual(['--timeline-size', '1M', '--timeline-out', '/tmp/a b;$(touch x)/t.sdmatl']);
  });

  it.each([
    [{ backend: 'rocm' as never }, /backend/],
    [{ sizes: [] }, /sizes/],
    [{ sizes: [0] }, /size 0/],
    [{ sizes: [1.5] }, /size 1.5/],
    [{ sizes: [2 ** 40] }, /size/],
    [{ paths: ['sdma/host' as never] }, /unknown path/],
    [{ cus: [0] }, /CU count 0/],
    [{ cus: [-4] }, /CU count -4/],
    [{ cus: [Number.NaN] }, /CU count NaN/],
    [{ cus: ['8; reboot' as never] }, /CU count/],
    [{ iters: 0 }, /iterations/],
    [{ iters: 1e9 }, /iterations/],
    [{ pairs: [{ src: -1, dst: -1 }] }, /host:host/],
    [{ pairs: [{ src: 0, dst: -2 }] }, /endpoint pair/],
    [{ timelineOut: '--fault=crash-after=0' }, /timeline file/],
    [{ fault: 'crash-after=1; rm -rf ~' }, /fault/],
    [{ simDelayMs: -1 }, /delay/],
  ])('rejects %j with a message that names the field', (patch, message) => {
    expect(() => checkSweepOptions(with_(patch as Partial<SweepOptions>))).toThrow(message);
  });
});

describe("sweep options: the seed's dimensions", () => {
  const flag = (args: string[], name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };

  it('passes --waves-per-cu, --engines, --batch and --shmem-sdma when set, each one argument', () => {
    const args = sweepArgs(
      with_({ wavesPerCu: [1, 16], engines: [1, 4], batch: [0, 8], shmemSdma: ['forced', 'library', 'off'] }),
    );
    expect(flag(args, '--waves-per-cu')).toBe('1,16');
    expect(flag(args, '--engines')).toBe('1,4');
    expect(flag(args, '--batch')).toBe('0,8');
    expect(flag(args, '--shmem-sdma')).toBe('forced,library,off');
  });

  it('passes none of them at their defaults, so a helper without the flags runs as before', () => {
    const args = sweepArgs(with_({ wavesPerCu: [], engines: [1], batch: [0], shmemSdma: ['forced'] }));
    expect(args).toEqual(sweepArgs(DEFAULT_SWEEP));
  });

  it.each([
    [{ wavesPerCu: [0] }, /waves per CU: 0 must be a whole number in 1\.\.64/],
    [{ wavesPerCu: [65] }, /1\.\.64/],
    [{ wavesPerCu: [1.5] }, /waves per CU/],
    [{ wavesPerCu: ['1;rm -rf /' as never] }, /waves per CU/],
    [{ wavesPerCu: [4, 4] }, /twice/],
    [{ wavesPerCu: Array.from({ length: 300 }, (_, i) => (i % 64) + 1) }, /waves per CU must list/],
    [{ engines: [] }, /engines must list 1\.\./],
    [{ engines: [0] }, /engines: 0 must be a whole number in 1\.\.64/],
    [{ engines: [65] }, /1\.\.64/],
    [{ batch: [-1] }, /batch sizes: -1 must be a whole number in 0\.\.1024/],
    [{ batch: [1025] }, /0\.\.1024/],
    [{ batch: [Number.NaN] }, /batch sizes/],
    [{ shmemSdma: [] }, /rocSHMEM SDMA modes must list/],
    [{ shmemSdma: ['always' as never] }, /unknown rocSHMEM SDMA mode "always"/],
    [{ shmemSdma: ['off', 'off'] as never }, /twice/],
    [{ shmemSdma: 'off' as never }, /rocSHMEM SDMA modes must list/],
  ])('refuses %j with a message that says why', (over, message) => {
    expect(() => checkSweepOptions(with_(over as Partial<SweepOptions>))).toThrow(message);
    expect(() => sweepArgs(with_(over as Partial<SweepOptions>))).toThrow(message);
  });
});

describe("the seed's dimensions in package.json", () => {
  it('declares each setting with the bounds of the helper limits, and the defaults that pass no flag', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
      contributes: {
        configuration:
          | { properties: Record<string, Record<string, unknown>> }[]
          | { properties: Record<string, Record<string, unknown>> };
      };
    };
    const configs = Array.isArray(pkg.contributes.configuration)
      ? pkg.contributes.configuration
      : [pkg.contributes.configuration];
    const props = Object.assign({}, ...configs.map((c) => c.properties)) as Record<string, Record<string, unknown>>;
    const items = (name: string) => props[name]!.items as Record<string, unknown>;
    expect(items('sdmaLens.sweep.wavesPerCu')).toMatchObject({ minimum: 1, maximum: LIMITS.wavesPerCuMax });
    expect(items('sdmaLens.sweep.engines')).toMatchObject({ minimum: 1, maximum: LIMITS.splitMax });
    expect(items('sdmaLens.sweep.batch')).toMatchObject({ minimum: 0, maximum: LIMITS.batchMax });
    expect(items('sdmaLens.sweep.shmemSdma').enum).toEqual(['forced', 'library', 'off']);
    expect(props['sdmaLens.advice.wavesPerCu']).toMatchObject({
      minimum: 0,
      maximum: LIMITS.wavesPerCuMax,
      default: 0,
    });
    const defaults = {
      wavesPerCu: props['sdmaLens.sweep.wavesPerCu']!.default as number[],
      engines: props['sdmaLens.sweep.engines']!.default as number[],
      batch: props['sdmaLens.sweep.batch']!.default as number[],
      shmemSdma: props['sdmaLens.sweep.shmemSdma']!.default as ('forced' | 'library' | 'off')[],
    };
    expect(sweepArgs(with_(defaults))).toEqual(sweepArgs(DEFAULT_SWEEP));
  });
});
