/**
 * The chart set-up the sweep and collective pages share (both draw bandwidth against size with
 * chart.js): the registered parts, the size axis, the theme applied to axes and tooltips, and
 * a vertical marker. Sizes double along a sweep, so the x axis is log2(size) on a linear scale
 * rather than chart.js's logarithmic scale (base 10: its ticks would fall between samples).
 */
import {
  Chart,
  Filler,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartOptions,
} from 'chart.js';
import { formatBytes } from '../../src/core/units';
import { withAlpha, type Theme } from './theme';

// Legends are HTML on both pages, so chart.js's Legend plugin is not registered.
Chart.register(LineController, LineElement, PointElement, LinearScale, Filler, Tooltip);

export { Chart };

export interface XY {
  x: number;
  y: number;
}

const MAX_X_TICKS = 10;
/** Room left and right of the outermost sizes, in powers of two, so their markers are not clipped. */
const X_MARGIN = 0.25;

export function exponentTicks(min: number, max: number): number[] {
  const first = Math.ceil(min);
  const last = Math.floor(max);
  const step = Math.max(1, Math.ceil((last - first) / (MAX_X_TICKS - 1)));
  const ticks: number[] = [];
  for (let e = first; e <= last; e += step) ticks.push(e);
  return ticks;
}

export function fontOf(theme: Theme, sizeDeltaPx = 0, weight?: 'bold') {
  return { family: theme.fontFamily, size: theme.fontSizePx + sizeDeltaPx, ...(weight ? { weight } : {}) };
}

/** What both bandwidth charts set: no animation (streamed data redraws at once), sized by their box, data already in x/y form. */
export const BASE_OPTIONS = {
  animation: false,
  responsive: true,
  maintainAspectRatio: false,
  parsing: false,
  normalized: true,
  layout: { padding: { top: 4, right: 12 } },
} as const satisfies ChartOptions<'line'>;

/** The x (log2 of a size in bytes) and y (GB/s from zero) scales of a bandwidth chart. */
export function sizeScales(xTitle: string, yTitle: string): NonNullable<ChartOptions<'line'>['scales']> {
  return {
    x: {
      type: 'linear',
      title: { display: true, text: xTitle },
      afterBuildTicks: (scale) => {
        scale.ticks = exponentTicks(scale.min, scale.max).map((value) => ({ value }));
      },
      ticks: { callback: (value) => formatBytes(2 ** Number(value)), maxRotation: 0, autoSkip: false },
    },
    y: {
      type: 'linear',
      beginAtZero: true,
      grace: '5%',
      title: { display: true, text: yTitle },
      ticks: { callback: (value) => String(value) },
    },
  };
}

/** Fits the x axis to the sizes drawn (log2 values), with a margin; a default span when none. */
export function fitSizeAxis(chart: Chart<'line', XY[]>, xs: number[]): void {
  const x = chart.options.scales?.x;
  if (!x) return;
  if (xs.length === 0) {
    x.min = 12;
    x.max = 30;
    return;
  }
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  x.min = (hi > lo ? lo : lo - 1) - X_MARGIN;
  x.max = (hi > lo ? hi : hi + 1) + X_MARGIN;
}

/** VS Code's colours and font on the axes and the tooltip (re-applied when the theme changes). */
export function applyChartTheme(chart: Chart<'line', XY[]>, theme: Theme): void {
  const o = chart.options;
  const font = fontOf(theme);
  for (const axis of [o.scales?.x, o.scales?.y]) {
    if (!axis) continue;
    axis.grid = { color: theme.grid, tickColor: theme.grid };
    axis.border = { color: theme.border };
    axis.ticks = { ...axis.ticks, color: theme.mutedForeground, font: fontOf(theme, -1) };
    if ('title' in axis && axis.title) axis.title = { ...axis.title, color: theme.foreground, font };
  }
  const tooltip = o.plugins?.tooltip;
  if (tooltip) {
    tooltip.backgroundColor = theme.color('--vscode-editorHoverWidget-background', theme.background);
    tooltip.titleColor = theme.color('--vscode-editorHoverWidget-foreground', theme.foreground);
    tooltip.bodyColor = theme.color('--vscode-editorHoverWidget-foreground', theme.foreground);
    tooltip.borderColor = theme.color('--vscode-editorHoverWidget-border', theme.border);
    tooltip.borderWidth = 1;
    tooltip.titleFont = fontOf(theme, 0, 'bold');
    tooltip.bodyFont = font;
    tooltip.usePointStyle = true;
    tooltip.boxWidth = 8;
    tooltip.boxHeight = 8;
    tooltip.padding = 8;
  }
}

export interface SizeMarker {
  bytes: number;
  /** A shaded band over this size range (where the crossing can lie). */
  rangeBytes?: [number, number];
  label: string;
  dashed: boolean;
  /** Stacks labels of several markers. */
  row: number;
  color?: string;
}

/** A vertical line (and optional band) at a size, labelled at the top of the plot. */
export function drawSizeMarker(chart: Chart, theme: Theme, m: SizeMarker): void {
  const { ctx, chartArea, scales } = chart;
  const x = scales.x;
  if (!x) return;
  const px = x.getPixelForValue(Math.log2(m.bytes));
  if (px < chartArea.left || px > chartArea.right) return;
  ctx.save();
  ctx.font = `${theme.fontSizePx - 1}px ${theme.fontFamily}`;
  ctx.textBaseline = 'top';
  if (m.rangeBytes) {
    const lo = x.getPixelForValue(Math.log2(Math.max(1, m.rangeBytes[0])));
    const hi = x.getPixelForValue(Math.log2(Math.max(1, m.rangeBytes[1])));
    ctx.fillStyle = withAlpha(theme.foreground, 0.06);
    ctx.fillRect(lo, chartArea.top, Math.max(1, hi - lo), chartArea.bottom - chartArea.top);
  }
  ctx.strokeStyle = m.color ?? withAlpha(theme.foreground, theme.highContrast ? 0.9 : 0.55);
  ctx.setLineDash(m.dashed ? [6, 4] : []);
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(px, chartArea.top);
  ctx.lineTo(px, chartArea.bottom);
  ctx.stroke();
  ctx.fillStyle = m.color ?? theme.foreground;
  const width = ctx.measureText(m.label).width;
  const left = px + 4 + width > chartArea.right ? px - 4 - width : px + 4;
  ctx.fillText(m.label, left, chartArea.top + 4 + m.row * (theme.fontSizePx + 4));
  ctx.restore();
}
