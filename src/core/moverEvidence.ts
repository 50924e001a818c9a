/**
 * What moved a sample's or matrix cell's bytes, as every view says it (docs/PROTOCOL.md,
 * `moverEvidence`): one short word per sample for the Evidence columns ("✓ engine (CUPTI)",
 * "✗ contradicts", "not observed", "simulated", "not recorded"), the detail for its tooltip, the
 * four export columns, and whether two runs' evidence of one point says their bytes were moved
 * differently (compare). Runs saved before the helper printed evidence read "not recorded".
 * Pure and browser-safe.
 */
import type { EvidenceSource, EvidenceVerdict, Mover, MoverEvidence, ObservedMover } from './protocol';
import { escapeControls } from './text';

/** How a record's evidence reads: the verdict, with the simulator's own and a missing one told apart. */
export const EVIDENCE_STATES = ['matches', 'contradicts', 'not-observed', 'simulated', 'not-recorded'] as const;
export type EvidenceState = (typeof EVIDENCE_STATES)[number];

/** The word of a record without evidence (a run saved before the helper printed it, an import). */
export const NOT_RECORDED = 'not recorded';
export const CONTRADICTS_WORD = '✗ contradicts';

/** Each source as the words name it. */
export const SOURCE_NAMES: Record<EvidenceSource, string> = {
  none: 'none',
  'kfd-sdma': 'KFD SDMA counters',
  cupti: 'CUPTI',
  'rocshmem-log': 'rocSHMEM log',
  simulated: 'simulated',
};

/** The short form in a "✓ engine (…)" word. */
const SOURCE_SHORT: Record<EvidenceSource, string> = {
  none: 'none',
  'kfd-sdma': 'KFD',
  cupti: 'CUPTI',
  'rocshmem-log': 'rocSHMEM log',
  simulated: 'simulated',
};

/**
 * What a flagged sample or cell means, where a view flags one (the sweep panel says it at the
 * top; the exports and the CLI as a note). The helper follows each with the error
 * mover-mismatch: a sweep stops there, a matrix goes on with the other cells.
 */
export function contradictsNote(what: 'sample' | 'cell'): string {
  return `✗ contradicts: the platform saw another mover carry the ${what}'s bytes than its label says (moverEvidence), so its GB/s is not that path's and cannot be trusted as it; the helper followed it with the error mover-mismatch${what === 'sample' ? ' and stopped the sweep there' : ''}.`;
}

export function evidenceState(e: MoverEvidence | undefined): EvidenceState {
  if (!e) return 'not-recorded';
  if (e.verdict === 'contradicts') return 'contradicts';
  if (e.source === 'simulated') return 'simulated';
  return e.verdict;
}

/** The Evidence column's word. */
export function evidenceWord(e: MoverEvidence | undefined): string {
  const state = evidenceState(e);
  switch (state) {
    case 'not-recorded':
      return NOT_RECORDED;
    case 'contradicts':
      return CONTRADICTS_WORD;
    case 'simulated':
      return 'simulated';
    case 'not-observed':
      return 'not observed';
    case 'matches':
      return `✓ ${e!.observed} (${SOURCE_SHORT[e!.source]})`;
  }
}

const int = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** The facts beyond the detail, as words: copy kind, channel, kernel, records, the KFD counters. */
function facts(e: MoverEvidence): string[] {
  const out: string[] = [];
  if (e.copyKind !== undefined) out.push(`copy kind ${e.copyKind}`);
  if (e.channelType !== undefined || e.channelId !== undefined)
    out.push(
      `channel ${[e.channelType, e.channelId !== undefined ? `#${e.channelId}` : undefined].filter(Boolean).join(' ')}`,
    );
  if (e.kernel !== undefined) out.push(`kernel ${e.kernel}`);
  if (e.records !== undefined) out.push(`${e.records} copy record${e.records === 1 ? '' : 's'}`);
  if (e.sdmaUs !== undefined) out.push(`SDMA counters +${e.sdmaUs} µs`);
  if (e.engineUs !== undefined) out.push(`engine time ${int(e.engineUs)} µs`);
  return out;
}

/**
 * The tooltip of a record's evidence, one line: what was seen (the helper's detail), where from,
 * what it observed against the label, and the source's facts. Controls and bidi marks in the
 * helper's text are shown as escapes (a title attribute cannot isolate them).
 */
export function evidenceTitle(mover: Mover, e: MoverEvidence | undefined): string {
  if (!e) return 'Mover evidence not recorded: the run was saved before the helper printed it, or came from elsewhere.';
  const verdict: Record<EvidenceVerdict, string> = {
    matches: `matches the label ${mover}`,
    contradicts: `contradicts the label ${mover}`,
    'not-observed': 'nothing observed',
  };
  const lines = [
    e.detail,
    `source: ${SOURCE_NAMES[e.source]} · observed: ${e.observed} · ${verdict[e.verdict]}`,
    ...(facts(e).length > 0 ? [facts(e).join(' · ')] : []),
  ];
  return escapeControls(lines.filter((l) => l !== '').join(' — '));
}

/** What a view carries of one record's evidence (bounded, as the protocol bounds it). */
export interface EvidenceSummary {
  state: EvidenceState;
  /** The Evidence column's word. */
  word: string;
  /** Its tooltip (evidenceTitle). */
  title: string;
  /** The export columns; absent when not recorded. */
  source?: EvidenceSource;
  observed?: ObservedMover;
  verdict?: EvidenceVerdict;
  detail?: string;
}

export function evidenceSummary(mover: Mover, e: MoverEvidence | undefined): EvidenceSummary {
  const base = { state: evidenceState(e), word: evidenceWord(e), title: evidenceTitle(mover, e) };
  return e ? { ...base, source: e.source, observed: e.observed, verdict: e.verdict, detail: e.detail } : base;
}

/** The export columns' names, in order, after a prefix (a series name, `A`, `B`). */
export const EVIDENCE_COLUMNS = [
  'evidence source',
  'evidence observed',
  'evidence verdict',
  'evidence detail',
] as const;

/** The four export cells of a record's evidence: source, observed mover, verdict, detail; "not recorded" as its source when there is none. */
export function evidenceCells(
  e: Pick<EvidenceSummary, 'source' | 'observed' | 'verdict' | 'detail'> | undefined,
): (string | null)[] {
  if (!e || e.source === undefined) return [NOT_RECORDED, null, null, null];
  return [e.source, e.observed ?? null, e.verdict ?? null, e.detail ?? null];
}

/**
 * Whether two runs' evidence of one point says their bytes were moved differently: each saw a
 * mover and they differ, or one run's evidence contradicts its label and the other's does not.
 * Undefined when either run has no evidence of the point (a run saved before it compares as
 * before); otherwise the sentence saying how they differ.
 */
export function movedDifferently(a: MoverEvidence | undefined, b: MoverEvidence | undefined): string | undefined {
  if (!a || !b) return undefined;
  const seen = (x: ObservedMover) => x !== 'unknown';
  if (seen(a.observed) && seen(b.observed) && a.observed !== b.observed)
    return `the two runs' bytes were moved differently (A: ${a.observed}, B: ${b.observed}, by their mover evidence), so their difference is not a like-for-like change`;
  const ca = a.verdict === 'contradicts';
  const cb = b.verdict === 'contradicts';
  if (ca !== cb)
    return `the two runs' bytes were moved differently (${ca ? 'A' : 'B'}'s mover evidence contradicts its label), so their difference is not a like-for-like change`;
  return undefined;
}

/**
 * Whether a sample stands for the path its label names: one of the helper's own series (not the
 * runtime-default one, whose mover is the runtime's choice) whose evidence does not contradict
 * its label. Advice, crossovers, refinement and fleet figures read only these.
 */
export function standsForItsPath(s: { series?: string; moverEvidence?: Pick<MoverEvidence, 'verdict'> }): boolean {
  return s.series === undefined && s.moverEvidence?.verdict !== 'contradicts';
}
