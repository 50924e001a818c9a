/**
 * The matrix panel: one heat map per copy path, sources in rows and destinations in columns,
 * each cell showing its GB/s. The heat map is a real table (a grid for screen readers, arrow
 * keys move between cells), so it reads without colour; the colour scale runs from the
 * path's weakest cell to its strongest. It draws whole views the host posts, after checking
 * them against the schema, and sends back only the messages its schema allows.
 */
import type {
  MatrixGridCell,
  MatrixHostMessage,
  MatrixPageView,
  MatrixPathView,
  MatrixWebviewMessage,
} from '../../src/core/matrix/matrixMessages';
import { parseMatrixHostMessage } from '../../src/core/matrix/matrixMessages';
import { formatBytes, formatGbps } from '../../src/core/units';
import { endpointName, isHost, pairName } from '../../src/core/endpoints';
import { connectPage } from '../shared/hostChannel';
import { bdi, el } from '../shared/dom';
import { simulatedBadge } from '../shared/simulatedBadge';
import { observeTheme, readTheme } from '../shared/theme';
import { matrixTableModel } from '../../src/core/matrix/matrixPanelTable';
import { TableActions } from '../shared/tableActions';

const host = connectPage<MatrixHostMessage, MatrixWebviewMessage, { runId: string }>({
  name: 'matrix',
  parse: parseMatrixHostMessage,
  onMessage: (message) => render(message.view),
});
const root = document.getElementById('root')!;
let shown: MatrixPageView | undefined;
const tableActions = new TableActions(
  (m) => host.post(m),
  () => (shown ? matrixTableModel(shown) : undefined),
);

function header(view: MatrixPageView): HTMLElement {
  const badge = view.simulated ? simulatedBadge() : null;
  const progress =
    view.status === 'incomplete' && view.progress.total > 0
      ? ` · ${view.progress.done}/${view.progress.total} cells`
      : '';
  const size = view.sizeBytes > 0 ? ` · ${formatBytes(view.sizeBytes)} per copy` : '';
  const iters = view.iters > 0 ? ` · median of ${view.iters} timed iterations` : '';
  const how = view.concurrent ? 'all pairs at once' : 'each ordered pair measured alone';
  return el(
    'header',
    {},
    el('h1', {}, view.concurrent ? 'Bandwidth matrix, all pairs at once ' : 'Bandwidth matrix ', badge),
    el('div', { class: 'muted' }, bdi(view.node), `${size}${iters} · ${how} · ${view.status}${progress}`),
  );
}

const flagged = (c: MatrixGridCell) => c.evidence?.state === 'contradicts';

function cellText(c: MatrixGridCell): string {
  if (c.state === 'measured') return `${flagged(c) ? '✗ ' : ''}${formatGbps(c.gbps!)}`;
  if (c.state === 'failed') return 'failed';
  if (c.state === 'missing') return '·';
  return '';
}

/** A cell's details; `withEvidence` where its path has any (a run saved before it reads as it always did). */
function cellDescription(c: MatrixGridCell, withEvidence: boolean): string {
  const pair = pairName(c);
  if (c.state === 'measured') {
    // The cell's details carry its evidence: the word, then what was seen (controls shown as escapes).
    const e = c.evidence;
    const evidence = e
      ? `; evidence: ${e.word}${flagged(c) ? ", its GB/s is not this path's" : ''} (${e.title})`
      : withEvidence
        ? '; evidence: not recorded'
        : '';
    return `${pair}: ${formatGbps(c.gbps!)} GB/s${c.weakest ? ', weak pair' : ''}${evidence}`;
  }
  if (c.state === 'failed') return `${pair}: failed, ${c.error ?? ''}`;
  if (c.state === 'missing') return `${pair}: not measured`;
  return isHost(c.src)
    ? 'host: host to host is not a GPU copy'
    : `${endpointName(c.src)}: the diagonal (a GPU-local copy is not part of the matrix)`;
}

function legend(p: MatrixPathView): HTMLElement | null {
  if (!p.stats) return null;
  return el(
    'div',
    { class: 'legend', 'aria-hidden': 'true' },
    el('span', { class: 'legend-label' }, `${formatGbps(p.stats.maxGbps / 2)} GB/s or less`),
    el('span', { class: 'legend-bar' }),
    el('span', { class: 'legend-label' }, `${formatGbps(p.stats.maxGbps)} GB/s`),
    p.weakest.length > 0 ? el('span', { class: 'legend-key weakest-key' }, 'weak pair') : null,
    p.failed > 0 ? el('span', { class: 'legend-key failed-key' }, 'failed') : null,
    (p.contradicts ?? 0) > 0
      ? el('span', { class: 'legend-key contradicts-key' }, '✗ evidence contradicts the label')
      : null,
    p.missing > 0 ? el('span', { class: 'legend-key missing-key' }, '· not measured') : null,
  );
}

/** Arrow keys, Home and End move focus between the cells of one grid (one tab stop per grid). */
function navigate(table: HTMLTableElement, detail: HTMLElement, event: KeyboardEvent): void {
  const td = (event.target as HTMLElement).closest('td');
  if (!td) return;
  const row = Number(td.dataset.row);
  const col = Number(td.dataset.col);
  const n = table.tBodies[0]!.rows.length;
  const moves: Record<string, [number, number]> = {
    ArrowUp: [row - 1, col],
    ArrowDown: [row + 1, col],
    ArrowLeft: [row, col - 1],
    ArrowRight: [row, col + 1],
    Home: [row, 0],
    End: [row, n - 1],
  };
  const next = moves[event.key];
  if (!next) return;
  event.preventDefault();
  const [r, c] = [Math.max(0, Math.min(n - 1, next[0])), Math.max(0, Math.min(n - 1, next[1]))];
  const target = table.querySelector<HTMLElement>(`td[data-row="${r}"][data-col="${c}"]`);
  if (!target) return;
  td.tabIndex = -1;
  target.tabIndex = 0;
  target.focus();
  detail.textContent = target.getAttribute('aria-label') ?? '';
}

function heatmap(p: MatrixPathView, detail: HTMLElement): HTMLTableElement {
  const table = el(
    'table',
    {
      class: 'heatmap',
      role: 'grid',
      'aria-label': `${p.label}: GB/s from each source (rows) to each destination (columns), GPUs${p.gpus.some(isHost) ? ' and host memory' : ''}`,
    },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { class: 'corner', scope: 'col' }, 'src \\ dst'),
        ...p.gpus.map((g) => el('th', { scope: 'col', class: isHost(g) ? 'host' : undefined }, endpointName(g))),
      ),
    ),
    el(
      'tbody',
      {},
      ...p.rows.map((row, i) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row', class: isHost(p.gpus[i]!) ? 'host' : undefined }, endpointName(p.gpus[i]!)),
          ...row.map((c, j) => {
            const td = el(
              'td',
              {
                class: `cell ${c.state}${c.weakest ? ' weakest' : ''}${flagged(c) ? ' contradicts' : ''}`,
                'data-evidence': c.state === 'measured' ? (c.evidence?.state ?? 'not-recorded') : undefined,
                role: 'gridcell',
                'aria-label': cellDescription(c, p.evidenceText !== undefined),
                title: cellDescription(c, p.evidenceText !== undefined),
                'data-row': String(i),
                'data-col': String(j),
              },
              cellText(c),
            );
            // The colour level goes in through the CSSOM, which the page's CSP allows.
            if (c.level !== undefined) td.style.setProperty('--level', c.level.toFixed(3));
            td.tabIndex = i === 0 && j === Math.min(1, row.length - 1) ? 0 : -1;
            return td;
          }),
        ),
      ),
    ),
  );
  table.addEventListener('keydown', (e) => navigate(table, detail, e));
  table.addEventListener('focusin', (e) => {
    const td = (e.target as HTMLElement).closest('td');
    if (td) detail.textContent = td.getAttribute('aria-label') ?? '';
  });
  return table;
}

/** Concurrent paths: what each GPU sent (row sum) and received (column sum) while all pairs ran. */
function totalsTable(p: MatrixPathView): HTMLElement | null {
  if (!p.gpuTotals) return null;
  return el(
    'table',
    { class: 'totals data-table', 'aria-label': `${p.label}: GB/s each GPU sent and received while all pairs ran` },
    el('thead', {}, el('tr', {}, ...['GPU', 'send GB/s', 'receive GB/s'].map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      ...p.gpuTotals.map((g) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, endpointName(g.gpu)),
          el('td', { class: 'num' }, formatGbps(g.sendGbps)),
          el('td', { class: 'num' }, formatGbps(g.receiveGbps)),
        ),
      ),
    ),
  );
}

function pathSection(p: MatrixPathView): HTMLElement {
  const detail = el('p', { class: 'cell-detail muted', 'aria-live': 'polite' });
  const stats = p.stats
    ? el(
        'p',
        { class: 'stats muted' },
        `min ${formatGbps(p.stats.minGbps)} · median ${formatGbps(p.stats.medianGbps)} · max ${formatGbps(p.stats.maxGbps)} GB/s · ${p.measured} measured${p.failed ? ` · ${p.failed} failed` : ''}${p.missing ? ` · ${p.missing} not measured` : ''}`,
      )
    : null;
  const title = p.concurrent ? `${p.label} · all pairs at once` : p.label;
  const evidenceText = p.evidenceText
    ? el(
        'p',
        { class: `evidence-text${(p.contradicts ?? 0) > 0 ? ' has-contradicts' : ''}` },
        `Mover evidence: ${p.evidenceText}`,
        (p.contradicts ?? 0) > 0
          ? ` — ${p.contradicts} cell${p.contradicts === 1 ? '' : 's'} flagged ✗: the platform saw another mover carry the bytes than the label says, so ${p.contradicts === 1 ? 'its' : 'their'} GB/s is not this path's; left out of min, median, max and the weak pairs.`
          : null,
      )
    : null;
  const totalText = p.totalText ? el('p', { class: 'total-text' }, p.totalText) : null;
  const grid = p.gpuTotals
    ? el('div', { class: 'grid-and-totals' }, heatmap(p, detail), totalsTable(p))
    : heatmap(p, detail);
  return el(
    'section',
    { class: 'path', 'data-path': p.path },
    el('h2', {}, title),
    el('p', { class: 'weakest-text' }, p.weakestText),
    evidenceText,
    totalText,
    stats,
    legend(p),
    grid,
    detail,
  );
}

/** Every cell as rows, with the full error text of failed ones: the plain-table form. */
function cellTable(view: MatrixPageView): HTMLElement | null {
  const rows = view.paths.flatMap((p) =>
    p.rows
      .flat()
      .filter((c) => c.state !== 'self')
      .map((c) => ({ p, c })),
  );
  if (rows.length === 0) return null;
  return el(
    'details',
    { class: 'all-cells' },
    el('summary', {}, `All cells as a table (${rows.length})`),
    el(
      'table',
      { class: 'data-table' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['path', 'source', 'destination', 'GB/s', 'state', 'evidence'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        ...rows.map(({ p, c }) =>
          el(
            'tr',
            {},
            el('td', {}, p.label),
            el('td', { class: 'num' }, endpointName(c.src)),
            el('td', { class: 'num' }, endpointName(c.dst)),
            el('td', { class: 'num' }, c.gbps !== undefined ? formatGbps(c.gbps) : ''),
            el(
              'td',
              {},
              ...(c.state === 'failed'
                ? ['failed: ', bdi(c.error ?? '')]
                : [c.state === 'missing' ? 'not measured' : c.weakest ? 'measured (weak pair)' : 'measured']),
            ),
            c.state === 'measured'
              ? el(
                  'td',
                  {
                    class: `evidence evidence-${c.evidence?.state ?? 'not-recorded'}`,
                    title: c.evidence?.title ?? 'not recorded: the run was saved before the helper printed it',
                  },
                  c.evidence?.word ?? 'not recorded',
                )
              : el('td', {}),
          ),
        ),
      ),
    ),
  );
}

function render(view: MatrixPageView): void {
  shown = view;
  host.saveState({ runId: view.runId });
  tableActions.show(view.paths.some((p) => p.rows.some((r) => r.some((c) => c.state !== 'self'))));
  const notes = view.notes.length > 0 ? el('ul', { class: 'notes' }, ...view.notes.map((n) => el('li', {}, n))) : null;
  root.replaceChildren(
    ...[header(view), notes, tableActions.element, ...view.paths.map(pathSection), cellTable(view)].filter(
      (x): x is HTMLElement => x !== null,
    ),
  );
}

// The heat map is CSS: reading the theme sets the series colours (--series-*) it is drawn in, again on every theme change.
readTheme();
observeTheme(() => readTheme());
host.ready();
