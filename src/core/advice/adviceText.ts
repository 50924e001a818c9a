/**
 * Advice as plain text for the CLI: the crossovers, the settings with their evidence, the CU
 * budget. Every line is a shell comment (`shellComment`), so the block can be sourced with the
 * `export` lines after it: whatever a run's text says (a library version, a node name in the
 * evidence), it stays inside its comment line.
 */
import type { Advice } from './advice';
import { verdictSummary } from './crossover';
import { shellComment } from '../text';

export function adviceText(advice: Advice): string {
  const out: string[] = [`Advice for ${advice.pairLabel}`];
  if (advice.simulated) out.push('SIMULATED: derived from the simulated MI350X node, not from a measurement.');
  out.push('crossovers, the engine path against load/store:');
  for (const c of advice.focus) out.push(`  ${c.initiator}-initiated, against ${c.cus} CU${c.cus === 1 ? '' : 's'}: ${c.explanation}`);
  // Every other comparison the run allows, whatever its verdict (load/store ahead everywhere included).
  const others = advice.crossovers.filter((c) => !advice.focus.some((f) => f.initiator === c.initiator && f.cus === c.cus));
  if (others.length > 0) out.push(`  at other CU counts: ${others.map((c) => `${c.initiator}-initiated on ${c.cus} CU${c.cus === 1 ? '' : 's'}: ${verdictSummary(c)}`).join('; ')}`);
  out.push('', 'settings:');
  for (const r of advice.recommendations) {
    const value = r.value !== undefined ? `${r.knob}=${r.value}` : `${r.knob}: no value`;
    const flag = r.confidence === 'uncertain' ? ' [uncertain]' : '';
    out.push(`  ${value}${flag}`, `      ${r.evidence}`);
  }
  if (advice.cuBudget) out.push('', `CU budget: ${advice.cuBudget.text}`);
  for (const n of advice.notes) out.push(`note: ${n}`);
  return out.map(shellComment).join('\n');
}
