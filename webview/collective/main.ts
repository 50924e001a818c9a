/**
 * The collective panel: collective curves per operation with the crossover, the overlap view
 * (compute kept per copy path, with clocks and power), and the advice both feed. It draws
 * whole views the host posts and sends back only the messages its schema allows.
 */
import type {
  CollectiveHostMessage,
  CollectivePageView,
  CollectiveWebviewMessage,
  OverlapRow,
} from '../../src/core/collective/collectiveMessages';
import { parseCollectiveHostMessage } from '../../src/core/collective/collectiveMessages';
import { transportLegend, transportMeaning } from '../../src/core/collective/transports';
import { MODE_MEANING, cusUsedText, modeText } from '../../src/core/collective/collectiveLabels';
import { formatBytes, formatGbps } from '../../src/core/units';
import type { Chart } from '../shared/chart';
import { bdi, bdiList, el } from '../shared/dom';
import { connectPage } from '../shared/hostChannel';
import { strokeSwatch } from '../shared/pathSwatch';
import { simulatedBadge } from '../shared/simulatedBadge';
import { observeTheme, readTheme } from '../shared/theme';
import type { CollectiveChart } from './chart';
import { collectiveChart, curveLabel, curveStyle } from './chart';
import { collectiveTableModel } from '../../src/core/collective/collectivePanelTable';
import { TableActions } from '../shared/tableActions';

const host = connectPage<CollectiveHostMessage, CollectiveWebviewMessage, { runId: string }>({
  name: 'collective',
  parse: parseCollectiveHostMessage,
  onMessage: (message) => render(message.view),
});
const root = document.getElementById('root')!;
let theme = readTheme();
let shown: CollectivePageView | undefined;
const tableActions = new TableActions(
  (m) => host.post(m),
  () => (shown ? collectiveTableModel(shown) : undefined),
);
/** The charts drawn for the current view, destroyed before the next one is drawn. */
let charts: Chart<'line', { x: number; y: number }[]>[] = [];

function header(view: CollectivePageView): HTMLElement {
  const badge = view.simulated ? simulatedBadge() : null;
  const progress =
    view.progress.total > 0 && view.status === 'incomplete'
      ? ` \u00b7 ${view.progress.done}/${view.progress.total}`
      : '';
  // How the ranks ran: a collective run's own fact, stated beside the node (an overlap run has no ranks).
  const mode =
    view.command === 'collective'
      ? el(
          'span',
          { class: 'mode', title: MODE_MEANING[view.mode] },
          ' \u00b7 mode ',
          modeText(view.mode, view.launcher),
        )
      : null;
  return el(
    'header',
    {},
    el('h1', {}, bdi(view.title), ' ', badge),
    el('div', { class: 'muted' }, bdi(view.node), ' \u00b7 ', bdi(view.status), progress, mode),
  );
}

/** The variants asked for: which ran, the library, why a variant did not run and what was checked before it ran. */
function variantTable(view: CollectivePageView): HTMLElement | null {
  if (view.variants.length === 0) return null;
  return el(
    'table',
    { class: 'variants', 'aria-label': 'Variants' },
    el(
      'thead',
      {},
      el('tr', {}, ...['variant', 'ran', 'library', 'reason / conditions', 'environment'].map((h) => el('th', {}, h))),
    ),
    el(
      'tbody',
      {},
      ...view.variants.map((v) => {
        const env = Object.entries(v.env).map(([k, val]) => `${k}=${val}`);
        // Each piece of run text in its own isolate; the unmet conditions first.
        const conditions = [...(v.conditions ?? [])]
          .sort((a, b) => Number(a.ok) - Number(b.ok))
          .map((c) =>
            el(
              'div',
              { class: c.ok ? 'muted' : 'warn' },
              bdi(c.name),
              ' ',
              bdi(c.want),
              ': found ',
              c.found === '' ? 'unknown' : bdi(c.found),
              c.ok ? ' (met)' : ' (not met)',
            ),
          );
        const reason = v.supported
          ? []
          : [el('div', { class: 'warn' }, bdi(v.reason ?? 'unsupported'), ...(v.hint ? [' (', bdi(v.hint), ')'] : []))];
        return el(
          'tr',
          { class: v.supported ? undefined : 'refused' },
          el('td', {}, el('span', { class: `swatch variant-${v.variant}` }), el('b', {}, v.variant)),
          el('td', {}, v.supported ? 'yes' : 'no'),
          el(
            'td',
            {},
            bdi(v.library.name),
            ' ',
            bdi(v.library.version),
            v.symmetric ? ' \u00b7 symmetric windows' : '',
          ),
          el('td', {}, ...reason, ...conditions, ...(reason.length + conditions.length === 0 ? ['\u2014'] : [])),
          el('td', {}, env.length > 0 ? el('code', {}, ...bdiList(env, ' ')) : ''),
        );
      }),
    ),
  );
}

/** Each curve drawn, as its line and marker: the charts' legend. */
function curveKey(view: CollectivePageView): HTMLElement {
  const seen = new Map<string, CollectivePageView['curves'][number]>();
  for (const c of view.curves) seen.set(curveLabel(c), c);
  return el(
    'ul',
    { class: 'curve-key', 'aria-label': 'Curves' },
    ...[...seen].map(([label, c]) => el('li', {}, strokeSwatch(curveStyle(c, theme), theme), label)),
  );
}

function collectiveSection(view: CollectivePageView, pending: CollectiveChart[]): HTMLElement | null {
  if (view.curves.length === 0) return null;
  const ops = [...new Set(view.curves.map((c) => c.op))];
  return el(
    'section',
    {},
    el('h2', {}, 'busbw by size'),
    curveKey(view),
    el(
      'p',
      { class: 'muted' },
      'The default path is drawn as compute units are (blue, round points), the engine variants as the engine is (orange, square points; ce with long dashes, the GIN-SDMA variants with dashes and dots). Solid: out-of-place; dashed: in-place (the engine variants dotted in-place). A red ring marks a point that ran another path than its variant is for (the library said so). Hover a point for its path.',
    ),
    transportKey(view),
    ...ops.map((op) => {
      const crossovers = view.crossovers.filter((c) => c.op === op);
      const chart = collectiveChart(
        op,
        view.curves.filter((c) => c.op === op),
        crossovers,
        theme,
      );
      pending.push(chart);
      return el(
        'figure',
        {},
        el('figcaption', {}, op === 'allgather' ? 'AllGather' : 'AlltoAll'),
        chart.element,
        ...crossovers.map((c) => el('p', { class: 'crossover-text' }, c.text)),
      );
    }),
  );
}

/** What each path the points report means (lsa, sdma, ce, ring/simple, ...): the legend under the charts' key. */
function transportKey(view: CollectivePageView): HTMLElement | null {
  const legend = transportLegend(view.curves.flatMap((c) => c.points.map((p) => p.transport)));
  if (legend.length === 0) return null;
  return el(
    'dl',
    { class: 'transports', 'aria-label': 'Paths' },
    ...legend.flatMap((t) => [el('dt', {}, el('code', {}, bdi(t.transport))), el('dd', {}, t.meaning)]),
  );
}

/** What decided the compute a row kept, as the table says it (the figures behind it on hover). */
const DECIDED: Record<OverlapRow['decidedBy'], string> = {
  cus: 'CUs: the arithmetic holds',
  power: 'power: clock fell at the cap',
  memory: 'memory bandwidth, not CUs',
  shared: "shared: compute ran on the copy's CUs",
  other: 'other: no reason in the data',
  unknown: '\u2014',
};

const OVERLAP_COLUMNS = [
  'copy path',
  'size',
  'CUs used / total',
  'CU arithmetic',
  'compute kept',
  '',
  'copy GB/s alone \u2192 beside',
  'bandwidth kept',
  'decided by',
  'SM MHz / W',
  'mechanism',
];

const pctText = (x: number | null) => (x === null ? '\u2014' : `${(x * 100).toFixed(1)}%`);

/** The compute kept as a bar, with the CU arithmetic marked on it where the run has it. */
function keptBar(r: OverlapRow): HTMLElement {
  const fill = el('div', { class: `fill ${r.path.startsWith('cu/') ? 'cu' : 'engine'}` });
  fill.style.width = `${Math.max(0, Math.min(1, r.keptFraction)) * 100}%`;
  const bar = el('div', { class: 'bar' }, fill);
  if (r.cuArithmetic !== null) {
    const mark = el('div', { class: 'mark', title: `CU arithmetic ${pctText(r.cuArithmetic)}` });
    mark.style.left = `${Math.max(0, Math.min(1, r.cuArithmetic)) * 100}%`;
    bar.append(mark);
  }
  return bar;
}

function overlapRow(r: OverlapRow): HTMLElement {
  const gbps = (x: number | null) => (x === null ? '\u2014' : formatGbps(x));
  const clock = [
    r.smClockMHz !== null ? `${r.smClockMHz.toFixed(0)} MHz` : '',
    r.powerW !== null ? `${r.powerW.toFixed(0)}${r.powerLimitW !== null ? `/${r.powerLimitW.toFixed(0)}` : ''} W` : '',
  ]
    .filter((x) => x !== '')
    .join(' \u00b7 ');
  return el(
    'tr',
    { class: `decided-${r.decidedBy}` },
    el('td', {}, r.label),
    el('td', { class: 'num' }, formatBytes(r.copySizeBytes)),
    el(
      'td',
      { class: 'num cus' },
      r.cusUsed !== null && r.totalCus !== null ? `${r.cusUsed} / ${r.totalCus}` : '\u2014',
    ),
    el('td', { class: 'num arithmetic' }, pctText(r.cuArithmetic)),
    el('td', { class: 'num kept' }, pctText(r.keptFraction)),
    el('td', { class: 'bar-cell' }, keptBar(r)),
    el(
      'td',
      { class: 'num copy' },
      r.copyAloneGbps !== null ? `${gbps(r.copyAloneGbps)} \u2192 ${gbps(r.copyGbps)}` : gbps(r.copyGbps),
    ),
    el('td', { class: 'num bandwidth' }, pctText(r.bandwidthKept)),
    el('td', { class: 'decided', title: r.why }, DECIDED[r.decidedBy]),
    el(
      'td',
      { class: 'num clock', title: r.telemetry !== null ? `clocks and power from ${r.telemetry}` : undefined },
      clock || '\u2014',
    ),
    // The helper's words for what moved the bytes: outside text, in an isolate of its own.
    el('td', { class: 'mechanism' }, r.mechanism !== null ? bdi(r.mechanism) : '\u2014'),
  );
}

function overlapSection(view: CollectivePageView): HTMLElement | null {
  if (view.overlap.rows.length === 0) return null;
  const computes = [...new Set(view.overlap.rows.map((r) => r.compute))];
  const claims = view.overlap.claims;
  return el(
    'section',
    { class: 'overlap' },
    // The section says simulated itself: it is a screen of its own below the header.
    el('h2', {}, 'Compute kept beside each copy', ...(view.simulated ? [' ', simulatedBadge()] : [])),
    el(
      'p',
      { class: 'muted' },
      'CU arithmetic: (total CUs \u2212 CUs the copy holds) / total CUs, the compute a copy leaves if CUs were all that mattered (the mark on each bar). Compute kept: its rate beside the copy over its rate alone. Bandwidth kept: the copy beside the compute over the same copy alone. Hover "decided by" for the figures.',
    ),
    claims.length > 0
      ? el(
          'ul',
          { class: 'claims', 'aria-label': 'Engine against CU copy' },
          ...claims.map((c) => el('li', { class: `claim claim-${c.verdict}` }, c.text)),
        )
      : null,
    ...computes.map((compute) => {
      const alone = view.overlap.alone[compute];
      const rows = view.overlap.rows.filter((r) => r.compute === compute);
      const aloneText = alone
        ? `alone ${alone.gbps !== null ? `${formatGbps(alone.gbps)} GB/s (${alone.tflops.toFixed(2)} TFLOP/s)` : `${alone.tflops.toFixed(1)} TFLOP/s`}${alone.smClockMHz !== null ? `, ${alone.smClockMHz.toFixed(0)} MHz` : ''}${alone.powerW !== null ? `, ${alone.powerW.toFixed(0)} W` : ''}${alone.powerLimitW !== null ? ` of ${alone.powerLimitW.toFixed(0)} W` : ''}`
        : '';
      const name = `${compute.toUpperCase()} (${rows[0]!.bound}-bound)`;
      return el(
        'div',
        { class: 'overlap-compute' },
        el('h3', {}, name, el('span', { class: 'muted' }, ` ${aloneText}`)),
        el(
          'table',
          { class: 'overlap-table', 'aria-label': `${name} beside each copy` },
          el('thead', {}, el('tr', {}, ...OVERLAP_COLUMNS.map((h) => el('th', {}, h)))),
          el('tbody', {}, ...rows.map(overlapRow)),
        ),
      );
    }),
  );
}

function adviceSection(view: CollectivePageView): HTMLElement | null {
  if (view.recommendations.length === 0 && view.cuBudget.length === 0 && !view.cus) return null;
  const copy = el('button', { type: 'button' }, 'Copy as exports');
  copy.addEventListener('click', () => host.post({ type: 'copy-exports' }));
  return el(
    'section',
    {},
    el('h2', {}, 'Advice'),
    el(
      'ul',
      { class: 'advice' },
      ...view.recommendations.map((r) =>
        el(
          'li',
          { class: `confidence-${r.confidence}` },
          el('code', {}, bdi(r.knob), ...(r.value !== undefined ? ['=', bdi(r.value)] : [])),
          ' ',
          r.evidence,
        ),
      ),
      ...(view.cus ? [el('li', { class: `cus cus-${view.cus.source}` }, view.cus.text)] : []),
      ...view.cuBudget.map((line) => el('li', {}, line)),
    ),
    view.exports ? copy : null,
  );
}

function tableSection(view: CollectivePageView): HTMLElement | null {
  if (view.curves.length === 0) return null;
  const rows = view.curves.flatMap((c) => c.points.map((p) => ({ c, p })));
  return el(
    'details',
    {},
    el('summary', {}, `All points (${rows.length})`),
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['op', 'variant', 'form', 'size', 'time µs', 'algbw GB/s', 'busbw GB/s', 'path', 'CUs used', '#wrong'].map(
            (h) => el('th', {}, h),
          ),
        ),
      ),
      el(
        'tbody',
        {},
        ...rows.map(({ c, p }) =>
          el(
            'tr',
            { class: p.offPath ? 'off-path' : undefined },
            el('td', {}, c.op),
            el('td', {}, c.variant),
            el('td', {}, c.inPlace ? 'in-place' : 'out-of-place'),
            el('td', { class: 'num' }, formatBytes(p.sizeBytes)),
            el('td', { class: 'num' }, p.timeUs.toFixed(1)),
            el('td', { class: 'num' }, formatGbps(p.algbwGbps)),
            el('td', { class: 'num' }, formatGbps(p.busbwGbps)),
            el(
              'td',
              { class: 'path', title: p.transport !== null ? transportMeaning(p.transport) : undefined },
              p.transport ?? '\u2014',
            ),
            // The count and where it came from; the log line or the model's assumption on hover.
            el('td', { class: 'num cus', title: p.cusUsed?.evidence }, cusUsedText(p.cusUsed)),
            el('td', { class: 'num' }, p.wrong === null ? '' : String(p.wrong)),
          ),
        ),
      ),
    ),
  );
}

function render(view: CollectivePageView): void {
  shown = view;
  host.saveState({ runId: view.runId });
  const notes = view.notes.length > 0 ? el('ul', { class: 'notes' }, ...view.notes.map((n) => el('li', {}, n))) : null;
  const pending: CollectiveChart[] = [];
  tableActions.show(
    view.command === 'overlap' ? view.overlap.rows.length > 0 : view.curves.some((c) => c.points.length > 0),
  );
  const sections = [
    header(view),
    tableActions.element,
    variantTable(view),
    notes,
    collectiveSection(view, pending),
    overlapSection(view),
    adviceSection(view),
    tableSection(view),
  ];
  for (const chart of charts) chart.destroy();
  root.replaceChildren(...sections.filter((x): x is HTMLElement => x !== null));
  // chart.js sizes a chart by its box, so the charts are drawn once they are in the page.
  charts = pending.map((c) => c.draw());
}

observeTheme(() => {
  theme = readTheme();
  if (shown) render(shown);
});

host.ready();
