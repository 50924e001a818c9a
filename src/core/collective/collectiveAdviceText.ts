/**
 * A collective run's advice as plain text for `sdma-lens advise`, laid out as the sweep's
 * (`advice/adviceText.ts`): the crossover of each operation, the settings with their evidence,
 * the CUs the default path held (and where that figure came from), the compute the overlap run
 * measured beside each copy path, the notes. Every line is a shell
 * comment (`shellComment`) and the exports are checked against the knob catalog
 * (`shellExport`), so the block can be sourced whatever the run's text says. Options the user
 * can give are named as the front that prints it names them (`advice/fronts.ts`).
 */
import type { Front } from '../advice/fronts';
import { forFront } from '../advice/fronts';
import { knob } from '../advice/knobs';
import { shellComment, shellExport } from '../text';
import type { CollectiveAdvice } from './collective';

/** The collective advice with every sentence in it as `front` prints it (options named as its flags or settings). */
export function collectiveAdviceFor(advice: CollectiveAdvice, front: Front): CollectiveAdvice {
  const say = (text: string) => forFront(text, front);
  return {
    ...advice,
    crossovers: advice.crossovers.map((c) => ({ ...c, text: say(c.text) })),
    recommendations: advice.recommendations.map((r) => ({ ...r, evidence: say(r.evidence) })),
    cuBudget: advice.cuBudget.map(say),
    ...(advice.cus ? { cus: { ...advice.cus, text: say(advice.cus.text) } } : {}),
    notes: advice.notes.map(say),
  };
}

export function collectiveAdviceText(neutral: CollectiveAdvice, o: { simulated: boolean; front?: Front }): string {
  const advice = collectiveAdviceFor(neutral, o.front ?? 'cli');
  const ranks = [...new Set(advice.crossovers.map((c) => c.ranks).filter((r) => r > 0))];
  const out: string[] = [`Advice for collectives${ranks.length > 0 ? ` on ${ranks.join(', ')} ranks` : ''}`];
  if (o.simulated) out.push('SIMULATED: derived from the simulated MI350X node, not from a measurement.');
  // A heading only over a list that has something under it; otherwise one sentence.
  if (advice.crossovers.length > 0) {
    out.push('crossovers, the engine variant against the default path:');
    // Each under its operation's name (the text may name it already).
    for (const c of advice.crossovers) out.push(`  ${c.text.startsWith(`${c.op}:`) ? c.text : `${c.op}: ${c.text}`}`);
  } else {
    out.push(
      'crossovers: none, since the run has no collective measured by both the default path and an engine variant.',
    );
  }
  out.push('', advice.recommendations.length > 0 ? 'settings:' : 'settings: none suggested for this run.');
  for (const r of advice.recommendations) {
    const value = r.value !== undefined ? `${r.knob}=${r.value}` : `${r.knob}: no value`;
    const flag = r.confidence === 'uncertain' ? ' [uncertain]' : '';
    out.push(`  ${value}${flag}`, `      ${r.evidence}`);
  }
  if (advice.cus) out.push('', `CU budget: ${advice.cus.text}`);
  if (advice.cuBudget.length > 0)
    out.push(
      '',
      'compute kept beside each copy path (measured by the overlap run):',
      ...advice.cuBudget.map((line) => `  ${line}`),
    );
  for (const n of advice.notes) out.push(`note: ${n}`);
  return out.map(shellComment).join('\n');
}

/** `export NAME=value` lines of the settings with a value, each checked against its knob's catalog type (a refused one is a `# note:` line). */
export function collectiveExports(advice: CollectiveAdvice): string {
  return advice.recommendations
    .filter((r) => r.value !== undefined)
    .map((r) => shellExport(r.knob, r.value!, knob))
    .join('\n');
}
