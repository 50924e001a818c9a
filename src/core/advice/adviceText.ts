/** Advice as plain text for the CLI: the crossovers, the settings with their evidence, the CU budget. */
import { formatBytes } from '../units';
import type { Advice } from './advice';

export function adviceText(advice: Advice): string {
  const out: string[] = [`# Advice for ${advice.pairLabel}`];
  if (advice.simulated) out.push('# SIMULATED: derived from the simulated MI350X node, not from a measurement.');
  out.push(`# crossovers against load/store on ${advice.loadStoreCus} CUs:`);
  for (const c of advice.focus) out.push(`#   ${c.initiator}-initiated: ${c.explanation}`);
  const others = advice.crossovers.filter((c) => c.cus !== advice.loadStoreCus && c.fromBytes !== undefined);
  if (others.length > 0) out.push(`#   at other CU counts, the engine stays ahead from: ${others.map((c) => `${c.initiator}@${c.cus} CUs ${formatBytes(c.fromBytes!)}`).join(', ')}`);
  out.push('#', '# settings:');
  for (const r of advice.recommendations) {
    const value = r.value !== undefined ? `${r.knob}=${r.value}` : `${r.knob}: no value`;
    const flag = r.confidence === 'uncertain' ? ' [uncertain]' : '';
    out.push(`#   ${value}${flag}`, `#       ${r.evidence}`);
  }
  if (advice.cuBudget) out.push('#', `# CU budget: ${advice.cuBudget.text}`);
  for (const n of advice.notes) out.push(`# note: ${n}`);
  return out.join('\n');
}
