/** The words the panel uses for series and run states, in one place so chart, table and header agree. */
import type { SweepSeries } from '../../src/core/sweep/sweepView';
import type { PathStyle } from '../shared/pathColors';
import { moverOf, pathStyle, runtimeDefaultStyle } from '../shared/pathColors';
import { strokeSwatch } from '../shared/pathSwatch';
import { parseColor, toCss } from '../shared/colorMath';
import type { ChartHue, Theme } from '../shared/theme';

/** The series names the exported table uses too (core/tables/panelTables.ts), so both read alike. */
export { cuCountLabel, seriesLabel } from '../../src/core/sweep/sweepPanelTable';

/** A series' identity on the page: its whole key (path, CUs, waves, split, batch, rocSHMEM SDMA mode, runtime default) with its pair. */
export function seriesKey(series: Pick<SweepSeries, 'key'>): string {
  return series.key;
}

/**
 * The colours a path's further series take, in order, after its mover's own (pathColors.ts):
 * several series of one path at one CU count (1, 4, 16 waves per CU; 1 and 4 engines) keep the
 * path's line and marker and each get a colour of their own. Purple stays the runtime default's.
 */
const VARIANT_HUES: Record<'cu' | 'engine', ChartHue[]> = {
  cu: ['blue', 'green', 'red', 'yellow', 'orange'],
  engine: ['orange', 'red', 'green', 'yellow', 'blue'],
};

/**
 * Each series' place among the series of its path in `series` (the ones drawn together): 0 for
 * the first, which keeps its path's colour; the others a colour each (`seriesStyle`).
 */
export function seriesVariants(
  series: readonly Pick<SweepSeries, 'key' | 'path' | 'series' | 'src' | 'dst'>[],
): Map<string, number> {
  const seen = new Map<string, number>();
  const out = new Map<string, number>();
  for (const s of series) {
    const group = `${s.src}:${s.dst}|${s.path}|${s.series ?? ''}`;
    const n = seen.get(group) ?? 0;
    seen.set(group, n + 1);
    out.set(s.key, n);
  }
  return out;
}

/** `color` mixed halfway to `toward`: a second round of the hues, still told apart from the first. */
function shade(color: string, toward: string, theme: Theme): string {
  const c = parseColor(color);
  const t = parseColor(toward);
  if (!c || !t) return color;
  const mix = (a: number, b: number) => Math.round((a + b) / 2);
  return theme.series(toCss({ r: mix(c.r, t.r), g: mix(c.g, t.g), b: mix(c.b, t.b), a: 1 }));
}

/**
 * How a series is drawn: its path's line and marker, or the runtime-default series' own; the
 * `variant`-th series of a path (seriesVariants) in a colour of its own.
 */
export function seriesStyle(series: Pick<SweepSeries, 'path' | 'series'>, theme: Theme, variant = 0): PathStyle {
  if (series.series === 'runtime-default') return runtimeDefaultStyle(theme);
  const style = pathStyle(series.path, theme);
  if (variant === 0) return style;
  const hues = VARIANT_HUES[moverOf(series.path)];
  const hue = theme.chart[hues[variant % hues.length]!];
  const round = Math.floor(variant / hues.length);
  return {
    ...style,
    color: round === 0 ? hue : shade(hue, round % 2 === 1 ? theme.background : theme.foreground, theme),
  };
}

/** The swatch of a series (legend, table header). */
export function seriesSwatch(series: Pick<SweepSeries, 'path' | 'series'>, theme: Theme, variant = 0): SVGSVGElement {
  return strokeSwatch(seriesStyle(series, theme, variant), theme);
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
