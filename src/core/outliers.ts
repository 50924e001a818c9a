/**
 * Which nodes of a fleet stand apart, judged against the fleet itself: the median and the
 * median absolute deviation (MAD) of one figure over the nodes, and each node's modified
 * z-score (Iglewicz and Hoaglin: 0.6745 (x - median) / MAD, equal to (x - median) / (1.4826
 * MAD)). Median and MAD ignore a few wild values, so one weak node cannot hide itself by
 * dragging the mean down, as it would with mean and standard deviation.
 *
 * Two guards make a flag mean something a user would act on:
 * - a spread floor: nodes of one model measured the same way often agree to well under 1%
 *   (the simulator to the last digit), so the MAD can be 0; the scale is at least
 *   `SPREAD_FLOOR` of the median, so a 0.1% difference is never "infinitely" far;
 * - a size floor: a node is an outlier only if it is also more than `MIN_DEVIATION` from the
 *   median, so a fleet with a tight spread does not flag a node that is 2% slow.
 * Below `MIN_NODES` nodes a median says nothing about which node is odd: nothing is flagged.
 * Browser-safe: no imports.
 */

/** |modified z| above this is an outlier (the value Iglewicz and Hoaglin recommend). */
export const Z_LIMIT = 3.5;
/** The robust scale is at least this fraction of |median|. */
export const SPREAD_FLOOR = 0.01;
/** And the node must be at least this fraction away from the median. */
export const MIN_DEVIATION = 0.05;
/**
 * The size floor of a crossover figure. A sweep measures sizes a factor 2 apart and a crossover
 * is placed between two of them; where the two paths' rates are close (the engine and a
 * link-capped CU copy within 10%), percent-level noise moves that estimate by tens of percent
 * (seen on the simulated fleet: 4.22 against a median of 4.52 MiB), so a smaller shift says
 * nothing about the node.
 */
export const CROSSOVER_MIN_DEVIATION = 0.25;
/** Fewer nodes than this with a figure: no outliers are judged for it. */
export const MIN_NODES = 3;
/** 1 / Φ⁻¹(3/4): makes the MAD estimate a normal distribution's standard deviation. */
const MAD_TO_SIGMA = 1.4826;

/** The rule in words, for every screen that shows a flag. */
export const OUTLIER_RULE = `a node is an outlier for a figure when its modified z-score (x − median) / (1.4826 · MAD) is beyond ±${Z_LIMIT} and it is more than ${MIN_DEVIATION * 100}% from the fleet median (${CROSSOVER_MIN_DEVIATION * 100}% for a crossover, placed between sizes a factor 2 apart; the scale is at least ${SPREAD_FLOOR * 100}% of the median; at least ${MIN_NODES} nodes needed)`;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Judged {
  median: number;
  mad: number;
  /** The scale z is measured in: max(1.4826 MAD, floor). */
  scale: number;
  /** One per value, in the order given. */
  z: number[];
  /** (x − median) / |median|; 0 when the median is 0. */
  deviation: number[];
  outlier: boolean[];
  /** False when there were too few values to judge. */
  judged: boolean;
}

/** Judges each value against the others (`values` in node order; a node without the figure is left out by the caller); `minDeviation`: the size floor. */
export function judge(values: readonly number[], minDeviation = MIN_DEVIATION): Judged {
  const m = median(values);
  const mad = median(values.map((x) => Math.abs(x - m)));
  const scale = Math.max(MAD_TO_SIGMA * mad, SPREAD_FLOOR * Math.abs(m), Number.MIN_VALUE);
  const z = values.map((x) => (x - m) / scale);
  const deviation = values.map((x) => (m === 0 ? 0 : (x - m) / Math.abs(m)));
  const judged = values.length >= MIN_NODES;
  const outlier = values.map((_, i) => judged && Math.abs(z[i]!) > Z_LIMIT && Math.abs(deviation[i]!) > minDeviation);
  return { median: m, mad, scale, z, deviation, outlier, judged };
}
