/**
 * Title, what was measured where, how the run stands, and whether the numbers are real.
 * Built once and updated in place: the status is a live region, and a live region announces
 * changes only while it stays the same element.
 */
import { pairName } from '../../src/core/endpoints';
import type { SweepPair, SweepView } from '../../src/core/sweep/sweepView';
import { el, replaceChildren } from '../shared/dom';
import { statusText } from './labels';
import { simulatedBadge } from '../shared/simulatedBadge';

function formatCreatedAt(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export class SweepHeader {
  readonly element: HTMLElement;
  private readonly title = el('h1');
  private readonly badge = simulatedBadge();
  private readonly status = el('span', { class: 'status-pill', role: 'status' });
  private readonly facts = el('dl', { class: 'facts' });
  private readonly bar = el('progress', { 'aria-label': 'sweep progress' });
  private readonly progressText = el('span', { class: 'progress-text' });
  private readonly progress = el('div', { class: 'progress' }, this.bar, this.progressText);
  private readonly message = el('p', { class: 'status-message' });
  private factsKey = '';

  constructor() {
    this.element = el(
      'header',
      { class: 'header' },
      el('div', { class: 'title-row' }, this.title, this.badge, this.status),
      this.facts,
      this.progress,
      this.message,
    );
    this.badge.hidden = true;
    this.progress.hidden = true;
    this.message.hidden = true;
  }

  update(view: SweepView, pair?: SweepPair): void {
    setText(this.title, view.title);
    this.badge.hidden = !view.simulated;

    const status = statusText(view.status);
    setText(this.status, status.text);
    this.status.className = `status-pill tone-${status.tone}`;

    const facts: [string, string][] = [
      ['Node', view.nodeLabel],
      ['Copy', pair ? pair.label : pairName(view)],
      ...(view.pairs.length > 1
        ? ([['Pairs in run', view.pairs.map((p) => p.label).join(', ')]] as [string, string][])
        : []),
      ['Backend', view.backend],
      ['Started', formatCreatedAt(view.createdAt)],
    ];
    const factsKey = JSON.stringify(facts);
    if (factsKey !== this.factsKey) {
      this.factsKey = factsKey;
      replaceChildren(
        this.facts,
        ...facts.map(([term, value]) => el('div', { class: 'fact' }, el('dt', {}, term), el('dd', {}, value))),
      );
    }

    const { done, total } = view.progress;
    const live = view.status === 'running' || view.status === 'incomplete';
    this.progress.hidden = !live || total <= 0;
    this.bar.max = Math.max(total, 1);
    this.bar.value = Math.min(done, total);
    setText(this.progressText, `${done} / ${total} measurements`);

    const explain = view.statusMessage !== '' && (status.tone === 'error' || view.status === 'cancelled');
    this.message.hidden = !explain;
    this.message.className = `status-message tone-${status.tone}`;
    if (status.tone === 'error') this.message.setAttribute('role', 'alert');
    else this.message.removeAttribute('role');
    setText(this.message, explain ? view.statusMessage : '');
  }
}
