/**
 * Advice as plain text for the CLI (and the extension's log): the crossovers, the settings
 * with their evidence, the CU budget. Every line is a shell comment (`shellComment`), so the
 * block can be sourced with the `export` lines after it: whatever a run's text says (a library
 * version, a node name in the evidence), it stays inside its comment line. Options the user
 * can give are named as the front that prints it names them (`fronts.ts`): flags for the CLI,
 * settings for the extension.
 */
import type { Advice } from './advice';
import { onCus, verdictSummary } from './crossover';
import type { Front } from './fronts';
import { adviceFor } from './fronts';
import { shellComment } from '../text';

export function adviceText(neutral: Advice, o: { front?: Front } = {}): string {
  const advice = adviceFor(neutral, o.front ?? 'cli');
  const out: string[] = [`Advice for ${advice.pairLabel}`];
  if (advice.simulated) out.push('SIMULATED: derived from the simulated MI350X node, not from a measurement.');
  // A heading only over a list that has something under it; otherwise one sentence.
  if (advice.focus.length > 0) {
    out.push('crossovers, the engine path against load/store:');
    for (const c of advice.focus)
      out.push(
        `  ${c.initiator}-initiated, against ${c.cus === 0 ? `load/store${onCus(0)}` : `${c.cus} CU${c.cus === 1 ? '' : 's'}`}: ${c.explanation}`,
      );
  } else {
    out.push(
      'crossovers: none, since no initiator has both an engine path and a load/store path measured for this pair.',
    );
  }
  // Every other comparison the run allows, whatever its verdict (load/store ahead everywhere included).
  const others = advice.crossovers.filter(
    (c) => !advice.focus.some((f) => f.initiator === c.initiator && f.cus === c.cus),
  );
  if (others.length > 0)
    out.push(
      `  at other CU counts: ${others.map((c) => `${c.initiator}-initiated${onCus(c.cus)}: ${verdictSummary(c)}`).join('; ')}`,
    );
  out.push('', advice.recommendations.length > 0 ? 'settings:' : 'settings: none suggested for this pair.');
  for (const r of advice.recommendations) {
    const value = r.value !== undefined ? `${r.knob}=${r.value}` : `${r.knob}: no value`;
    const flag = r.confidence === 'uncertain' ? ' [uncertain]' : '';
    out.push(`  ${value}${flag}`, `      ${r.evidence}`);
  }
  if (advice.cuBudget) out.push('', `CU budget: ${advice.cuBudget.text}`);
  for (const n of advice.notes) out.push(`note: ${n}`);
  return out.map(shellComment).join('\n');
}
