import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  formatDurationUs,
  formatGbps,
  formatSizeArg,
  parseSize,
} from '../../src/core/units';

describe('sizes', () => {
  it('parses binary suffixes the way TransferBench and rccl-tests users write them', () => {
    expect(parseSize('4096')).toBe(4096);
    expect(parseSize('64K')).toBe(65536);
    expect(parseSize('1M')).toBe(1048576);
    expect(parseSize('1MiB')).toBe(1048576);
    expect(parseSize(' 1g ')).toBe(1073741824);
  });

  it('rejects what is not a size, naming the input', () => {
    for (const bad of ['', 'abc', '1T', '-1K', '1.5M', '0', '65G', '1K;rm -rf /']) {
      expect(() => parseSize(bad)).toThrow(/size|range/);
    }
  });

  it('formats for people and for helper arguments', () => {
    expect(formatBytes(4096)).toBe('4 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(1073741824)).toBe('1 GiB');
    expect(formatBytes(100)).toBe('100 B');
    expect(formatSizeArg(4096)).toBe('4K');
    expect(formatSizeArg(3 * 1024 ** 3)).toBe('3G');
    expect(formatSizeArg(1000)).toBe('1000');
    for (const s of [1, 1000, 4096, 1048576, 768 * 1024]) expect(parseSize(formatSizeArg(s))).toBe(s);
  });
});

describe('times and bandwidths', () => {
  it('writes durations with three significant digits and "µs"', () => {
    const ns: [number, string][] = [
      [3100, '3.10 µs'],
      [2_200_291, '2.20 ms'],
      [850, '850 ns'],
      [1.5e9, '1.50 s'],
    ];
    for (const [value, text] of ns) expect(formatDuration(value)).toBe(text);
    const us: [number, string][] = [
      [12.5, '12.5 µs'],
      [2500, '2.50 ms'],
    ];
    for (const [value, text] of us) expect(formatDurationUs(value)).toBe(text);
  });

  it('writes GB/s (1e9 B/s) with three or four significant digits', () => {
    expect(formatGbps(312.44)).toBe('312.4');
    expect(formatGbps(48.214)).toBe('48.21');
    expect(formatGbps(6.1254)).toBe('6.125');
  });
});
