/**
 * The compare panel: two runs point by point. A summary and the method first, then one curve
 * at a time (a picker: path, pair, CU count and mode; a collective's op, variant and form)
 * with both runs' bandwidth and the ratio B/A with its interval, then every point's verdict
 * in a table. It draws whole views the host posts, after checking them against the schema,
 * and sends back only the messages its schema allows.
 */
import type {
  CompareGroup,
  CompareHostMessage,
  ComparePageView,
  CompareWebviewMessage,
  GroupPoint,
} from '../../src/core/compare/compareMessages';
import { parseCompareHostMessage } from '../../src/core/compare/compareMessages';
import { formatRatio } from '../../src/core/compare/compare';
import { percent } from '../../src/core/compare/noise';
import { formatGbps } from '../../src/core/units';
import { escapeControls } from '../../src/core/text';
import type { Chart, XY } from '../shared/chart';
import { bdi, el } from '../shared/dom';
import { connectPage } from '../shared/hostChannel';
import { simulatedBadge } from '../shared/simulatedBadge';
import { observeTheme, readTheme } from '../shared/theme';
import type { CompareChart } from './chart';
import { bandwidthChart, ratioChart } from './chart';
import { compareTableModel } from '../../src/core/compare/comparePanelTable';
import { TableActions } from '../shared/tableActions';

/**
 * What the page keeps across reloads: both runs, a given tolerance or the baseline runs it was
 * estimated from (the serializer reopens the comparison from them), and the curve shown.
 */
interface CompareState {
  a: string;
  b: string;
  tolerance?: number;
  baselines?: string[];
  group?: string;
}

const host = connectPage<CompareHostMessage, CompareWebviewMessage, CompareState>({
  name: 'compare',
  parse: parseCompareHostMessage,
  onMessage: (message) => render(message.view),
});
const root = document.getElementById('root')!;
let theme = readTheme();
let shown: ComparePageView | undefined;
let charts: Chart<'line', XY[]>[] = [];
const tableActions = new TableActions(
  (m) => host.post(m),
  () => (shown ? compareTableModel(shown) : undefined),
);

function runLine(view: ComparePageView, side: 'a' | 'b'): HTMLElement {
  const r = view[side];
  const open = el(
    'button',
    { type: 'button', class: 'open-run', 'aria-label': `Open run ${side.toUpperCase()}, ${r.id}` },
    'Open',
  );
  open.addEventListener('click', () => host.post({ type: 'open-run', side }));
  const extra = [r.status !== 'ok' ? [bdi(r.status)] : [], r.source ? ['imported from ', bdi(r.source)] : []].filter(
    (x) => x.length > 0,
  );
  return el(
    'li',
    { class: `run run-${side}` },
    el('span', { class: `swatch swatch-${side}`, 'aria-hidden': 'true' }),
    el('b', {}, side === 'a' ? 'A (baseline) ' : 'B '),
    el('code', {}, r.id),
    ' \u00b7 ',
    bdi(r.node),
    ' \u00b7 ',
    bdi(r.createdAt),
    extra.length > 0 ? el('span', { class: 'muted' }, ...extra.flatMap((x) => [' \u00b7 ', ...x])) : null,
    r.simulated ? simulatedBadge() : null,
    ' ',
    open,
  );
}

function header(view: ComparePageView): HTMLElement {
  return el(
    'header',
    {},
    el('div', { class: 'title-row' }, el('h1', {}, `Compare two ${view.kind} runs`)),
    el('ul', { class: 'runs' }, runLine(view, 'a'), runLine(view, 'b')),
  );
}

/** The run-to-run tolerance and where it came from (the summary's line says how), the runs it was estimated from and each path and size band's. */
function tolerance(view: ComparePageView): HTMLElement {
  const n = view.noise;
  const from =
    n.source === 'given'
      ? 'given'
      : n.source === 'default'
        ? 'the default'
        : `estimated from ${n.runs?.length ?? 0} runs of A's setup`;
  return el(
    'div',
    { class: 'tolerance' },
    el(
      'p',
      {},
      el('b', {}, 'Run-to-run tolerance: '),
      n.source === 'baseline runs' ? `by path and size band, ${from}` : `${percent(n.tolerance)}, ${from}`,
    ),
    n.runs && n.runs.length > 0
      ? el('p', { class: 'muted' }, 'Runs: ', ...n.runs.flatMap((id, i) => [i > 0 ? ', ' : '', el('code', {}, id)]))
      : null,
    view.toleranceLines.length > 0
      ? el('ul', { class: 'tolerance-lines' }, ...view.toleranceLines.map((l) => el('li', {}, l)))
      : null,
  );
}

function summary(view: ComparePageView): HTMLElement {
  return el(
    'section',
    { class: 'summary' },
    el('ul', { class: 'summary-lines' }, ...view.summaryLines.map((l) => el('li', {}, l))),
    tolerance(view),
    el('p', { class: 'muted method' }, view.method),
    view.notes.length > 0
      ? el('ul', { class: 'notes' }, ...view.notes.map((n) => el('li', { class: 'warn' }, n)))
      : null,
  );
}

function countsText(g: CompareGroup): string {
  const c = g.counts;
  const parts = [
    c.regression && `${c.regression} regression${c.regression === 1 ? '' : 's'}`,
    c.improvement && `${c.improvement} improvement${c.improvement === 1 ? '' : 's'}`,
    c.unknownNoise && `${c.unknownNoise} unknown noise`,
    c.onlyInA && `${c.onlyInA} only in A`,
    c.onlyInB && `${c.onlyInB} only in B`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'all same';
}

/** The curve shown: the one picked before when the view still has it, else the worst regression's, else the first. */
function chooseGroup(view: ComparePageView, picked: string | undefined): CompareGroup | undefined {
  const worst = view.summary.worstRegression?.key;
  return (
    view.groups.find((g) => g.key === picked) ??
    view.groups.find((g) => g.points.some((p) => p.key === worst)) ??
    view.groups[0]
  );
}

function curveSection(
  view: ComparePageView,
  group: CompareGroup | undefined,
  pending: CompareChart[],
): HTMLElement | null {
  if (!group) return null;
  const select = el('select', { id: 'group-picker' });
  for (const g of view.groups) {
    // An option holds text only, no <bdi>: its label's controls and bidi marks are shown as escapes.
    const option = el('option', { value: g.key }, `${escapeControls(g.label)} \u2014 ${countsText(g)}`);
    option.selected = g.key === group.key;
    select.append(option);
  }
  select.addEventListener('change', () => {
    saveState(select.value);
    if (shown) render(shown);
  });
  const sizes = new Set(group.points.map((p) => p.sizeBytes));
  let figure: HTMLElement;
  if (sizes.size >= 2) {
    const bandwidth = bandwidthChart(view, group, theme);
    const ratio = ratioChart(view, group, theme);
    pending.push(bandwidth, ratio);
    figure = el(
      'figure',
      {},
      el('figcaption', {}, group.label),
      el(
        'p',
        { class: 'muted key' },
        'A: grey, dashed; B: coloured, solid; the shaded bands are each run\u2019s spread (interquartile range of the per-iteration times, or min..max). Below: the ratio B / A with its interval; the dashed lines are 1 / (1 + t) and 1 + t, t the run-to-run tolerance: an interval wholly outside them is a change; red: regression, green: improvement, hollow: unknown noise.',
      ),
      bandwidth.element,
      ratio.element,
    );
  } else {
    figure = el(
      'p',
      { class: 'muted' },
      `${group.label}: one size, so no curve to draw; the table below has its numbers.`,
    );
  }
  return el(
    'section',
    { class: 'curve' },
    el('h2', {}, 'By size'),
    el('label', { for: 'group-picker', class: 'picker-label' }, 'Curve '),
    select,
    figure,
  );
}

const STATE_CLASS: Record<GroupPoint['state'], string> = {
  regression: 'regression',
  improvement: 'improvement',
  same: 'same',
  'unknown noise': 'unknown',
  'only in A': 'only',
  'only in B': 'only',
};

function tableSection(view: ComparePageView, group: CompareGroup | undefined): HTMLElement | null {
  const rows = view.groups.flatMap((g) => g.points.map((p) => ({ g, p })));
  if (rows.length === 0) return null;
  const ratio = (p: GroupPoint) =>
    p.ratio === undefined ? '' : formatRatio({ ratio: p.ratio, ...(p.interval ? { interval: p.interval } : {}) });
  // Each run's mover evidence only where a run has any: runs saved before it show as before.
  const withEvidence = rows.some(({ p }) => p.evidence);
  const moved = rows.filter(({ p }) => p.movedDifferently).length;
  return el(
    'section',
    {},
    el('h2', {}, `Every point (${rows.length})`),
    moved > 0
      ? el(
          'p',
          { class: 'moved-note warn' },
          `≠ ${moved} point${moved === 1 ? '' : 's'} moved differently: the two runs' bytes were moved differently there (their mover evidence saw different movers, or one contradicts its label), so the difference is not a like-for-like change.`,
        )
      : null,
    tableActions.element,
    el(
      'table',
      { class: 'points' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...[
            'point',
            `A ${view.bandwidth}`,
            `B ${view.bandwidth}`,
            'ratio [low, high]',
            'tolerance',
            ...(withEvidence ? ['evidence A / B'] : []),
            'verdict',
          ].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...rows.map(({ g, p }) =>
          el(
            'tr',
            {
              class: `state-${STATE_CLASS[p.state]}${g.key === group?.key ? ' shown' : ''}${p.movedDifferently ? ' moved-differently' : ''}`,
              'data-key': p.key,
              title: [p.why, p.movedDifferently].filter(Boolean).join('; ') || undefined,
            },
            el('td', {}, p.label),
            el('td', { class: 'num' }, p.a ? formatGbps(p.a.gbps) : ''),
            el('td', { class: 'num' }, p.b ? formatGbps(p.b.gbps) : ''),
            el('td', { class: 'num' }, ratio(p)),
            el('td', { class: 'num' }, p.tolerance === undefined ? '' : percent(p.tolerance)),
            withEvidence ? el('td', { class: 'evidence' }, `${p.evidence?.a ?? '—'} / ${p.evidence?.b ?? '—'}`) : null,
            el(
              'td',
              { class: 'verdict' },
              p.state,
              p.movedDifferently
                ? el('span', { class: 'moved-flag', title: p.movedDifferently }, ' ≠ moved differently')
                : null,
            ),
          ),
        ),
      ),
    ),
  );
}

function saveState(group: string | undefined): void {
  if (!shown) return;
  const n = shown.noise;
  const noise =
    n.source === 'given'
      ? { tolerance: n.tolerance }
      : n.source === 'baseline runs' && n.runs
        ? { baselines: n.runs.slice(1) }
        : {};
  host.saveState({ a: shown.a.id, b: shown.b.id, ...noise, ...(group ? { group } : {}) });
}

function render(view: ComparePageView): void {
  shown = view;
  const group = chooseGroup(view, host.state()?.group);
  saveState(group?.key);
  const pending: CompareChart[] = [];
  const sections = [header(view), summary(view), curveSection(view, group, pending), tableSection(view, group)];
  const refocus = document.activeElement?.id === 'group-picker';
  for (const chart of charts) chart.destroy();
  root.replaceChildren(...sections.filter((s): s is HTMLElement => s !== null));
  // A keyboard user who just picked a curve stays on the picker.
  if (refocus) document.getElementById('group-picker')?.focus();
  // chart.js sizes a chart by its box, so the charts are drawn once they are in the page.
  charts = pending.map((c) => c.draw());
}

observeTheme(() => {
  theme = readTheme();
  if (shown) render(shown);
});

host.ready();
