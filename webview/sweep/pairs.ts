/**
 * The endpoint-pair switcher: a run with several pairs (a one-GPU node sweeps host → GPU 0,
 * GPU 0 → host and GPU 0 local) shows one pair at a time. A radio group of buttons: Tab
 * reaches the checked one, the arrow keys (and Home/End) move the choice, as the WAI-ARIA
 * radio group pattern does. Hidden when the run has one pair.
 */
import type { EndpointPair } from '../../src/core/endpoints';
import { pairArg, samePair } from '../../src/core/endpoints';
import type { SweepPair } from '../../src/core/sweep/sweepView';
import { el, replaceChildren } from '../shared/dom';

/** The pair picked earlier when the run still has it, else the run's first pair. */
export function choosePair(pairs: readonly SweepPair[], picked: EndpointPair | undefined): SweepPair | undefined {
  return (picked && pairs.find((p) => samePair(p, picked))) || pairs[0];
}

export class PairSelector {
  readonly element: HTMLElement;
  private readonly group: HTMLElement;
  private shown = '';
  private buttons: HTMLButtonElement[] = [];

  constructor(private readonly onPick: (pair: EndpointPair) => void) {
    this.group = el('div', { class: 'pair-group', role: 'radiogroup', 'aria-labelledby': 'pair-label' });
    this.group.addEventListener('keydown', (event) => this.key(event));
    this.element = el(
      'div',
      { class: 'pair-selector' },
      el('span', { id: 'pair-label', class: 'pair-selector-label' }, 'Endpoints'),
      this.group,
    );
  }

  /** Rebuilds the buttons only when the pairs change, so focus survives live updates. */
  show(pairs: readonly SweepPair[], selected: SweepPair | undefined): void {
    this.element.hidden = pairs.length <= 1;
    const key = pairs.map((p) => `${pairArg(p)}=${p.label}`).join(',');
    if (key !== this.shown) {
      this.shown = key;
      this.buttons = pairs.map((p) => {
        const b = el(
          'button',
          { type: 'button', role: 'radio', class: 'pair-option', 'data-pair': pairArg(p) },
          p.label,
        );
        b.addEventListener('click', () => this.onPick({ src: p.src, dst: p.dst }));
        return b;
      });
      replaceChildren(this.group, ...this.buttons);
    }
    for (const b of this.buttons) {
      const on = selected !== undefined && b.dataset.pair === pairArg(selected);
      b.setAttribute('aria-checked', String(on));
      b.tabIndex = on ? 0 : -1;
    }
  }

  private key(event: KeyboardEvent): void {
    const i = this.buttons.findIndex((b) => b === document.activeElement);
    if (i < 0 || this.buttons.length === 0) return;
    const n = this.buttons.length;
    const next = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: n - 1 }[
      event.key
    ];
    if (next === undefined) return;
    event.preventDefault();
    const target = this.buttons[(next + n) % n]!;
    target.focus();
    target.click();
  }
}
