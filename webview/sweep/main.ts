/**
 * The sweep panel: receives whole SweepViews from the extension host (re-posted, throttled,
 * while samples stream in) and draws them. Everything here trusts only what passed
 * `parseHostMessage`.
 */
import type { HostMessage, WebviewMessage } from '../../src/core/sweep/sweepMessages';
import { parseHostMessage } from '../../src/core/sweep/sweepMessages';
import type { EndpointPair } from '../../src/core/endpoints';
import type { SweepView } from '../../src/core/sweep/sweepView';
import { contradictingPoints, seriesForCus, unsupportedOfPair } from '../../src/core/sweep/sweepView';
import { renderEvidenceNote } from './evidence';
import { observeTheme, readTheme } from '../shared/theme';
import { connectPage } from '../shared/hostChannel';
import { SweepChart } from './chart';
import { CuSelector, defaultCus } from './controls';
import { el, onNextFrame } from '../shared/dom';
import { SweepHeader } from './header';
import { seriesKey } from './labels';
import { renderLegend } from './legend';
import { renderNotes } from './notes';
import { crossoversAt, renderAdvice } from './advice';
import type { AdviceView } from '../../src/core/advice/adviceView';
import { renderTable, renderUnsupported } from './table';
import { PairSelector, choosePair } from './pairs';
import { sweepTableModel } from '../../src/core/sweep/sweepPanelTable';
import { TableActions } from '../shared/tableActions';

/** Survives the panel being hidden and restored (VS Code keeps it per webview). */
interface PanelState {
  /** The CU count the user picked; absent while they have not picked one. */
  pickedCus?: number;
  /** The run shown, so the host can reopen it when VS Code restores the panel after a reload. */
  runId?: string;
  /** The endpoint pair the user picked, in a run of several. */
  pickedPair?: EndpointPair;
}

const host = connectPage<HostMessage, WebviewMessage, PanelState>({
  name: 'sweep',
  parse: parseHostMessage,
  onMessage: handle,
});

let pickedCus = host.state()?.pickedCus;
let pickedPair = host.state()?.pickedPair;
let view: SweepView | undefined;
let advice: AdviceView | undefined;
/** The host's words for a flagged sample (in the user's language), while the run has one. */
let evidenceText: string | undefined;
let theme = readTheme();
/** Series the user switched off in the legend; kept while the run streams and across CU choices. */
const hidden = new Set<string>();

const header = new SweepHeader();
const saveState = () => host.saveState({ pickedCus, runId: view?.runId, ...(pickedPair ? { pickedPair } : {}) });
const pairSelector = new PairSelector((pair) => {
  pickedPair = pair;
  saveState();
  host.post({ type: 'pair-selected', src: pair.src, dst: pair.dst });
  scheduleRender();
});
const selector = new CuSelector((cus) => {
  pickedCus = cus;
  saveState();
  host.post({ type: 'cus-selected', cus });
  scheduleRender();
});
const legend = el('div', { class: 'legend', role: 'group', 'aria-label': 'Series shown in the chart' });
const canvas = el('canvas', {
  role: 'img',
  'aria-label':
    'Bandwidth by message size; the table below the chart lists the same numbers. Click a point to open its timeline.',
});
const empty = el('p', { class: 'empty' }, 'Waiting for the first samples…');
const chartFrame = el('div', { class: 'chart-frame' }, canvas, empty);
const table = el('section', { class: 'table-section', 'aria-label': 'Bandwidth table' });
const unsupported = el('section', {
  class: 'unsupported-section',
  'aria-label': 'Paths this endpoint pair cannot have',
});
const notes = el('section', { class: 'notes', 'aria-label': 'Warnings and problems' });
/** Says at the top what a sample flagged ✗ contradicts means, while the run has one. */
const evidenceNote = el('p', { class: 'evidence-note', role: 'alert' });
evidenceNote.hidden = true;
const adviceSection = el('section', { class: 'advice-section', 'aria-label': 'Advice' });
/** Copy and export every series of the run, not only the pair and CU count shown. */
const tableActions = new TableActions(
  (m) => host.post(m),
  () => (view ? sweepTableModel(view) : undefined),
);

const root = document.getElementById('root') ?? document.body;
root.replaceChildren(
  header.element,
  evidenceNote,
  el('div', { class: 'toolbar' }, pairSelector.element, selector.element),
  el('figure', { class: 'chart' }, legend, chartFrame),
  unsupported,
  adviceSection,
  notes,
  tableActions.element,
  table,
);

const chart = new SweepChart(canvas, theme, (pick) => {
  const pair = view ? choosePair(view.pairs, pickedPair) : undefined;
  host.post({
    type: 'open-timeline',
    sizeBytes: pick.sizeBytes,
    path: pick.path,
    cus: pick.cus,
    ...(pair ? { src: pair.src, dst: pair.dst } : {}),
  });
});

function selectedCus(v: SweepView): number | undefined {
  return pickedCus !== undefined && v.cuCounts.includes(pickedCus) ? pickedCus : defaultCus(v.cuCounts);
}

let lastLegend = '';
/** Bumped on every theme change, so the legend redraws its swatches in the new colours. */
let themeVersion = 0;

function toggleSeries(key: string): void {
  if (!hidden.delete(key)) hidden.add(key);
  scheduleRender();
}

function render(): void {
  if (!view) return;
  const cus = selectedCus(view);
  const pair = choosePair(view.pairs, pickedPair);
  // Without any cu/* series, -1 matches no CU count and leaves the engine paths.
  const shown = seriesForCus(view, cus ?? -1, pair);
  header.update(view, pair);
  renderEvidenceNote(evidenceNote, contradictingPoints(view).length, evidenceText);
  pairSelector.show(view.pairs, pair);
  selector.show(view.cuCounts, cus);
  legend.setAttribute('aria-label', `Series shown in the chart${pair ? `, ${pair.label}` : ''}`);
  canvas.setAttribute(
    'aria-label',
    `Bandwidth by message size${pair ? `, ${pair.label}` : ''}; the table below the chart lists the same numbers. Click a point to open its timeline.`,
  );
  renderUnsupported(unsupported, pair ? unsupportedOfPair(view, pair) : view.unsupported);
  chartFrame.classList.toggle('is-empty', shown.length === 0);
  // Rebuilt only when it changes, so keyboard focus on a legend button survives live updates.
  const legendKey = JSON.stringify([pair?.label, shown.map(seriesKey), [...hidden], themeVersion]);
  if (legendKey !== lastLegend) {
    lastLegend = legendKey;
    renderLegend(legend, shown, hidden, theme, toggleSeries);
    if (pair && view.pairs.length > 0) legend.prepend(el('span', { class: 'legend-pair' }, pair.label));
  }
  chart.setData(shown, view.simulated, hidden);
  chart.setCrossovers(
    crossoversAt(advice, cus).map((c) => ({
      initiator: c.initiator,
      bytes: c.estimateBytes!,
      ...(c.rangeBytes ? { rangeBytes: c.rangeBytes } : {}),
    })),
  );
  renderAdvice(adviceSection, advice, cus, () => host.post({ type: 'suggest-settings' }));
  renderTable(table, shown, theme, pair?.label);
  tableActions.show(view.series.some((s) => s.points.length > 0));
  renderNotes(notes, view.warnings, view.problems);
}

/** Several posts inside one frame draw once. */
const scheduleRender = onNextFrame(() => render());

function handle(message: HostMessage): void {
  switch (message.type) {
    case 'sweep':
      if (view?.runId !== message.view.runId)
        host.saveState({ pickedCus, runId: message.view.runId, ...(pickedPair ? { pickedPair } : {}) });
      view = message.view;
      advice = message.advice;
      evidenceText = message.evidenceNote;
      scheduleRender();
      break;
    default: {
      const unhandled: never = message.type;
      host.reportError(`sweep panel: unhandled message ${String(unhandled)}`);
    }
  }
}

observeTheme(() => {
  theme = readTheme();
  themeVersion++;
  chart.setTheme(theme);
  scheduleRender();
});

host.ready();
