/**
 * The page's first view of a timeline, as plain arithmetic both sides share: the page draws it,
 * and a host-held timeline's engine (timelineOverview.ts `surveyAndBin`) bins the first
 * level-of-detail request before the page asks, from the same numbers. Both must compute the
 * same floating-point values, so each rule is written once, here.
 */

/** The window that fits a whole timeline: its events with 2% of their span each side (a span of at least 1 µs). */
export function fitAllWindow(startNs: number, endNs: number): { from: number; to: number } {
  const span = Math.max(endNs - startNs, 1000);
  return { from: startNs - span * 0.02, to: startNs + span * 1.02 };
}

/** What the page asks the level of detail for while it shows [from, to]: one window more each side, so a pan draws at once. */
export function lodWindow(from: number, to: number): { startNs: number; endNs: number } {
  const span = to - from;
  return { startNs: from - span, endNs: to + span };
}

/** Level-of-detail buckets for a plot `plotPx` wide: three a pixel, since the page asks for three windows' width. */
export function lodBuckets(plotPx: number): number {
  return Math.round(plotPx * 3);
}

/** The smallest width (pixels) an event is drawn one by one at. */
export const RAW_MIN_PX = 2;

/** The id of the first view a host-held timeline's engine pushes with its index, unasked (the page's own requests count from 1). */
export const PUSHED_ID = 0;

/**
 * The lanes a timeline shows when it opens, before the user unfolds anything: every lane but the
 * CU lanes (folded under their GPU's occupancy strip) and the strips (lane ids past the lanes').
 * What the engine pushes the first view for (the page draws from it only when it holds every
 * lane the page shows, so a page that opens otherwise asks as before).
 */
export function openingLanes(index: {
  lanes: readonly { id: number; category: string }[];
  heat: readonly { id: number }[];
}): number[] {
  return [
    ...index.lanes.filter((lane) => lane.category !== 'cu').map((lane) => lane.id),
    ...index.heat.map((h) => h.id),
  ];
}
