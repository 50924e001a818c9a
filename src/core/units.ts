/**
 * The one set of unit formatters, for the pages, the CLI tables and the views alike: sizes in
 * binary units (KiB, MiB, GiB), bandwidth in GB/s (1e9 bytes per second, as nccl-tests and
 * nvbandwidth print it), times with "µs". Sizes parse the way TransferBench and rccl-tests
 * users write them; a list of them (with ranges) is sizeList.ts's.
 */
import { LIMITS } from './limits';

const SUFFIXES: Record<string, number> = {
  '': 1,
  B: 1,
  K: 1024,
  KB: 1024,
  KIB: 1024,
  M: 1024 ** 2,
  MB: 1024 ** 2,
  MIB: 1024 ** 2,
  G: 1024 ** 3,
  GB: 1024 ** 3,
  GIB: 1024 ** 3,
};

/** Largest size any path accepts: 64 GiB keeps arithmetic exact and stays far above one GPU's HBM share per copy. */
export const MAX_SIZE_BYTES = LIMITS.sizeBytesMax;

/** Parses "4K", "1M", "256MiB", "4096" (binary multiples). Throws a message that names the input. */
export function parseSize(text: string): number {
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const mult = m ? SUFFIXES[(m[2] ?? '').toUpperCase()] : undefined;
  if (!m || mult === undefined) throw new Error(`"${text}" is not a size (use e.g. 4096, 64K, 1M, 1G)`);
  const bytes = Number(m[1]) * mult;
  if (bytes < 1 || bytes > MAX_SIZE_BYTES) throw new Error(`size "${text}" is out of range (1 B .. 64 GiB)`);
  return bytes;
}

/** 4096 -> "4 KiB", 1536 -> "1.5 KiB", 1073741824 -> "1 GiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = Number.isInteger(value) ? 0 : value < 10 ? 2 : 1;
  const shown = digits === 0 ? value.toFixed(0) : value.toFixed(digits).replace(/\.?0+$/, '');
  return `${shown} ${units[unit]}`;
}

/** The compact form used in helper arguments: 4096 -> "4K". */
export function formatSizeArg(bytes: number): string {
  for (const [suffix, mult] of [
    ['G', 1024 ** 3],
    ['M', 1024 ** 2],
    ['K', 1024],
  ] as const) {
    if (bytes % mult === 0) return `${bytes / mult}${suffix}`;
  }
  return String(bytes);
}

/** GB/s (1e9 B/s) with three or four significant digits: 312.4, 48.21, 6.125. */
export function formatGbps(gbps: number): string {
  return gbps >= 100 ? gbps.toFixed(1) : gbps >= 10 ? gbps.toFixed(2) : gbps.toFixed(3);
}

const TIME_UNITS: readonly (readonly [number, string])[] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/** The unit a time of this magnitude reads in (the timeline's ruler picks one for all ticks). */
export function timeUnitOf(ns: number): readonly [scale: number, unit: string] {
  return TIME_UNITS.find(([s]) => Math.abs(ns) >= s) ?? TIME_UNITS[3]!;
}

/** A duration with three significant digits: 850 ns, 12.5 µs, 3.21 ms. */
export function formatDuration(ns: number): string {
  const [scale, unit] = timeUnitOf(ns);
  const v = ns / scale;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(unit === 'ns' ? 0 : digits)} ${unit}`;
}

/** The same for a time the helper reports in microseconds (collectives). */
export function formatDurationUs(us: number): string {
  return formatDuration(us * 1e3);
}
