/**
 * The fleet panel's chart of one figure: every node's value as a point, lowest first (a strip
 * chart, so 1,000 nodes stay 1,000 points), the fleet's median as a dashed line, the outlier
 * nodes as larger triangles in the theme's red (shape and colour both, so the flag survives
 * a colour-blind reader and a high-contrast theme). chart.js through the shared set-up; the
 * canvas's aria-label says what a screen reader needs: the median and the outliers by name.
 */
import type { ChartDataset, Plugin, TooltipItem } from 'chart.js';
import type { FigureValue, FigureValues } from '../../src/core/fleet/fleetMessages';
import { formatBytes, formatGbps } from '../../src/core/units';
import { BASE_OPTIONS, Chart, applyChartTheme, type XY } from '../shared/chart';
import { el } from '../shared/dom';
import { withAlpha, type Theme } from '../shared/theme';

/** Node names under the points while they fit; beyond this the x axis counts nodes. */
const NAMED_NODES = 32;
/** Outliers the aria-label names one by one. */
const SPOKEN_OUTLIERS = 20;

export function valueText(unit: FigureValues['unit'], x: number): string {
  return unit === 'bytes' ? formatBytes(Math.round(x)) : `${formatGbps(x)} GB/s`;
}

function pct(d: number): string {
  const p = Math.round(d * 100);
  return `${p > 0 ? '+' : ''}${p}%`;
}

export function outlierColor(theme: Theme): string {
  return theme.chart.red;
}

export function nodeColor(theme: Theme): string {
  return theme.chart.blue;
}

/** What the chart says to a screen reader: the figure, how many nodes, the median, and each outlier with its value. */
export function chartLabel(f: FigureValues): string {
  const outliers = f.values.filter((v) => v.outlier);
  const named = outliers
    .slice(0, SPOKEN_OUTLIERS)
    .map((v) => `${v.node} ${valueText(f.unit, v.value)} (${pct(v.deviation)})`);
  const more = outliers.length > SPOKEN_OUTLIERS ? `, and ${outliers.length - SPOKEN_OUTLIERS} more` : '';
  const verdict = !f.judged
    ? 'too few nodes to judge outliers'
    : outliers.length === 0
      ? 'no outliers'
      : `${outliers.length} outlier${outliers.length === 1 ? '' : 's'}: ${named.join(', ')}${more}`;
  return `${f.label}: the value on each of ${f.values.length} nodes, lowest first; fleet median ${valueText(f.unit, f.median)}; ${verdict}`;
}

export interface FigureChart {
  element: HTMLElement;
  draw(): Chart<'line', XY[]>;
}

export function figureChart(f: FigureValues, theme: Theme): FigureChart {
  const canvas = el('canvas', { role: 'img', 'aria-label': chartLabel(f) });
  const element = el('div', { class: 'chart' }, canvas);
  const draw = () => {
    const normal: { at: number; v: FigureValue }[] = [];
    const flagged: { at: number; v: FigureValue }[] = [];
    f.values.forEach((v, at) => (v.outlier ? flagged : normal).push({ at, v }));
    const big = f.values.length > 200;
    const points = (list: typeof normal): XY[] => list.map((p) => ({ x: p.at, y: p.v.value }));
    const datasets: ChartDataset<'line', XY[]>[] = [
      {
        label: 'nodes',
        data: points(normal),
        showLine: false,
        pointStyle: 'circle',
        pointRadius: big ? 2 : 4,
        pointHoverRadius: 6,
        borderColor: nodeColor(theme),
        backgroundColor: nodeColor(theme),
        borderWidth: 1,
      },
      {
        label: 'outliers',
        data: points(flagged),
        showLine: false,
        pointStyle: 'triangle',
        pointRadius: big ? 6 : 8,
        pointHoverRadius: 9,
        borderColor: outlierColor(theme),
        backgroundColor: outlierColor(theme),
        borderWidth: theme.highContrast ? 2 : 1,
      },
    ];
    const byDataset = [normal, flagged];
    const median: Plugin<'line'> = {
      id: 'fleetMedian',
      beforeDatasetsDraw: (c) => {
        const y = c.scales.y;
        if (!y) return;
        const { ctx, chartArea } = c;
        const py = y.getPixelForValue(f.median);
        if (py < chartArea.top || py > chartArea.bottom) return;
        ctx.save();
        ctx.strokeStyle = withAlpha(theme.foreground, theme.highContrast ? 0.9 : 0.6);
        ctx.lineWidth = 1;
        ctx.setLineDash([6, 4]);
        ctx.beginPath();
        ctx.moveTo(chartArea.left, py);
        ctx.lineTo(chartArea.right, py);
        ctx.stroke();
        ctx.setLineDash([]);
        ctx.fillStyle = theme.foreground;
        ctx.font = `${theme.fontSizePx - 1}px ${theme.fontFamily}`;
        ctx.textBaseline = 'bottom';
        const text = `median ${valueText(f.unit, f.median)}`;
        // Nodes are sorted lowest first: the left end of the line is the clear one above it.
        ctx.fillText(text, chartArea.left + 4, py - 3);
        ctx.restore();
      },
    };
    const n = f.values.length;
    const named = n <= NAMED_NODES;
    const chart = new Chart<'line', XY[]>(canvas, {
      type: 'line',
      data: { datasets },
      plugins: [median],
      options: {
        ...BASE_OPTIONS,
        interaction: { mode: 'nearest', intersect: false },
        scales: {
          x: {
            type: 'linear',
            min: -0.5,
            max: Math.max(n - 0.5, 0.5),
            title: { display: true, text: `nodes, lowest first (${n})` },
            ...(named
              ? {
                  afterBuildTicks: (scale: { ticks: { value: number }[] }) =>
                    void (scale.ticks = f.values.map((_, i) => ({ value: i }))),
                }
              : {}),
            ticks: {
              autoSkip: !named,
              maxRotation: named ? 60 : 0,
              callback: (value) => {
                const i = Number(value);
                if (!Number.isInteger(i)) return '';
                return named ? (f.values[i]?.node ?? '') : String(i + 1);
              },
            },
          },
          y: {
            type: 'linear',
            beginAtZero: true,
            grace: '5%',
            title: { display: true, text: f.unit },
            ticks: { callback: (value) => (f.unit === 'bytes' ? formatBytes(Number(value)) : String(value)) },
          },
        },
        plugins: {
          tooltip: {
            callbacks: {
              title: () => '',
              label: (item: TooltipItem<'line'>) => {
                const p = byDataset[item.datasetIndex]?.[item.dataIndex];
                if (!p) return '';
                return `${p.v.node}: ${valueText(f.unit, p.v.value)} (${pct(p.v.deviation)} from the median, z ${p.v.z.toFixed(1)})${p.v.outlier ? ', outlier' : ''}`;
              },
            },
          },
        },
      },
    });
    applyChartTheme(chart, theme);
    chart.update('none');
    return chart;
  };
  return { element, draw };
}
