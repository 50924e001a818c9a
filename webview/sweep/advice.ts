/**
 * The Advice section under the sweep chart: the crossover at the CU count shown, the
 * settings with their evidence, the CU budget, and a button that runs "Suggest Settings"
 * (the host applies them; the page never edits files).
 */
import type { AdviceView } from '../../src/core/advice/adviceView';
import { formatBytes } from '../../src/core/units';
import { bdi, el, replaceChildren } from '../shared/dom';

export type AdviceCrossover = AdviceView['crossovers'][number];

/** The crossovers to mark on the chart at the CU count shown. */
export function crossoversAt(advice: AdviceView | undefined, cus: number | undefined): AdviceCrossover[] {
  if (!advice || cus === undefined) return [];
  return advice.crossovers.filter((c) => c.cus === cus && c.estimateBytes !== undefined && c.kind === 'crossover');
}

function crossoverLine(c: AdviceCrossover): HTMLElement {
  const head = c.kind === 'crossover' && c.estimateBytes !== undefined ? `-initiated: SDMA from ${formatBytes(c.fromBytes!)} (crossing ≈ ${formatBytes(Math.round(c.estimateBytes))}${c.rangeBytes ? `, between ${formatBytes(Math.round(c.rangeBytes[0]))} and ${formatBytes(Math.round(c.rangeBytes[1]))}` : ''})` : '-initiated';
  return el('li', { class: `crossover confidence-${c.confidence}` }, el('strong', {}, bdi(c.initiator), head), ' ', el('span', { class: 'explanation' }, c.explanation));
}

export function renderAdvice(root: HTMLElement, advice: AdviceView | undefined, cus: number | undefined, onSuggest: () => void): void {
  if (!advice || advice.recommendations.length === 0) {
    replaceChildren(root);
    return;
  }
  const shownCus = cus ?? advice.loadStoreCus;
  const crossovers = advice.crossovers.filter((c) => c.cus === shownCus);
  const rows = advice.recommendations.map((r) =>
    el(
      'tr',
      { class: `confidence-${r.confidence}` },
      el('td', { class: 'knob' }, el('code', {}, bdi(r.knob), ...(r.value !== undefined ? ['=', bdi(r.value)] : []))),
      el('td', {}, r.value === undefined ? 'no value: see why' : r.confidence === 'uncertain' ? 'uncertain' : r.basis.replace('-', ' ')),
      el('td', { class: 'evidence' }, r.evidence),
    ),
  );
  const button = el('button', { type: 'button', class: 'suggest' }, 'Apply settings…');
  button.addEventListener('click', onSuggest);
  const wasOpen = root.querySelector('details')?.open ?? true;
  const details = el(
    'details',
    { class: 'advice' },
    el('summary', {}, 'Advice', ...(advice.pairLabel ? [' for ', bdi(advice.pairLabel)] : []), advice.simulated ? ' (from simulated data)' : ''),
    el('p', { class: 'advice-basis' }, `Crossovers at ${shownCus} CU${shownCus === 1 ? '' : 's'} (the advice itself compares against ${advice.loadStoreCus} CUs; sdmaLens.advice.loadStoreCus):`),
    el('ul', { class: 'crossovers' }, ...crossovers.map(crossoverLine)),
    el('table', { class: 'recommendations' }, el('caption', {}, 'Suggested settings and their evidence'), el('thead', {}, el('tr', {}, el('th', {}, 'setting'), el('th', {}, 'basis'), el('th', {}, 'evidence'))), el('tbody', {}, ...rows)),
    advice.cuBudget ? el('p', { class: 'cu-budget' }, advice.cuBudget.text) : null,
    ...advice.notes.map((n) => el('p', { class: 'advice-note' }, n)),
    button,
  );
  details.open = wasOpen;
  replaceChildren(root, details);
}
