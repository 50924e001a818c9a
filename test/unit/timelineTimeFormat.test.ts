import { describe, expect, it } from 'vitest';
import { formatTick, tickStepNs } from '../../webview/timeline/timeFormat';

describe('time ruler', () => {
  it('steps 1, 2 or 5 x 10^k ns, at least ~90 px apart', () => {
    expect(tickStepNs(1e9, 1000)).toBe(1e8);
    expect(tickStepNs(5.41e6, 1200)).toBe(500_000);
    expect(tickStepNs(300, 1000)).toBe(50);
  });

  it('labels ticks in the unit of the value with the decimals of the step', () => {
    expect(formatTick(210_500_000, 500_000)).toBe('210.5 ms');
    expect(formatTick(0, 500_000, 3_000_000)).toBe('0.0 ms');
    expect(formatTick(12_000, 1000)).toBe('12 µs');
    expect(formatTick(2e9, 1e8)).toBe('2.0 s');
    expect(formatTick(450, 50)).toBe('450 ns');
  });
});
