/**
 * The chart's numbers as a real table: readable without hovering, and what a screen reader
 * gets instead of the canvas.
 */
import { formatBytes, formatGbps } from '../../src/core/units';
import type { SweepPoint, SweepSeries, UnsupportedPath } from '../../src/core/sweep/sweepView';
import type { Theme } from '../shared/theme';
import { el, replaceChildren } from '../shared/dom';
import { evidenceCell } from './evidence';
import { seriesLabel, seriesSwatch, seriesVariants } from './labels';

function cell(point: SweepPoint | undefined, best: boolean): HTMLElement {
  if (!point) return el('td', { class: 'missing' }, '—');
  const flagged = point.evidence?.state === 'contradicts';
  const classes = [best ? 'best' : '', flagged ? 'contradicts' : ''].filter(Boolean).join(' ');
  return el(
    'td',
    {
      class: classes || undefined,
      title: flagged
        ? "its mover evidence contradicts its label: this is not that path's figure"
        : best
          ? 'fastest shown at this size'
          : undefined,
    },
    flagged ? el('span', { class: 'flag', 'aria-label': 'contradicts its label' }, '✗ ') : undefined,
    point.mover
      ? el('span', { class: 'runtime-mover', title: 'the mover the runtime used' }, `${point.mover} `)
      : undefined,
    el('span', { class: 'value' }, formatGbps(point.gbps)),
    el('span', { class: 'range' }, `${formatGbps(point.gbpsLow)}–${formatGbps(point.gbpsHigh)}`),
    point.refined ? el('span', { class: 'refined', title: 'measured by a refinement round' }, ' refined') : undefined,
  );
}

export function renderTable(root: HTMLElement, series: SweepSeries[], theme: Theme, pairLabel?: string): void {
  if (series.length === 0) {
    replaceChildren(root);
    return;
  }
  const variants = seriesVariants(series);
  const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.sizeBytes)))].sort((a, b) => a - b);
  const bySize = series.map((s) => new Map(s.points.map((p) => [p.sizeBytes, p])));
  const rows = sizes.map((size) => {
    const points = bySize.map((m) => m.get(size));
    // A sample whose evidence contradicts its label is not its path's figure, so it is never the fastest path.
    const fastest = Math.max(...points.map((p) => (p && p.evidence?.state !== 'contradicts' ? p.gbps : -Infinity)));
    return el(
      'tr',
      { class: points.some((p) => p?.evidence?.state === 'contradicts') ? 'has-contradicts' : undefined },
      el('th', { scope: 'row' }, formatBytes(size)),
      ...points.flatMap((p) => [
        cell(p, series.length > 1 && p !== undefined && p.gbps === fastest && p.evidence?.state !== 'contradicts'),
        evidenceCell(p),
      ]),
    );
  });
  replaceChildren(
    root,
    el(
      'table',
      { class: 'data-table' },
      el(
        'caption',
        {},
        `${pairLabel ? `${pairLabel}: b` : 'B'}andwidth in GB/s: mean of the timed iterations, then slowest–fastest iteration; bold marks the fastest path at each size. Evidence: what moved each sample's bytes as the platform saw it (hover for the detail); ✗ marks a sample whose evidence contradicts its label`,
      ),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Message size'),
          ...series.flatMap((s) => [
            el('th', { scope: 'col' }, seriesSwatch(s, theme, variants.get(s.key)), seriesLabel(s)),
            el('th', { scope: 'col', class: 'evidence-head', 'aria-label': `Evidence, ${seriesLabel(s)}` }, 'Evidence'),
          ]),
        ),
      ),
      el('tbody', {}, ...rows),
    ),
  );
}

/** Paths the pair cannot have, each with the helper's reason ("engine/device: not for host → GPU 0: ..."). */
export function renderUnsupported(root: HTMLElement, paths: readonly UnsupportedPath[]): void {
  if (paths.length === 0) {
    replaceChildren(root);
    return;
  }
  replaceChildren(
    root,
    el(
      'ul',
      { class: 'unsupported-list' },
      ...paths.map((u) => el('li', { class: 'unsupported', 'data-path': u.path }, u.text)),
    ),
  );
}
