/**
 * The overlap run's part of the collective advice (`CollectiveAdvice.cuBudget`): per compute
 * kind, where the CU arithmetic holds and where memory bandwidth or power decides instead, with
 * the measured figures, and the engine path's measured gain over the CU copy beside the gain the
 * arithmetic gives. A gain is only ever stated as measured: the arithmetic's ratio stands beside
 * it, never in its place. Runs saved before the arithmetic keep their old wording.
 */
import { OVERLAP_COMPUTES } from '../protocol';
import { formatBytes } from '../units';
import type { DecidedBy, OverlapClaim, OverlapRow, OverlapView } from './collectiveMessages';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The words before the rows each decidedBy gathers. */
const CLASS_WORDS: Record<Exclude<DecidedBy, 'unknown'>, string> = {
  cus: 'the CU arithmetic holds beside',
  power: 'power decides (the clock fell at the cap) beside',
  memory: 'memory bandwidth decides, not CUs, beside',
  shared: "the compute shared the copy's CUs (the copy paid in bandwidth) beside",
  other: 'off the arithmetic for no reason the data shows beside',
};

function rowFigure(r: OverlapRow): string {
  const extra =
    (r.decidedBy === 'memory' || r.decidedBy === 'shared') && r.bandwidthKept !== null
      ? `, the copy kept ${pct(r.bandwidthKept)} of its bandwidth`
      : '';
  return `${r.label} ${formatBytes(r.copySizeBytes)} (kept ${pct(r.keptFraction)} vs ${pct(r.cuArithmetic!)}${extra})`;
}

/** The words before the claims each verdict gathers. */
const CLAIM_WORDS: Record<Exclude<OverlapClaim['verdict'], 'unknown'>, string> = {
  holds: "the engine path's gain over the CU copy is the CU arithmetic's",
  power: 'power decides, not the CU arithmetic',
  memory: 'memory bandwidth decides, not the CU arithmetic',
  shared: "the compute shared the copy's CUs, not the CU arithmetic",
  other: 'off the CU arithmetic for no reason the data shows',
};

function claimFigure(c: OverlapClaim): string {
  return `${c.measuredRatio.toFixed(2)}x measured vs ${c.arithmeticRatio!.toFixed(2)}x (${c.enginePath} over cu/host ${c.cus} CUs, ${formatBytes(c.sizeBytes)})`;
}

/** The lines of a run saved before the CU arithmetic, as they were worded then. */
function legacyLines(rows: readonly OverlapRow[]): string[] {
  return rows
    .filter((r) => r.compute === 'gemm' || !rows.some((x) => x.compute === 'gemm'))
    .map(
      (r) =>
        `${r.compute.toUpperCase()} keeps ${pct(r.keptFraction)} beside ${r.label}${r.copyGbps !== null ? ` (copy ${r.copyGbps.toFixed(0)} GB/s)` : ''}${r.cause === 'power' ? ': lost to power (clock fell at the cap), not to CUs' : r.cause === 'sms' ? ': lost to the CUs the copy holds' : ''}.`,
    );
}

/** One line per compute kind the run measured against the CU arithmetic, then its claims' outcome. */
export function overlapBudget(view: OverlapView, simulated: boolean): string[] {
  const judged = view.rows.filter((r) => r.decidedBy !== 'unknown');
  if (judged.length === 0) return legacyLines(view.rows);
  const lines: string[] = [];
  for (const compute of OVERLAP_COMPUTES) {
    const rows = judged.filter((r) => r.compute === compute);
    if (rows.length === 0) continue;
    const name = `${compute.toUpperCase()} (${rows[0]!.bound}-bound${simulated ? ', simulated' : ''})`;
    const parts = (Object.keys(CLASS_WORDS) as (keyof typeof CLASS_WORDS)[])
      .map((d) => [d, rows.filter((r) => r.decidedBy === d)] as const)
      .filter(([, rs]) => rs.length > 0)
      .map(([d, rs]) => `${CLASS_WORDS[d]} ${rs.map(rowFigure).join(', ')}`);
    lines.push(`${name}: ${parts.join('; ')}.`);
    const claims = view.claims.filter((c) => c.compute === compute && c.arithmeticRatio !== null);
    if (claims.length === 0) continue;
    const said = (Object.keys(CLAIM_WORDS) as (keyof typeof CLAIM_WORDS)[])
      .map((v) => [v, claims.filter((c) => c.verdict === v)] as const)
      .filter(([, cs]) => cs.length > 0)
      .map(([v, cs]) => `${CLAIM_WORDS[v]}: ${cs.map(claimFigure).join(', ')}`);
    // The arithmetic's gain is named only beside what was measured, and said not to show where no claim held.
    if (!claims.some((c) => c.verdict === 'holds'))
      said.push(`the CU arithmetic's gain is not shown for ${compute.toUpperCase()} in this run`);
    lines.push(`${name}, measured against the arithmetic: ${said.join('; ')}.`);
  }
  return lines;
}
