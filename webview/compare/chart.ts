/**
 * The compare panel's two charts of one curve, with chart.js and the shared size axis:
 * bandwidth against size for A (the baseline, grey, dashed) and B (solid), each with its
 * spread as a shaded band; below it the ratio B/A with its interval as a band, a line at 1
 * and dashed lines at 1 ÷ and × (1 + the run-to-run tolerance) (through each point's where it
 * differs by size band), each point coloured by its verdict.
 */
import type { ChartDataset, Plugin, TooltipItem } from 'chart.js';
import type { CompareGroup, ComparePageView, GroupPoint } from '../../src/core/compare/compareMessages';
import { formatRatio } from '../../src/core/compare/compare';
import { percent } from '../../src/core/compare/noise';
import { formatBytes, formatGbps } from '../../src/core/units';
import { el } from '../shared/dom';
import { BASE_OPTIONS, Chart, applyChartTheme, fitSizeAxis, sizeScales, type XY } from '../shared/chart';
import { withAlpha, type Theme } from '../shared/theme';

export interface RunColors {
  a: string;
  b: string;
}

/** A grey baseline and a coloured run, so B reads as "the new one" in every theme (both as series colours: 3:1 against the background). */
export function runColors(theme: Theme): RunColors {
  return { a: theme.series(theme.mutedForeground), b: theme.chart.purple };
}

export function verdictColor(state: GroupPoint['state'], theme: Theme): string {
  if (state === 'regression') return theme.chart.red;
  if (state === 'improvement') return theme.chart.green;
  return theme.foreground;
}

export interface CompareChart {
  element: HTMLElement;
  draw(): Chart<'line', XY[]>;
}

const x = (p: GroupPoint) => Math.log2(p.sizeBytes);

interface Band {
  color: string;
  points: { x: number; lo: number; hi: number }[];
}

/** A band from the points' low and high values (those that have both). */
function band(
  points: GroupPoint[],
  low: (p: GroupPoint) => number | undefined,
  high: (p: GroupPoint) => number | undefined,
  color: string,
): Band {
  return {
    color,
    points: points
      .filter((p) => low(p) !== undefined && high(p) !== undefined)
      .map((p) => ({ x: x(p), lo: low(p)!, hi: high(p)! })),
  };
}

/**
 * Shaded bands drawn under the lines. A plugin rather than chart.js datasets: a band's edges
 * are not points, and as datasets they would take the tooltip's nearest-point search away
 * from the measured points.
 */
function bandsPlugin(id: string, bands: Band[]): Plugin<'line'> {
  return {
    id,
    beforeDatasetsDraw: (chart) => {
      const { ctx, chartArea, scales } = chart;
      const sx = scales.x;
      const sy = scales.y;
      if (!sx || !sy) return;
      ctx.save();
      ctx.beginPath();
      ctx.rect(chartArea.left, chartArea.top, chartArea.right - chartArea.left, chartArea.bottom - chartArea.top);
      ctx.clip();
      for (const b of bands) {
        if (b.points.length === 0) continue;
        ctx.fillStyle = withAlpha(b.color, 0.18);
        if (b.points.length === 1) {
          const p = b.points[0]!;
          const top = sy.getPixelForValue(p.hi);
          ctx.fillRect(sx.getPixelForValue(p.x) - 4, top, 8, sy.getPixelForValue(p.lo) - top);
          continue;
        }
        ctx.beginPath();
        b.points.forEach((p, i) =>
          i === 0
            ? ctx.moveTo(sx.getPixelForValue(p.x), sy.getPixelForValue(p.hi))
            : ctx.lineTo(sx.getPixelForValue(p.x), sy.getPixelForValue(p.hi)),
        );
        for (const p of [...b.points].reverse()) ctx.lineTo(sx.getPixelForValue(p.x), sy.getPixelForValue(p.lo));
        ctx.closePath();
        ctx.fill();
      }
      ctx.restore();
    },
  };
}

export function bandwidthChart(view: ComparePageView, group: CompareGroup, theme: Theme): CompareChart {
  const canvas = el('canvas', {
    role: 'img',
    'aria-label': `${group.label}: ${view.bandwidth} by size, A (${view.a.id}) and B (${view.b.id})`,
  });
  const element = el('div', { class: 'chart' }, canvas);
  const draw = () => {
    const colors = runColors(theme);
    const width = theme.highContrast ? 3 : 2;
    const on = (name: 'a' | 'b') => group.points.filter((p) => p[name] !== undefined);
    const line = (name: 'a' | 'b', color: string, dash: number[]): ChartDataset<'line', XY[]> => ({
      label: name.toUpperCase(),
      data: on(name).map((p) => ({ x: x(p), y: p[name]!.gbps })),
      borderColor: color,
      backgroundColor: color,
      borderWidth: width,
      borderDash: dash,
      pointRadius: 3,
      pointHoverRadius: 5,
      pointStyle: name === 'a' ? 'circle' : 'triangle',
      tension: 0,
      fill: false,
    });
    const spreads = (['a', 'b'] as const).map((name) =>
      band(
        on(name),
        (p) => p[name]!.gbpsLow,
        (p) => p[name]!.gbpsHigh,
        colors[name],
      ),
    );
    const chart = new Chart<'line', XY[]>(canvas, {
      type: 'line',
      data: { datasets: [line('a', colors.a, [6, 4]), line('b', colors.b, [])] },
      plugins: [bandsPlugin('compareSpreads', spreads)],
      options: {
        ...BASE_OPTIONS,
        interaction: { mode: 'nearest', intersect: false },
        scales: sizeScales('size', view.bandwidth),
        plugins: {
          tooltip: {
            callbacks: {
              title: () => '',
              label: (item: TooltipItem<'line'>) => {
                const name = item.dataset.label === 'A' ? 'a' : 'b';
                const p = on(name)[item.dataIndex];
                return p
                  ? `${name.toUpperCase()} ${formatBytes(p.sizeBytes)}: ${formatGbps(p[name]!.gbps)} ${view.bandwidth}`
                  : '';
              },
            },
          },
        },
      },
    });
    fitSizeAxis(chart, group.points.map(x));
    applyChartTheme(chart, theme);
    chart.update('none');
    return chart;
  };
  return { element, draw };
}

export function ratioChart(view: ComparePageView, group: CompareGroup, theme: Theme): CompareChart {
  const points = group.points.filter((p) => p.ratio !== undefined);
  const canvas = el('canvas', {
    role: 'img',
    'aria-label': `${group.label}: ratio B / A by size with its interval; ${points.map((p) => `${formatBytes(p.sizeBytes)} ${formatRatio({ ratio: p.ratio!, ...(p.interval ? { interval: p.interval } : {}) })} ${p.state}`).join(', ')}`,
  });
  const element = el('div', { class: 'chart ratio-chart' }, canvas);
  const draw = () => {
    const colors = runColors(theme);
    const color = points.map((p) => verdictColor(p.state, theme));
    const datasets: ChartDataset<'line', XY[]>[] = [
      {
        label: 'ratio',
        data: points.map((p) => ({ x: x(p), y: p.ratio! })),
        borderColor: withAlpha(theme.foreground, 0.5),
        borderWidth: 1,
        pointRadius: points.map((p) => (p.state === 'same' ? 3 : 5)),
        pointHoverRadius: 6,
        pointBorderColor: color,
        // Unknown noise is drawn hollow: a ratio with nothing to judge it against.
        pointBackgroundColor: points.map((p, i) => (p.state === 'unknown noise' ? 'transparent' : color[i]!)),
        pointBorderWidth: 2,
        tension: 0,
        fill: false,
      },
    ];
    const ones: Plugin<'line'> = {
      id: 'compareOne',
      beforeDatasetsDraw: (c) => {
        const y = c.scales.y;
        if (!y) return;
        const { ctx, chartArea } = c;
        const at = (value: number, dash: number[], alpha: number) => {
          const py = y.getPixelForValue(value);
          if (py < chartArea.top || py > chartArea.bottom) return;
          ctx.save();
          ctx.strokeStyle = withAlpha(theme.foreground, alpha);
          ctx.setLineDash(dash);
          ctx.beginPath();
          ctx.moveTo(chartArea.left, py);
          ctx.lineTo(chartArea.right, py);
          ctx.stroke();
          ctx.restore();
        };
        at(1, [], theme.highContrast ? 0.9 : 0.6);
        // The run-to-run tolerance: across the chart where it is one figure, else through each point's.
        const ts = points.map((p) => p.tolerance ?? view.tolerance);
        if (ts.every((t) => t === ts[0])) {
          if (ts[0]! > 0) for (const value of [1 / (1 + ts[0]!), 1 + ts[0]!]) at(value, [4, 4], 0.4);
          return;
        }
        const sx = c.scales.x;
        if (!sx) return;
        ctx.save();
        ctx.beginPath();
        ctx.rect(chartArea.left, chartArea.top, chartArea.right - chartArea.left, chartArea.bottom - chartArea.top);
        ctx.clip();
        ctx.strokeStyle = withAlpha(theme.foreground, 0.4);
        ctx.setLineDash([4, 4]);
        for (const edge of [(t: number) => 1 / (1 + t), (t: number) => 1 + t]) {
          ctx.beginPath();
          points.forEach((p, i) => {
            const px = sx.getPixelForValue(x(p));
            const py = y.getPixelForValue(edge(ts[i]!));
            if (i === 0) ctx.moveTo(px, py);
            else ctx.lineTo(px, py);
          });
          ctx.stroke();
        }
        ctx.restore();
      },
    };
    const tMax = Math.max(view.tolerance, ...points.map((p) => p.tolerance ?? 0));
    const values = points.flatMap((p) => [p.ratio!, ...(p.interval ?? [])]);
    const lo = Math.min(1 / (1 + tMax), ...values);
    const hi = Math.max(1 + tMax, ...values);
    const pad = Math.max((hi - lo) * 0.1, 0.002);
    const scales = sizeScales('size', 'ratio B / A');
    const chart = new Chart<'line', XY[]>(canvas, {
      type: 'line',
      data: { datasets },
      plugins: [
        bandsPlugin('compareIntervals', [
          band(
            points,
            (p) => p.interval?.[0],
            (p) => p.interval?.[1],
            colors.b,
          ),
        ]),
        ones,
      ],
      options: {
        ...BASE_OPTIONS,
        interaction: { mode: 'nearest', intersect: false },
        // Room for every interval and the tolerance lines; chart.js rounds the ends to its ticks.
        scales: {
          ...scales,
          y: {
            ...scales.y,
            beginAtZero: false,
            suggestedMin: lo - pad,
            suggestedMax: hi + pad,
            ticks: { callback: (v) => Number(v).toFixed(3) },
          },
        },
        plugins: {
          tooltip: {
            callbacks: {
              title: () => '',
              label: (item: TooltipItem<'line'>) => {
                const p = points[item.dataIndex];
                return p
                  ? `${formatBytes(p.sizeBytes)}: ${formatRatio({ ratio: p.ratio!, ...(p.interval ? { interval: p.interval } : {}) })}${p.tolerance !== undefined ? `, tolerance ${percent(p.tolerance)}` : ''} ${p.state}`
                  : '';
              },
            },
          },
        },
      },
    });
    fitSizeAxis(chart, group.points.map(x));
    applyChartTheme(chart, theme);
    chart.update('none');
    return chart;
  };
  return { element, draw };
}
