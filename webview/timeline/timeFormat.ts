/** Time ruler ticks in units a GPU engineer reads at a glance (durations: units.ts formatDuration). */
import { timeUnitOf } from '../../src/core/units';

/** Tick spacing of 1, 2 or 5 x 10^k ns giving at least `minPx` between ticks. */
export function tickStepNs(spanNs: number, widthPx: number, minPx = 90): number {
  const raw = (spanNs / Math.max(widthPx, 1)) * minPx;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/**
 * A tick label: the unit follows the largest time on the ruler (`rulerMaxNs`), so a ruler reads
 * 210.5 ms, 211.0 ms rather than 210500 µs; the decimals follow the step.
 */
export function formatTick(ns: number, stepNs: number, rulerMaxNs = ns): string {
  const [scale, unit] = timeUnitOf(Math.max(Math.abs(rulerMaxNs), stepNs));
  const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(stepNs / scale) + 1e-9)));
  return `${(ns / scale).toFixed(digits)} ${unit}`;
}
