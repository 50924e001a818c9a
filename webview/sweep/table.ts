/**
 * The chart's numbers as a real table: readable without hovering, and what a screen reader
 * gets instead of the canvas.
 */
import { formatBytes, formatGbps } from '../../src/core/units';
import type { SweepPoint, SweepSeries, UnsupportedPath } from '../../src/core/sweep/sweepView';
import { pathSwatch } from '../shared/pathSwatch';
import type { Theme } from '../shared/theme';
import { el, replaceChildren } from '../shared/dom';
import { seriesLabel } from './labels';

function cell(point: SweepPoint | undefined, best: boolean): HTMLElement {
  if (!point) return el('td', { class: 'missing' }, '—');
  return el(
    'td',
    { class: best ? 'best' : undefined, title: best ? 'fastest shown at this size' : undefined },
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
  const sizes = [...new Set(series.flatMap((s) => s.points.map((p) => p.sizeBytes)))].sort((a, b) => a - b);
  const bySize = series.map((s) => new Map(s.points.map((p) => [p.sizeBytes, p])));
  const rows = sizes.map((size) => {
    const points = bySize.map((m) => m.get(size));
    const fastest = Math.max(...points.map((p) => p?.gbps ?? -Infinity));
    return el(
      'tr',
      {},
      el('th', { scope: 'row' }, formatBytes(size)),
      ...points.map((p) => cell(p, series.length > 1 && p !== undefined && p.gbps === fastest)),
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
        `${pairLabel ? `${pairLabel}: b` : 'B'}andwidth in GB/s: mean of the timed iterations, then slowest–fastest iteration; bold marks the fastest path at each size`,
      ),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Message size'),
          ...series.map((s) => el('th', { scope: 'col' }, pathSwatch(s.path, theme), seriesLabel(s))),
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
