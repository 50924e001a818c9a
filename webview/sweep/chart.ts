/**
 * Bandwidth against message size. Created once; every host update replaces the data and calls
 * `update('none')`, so streaming samples redraw without rebuilding the chart or animating. The
 * axes, theme and markers are the shared chart set-up (../shared/chart.ts).
 */
import type { ChartDataset, Plugin, TooltipItem } from 'chart.js';
import { formatBytes, formatGbps } from '../../src/core/units';
import type { SweepPoint, SweepSeries } from '../../src/core/sweep/sweepView';
import {
  BASE_OPTIONS,
  Chart,
  applyChartTheme,
  drawSizeMarker,
  fitSizeAxis,
  sizeScales,
  type XY,
} from '../shared/chart';
import { withAlpha, type Theme } from '../shared/theme';
import { evidenceLine } from './evidence';
import { seriesKey, seriesLabel, seriesStyle, seriesVariants } from './labels';

const flagged = (p: SweepPoint) => p.evidence?.state === 'contradicts';

/** A sweep point picked on the chart. */
export interface SeriesPick {
  sizeBytes: number;
  path: SweepSeries['path'];
  cus: number;
}

/** What each chart.js dataset stands for: the series line, or one edge of its min..max band. */
interface Role {
  key: string;
  kind: 'line' | 'band-high' | 'band-low';
  points: SweepPoint[];
}

export interface CrossoverMarker {
  initiator: 'host' | 'device';
  bytes: number;
  rangeBytes?: [number, number];
}

export class SweepChart {
  private readonly chart: Chart<'line', XY[]>;
  private roles: Role[] = [];
  private datasets = new Map<string, ChartDataset<'line', XY[]>>();
  private series: SweepSeries[] = [];
  private hiddenKeys: ReadonlySet<string> = new Set();
  private simulated = false;
  private theme: Theme;
  private markers: CrossoverMarker[] = [];

  /** `onPick`: a click on the chart picks the series point nearest to it (opens its timeline). */
  constructor(canvas: HTMLCanvasElement, theme: Theme, onPick?: (pick: SeriesPick) => void) {
    this.theme = theme;
    const watermark: Plugin<'line'> = {
      id: 'simulatedWatermark',
      beforeDatasetsDraw: (chart) => this.drawWatermark(chart),
    };
    const crossovers: Plugin<'line'> = {
      id: 'crossoverMarkers',
      afterDatasetsDraw: (chart) => this.drawMarkers(chart),
    };
    this.chart = new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [watermark, crossovers],
      options: {
        ...BASE_OPTIONS,
        interaction: { mode: 'index', intersect: false, axis: 'x' },
        onClick: (event) => {
          const pick = event.native ? this.pickAt(event.native) : undefined;
          if (pick && onPick) onPick(pick);
        },
        onHover: (event, elements) => {
          if (onPick && event.native?.target instanceof HTMLElement)
            event.native.target.style.cursor = elements.length > 0 ? 'pointer' : 'default';
        },
        scales: sizeScales('message size', 'GB/s'),
        plugins: {
          tooltip: {
            filter: (item) => this.roleOf(item.datasetIndex)?.kind === 'line',
            // Fastest first: the question at any size is which path wins.
            itemSort: (a, b) => (b.parsed.y ?? 0) - (a.parsed.y ?? 0),
            callbacks: {
              title: (items) => (items[0] ? formatBytes(2 ** items[0].parsed.x!) : ''),
              label: (item) => this.tooltipLabel(item),
              // What moved the point's bytes, under its figure.
              afterLabel: (item) => this.tooltipEvidence(item),
            },
          },
        },
      },
    });
    this.applyTheme(theme);
  }

  /** Replaces what is drawn. `series` is already filtered to the selected CU count; `hidden` holds series keys. */
  setData(series: SweepSeries[], simulated: boolean, hidden: ReadonlySet<string>): void {
    this.series = series;
    this.simulated = simulated;
    this.hiddenKeys = hidden;
    this.rebuildDatasets();
    this.chart.update('none');
  }

  /** Vertical marks where the engine path overtakes the load/store path (from the advice). */
  setCrossovers(markers: CrossoverMarker[]): void {
    if (JSON.stringify(markers) === JSON.stringify(this.markers)) return;
    this.markers = markers;
    this.chart.update('none');
  }

  setTheme(theme: Theme): void {
    this.applyTheme(theme);
    this.rebuildDatasets();
    this.chart.update('none');
  }

  /** The visible line point nearest to a click: the size of the column, the series closest in y. */
  private pickAt(native: Event): SeriesPick | undefined {
    const hits = this.chart.getElementsAtEventForMode(native, 'index', { intersect: false, axis: 'x' }, false);
    const y = native instanceof MouseEvent ? native.offsetY : 0;
    let best: SeriesPick | undefined;
    let bestDistance = Infinity;
    for (const hit of hits) {
      const role = this.roleOf(hit.datasetIndex);
      const series = role?.kind === 'line' ? this.series.find((s) => seriesKey(s) === role.key) : undefined;
      const point = role?.points[hit.index];
      // The runtime-default series has no timeline of its own: the helper's timeline is of its own paths.
      if (!series || series.series || !point || this.hiddenKeys.has(role!.key)) continue;
      const distance = Math.abs(hit.element.y - y);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = { sizeBytes: point.sizeBytes, path: series.path, cus: series.cus };
      }
    }
    return best;
  }

  private roleOf(datasetIndex: number | undefined): Role | undefined {
    return datasetIndex === undefined ? undefined : this.roles[datasetIndex];
  }

  private tooltipLabel(item: TooltipItem<'line'>): string {
    const role = this.roleOf(item.datasetIndex);
    const point = role?.points[item.dataIndex];
    if (!point) return '';
    const flag = point.evidence?.state === 'contradicts' ? '  ✗ contradicts its label' : '';
    return `${item.dataset.label}: ${formatGbps(point.gbps)} GB/s  (${formatGbps(point.gbpsLow)}–${formatGbps(point.gbpsHigh)})${flag}`;
  }

  private tooltipEvidence(item: TooltipItem<'line'>): string {
    const point = this.roleOf(item.datasetIndex)?.points[item.dataIndex];
    return point ? evidenceLine(point) : '';
  }

  /**
   * Builds the datasets for the current series. The dataset object of a series and role is
   * reused across updates, so chart.js keeps its controllers and elements and only updates them.
   */
  private rebuildDatasets(): void {
    type Dataset = ChartDataset<'line', XY[]>;
    const next = new Map<string, Dataset>();
    const reuse = (id: string, props: Dataset): Dataset => {
      const dataset = Object.assign(this.datasets.get(id) ?? { data: [] }, props);
      next.set(id, dataset);
      return dataset;
    };
    const lines: Dataset[] = [];
    const bands: Dataset[] = [];
    const lineRoles: Role[] = [];
    const bandRoles: Role[] = [];
    const t = this.theme;
    const variants = seriesVariants(this.series);
    for (const s of this.series) {
      const key = seriesKey(s);
      const hidden = this.hiddenKeys.has(key);
      const style = seriesStyle(s, t, variants.get(key));
      const at = (pick: (p: SweepPoint) => number) => s.points.map((p) => ({ x: Math.log2(p.sizeBytes), y: pick(p) }));
      lines.push(
        reuse(`${key}|line`, {
          label: seriesLabel(s),
          data: at((p) => p.gbps),
          hidden,
          borderColor: style.color,
          backgroundColor: style.color,
          borderWidth: t.highContrast ? 3 : 2,
          borderDash: style.dash,
          // Refined points stand out: larger, with a ring, even where the grid's points are hidden;
          // a sample whose evidence contradicts its label larger still, as a cross.
          pointRadius: s.points.map((p) => (flagged(p) ? 7 : p.refined ? 5 : s.points.length > 24 ? 0 : 3)),
          pointBorderWidth: s.points.map((p) => (flagged(p) ? 3 : p.refined ? 2 : 1)),
          pointStyle: s.points.map((p) => (flagged(p) ? 'crossRot' : style.pointStyle)),
          pointHoverRadius: 5,
          pointBackgroundColor: style.color,
          pointBorderColor: style.color,
          tension: 0,
          fill: false,
          order: 0,
        }),
      );
      lineRoles.push({ key, kind: 'line', points: s.points });
      const band = {
        hidden,
        borderWidth: 0,
        pointRadius: 0,
        pointHoverRadius: 0,
        pointHitRadius: 0,
        backgroundColor: withAlpha(style.color, t.highContrast ? 0.3 : 0.16),
        tension: 0,
        order: 1,
      } satisfies Partial<Dataset>;
      bands.push(
        reuse(`${key}|high`, { ...band, label: `${seriesLabel(s)} fastest`, data: at((p) => p.gbpsHigh), fill: false }),
        reuse(`${key}|low`, { ...band, label: `${seriesLabel(s)} slowest`, data: at((p) => p.gbpsLow), fill: false }),
      );
      bandRoles.push({ key, kind: 'band-high', points: s.points }, { key, kind: 'band-low', points: s.points });
    }
    // The high edge fills down to its low edge, which sits right after it.
    bands.forEach((band, i) => {
      if (i % 2 === 0) band.fill = { target: lines.length + i + 1 };
    });
    this.datasets = next;
    this.roles = [...lineRoles, ...bandRoles];
    this.chart.data.datasets = [...lines, ...bands];
    this.fitX();
  }

  private fitX(): void {
    fitSizeAxis(
      this.chart,
      this.series.flatMap((s) => s.points.map((p) => Math.log2(p.sizeBytes))),
    );
  }

  private applyTheme(theme: Theme): void {
    this.theme = theme;
    applyChartTheme(this.chart, theme);
  }

  private drawMarkers(chart: Chart): void {
    if (this.series.length === 0) return;
    this.markers.forEach((m, i) =>
      drawSizeMarker(chart, this.theme, {
        bytes: m.bytes,
        ...(m.rangeBytes ? { rangeBytes: m.rangeBytes } : {}),
        label: `${m.initiator} crossover ≈ ${formatBytes(Math.round(m.bytes))}`,
        dashed: m.initiator === 'device',
        row: i,
      }),
    );
  }

  /** Simulated numbers must never pass for a measurement, even in a cropped screenshot. */
  private drawWatermark(chart: Chart): void {
    // With no data the empty-state message sits where the mark would.
    if (!this.simulated || this.series.length === 0) return;
    const { ctx, chartArea } = chart;
    const size = Math.max(18, Math.min(56, chartArea.width / 11));
    ctx.save();
    ctx.font = `bold ${size}px ${this.theme.fontFamily}`;
    ctx.fillStyle = withAlpha(this.theme.foreground, this.theme.highContrast ? 0.12 : 0.07);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('SIMULATED', (chartArea.left + chartArea.right) / 2, (chartArea.top + chartArea.bottom) / 2);
    ctx.restore();
  }
}
