/**
 * The CU-count selector. The cu/* paths were swept at several CU counts; the chart shows one
 * count at a time next to the engine paths, which do not depend on it.
 */
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import { el } from '../shared/dom';
import { cuCountLabel } from './labels';

const PREFERRED_CUS = 64;

/** 64 CUs when swept (a common slice of an MI350X's 256), else the largest count swept. */
export function defaultCus(cuCounts: readonly number[]): number | undefined {
  if (cuCounts.includes(PREFERRED_CUS)) return PREFERRED_CUS;
  return cuCounts.length > 0 ? Math.max(...cuCounts) : undefined;
}

export class CuSelector {
  readonly element: HTMLElement;
  private readonly select: VscodeSingleSelect;
  private shownCounts = '';

  constructor(onPick: (cus: number) => void) {
    this.select = el('vscode-single-select', { id: 'cu-select', 'aria-label': 'CU count for the cu/* paths' });
    this.select.addEventListener('change', () => {
      const cus = Number(this.select.value);
      if (Number.isInteger(cus)) onPick(cus);
    });
    this.element = el(
      'div',
      { class: 'cu-selector' },
      el('label', { for: 'cu-select', class: 'cu-selector-label' }, 'Compute units'),
      this.select,
      el('span', { class: 'hint' }, 'for the cu/* paths'),
    );
  }

  /** Rebuilds the options only when the swept counts change, so an open dropdown survives live updates. */
  show(cuCounts: readonly number[], selected: number | undefined): void {
    this.element.hidden = cuCounts.length === 0;
    const counts = cuCounts.join(',');
    if (counts !== this.shownCounts) {
      this.shownCounts = counts;
      this.select.replaceChildren(
        ...cuCounts.map((cus) => {
          const option = el('vscode-option', { value: String(cus) }, cuCountLabel(cus));
          option.selected = cus === selected;
          return option;
        }),
      );
    }
    if (selected !== undefined && this.select.value !== String(selected)) this.select.value = String(selected);
  }
}
