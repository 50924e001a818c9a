/**
 * The chart's legend, in HTML rather than on the canvas: each entry is a real toggle button
 * (keyboard, screen readers), and its swatch shows the line and marker that tell the paths apart
 * without colour (pathColors.ts).
 */
import type { SweepSeries } from '../../src/core/sweep/sweepView';
import type { Theme } from '../shared/theme';
import { el, replaceChildren } from '../shared/dom';
import { seriesKey, seriesLabel, seriesSwatch, seriesVariants } from './labels';

export function renderLegend(
  root: HTMLElement,
  series: readonly SweepSeries[],
  hidden: ReadonlySet<string>,
  theme: Theme,
  onToggle: (key: string) => void,
): void {
  const variants = seriesVariants(series);
  replaceChildren(
    root,
    ...series.map((s) => {
      const key = seriesKey(s);
      const shown = !hidden.has(key);
      const button = el(
        'button',
        {
          type: 'button',
          class: 'legend-item',
          'aria-pressed': String(shown),
          title: shown ? 'Hide this series' : 'Show this series',
        },
        seriesSwatch(s, theme, variants.get(s.key)),
        el('span', {}, seriesLabel(s)),
      );
      button.addEventListener('click', () => onToggle(key));
      return button;
    }),
  );
}
