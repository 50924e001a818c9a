/** The words the panel uses for series and run states, in one place so chart, table and header agree. */
import type { SweepSeries } from '../../src/core/sweep/sweepView';
import type { PathStyle } from '../shared/pathColors';
import { pathStyle, runtimeDefaultStyle } from '../shared/pathColors';
import { strokeSwatch } from '../shared/pathSwatch';
import type { Theme } from '../shared/theme';

/** The series names the exported table uses too (core/tables/panelTables.ts), so both read alike. */
export { cuCountLabel, seriesLabel } from '../../src/core/sweep/sweepPanelTable';

export function seriesKey(series: Pick<SweepSeries, 'path' | 'cus' | 'series'>): string {
  return series.series ? `${series.path}#${series.series}` : `${series.path}#${series.cus}`;
}

/** How a series is drawn: its path's line and marker, or the runtime-default series' own. */
export function seriesStyle(series: Pick<SweepSeries, 'path' | 'series'>, theme: Theme): PathStyle {
  return series.series === 'runtime-default' ? runtimeDefaultStyle(theme) : pathStyle(series.path, theme);
}

/** The swatch of a series (legend, table header). */
export function seriesSwatch(series: Pick<SweepSeries, 'path' | 'series'>, theme: Theme): SVGSVGElement {
  return strokeSwatch(seriesStyle(series, theme), theme);
}

export type StatusTone = 'busy' | 'ok' | 'error' | 'muted';

const STATUS: Record<string, { text: string; tone: StatusTone }> = {
  running: { text: 'Running', tone: 'busy' },
  incomplete: { text: 'Incomplete', tone: 'muted' },
  ok: { text: 'Completed', tone: 'ok' },
  error: { text: 'Failed', tone: 'error' },
  cancelled: { text: 'Cancelled', tone: 'muted' },
  crashed: { text: 'Helper crashed', tone: 'error' },
};

export function statusText(status: string): { text: string; tone: StatusTone } {
  return STATUS[status] ?? { text: status, tone: 'muted' };
}
