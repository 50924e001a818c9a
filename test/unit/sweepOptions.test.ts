import { describe, expect, it } from 'vitest';
import type { SweepOptions } from '../../src/core/sweep/sweepOptions';
import { DEFAULT_SWEEP, checkSweepOptions, sweepArgs } from '../../src/core/sweep/sweepOptions';

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
