/** Warnings from the helper and problems the host met reading its output, under the chart. */
import { el, replaceChildren } from '../shared/dom';

/** More items than this start collapsed, so a noisy run does not push the chart off screen. */
const OPEN_UP_TO = 3;

function group(kind: 'warning' | 'problem', items: readonly string[]): HTMLDetailsElement | undefined {
  if (items.length === 0) return undefined;
  const noun = kind === 'warning' ? 'Warning' : 'Problem';
  const details = el(
    'details',
    { class: `notes-group ${kind}s` },
    el('summary', {}, `${items.length} ${noun.toLowerCase()}${items.length === 1 ? '' : 's'}`),
    el('ul', {}, ...items.map((text) => el('li', {}, text))),
  );
  details.open = items.length <= OPEN_UP_TO;
  return details;
}

export function renderNotes(root: HTMLElement, warnings: readonly string[], problems: readonly string[]): void {
  // Keep the user's open/closed choice while the same run streams in.
  const wasOpen = new Map([...root.querySelectorAll('details')].map((d) => [d.classList[1], d.open]));
  const groups = [group('warning', warnings), group('problem', problems)];
  for (const g of groups) {
    const open = g && wasOpen.get(g.classList[1]);
    if (g && open !== undefined) g.open = open;
  }
  replaceChildren(root, ...groups);
}
