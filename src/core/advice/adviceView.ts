/**
 * The advice as the sweep panel shows it: plain data with its schema, so the page can check
 * what it receives. Built on the host from `adviseFromRun`; the webview never loads the
 * knob catalog.
 */
import * as v from 'valibot';
import type { Advice } from './advice';

const str = v.pipe(v.string(), v.maxLength(4000));
const num = v.pipe(v.number(), v.finite());
const confidence = v.picklist(['clear', 'uncertain', 'none']);

export const AdviceViewSchema = v.object({
  /** The endpoint pair advised on, e.g. "host → GPU 0". */
  pairLabel: v.optional(str),
  simulated: v.boolean(),
  loadStoreCus: num,
  crossovers: v.array(
    v.object({
      initiator: v.picklist(['host', 'device']),
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
  recommendations: v.array(v.object({ knob: str, value: v.optional(str), evidence: str, basis: str, confidence })),
  cuBudget: v.optional(v.object({ text: str, computeGain: num })),
  notes: v.array(str),
});
export type AdviceView = v.InferOutput<typeof AdviceViewSchema>;

export function adviceView(a: Advice): AdviceView {
  return {
    pairLabel: a.pairLabel,
    simulated: a.simulated,
    loadStoreCus: a.loadStoreCus,
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
    recommendations: a.recommendations.map((r) => ({ knob: r.knob, ...(r.value !== undefined ? { value: r.value } : {}), evidence: r.evidence, basis: r.basis, confidence: r.confidence })),
    ...(a.cuBudget ? { cuBudget: { text: a.cuBudget.text, computeGain: a.cuBudget.computeGain } } : {}),
    notes: a.notes,
  };
}
