/**
 * The panel's header and controls: title and SIMULATED badge, the filter box (the query
 * grammar of src/core/timeline/timelineFilter.ts), path toggles that write into it, the legend of
 * marks colour does not explain (legend.ts), and buttons for what the keyboard shortcuts also do.
 */
import { PATHS } from '../../src/core/protocol';
import type { TimelineMeta } from '../../src/core/timeline/timelineModel';
import { formatBytes } from '../../src/core/units';
import { simulatedBadge } from '../shared/simulatedBadge';
import { bdi, el, replaceChildren } from '../shared/dom';
import type { LegendEntry } from './legend';

export interface ToolbarActions {
  onFilter(text: string): void;
  onFit(): void;
  onZoomSelection(): void;
  onMeasureMode(on: boolean): void;
  onExport(): void;
  onToggleCus(): void;
}

const PATH_TERM = /(^|\s)path:\S*/g;

export class Toolbar {
  readonly header: HTMLElement;
  readonly element: HTMLElement;
  private readonly title = el('h1');
  private readonly badge = simulatedBadge();
  private readonly facts = el('span', { class: 'facts' });
  private readonly input = el('input', {
    id: 'filter',
    type: 'search',
    spellcheck: 'false',
    'aria-label': 'Filter events, for example kind:packet engine:2 size>=1M path:engine/device',
    placeholder: 'Filter: kind:packet  engine:2  size>=1M  path:engine/device',
  });
  private readonly error = el('span', { class: 'filter-error', role: 'alert' });
  private readonly summary = el('span', { class: 'summary' });
  private readonly live = el('span', { class: 'visually-hidden', 'aria-live': 'polite' });
  private readonly measure = el(
    'button',
    {
      type: 'button',
      class: 'tool',
      'aria-pressed': 'false',
      title: 'Drag across the timeline to measure time, bytes and bandwidth (M; Shift+drag always measures)',
    },
    'Measure',
  );
  private readonly pathButtons: HTMLButtonElement[];
  private readonly legend = el('ul', { class: 'legend', 'aria-label': 'Legend' });
  private timer = 0;

  constructor(private readonly actions: ToolbarActions) {
    this.badge.hidden = true;
    this.legend.hidden = true;
    this.header = el(
      'header',
      { class: 'header' },
      el('div', { class: 'title-row' }, this.title, this.badge, this.facts),
    );
    this.input.addEventListener('input', () => {
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => this.commit(), 200);
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') this.commit();
    });
    this.pathButtons = PATHS.map((path) => {
      const [mover, initiator] = path.split('/');
      const b = el(
        'button',
        {
          type: 'button',
          class: 'path-toggle',
          'aria-pressed': 'true',
          'data-path': path,
          title: `Show ${path} events`,
        },
        el('span', { class: `swatch mover-${mover} initiator-${initiator}`, 'aria-hidden': 'true' }),
        path,
      );
      b.addEventListener('click', () => this.togglePath(path));
      return b;
    });
    this.measure.addEventListener('click', () => this.toggleMeasure());
    const button = (label: string, title: string, action: () => void) => {
      const b = el('button', { type: 'button', class: 'tool', title }, label);
      b.addEventListener('click', action);
      return b;
    };
    this.element = el(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Timeline tools' },
      el('div', { class: 'filter' }, this.input, this.error),
      el('div', { class: 'paths', role: 'group', 'aria-label': 'Paths shown' }, ...this.pathButtons),
      this.legend,
      el(
        'div',
        { class: 'tools' },
        button('Fit', 'Show the whole timeline (0)', () => actions.onFit()),
        button(
          'Zoom to selection',
          'Zoom to the selected event and its related events, or the measured range (F)',
          () => actions.onZoomSelection(),
        ),
        this.measure,
        button('CU lanes', 'Show or hide one lane per CU under the occupancy strip', () => actions.onToggleCus()),
        button('Export trace…', 'Write the timeline as a Chrome/Perfetto trace (opens in ui.perfetto.dev)', () =>
          actions.onExport(),
        ),
      ),
      this.summary,
      this.live,
    );
  }

  setMeta(meta: TimelineMeta): void {
    this.title.textContent = meta.title;
    this.badge.hidden = !meta.simulated;
    // The node's name is the run's: in its own <bdi>, beside the page's words.
    replaceChildren(
      this.facts,
      bdi(meta.nodeLabel),
      meta.sizeBytes > 0 ? ` · ${formatBytes(meta.sizeBytes)} per copy` : " · a program's run",
    );
  }

  /** The legend's entries for the timeline shown; none hides it. */
  setLegend(entries: readonly LegendEntry[]): void {
    this.legend.hidden = entries.length === 0;
    this.legend.replaceChildren(
      ...entries.map((entry) =>
        el(
          'li',
          { class: 'legend-entry', 'data-legend': entry.id, title: entry.title },
          el('span', { class: `swatch legend-${entry.id}`, 'aria-hidden': 'true' }),
          entry.text,
        ),
      ),
    );
  }

  setSummary(text: string): void {
    this.summary.textContent = text;
  }

  announce(text: string): void {
    this.live.textContent = text;
  }

  setFilter(text: string): void {
    this.input.value = text;
    this.syncPathButtons();
  }

  setFilterError(message: string | undefined): void {
    this.error.textContent = message ?? '';
    this.input.setAttribute('aria-invalid', message ? 'true' : 'false');
  }

  toggleMeasure(): void {
    const on = this.measure.getAttribute('aria-pressed') !== 'true';
    this.measure.setAttribute('aria-pressed', String(on));
    this.actions.onMeasureMode(on);
  }

  private commit(): void {
    window.clearTimeout(this.timer);
    this.syncPathButtons();
    this.actions.onFilter(this.input.value);
  }

  private activePaths(): string[] {
    const terms = [...this.input.value.matchAll(PATH_TERM)].map((m) => m[0].trim().slice('path:'.length));
    if (terms.length === 0) return [...PATHS];
    return terms.flatMap((t) => t.split(',')).filter((p) => (PATHS as readonly string[]).includes(p));
  }

  private syncPathButtons(): void {
    const active = new Set(this.activePaths());
    for (const b of this.pathButtons) b.setAttribute('aria-pressed', String(active.has(b.dataset.path ?? '')));
  }

  private togglePath(path: string): void {
    const active = new Set(this.activePaths());
    if (!active.delete(path)) active.add(path);
    const rest = this.input.value.replace(PATH_TERM, ' ').trim();
    const term =
      active.size === PATHS.length || active.size === 0 ? '' : `path:${PATHS.filter((p) => active.has(p)).join(',')}`;
    this.input.value = [rest, term].filter(Boolean).join(' ');
    this.commit();
  }
}
