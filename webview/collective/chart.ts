/**
 * busbw against size for one operation, with chart.js and the sweep's shared chart set-up: one
 * line per variant and form (`curveStyle`: the default path blue, the engine variants orange
 * with dotted lines and square points; in-place the broken line of each), each engine variant's
 * crossover marked,
 * points where a variant ran another path than its own drawn as a larger red ring, a tooltip
 * per point.
 */
import type { ChartDataset, Plugin, TooltipItem } from 'chart.js';
import type { CollectiveCrossover, Curve, CurvePoint } from '../../src/core/collective/collectiveMessages';
import { transportMeaning } from '../../src/core/collective/transports';
import { formatBytes, formatDurationUs, formatGbps } from '../../src/core/units';
import { el } from '../shared/dom';
import {
  BASE_OPTIONS,
  Chart,
  applyChartTheme,
  drawSizeMarker,
  fitSizeAxis,
  sizeScales,
  type XY,
} from '../shared/chart';
import { moverColor, strokeOf, type PointStyle } from '../shared/pathColors';
import type { Theme } from '../shared/theme';

/**
 * A curve's colour, line and marker, as the sweep draws a path (pathColors.ts): the library's
 * default path as compute units (blue, circles), the copy-engine variants as the engine
 * (orange, squares); the in-place form as the broken line of the pair, as a device-started path;
 * `ce` long-dashed, apart from the GIN-SDMA variants beside it.
 */
export function curveStyle(
  curve: Pick<Curve, 'variant' | 'inPlace'>,
  theme: Theme,
): { color: string; dash: number[]; pointStyle: PointStyle } {
  const mover = curve.variant === 'default' ? 'cu' : 'engine';
  const stroke = strokeOf(mover, curve.inPlace ? 'device' : 'host');
  // Two engine variants share AMD's AlltoAll chart: the copy-engine collectives keep the
  // engine's colour and markers with a long-dashed line of their own.
  const dash = curve.variant === 'ce' ? (curve.inPlace ? [12, 3, 2, 3] : [12, 4]) : stroke.dash;
  return { color: moverColor(mover, theme), ...stroke, dash };
}

export function curveLabel(curve: Curve): string {
  return `${curve.variant}${curve.inPlace ? ' in-place' : ''}`;
}

/** What a point's tooltip says: its size, busbw, time and the path the library reported. */
export function pointText(curve: Curve, p: CurvePoint): string {
  const spread =
    p.busbwLowGbps !== undefined && p.busbwHighGbps !== undefined
      ? ` (repeats' quartiles ${formatGbps(p.busbwLowGbps)}..${formatGbps(p.busbwHighGbps)})`
      : '';
  const meaning = p.transport !== null ? transportMeaning(p.transport) : undefined;
  return `${curveLabel(curve)} ${formatBytes(p.sizeBytes)}: busbw ${formatGbps(p.busbwGbps)} GB/s${spread}, ${formatDurationUs(p.timeUs)}, path ${p.transport ?? 'not reported'}${meaning ? ` (${meaning})` : ''}${p.offPath ? ' (not the variant\u2019s path)' : ''}${p.wrong ? `, ${p.wrong} wrong` : ''}`;
}

export interface CollectiveChart {
  /** A figure-ready box holding the canvas; draw() once it is in the document. */
  element: HTMLElement;
  draw(): Chart<'line', XY[]>;
}

export function collectiveChart(
  op: string,
  curves: Curve[],
  crossovers: readonly CollectiveCrossover[],
  theme: Theme,
): CollectiveChart {
  const canvas = el('canvas', {
    role: 'img',
    'aria-label': `${op} busbw by size: ${curves.map(curveLabel).join(', ')}`,
  });
  const element = el('div', { class: 'chart' }, canvas);
  const draw = () => {
    const red = theme.chart.red;
    const datasets: ChartDataset<'line', XY[]>[] = curves.map((curve) => {
      const { color, dash, pointStyle } = curveStyle(curve, theme);
      return {
        label: curveLabel(curve),
        data: curve.points.map((p) => ({ x: Math.log2(p.sizeBytes), y: p.busbwGbps })),
        borderColor: color,
        backgroundColor: color,
        borderWidth: theme.highContrast ? 3 : 2,
        borderDash: dash,
        // An off-path point stays a ring, whatever the curve's marker.
        pointStyle: curve.points.map((p) => (p.offPath ? 'circle' : pointStyle)),
        pointRadius: curve.points.map((p) => (p.offPath ? 6 : 3)),
        pointHoverRadius: curve.points.map((p) => (p.offPath ? 8 : 5)),
        pointBorderWidth: curve.points.map((p) => (p.offPath ? 2 : 1)),
        pointBackgroundColor: curve.points.map((p) => (p.offPath ? 'transparent' : color)),
        pointBorderColor: curve.points.map((p) => (p.offPath ? red : color)),
        tension: 0,
        fill: false,
      };
    });
    const marker: Plugin<'line'> = {
      id: 'collectiveCrossover',
      afterDatasetsDraw: (chart) => {
        // One marker per engine variant that overtakes the default (ce and gin-sdma-lib on one AlltoAll), each on its own row.
        const placed = crossovers.filter((c) => c.kind === 'crossover' && c.fromBytes !== undefined);
        placed.forEach((crossover, row) =>
          drawSizeMarker(chart as unknown as Chart, theme, {
            bytes: crossover.fromBytes!,
            label: `${crossover.engineVariant} from ${formatBytes(crossover.fromBytes!)}`,
            dashed: true,
            row,
            color: theme.chart.green,
          }),
        );
      },
    };
    const chart = new Chart<'line', XY[]>(canvas, {
      type: 'line',
      data: { datasets },
      plugins: [marker],
      options: {
        ...BASE_OPTIONS,
        interaction: { mode: 'nearest', intersect: false },
        scales: sizeScales('size (bytes each rank receives)', 'busbw GB/s'),
        plugins: {
          tooltip: {
            callbacks: {
              title: () => '',
              label: (item: TooltipItem<'line'>) => {
                const curve = curves[item.datasetIndex];
                const point = curve?.points[item.dataIndex];
                return curve && point ? pointText(curve, point) : '';
              },
            },
          },
        },
      },
    });
    fitSizeAxis(
      chart,
      curves.flatMap((c) => c.points.map((p) => Math.log2(p.sizeBytes))),
    );
    applyChartTheme(chart, theme);
    chart.update('none');
    return chart;
  };
  return { element, draw };
}
