/** Time ruler ticks and time labels in units a GPU engineer reads at a glance. */

/** Tick spacing of 1, 2 or 5 x 10^k ns giving at least `minPx` between ticks. */
export function tickStepNs(spanNs: number, widthPx: number, minPx = 90): number {
  const raw = (spanNs / Math.max(widthPx, 1)) * minPx;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

const UNITS: [number, string][] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/**
 * A tick label: the unit follows the largest time on the ruler (`rulerMaxNs`), so a ruler reads
 * 210.5 ms, 211.0 ms rather than 210500 µs; the decimals follow the step.
 */
export function formatTick(ns: number, stepNs: number, rulerMaxNs = ns): string {
  const magnitude = Math.max(Math.abs(rulerMaxNs), stepNs);
  const [scale, unit] = UNITS.find(([s]) => magnitude >= s) ?? UNITS[3]!;
  const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(stepNs / scale) + 1e-9)));
  return `${(ns / scale).toFixed(digits)} ${unit}`;
}

/** A duration with three significant digits: 850 ns, 12.5 µs, 3.21 ms. */
export function formatDuration(ns: number): string {
  const [scale, unit] = UNITS.find(([s]) => Math.abs(ns) >= s) ?? UNITS[3]!;
  const v = ns / scale;
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(unit === 'ns' ? 0 : digits)} ${unit}`;
}
