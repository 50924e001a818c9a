/**
 * native/src/limits.json is the one place the helper's limits are written: the real binary takes
 * each limit and refuses one above it, and the extension's option checks (which read the
 * same file) take and refuse the same values.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS, isFaultSpec } from '../../src/core/limits';
import { DEFAULT_MATRIX, checkMatrixOptions } from '../../src/core/matrix/matrixOptions';
import type { MatrixOptions } from '../../src/core/matrix/matrixOptions';
import { DEFAULT_SWEEP, checkSweepOptions } from '../../src/core/sweep/sweepOptions';
import type { SweepOptions } from '../../src/core/sweep/sweepOptions';
import { MAX_SIZE_BYTES } from '../../src/core/units';
import { helper, records } from './run';

// A sweep that stops right after its checks: exit-after=0 fires before the first work unit.
const tiny = ['--backend', 'sim', '--paths', 'cu/host', '--iters', '1'];
const stopAtOnce = ['--fault', 'exit-after=0'];

function usageMessage(args: string[]): string | undefined {
  const r = helper(args);
  const rs = records(r);
  const error = rs.find((x) => x.type === 'error');
  if (r.status === 2) {
    expect(error && error.type === 'error' && error.code).toBe('usage');
    return error && error.type === 'error' ? error.message : '';
  }
  expect(
    rs.some((x) => x.type === 'topology'),
    r.stderr,
  ).toBe(true);
  return undefined;
}

const sweepOk = (o: Partial<SweepOptions>) => () => checkSweepOptions({ ...DEFAULT_SWEEP, ...o });
const matrixOk = (o: Partial<MatrixOptions>) => () => checkMatrixOptions({ ...DEFAULT_MATRIX, ...o });

describe('limits shared by the helper and the extension', () => {
  it('sizes: the largest size is taken, one byte more is refused', () => {
    const max = LIMITS.sizeBytesMax;
    expect(MAX_SIZE_BYTES).toBe(max);
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', String(max)])).toBeUndefined();
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', String(max + 1)])).toMatch(
      /--sizes: .* is out of range/,
    );
    expect(usageMessage(['matrix', '--backend', 'sim', ...stopAtOnce, '--size', String(max + 1)])).toMatch(
      /--size: .* is out of range/,
    );
    expect(sweepOk({ sizes: [max] })).not.toThrow();
    expect(sweepOk({ sizes: [max + 1] })).toThrow(/size/);
    expect(sweepOk({ timelineSizeBytes: max + 1 })).toThrow(/timeline size/);
    expect(matrixOk({ sizeBytes: max })).not.toThrow();
    expect(matrixOk({ sizeBytes: max + 1 })).toThrow(/size/);
  });

  it('iterations, warm-up, simulated GPUs and the simulator delay', () => {
    const cases: [string, number, (n: number) => () => unknown][] = [
      ['--iters', LIMITS.itersMax, (n) => sweepOk({ iters: n })],
      ['--sim-gpus', LIMITS.simGpusMax, (n) => sweepOk({ simGpus: n })],
      ['--sim-delay-ms', LIMITS.simDelayMsMax, (n) => sweepOk({ simDelayMs: n })],
    ];
    for (const [flag, max, ts] of cases) {
      expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', flag, String(max)]), flag).toBeUndefined();
      expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', flag, String(max + 1)])).toMatch(
        new RegExp(`${flag}: '${max + 1}' is out of range`),
      );
      expect(ts(max), flag).not.toThrow();
      expect(ts(max + 1), flag).toThrow();
    }
    expect(
      usageMessage(['matrix', '--backend', 'sim', ...stopAtOnce, '--warmup', String(LIMITS.warmupMax)]),
    ).toBeUndefined();
    expect(
      usageMessage(['matrix', '--backend', 'sim', ...stopAtOnce, '--warmup', String(LIMITS.warmupMax + 1)]),
    ).toMatch(/--warmup: .* is out of range/);
    expect(matrixOk({ warmup: LIMITS.warmupMax })).not.toThrow();
    expect(matrixOk({ warmup: LIMITS.warmupMax + 1 })).toThrow(/warm-up/);
    expect(matrixOk({ simDelayMs: LIMITS.simDelayMsMax + 1 })).toThrow(/delay/);
    expect(matrixOk({ simGpus: LIMITS.simGpusMax + 1 })).toThrow(/simulated GPU count/);
  });

  it('CU counts and GPU indices: the limit passes the parser and only the node refuses it', () => {
    const cus = LIMITS.cusMax;
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', '--cus', String(cus)])).toMatch(
      /has 256 CUs/,
    );
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', '--cus', String(cus + 1)])).toMatch(
      /out of range \(1\.\.CUs per GPU\)/,
    );
    expect(sweepOk({ cus: [cus] })).not.toThrow();
    expect(sweepOk({ cus: [cus + 1] })).toThrow(/CU count/);
    expect(matrixOk({ cus })).not.toThrow();
    expect(matrixOk({ cus: cus + 1 })).toThrow(/CU count/);
    const gpu = LIMITS.gpuIndexMax;
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--src', String(gpu), '--dst', '0'])).toMatch(
      /this node has 8 GPUs/,
    );
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--src', String(gpu + 1), '--dst', '0'])).toMatch(
      /is not an endpoint/,
    );
    expect(usageMessage(['matrix', '--backend', 'sim', ...stopAtOnce, '--gpus', `0,${gpu + 1}`])).toMatch(
      /is not a GPU index/,
    );
    expect(sweepOk({ pairs: [{ src: gpu, dst: 0 }] })).not.toThrow();
    expect(sweepOk({ pairs: [{ src: gpu + 1, dst: 0 }] })).toThrow();
    expect(matrixOk({ gpus: [0, gpu] })).not.toThrow();
    expect(matrixOk({ gpus: [0, gpu + 1] })).toThrow(/GPU index/);
  });

  it('list lengths: sizes, CU counts and endpoint pairs', () => {
    const n = LIMITS.listLengthMax;
    const sizes = Array.from({ length: n }, (_, i) => i + 1);
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', sizes.join(',')])).toBeUndefined();
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', [...sizes, n + 1].join(',')])).toMatch(
      new RegExp(`--sizes: ${n + 1} sizes, more than ${n}`),
    );
    const cus = Array.from({ length: n }, () => 8);
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', '--cus', cus.join(',')])).toBeUndefined();
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', '--cus', [...cus, 8].join(',')])).toMatch(
      /--cus: .* more than/,
    );
    expect(sweepOk({ sizes })).not.toThrow();
    expect(sweepOk({ sizes: [...sizes, n + 1] })).toThrow(/sizes/);
    expect(sweepOk({ cus: Array.from({ length: n }, (_, i) => i + 1) })).not.toThrow();
    expect(sweepOk({ cus: Array.from({ length: n + 1 }, (_, i) => i + 1) })).toThrow(/CU counts/);

    const pairs = Array.from({ length: LIMITS.pairsMax }, (_, i) => ({ src: Math.floor(i / 8), dst: i % 8 }));
    const pairList = pairs.map((p) => `${p.src}:${p.dst}`).join(',');
    expect(pairs.length).toBe(64);
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', '--pairs', pairList])).toBeUndefined();
    expect(usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', '--pairs', `${pairList},host:0`])).toMatch(
      /--pairs: 65 pairs, more than 64/,
    );
    expect(sweepOk({ pairs })).not.toThrow();
    expect(sweepOk({ pairs: [...pairs, { src: -1, dst: 0 }] })).toThrow(/at most 64 pairs/);
  });

  it('timeline repeats: the limit passes the parser, one more does not', () => {
    const max = LIMITS.timelineRepeatsMax;
    const timeline = ['--timeline-size', '4K'];
    expect(
      usageMessage(['sweep', ...tiny, ...stopAtOnce, '--sizes', '4K', ...timeline, '--timeline-iters', String(max)]),
    ).toMatch(/events, more than/);
    expect(
      usageMessage([
        'sweep',
        ...tiny,
        ...stopAtOnce,
        '--sizes',
        '4K',
        ...timeline,
        '--timeline-iters',
        String(max + 1),
      ]),
    ).toMatch(/--timeline-iters: .* is out of range/);
  });

  it('fault specs: every kind both sides know, N up to the limit', () => {
    const sweep = ['sweep', ...tiny, '--sizes', '4K', '--cus', '8', '--sim-gpus', '2'];
    for (const kind of LIMITS.faultKinds) {
      const spec = `${kind}-after=${LIMITS.faultAfterMax}`;
      const r = helper([...sweep, '--fault', spec]);
      expect(r.status, `${spec}: ${r.stderr}`).toBe(0);
      expect(isFaultSpec(spec)).toBe(true);
      expect(sweepOk({ fault: spec })).not.toThrow();
      expect(matrixOk({ fault: spec })).not.toThrow();
      const over = `${kind}-after=${LIMITS.faultAfterMax + 1}`;
      expect(usageMessage([...sweep, '--fault', over])).toMatch(/is not a fault spec/);
      expect(sweepOk({ fault: over })).toThrow(/fault/);
      expect(matrixOk({ fault: over })).toThrow(/fault/);
    }
    expect(LIMITS.faultKinds).toContain('corrupt');
    expect(usageMessage([...sweep, '--fault', 'melt-after=1'])).toMatch(/is not a fault spec/);
    expect(sweepOk({ fault: 'melt-after=1' })).toThrow(/fault/);
  });
});
