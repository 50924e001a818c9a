/**
 * What moved each sample's bytes, as the sweep page shows it: the Evidence column's word and
 * tooltip, the chart tooltip's line, and the note at the top of the page while a sample is
 * flagged. The words are the core's (src/core/moverEvidence.ts), so the page, the exports and
 * the CLI say the same.
 */
import type { EvidenceSummary } from '../../src/core/moverEvidence';
import { evidenceSummary } from '../../src/core/moverEvidence';
import type { SweepPoint } from '../../src/core/sweep/sweepView';
import { el, replaceChildren } from '../shared/dom';

/** A point's evidence, "not recorded" where the run has none (the mover only matters to the words of a recorded one). */
export function pointEvidence(point: SweepPoint): EvidenceSummary {
  return point.evidence ?? evidenceSummary('engine', undefined);
}

/** The chart tooltip's line under a point's figure: the runtime's mover where the series is the runtime default, then the evidence. */
export function evidenceLine(point: SweepPoint): string {
  const e = pointEvidence(point);
  const mover = point.mover ? `runtime used: ${point.mover} · ` : '';
  return `${mover}evidence: ${e.word}${e.state === 'not-recorded' ? '' : ` — ${e.detail ?? ''}`}`;
}

/** The Evidence cell of one sample: its word, the detail as its tooltip, flagged when it contradicts the label. */
export function evidenceCell(point: SweepPoint | undefined): HTMLElement {
  if (!point) return el('td', { class: 'evidence missing' }, '—');
  const e = pointEvidence(point);
  return el('td', { class: `evidence evidence-${e.state}`, title: e.title, 'data-evidence': e.state }, e.word);
}

/**
 * The note at the top of the page while a sample of the run is flagged: the host's words (in
 * the user's language), else the count; hidden otherwise.
 */
export function renderEvidenceNote(root: HTMLElement, flagged: number, text: string | undefined): void {
  // Rebuilt only when it changes: it is an alert, announced again on every rebuild.
  const key = flagged === 0 ? '' : `${flagged}|${text ?? ''}`;
  if (root.dataset.key === key) return;
  root.dataset.key = key;
  root.hidden = flagged === 0;
  if (flagged === 0) {
    replaceChildren(root);
    return;
  }
  replaceChildren(
    root,
    el('span', { class: 'evidence-flag', 'aria-hidden': 'true' }, '✗ '),
    text ??
      `${flagged} sample${flagged === 1 ? '' : 's'} flagged ✗ contradicts: the platform saw another mover carry the bytes than the label says.`,
  );
}
