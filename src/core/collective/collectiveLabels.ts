/**
 * The collective panel's, its table's and the CLI table's words for how the ranks ran, the CUs
 * a point used and each variant's set-up, so every front says them alike. Run text (a reason,
 * a condition's value) is returned as it is: each sink escapes it its own way. Browser-safe.
 */
import type { CollectiveLauncher, CollectiveMode, CollectiveVariant, CusUsed } from '../protocol';

/** "rank-per-process (launcher helper)", "single-process", "unknown". */
export function modeText(mode: CollectiveMode, launcher?: CollectiveLauncher): string {
  return launcher !== undefined && mode === 'rank-per-process' ? `${mode} (launcher ${launcher})` : mode;
}

/** What each mode means, in a phrase. */
export const MODE_MEANING: Record<CollectiveMode, string> = {
  'rank-per-process': 'one process per GPU, one communicator each (as mpirun -n N)',
  'single-process': 'one process drives every GPU (as nccl-tests -g N)',
  unknown: 'the run did not say how its ranks were laid out',
};

/** The CUs a point used, for a table cell: "64 (log)", "0 (zero-CTA)"; "—" when unknown or not recorded. */
export function cusUsedText(cus: Pick<CusUsed, 'count' | 'source'> | undefined): string {
  if (!cus || cus.count === null) return '\u2014';
  return `${cus.count} (${cus.source === 'zero-cta' ? 'zero-CTA' : cus.source})`;
}

/** A condition as one phrase: "hipMemcpyBatchAsync >= 7.1: found 7.0 (not met)". */
export function conditionText(c: NonNullable<CollectiveVariant['conditions']>[number]): string {
  return `${c.name} ${c.want}: found ${c.found === '' ? 'unknown' : c.found} (${c.ok ? 'met' : 'not met'})`;
}

/** One variant as the variant tables show it: ran or not, why not, and what was checked. */
export interface VariantRow {
  variant: string;
  supported: 'yes' | 'no';
  library: string;
  /** The reason it did not run, its hint after it; "" when it ran. */
  reason: string;
  /** Each condition checked, the unmet ones first. */
  conditions: string[];
}

export function variantRows(variants: readonly CollectiveVariant[]): VariantRow[] {
  return variants.map((v) => ({
    variant: v.variant,
    supported: v.supported ? 'yes' : 'no',
    library: `${v.library.name} ${v.library.version}`.trim(),
    reason: v.supported ? '' : `${v.reason ?? 'unsupported'}${v.hint ? ` (${v.hint})` : ''}`,
    conditions: [...(v.conditions ?? [])].sort((a, b) => Number(a.ok) - Number(b.ok)).map(conditionText),
  }));
}
