/**
 * The SIMULATED badge every panel puts on numbers from the simulated node: one look
 * (simulatedBadge.css, added to each page's stylesheet at build), one text, and focusable so
 * a screen reader reaches its explanation.
 */
export const SIMULATED_TOOLTIP = 'Numbers come from the simulated MI350X model, not a measurement';

export function simulatedBadge(): HTMLSpanElement {
  const badge = document.createElement('span');
  badge.className = 'simulated-badge';
  badge.setAttribute('role', 'note');
  badge.tabIndex = 0;
  badge.title = SIMULATED_TOOLTIP;
  badge.setAttribute('aria-label', `Simulated. ${SIMULATED_TOOLTIP}`);
  badge.textContent = 'SIMULATED';
  return badge;
}
