/**
 * The compare panel's view model: the comparison regrouped into curves (one per path, pair,
 * CU count and mode; per collective op, variant and form), each point with its verdict or the
 * run that alone measured it. Pure and browser-safe, so the panel only draws.
 */
import type { Comparison, CurveDimensions, OnePoint, PointComparison } from './compare';
import { summaryLines, toleranceLines } from './compare';
import type { CompareGroup, ComparePageView, GroupPoint, PointState } from './compareMessages';

function common(p: PointComparison): GroupPoint {
  return {
    key: p.key,
    label: p.label,
    sizeBytes: p.sizeBytes,
    state: p.verdict,
    a: p.a,
    b: p.b,
    ratio: p.ratio,
    ...(p.interval ? { interval: p.interval } : {}),
    tolerance: p.tolerance,
    ...(p.widened ? { widened: p.widened } : {}),
    spread: p.spread,
    ...(p.why ? { why: p.why } : {}),
    ...(p.evidence ? { evidence: p.evidence } : {}),
    ...(p.movedDifferently ? { movedDifferently: p.movedDifferently } : {}),
  };
}

function alone(p: OnePoint, side: 'a' | 'b'): GroupPoint {
  return {
    key: p.key,
    label: p.label,
    sizeBytes: p.sizeBytes,
    state: side === 'a' ? 'only in A' : 'only in B',
    [side]: p.side,
  };
}

/** Which of a curve's counts a point adds to. */
const COUNTER = {
  regression: 'regression',
  improvement: 'improvement',
  same: 'same',
  'unknown noise': 'unknownNoise',
  'only in A': 'onlyInA',
  'only in B': 'onlyInB',
} as const satisfies Record<PointState, keyof CompareGroup['counts']>;

export function comparePageView(c: Comparison): ComparePageView {
  const groups = new Map<string, CompareGroup>();
  const add = (group: string, label: string, point: GroupPoint, dimensions?: CurveDimensions) => {
    let g = groups.get(group);
    if (!g) {
      g = {
        key: group,
        label,
        ...(dimensions ? { dimensions } : {}),
        counts: { regression: 0, improvement: 0, same: 0, unknownNoise: 0, onlyInA: 0, onlyInB: 0 },
        points: [],
      };
      groups.set(group, g);
    }
    g.points.push(point);
    g.counts[COUNTER[point.state]]++;
  };
  // Common points come in display order; curves only one run has follow them.
  for (const p of c.points) add(p.group, p.groupLabel, common(p), p.dimensions);
  for (const p of c.onlyInA) add(p.group, p.groupLabel, alone(p, 'a'), p.dimensions);
  for (const p of c.onlyInB) add(p.group, p.groupLabel, alone(p, 'b'), p.dimensions);
  for (const g of groups.values()) g.points.sort((x, y) => x.sizeBytes - y.sizeBytes);
  return {
    kind: c.kind,
    a: c.a,
    b: c.b,
    tolerance: c.tolerance,
    noise: c.noise,
    method: c.method,
    bandwidth: c.bandwidth,
    groups: [...groups.values()],
    summary: c.summary,
    summaryLines: summaryLines(c),
    toleranceLines: toleranceLines(c),
    notes: c.notes,
  };
}
