/**
 * The Advice section under the sweep chart: the comparisons at the CU count shown (or the one
 * sentence saying there is none there), the settings with their evidence and basis, the CU
 * budget, the notes, and a button that runs "Suggest Settings" when a setting has a value
 * (the host applies them; the page never edits files). The words are the core's
 * (`comparisonsAt`, each setting's `basisLabel`): this file only builds the elements.
 */
import type { AdviceCrossover, AdviceView } from '../../src/core/advice/adviceView';
import { comparisonsAt } from '../../src/core/advice/adviceView';
import { formatBytes } from '../../src/core/units';
import { bdi, el, replaceChildren } from '../shared/dom';

export type { AdviceCrossover } from '../../src/core/advice/adviceView';

/** The crossovers to mark on the chart at the CU count shown. */
export function crossoversAt(advice: AdviceView | undefined, cus: number | undefined): AdviceCrossover[] {
  if (!advice || cus === undefined) return [];
  return advice.crossovers.filter((c) => c.cus === cus && c.estimateBytes !== undefined && c.kind === 'crossover');
}

function crossoverLine(c: AdviceCrossover): HTMLElement {
  const head =
    c.kind === 'crossover' && c.estimateBytes !== undefined
      ? `-initiated: engine from ${formatBytes(c.fromBytes!)} (crossing ≈ ${formatBytes(Math.round(c.estimateBytes))}${c.rangeBytes ? `, between ${formatBytes(Math.round(c.rangeBytes[0]))} and ${formatBytes(Math.round(c.rangeBytes[1]))}` : ''})`
      : '-initiated';
  return el(
    'li',
    { class: `crossover confidence-${c.confidence}` },
    el('strong', {}, bdi(c.initiator), head),
    ' ',
    el('span', { class: 'explanation' }, c.explanation),
  );
}

export function renderAdvice(
  root: HTMLElement,
  advice: AdviceView | undefined,
  cus: number | undefined,
  onSuggest: () => void,
): void {
  if (!advice || advice.recommendations.length + advice.crossovers.length + advice.notes.length === 0) {
    replaceChildren(root);
    return;
  }
  const comparisons = comparisonsAt(advice, cus);
  const rows = advice.recommendations.map((r) =>
    el(
      'tr',
      { class: `confidence-${r.confidence}` },
      el('td', { class: 'knob' }, el('code', {}, bdi(r.knob), ...(r.value !== undefined ? ['=', bdi(r.value)] : []))),
      el('td', { class: 'basis' }, r.basisLabel),
      el('td', { class: 'evidence' }, r.evidence),
    ),
  );
  let button: HTMLButtonElement | null = null;
  if (advice.recommendations.some((r) => r.value !== undefined)) {
    button = el('button', { type: 'button', class: 'suggest' }, 'Apply settings…');
    button.addEventListener('click', onSuggest);
  }
  const wasOpen = root.querySelector('details')?.open ?? true;
  const details = el(
    'details',
    { class: 'advice' },
    el(
      'summary',
      {},
      'Advice',
      ...(advice.pairLabel ? [' for ', bdi(advice.pairLabel)] : []),
      advice.simulated ? ' (from simulated data)' : '',
    ),
    el('p', { class: 'advice-basis' }, comparisons.sentence),
    comparisons.items.length > 0 ? el('ul', { class: 'crossovers' }, ...comparisons.items.map(crossoverLine)) : null,
    rows.length > 0
      ? el(
          'table',
          { class: 'recommendations' },
          el('caption', {}, 'Suggested settings and their evidence'),
          el('thead', {}, el('tr', {}, el('th', {}, 'setting'), el('th', {}, 'basis'), el('th', {}, 'evidence'))),
          el('tbody', {}, ...rows),
        )
      : el('p', { class: 'no-settings' }, 'No setting is suggested for this pair.'),
    advice.cuBudget ? el('p', { class: 'cu-budget' }, advice.cuBudget.text) : null,
    ...advice.notes.map((n) => el('p', { class: 'advice-note' }, n)),
    button,
  );
  details.open = wasOpen;
  replaceChildren(root, details);
}
