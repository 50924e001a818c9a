/**
 * The advice as the sweep panel shows it: plain data with its schema, so the page can check
 * what it receives, and the panel's words for it (the comparisons at the CU count shown, each
 * setting's basis), so they say only what the run measured. Built on the host from
 * `adviseFromRun`; the webview never loads the knob catalog.
 */
import * as v from 'valibot';
import type { Advice, Recommendation } from './advice';
import type { Crossover, CrossoverKind } from './crossover';
import { onCus } from './crossover';
import { adviceFor } from './fronts';

const str = v.pipe(v.string(), v.maxLength(4000));
const num = v.pipe(v.number(), v.finite());
const confidence = v.picklist(['clear', 'uncertain', 'none']);
const initiator = v.picklist(['host', 'device']);

export const AdviceViewSchema = v.object({
  /** The endpoint pair advised on, e.g. "host → GPU 0". */
  pairLabel: v.optional(str),
  simulated: v.boolean(),
  loadStoreCus: num,
  /** The comparisons the settings follow: per initiator, the CU count measured nearest the one asked for. */
  focus: v.array(v.object({ initiator, cus: num })),
  crossovers: v.array(
    v.object({
      initiator,
      cus: num,
      kind: v.picklist(['crossover', 'engine-always', 'cu-always', 'no-clear-winner', 'insufficient']),
      fromBytes: v.optional(num),
      estimateBytes: v.optional(num),
      plusMinusBytes: v.optional(num),
      /** Where the crossing can lie (see Crossover.rangeBytes). */
      rangeBytes: v.optional(v.tuple([num, num])),
      confidence,
      explanation: str,
    }),
  ),
  /** `basisLabel`: what the setting rests on, in the panel's words (`basisLabel()`). */
  recommendations: v.array(
    v.object({ knob: str, value: v.optional(str), evidence: str, basis: str, basisLabel: str, confidence }),
  ),
  cuBudget: v.optional(v.object({ text: str, computeGain: num })),
  notes: v.array(str),
});
export type AdviceView = v.InferOutput<typeof AdviceViewSchema>;
export type AdviceCrossover = AdviceView['crossovers'][number];

export function adviceView(neutral: Advice): AdviceView {
  // The panel is the extension's: options are named as settings.
  const a = adviceFor(neutral, 'extension');
  return {
    pairLabel: a.pairLabel,
    simulated: a.simulated,
    loadStoreCus: a.loadStoreCus,
    focus: a.focus.map((c) => ({ initiator: c.initiator, cus: c.cus })),
    crossovers: a.crossovers.map((c) => ({
      initiator: c.initiator,
      cus: c.cus,
      kind: c.kind,
      ...(c.fromBytes !== undefined ? { fromBytes: c.fromBytes } : {}),
      ...(c.estimateBytes !== undefined ? { estimateBytes: c.estimateBytes } : {}),
      ...(c.plusMinusBytes !== undefined ? { plusMinusBytes: c.plusMinusBytes } : {}),
      ...(c.rangeBytes !== undefined ? { rangeBytes: c.rangeBytes } : {}),
      confidence: c.confidence,
      explanation: c.explanation,
    })),
    recommendations: a.recommendations.map((r) => ({
      knob: r.knob,
      ...(r.value !== undefined ? { value: r.value } : {}),
      evidence: r.evidence,
      basis: r.basis,
      basisLabel: basisLabel(a, r),
      confidence: r.confidence,
    })),
    ...(a.cuBudget ? { cuBudget: { text: a.cuBudget.text, computeGain: a.cuBudget.computeGain } } : {}),
    notes: a.notes,
  };
}

/** What a comparison found, as the basis of a setting: "measured crossover" only where there is one. */
const MEASURED: Record<CrossoverKind, string> = {
  crossover: 'measured crossover',
  'engine-always': 'measured: engine ahead at every size',
  'cu-always': 'measured: load/store ahead at every size',
  'no-clear-winner': 'measured: no clear winner',
  insufficient: 'too few sizes measured to compare',
};

/**
 * The comparison a measured setting follows: the advice's only one, or the one whose paths
 * its evidence names (`cu/device`, `engine/host`). Undefined when that does not decide.
 */
export function followedComparison(
  a: Pick<Advice, 'focus'>,
  r: Pick<Recommendation, 'basis' | 'evidence'>,
): Crossover | undefined {
  if (r.basis !== 'measured-crossover') return undefined;
  if (a.focus.length <= 1) return a.focus[0];
  const named = a.focus.filter((c) => r.evidence.includes(c.cu) || r.evidence.includes(c.engine));
  return named.length === 1 ? named[0] : undefined;
}

/**
 * What a setting rests on, in words: the catalog, a prerequisite, or what the comparison it
 * follows found ("measured crossover" only where a crossover was found); "no value" first
 * when none is suggested, "uncertain" after when it is.
 */
export function basisLabel(
  a: Pick<Advice, 'focus'>,
  r: Pick<Recommendation, 'basis' | 'evidence' | 'value' | 'confidence'>,
): string {
  let label: string;
  if (r.basis === 'catalog') label = 'knob catalog';
  else if (r.basis === 'prerequisite') label = 'prerequisite';
  else {
    const c = followedComparison(a, r);
    label = c ? MEASURED[c.kind] : a.focus.length === 0 ? 'nothing measured to compare' : 'measured';
  }
  if (r.value === undefined) return `no value (${label})`;
  return r.confidence === 'uncertain' ? `${label}, uncertain` : label;
}

/** "host-initiated at 32 CUs", "device-initiated at 1 and 132 CUs", "host-initiated (CU count not recorded)": comparisons grouped by initiator. */
function comparisonNames(list: readonly { initiator: string; cus: number }[]): string[] {
  const byInitiator = new Map<string, number[]>();
  // The page's own words for the initiator, whatever string the view carried.
  for (const c of list) {
    const initiator = c.initiator === 'device' ? 'device' : 'host';
    byInitiator.set(initiator, [...(byInitiator.get(initiator) ?? []), c.cus]);
  }
  return [...byInitiator].map(([initiator, counts]) => {
    const known = counts.filter((n) => n > 0);
    const parts = [
      ...(known.length > 0
        ? [`at ${listed(known.map(String))} CU${known.length === 1 && known[0] === 1 ? '' : 's'}`]
        : []),
      ...(counts.includes(0) ? [onCus(0).trim()] : []),
    ];
    return `${initiator}-initiated ${parts.join(' and ')}`;
  });
}

/** "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The comparisons the panel shows at the CU count picked: the lead sentence and the list
 * under it. With none at that count the sentence says so and what the run does have (the
 * list is then empty and no heading stands over it).
 */
export function comparisonsAt(
  advice: AdviceView,
  cus: number | undefined,
): { sentence: string; items: AdviceCrossover[] } {
  const shown = cus ?? advice.focus[0]?.cus ?? advice.loadStoreCus;
  const items = advice.crossovers.filter((c) => c.cus === shown);
  // Which comparisons the settings follow, where a setting follows one.
  const follows =
    advice.focus.length > 0 && advice.recommendations.some((r) => r.basis === 'measured-crossover')
      ? ` (the settings follow ${listed(comparisonNames(advice.focus))}, the CU count measured nearest sdmaLens.advice.loadStoreCus)`
      : '';
  if (items.length > 0) return { sentence: `The engine against load/store${onCus(shown)}${follows}:`, items };
  if (advice.crossovers.length === 0) {
    return {
      sentence:
        'This run has no comparison of the engine with load/store for this pair: no initiator has both an engine path and a load/store path measured.',
      items,
    };
  }
  return {
    sentence: `This run has no comparison of the engine with load/store${onCus(shown)} for this pair; it compares them ${listed(comparisonNames(advice.crossovers))}${follows}.`,
    items,
  };
}
