/**
 * The fleet panel: the nodes of one Slurm allocation judged against each other. The header
 * (fleet, job, status, the outlier rule), every node in one plain table (outliers and
 * failures first, marked in words as well as colour), the outlier sentences, every figure
 * with its median and extremes, and the advice per group of nodes. Picking a figure (click,
 * or arrow keys in its list) asks the host for that figure's per-node values and draws them
 * (chart.ts); the view itself carries none, so a 1,000-node fleet stays one small message.
 * It draws what the host posts after checking it against the schema, and sends back only the
 * messages its schema allows.
 */
import type {
  FigureValues,
  FleetHostMessage,
  FleetPageFigure,
  FleetPageNode,
  FleetPageView,
  FleetWebviewMessage,
} from '../../src/core/fleet/fleetMessages';
import { parseFleetHostMessage } from '../../src/core/fleet/fleetMessages';
import { fleetTableModel } from '../../src/core/fleet/fleetPanelTable';
import type { Chart, XY } from '../shared/chart';
import { bdi, bdiList, el } from '../shared/dom';
import { connectPage } from '../shared/hostChannel';
import { simulatedBadge } from '../shared/simulatedBadge';
import { TableActions } from '../shared/tableActions';
import { observeTheme, readTheme } from '../shared/theme';
import { figureChart, valueText } from './chart';

/** What the page keeps across reloads: the fleet (the serializer reopens it) and the figure shown. */
interface FleetState {
  fleet: string;
  figure?: string;
}

const host = connectPage<FleetHostMessage, FleetWebviewMessage, FleetState>({
  name: 'fleet',
  parse: parseFleetHostMessage,
  onMessage: (message) => (message.type === 'fleet-view' ? render(message.view) : received(message.figure)),
});
const root = document.getElementById('root')!;
let theme = readTheme();
let shown: FleetPageView | undefined;
/** The figure picked, and its values once the host sent them. */
let selected: string | undefined;
let values: FigureValues | undefined;
let chart: Chart<'line', XY[]> | undefined;
const tableActions = new TableActions(
  (m) => host.post(m),
  () => (shown ? fleetTableModel(shown) : undefined),
);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function header(view: FleetPageView): HTMLElement {
  const notOk = view.nodes.filter((n) => n.status !== 'ok').length;
  return el(
    'header',
    {},
    el(
      'div',
      { class: 'title-row' },
      el('h1', {}, `Fleet ${view.id}`),
      view.simulated ? simulatedBadge() : null,
      el('span', { class: `status status-${view.status}` }, view.status),
    ),
    el(
      'p',
      { class: 'facts' },
      'Slurm job ',
      bdi(view.job),
      ` \u00b7 ${plural(view.nodes.length, 'node')}${notOk ? ` (${notOk} not ok)` : ''} \u00b7 `,
      bdi(view.via),
      ' \u00b7 ',
      bdi(view.createdAt),
    ),
    view.message ? el('p', { class: 'warn' }, view.message) : null,
    view.notes.length > 0
      ? el(
          'ul',
          { class: 'notes' },
          ...view.notes.map((n) => el('li', { class: n.startsWith('SIMULATED') ? 'muted' : 'warn' }, n)),
        )
      : null,
    el('p', { class: 'muted rule' }, 'Outliers: ', bdi(view.rule), '.'),
  );
}

/** What marks a node, in words: its outliers and its threshold verdict. */
function nodeFlag(n: FleetPageNode, thresholds: boolean): string {
  return [
    n.outliers > 0 ? `\u25b2 ${plural(n.outliers, 'outlier')}` : '',
    thresholds && n.failureCount > 0 ? '\u2716 FAIL' : '',
    n.status !== 'ok' ? `\u25cf ${n.status}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function nodeRow(n: FleetPageNode, thresholds: boolean): HTMLTableRowElement {
  const problems = [
    ...n.failures,
    ...(n.failureCount > n.failures.length ? [`and ${n.failureCount - n.failures.length} more`] : []),
  ];
  const flagged = n.outliers > 0 || (thresholds && n.failureCount > 0);
  return el(
    'tr',
    {
      class: `${flagged ? 'flagged' : ''}${n.status !== 'ok' ? ' not-ok' : ''}`.trim() || undefined,
      'data-node': n.node,
    },
    el('th', { scope: 'row' }, n.node),
    el('td', { class: 'flag' }, nodeFlag(n, thresholds)),
    el('td', { class: `status status-${n.status}` }, n.status),
    el('td', { class: 'num' }, String(n.outliers)),
    thresholds
      ? el(
          'td',
          { class: n.failureCount > 0 ? 'fail' : 'pass' },
          n.failureCount > 0 ? `FAIL (${n.failureCount})` : 'pass',
        )
      : null,
    el('td', { class: 'problems' }, ...bdiList([...problems, n.error ?? ''].filter(Boolean), '; ')),
    el(
      'td',
      { class: 'runs' },
      ...n.runs.map((r) =>
        el(
          'button',
          {
            type: 'button',
            class: 'open-run',
            'data-run': r.runId,
            'aria-label': `Open the ${r.command ? `${r.command} ` : ''}run of ${n.node}, ${r.runId}`,
          },
          r.command ?? 'run',
        ),
      ),
    ),
  );
}

function nodesSection(view: FleetPageView): HTMLElement {
  const thresholds = view.thresholds !== undefined;
  const columns = ['node', 'flag', 'status', 'outliers', ...(thresholds ? ['thresholds'] : []), 'problems', 'runs'];
  // One listener for every Open button: 1,000 rows get no handler each.
  const body = el('tbody', {}, ...view.nodes.map((n) => nodeRow(n, thresholds)));
  body.addEventListener('click', (event) => {
    const button = (event.target as Element).closest('button[data-run]');
    const runId = button?.getAttribute('data-run');
    if (runId) host.post({ type: 'open-run', runId });
  });
  const flagged = view.nodes.filter((n) => n.outliers > 0 || (thresholds && n.failureCount > 0)).length;
  return el(
    'section',
    { class: 'nodes' },
    el('h2', {}, `Nodes (${view.nodes.length})`),
    el(
      'p',
      { class: 'muted' },
      `${flagged === 0 ? 'No node stands out' : `${plural(flagged, 'node')} with outliers${thresholds ? ' or failed thresholds' : ''}, listed first (\u25b2 outliers, \u2716 failed thresholds)`}${view.thresholds ? ` \u00b7 thresholds: ${view.thresholds.passed} passed, ${view.thresholds.failed} failed` : ''}.`,
    ),
    tableActions.element,
    el(
      'div',
      { class: 'table-scroll' },
      el(
        'table',
        { class: 'nodes-table' },
        el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)))),
        body,
      ),
    ),
  );
}

function outliersSection(view: FleetPageView): HTMLElement {
  const nodes = new Set(view.outliers.map((o) => o.node)).size;
  return el(
    'section',
    { class: 'outliers' },
    el(
      'h2',
      {},
      view.outlierCount === 0 ? 'Outliers: none' : `Outliers (${view.outlierCount} on ${plural(nodes, 'node')})`,
    ),
    view.outliers.length > 0
      ? el('ul', { class: 'outlier-list' }, ...view.outliers.map((o) => el('li', { class: `side-${o.side}` }, o.text)))
      : el('p', { class: 'muted' }, 'No node stands apart from the fleet on any figure.'),
    view.outlierCount > view.outliers.length
      ? el(
          'p',
          { class: 'muted' },
          `\u2026 and ${view.outlierCount - view.outliers.length} more (sdma-lens fleet show --json lists them all).`,
        )
      : null,
  );
}

function figureRow(f: FleetPageFigure): HTMLTableRowElement {
  const out = f.outlierNodeCount > 0;
  const pick = el(
    'button',
    { type: 'button', class: 'figure-pick', 'data-key': f.key, 'aria-pressed': 'false', tabindex: '-1' },
    out ? `\u25b2 ${f.label}` : f.label,
  );
  const more =
    f.outlierNodeCount > f.outlierNodes.length ? ` and ${f.outlierNodeCount - f.outlierNodes.length} more` : '';
  const outliers = !f.judged ? ['too few nodes'] : out ? [...bdiList(f.outlierNodes, ', '), more] : ['-'];
  return el(
    'tr',
    { class: out ? 'flagged' : undefined, 'data-key': f.key },
    el('td', {}, pick),
    el('td', { class: 'num' }, String(f.nodes)),
    el('td', { class: 'num' }, valueText(f.unit, f.median)),
    el('td', { class: 'num' }, `${valueText(f.unit, f.low.value)} (`, bdi(f.low.node), ')'),
    el('td', { class: 'num' }, `${valueText(f.unit, f.high.value)} (`, bdi(f.high.node), ')'),
    el('td', { class: 'outlier-nodes' }, ...outliers),
  );
}

function figuresSection(view: FleetPageView): HTMLElement {
  const body = el('tbody', {}, ...view.figures.map(figureRow));
  body.addEventListener('click', (event) => {
    const key = (event.target as Element).closest('button.figure-pick')?.getAttribute('data-key');
    if (key) select(key);
  });
  // One tab stop for the list; arrows, Home and End move and pick, as in a radio group.
  body.addEventListener('keydown', (event) => {
    const buttons = [...body.querySelectorAll<HTMLButtonElement>('button.figure-pick')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const to =
      event.key === 'ArrowDown'
        ? at + 1
        : event.key === 'ArrowUp'
          ? at - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? buttons.length - 1
              : undefined;
    if (to === undefined) return;
    event.preventDefault();
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, to))];
    if (!next) return;
    next.focus();
    select(next.getAttribute('data-key')!);
  });
  return el(
    'section',
    { class: 'figures' },
    el('h2', {}, `Figures (${view.figures.length})`),
    el(
      'p',
      { class: 'muted' },
      'Peak GB/s of each sweep series, the crossover size the advice places, each matrix cell: the fleet median and the nodes furthest from it. Pick a figure to see its value on every node.',
    ),
    el('div', { id: 'figure-chart', class: 'figure-chart', 'aria-live': 'polite' }),
    el(
      'div',
      { class: 'table-scroll' },
      el(
        'table',
        { class: 'figures-table', 'aria-label': 'Figures: pick one to chart it' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['figure', 'nodes', 'median', 'lowest (node)', 'highest (node)', 'outlier nodes'].map((c) =>
              el('th', { scope: 'col' }, c),
            ),
          ),
        ),
        body,
      ),
    ),
  );
}

function adviceSection(view: FleetPageView): HTMLElement | null {
  if (view.advice.length === 0) return null;
  const settings = (s: string[]) =>
    s.length > 0 ? el('code', {}, ...bdiList(s, ' ')) : el('span', { class: 'muted' }, 'no settings to change');
  if (!view.adviceDiffers) {
    const g = view.advice[0]!;
    return el(
      'section',
      { class: 'advice' },
      el('h2', {}, 'Advice'),
      el('p', {}, `The same on all ${plural(g.nodes.length, 'measured node')}: `, settings(g.settings)),
    );
  }
  return el(
    'section',
    { class: 'advice' },
    el('h2', {}, `Advice differs between nodes (${view.advice.length} sets)`),
    el(
      'ul',
      { class: 'advice-groups' },
      ...view.advice.map((g) =>
        el(
          'li',
          {},
          el('span', { class: 'advice-nodes' }, `${plural(g.nodes.length, 'node')}: `, ...bdiList(g.nodes, ', ')),
          ' \u2192 ',
          settings(g.settings),
        ),
      ),
    ),
  );
}

function saveState(): void {
  if (!shown) return;
  host.saveState({ fleet: shown.id, ...(selected ? { figure: selected } : {}) });
}

/** Marks the picked figure in its list (pressed, the list's one tab stop). */
function markSelected(): void {
  const buttons = [...root.querySelectorAll<HTMLButtonElement>('button.figure-pick')];
  const stop = buttons.find((b) => b.getAttribute('data-key') === selected) ?? buttons[0];
  for (const b of buttons) {
    const on = b.getAttribute('data-key') === selected;
    b.setAttribute('aria-pressed', String(on));
    b.tabIndex = b === stop ? 0 : -1;
    b.closest('tr')?.classList.toggle('selected', on);
  }
}

function select(key: string): void {
  if (!shown?.figures.some((f) => f.key === key)) return;
  // The figure shown (or asked for) already: nothing to ask again.
  if (key === selected) return;
  selected = key;
  values = undefined;
  saveState();
  markSelected();
  drawFigure();
  host.post({ type: 'select-figure', key });
}

function received(figure: FigureValues): void {
  // An answer for a figure picked before the last pick is dropped.
  if (figure.key !== selected) return;
  values = figure;
  drawFigure();
}

function drawFigure(): void {
  const place = document.getElementById('figure-chart');
  chart?.destroy();
  chart = undefined;
  if (!place) return;
  const figure = shown?.figures.find((f) => f.key === selected);
  if (!figure) {
    place.replaceChildren(
      el(
        'p',
        { class: 'muted' },
        shown?.figures.length
          ? 'Pick a figure below to chart its value on every node.'
          : 'No node measured a figure to compare.',
      ),
    );
    return;
  }
  if (!values) {
    place.replaceChildren(
      el('p', { class: 'muted' }, 'Loading the value of ', bdi(figure.label), ' on each node\u2026'),
    );
    return;
  }
  const c = figureChart(values, theme);
  const outliers = values.values.filter((v) => v.outlier).length;
  place.replaceChildren(
    el(
      'figure',
      {},
      el('figcaption', {}, values.label),
      el(
        'p',
        { class: 'legend muted' },
        el('span', { class: 'key-dot', 'aria-hidden': 'true' }),
        ' node ',
        el('span', { class: 'key-triangle', 'aria-hidden': 'true' }),
        ` outlier (${outliers}) `,
        el('span', { class: 'key-median', 'aria-hidden': 'true' }),
        ` fleet median ${valueText(values.unit, values.median)}`,
      ),
      c.element,
    ),
  );
  // chart.js sizes a chart by its box, so it is drawn once it is in the page.
  chart = c.draw();
}

function render(view: FleetPageView): void {
  shown = view;
  const kept = host.state()?.figure;
  const focusedKey = document.activeElement?.closest('button.figure-pick')?.getAttribute('data-key') ?? undefined;
  // The figure shown before (or kept across a reload) when the fleet still has it, else the first with an outlier.
  const figure =
    [selected, kept].find((k) => k !== undefined && view.figures.some((f) => f.key === k)) ??
    view.figures.find((f) => f.outlierNodeCount > 0)?.key;
  selected = undefined;
  values = undefined;
  chart?.destroy();
  chart = undefined;
  tableActions.show(view.nodes.length > 0);
  const sections = [header(view), nodesSection(view), outliersSection(view), figuresSection(view), adviceSection(view)];
  root.replaceChildren(...sections.filter((s): s is HTMLElement => s !== null));
  if (figure) select(figure);
  else {
    saveState();
    markSelected();
    drawFigure();
  }
  // A keyboard user in the figure list stays there across a new view.
  if (focusedKey)
    root.querySelector<HTMLButtonElement>(`button.figure-pick[data-key="${CSS.escape(focusedKey)}"]`)?.focus();
}

observeTheme(() => {
  theme = readTheme();
  if (values) drawFigure();
});

host.ready();
