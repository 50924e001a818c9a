/** Several series of one path drawn together (waves, engines, batches) each get a colour of their own. */
import { describe, expect, it } from 'vitest';
import { seriesKey, seriesStyle, seriesVariants } from '../../webview/sweep/labels';
import type { Theme } from '../../webview/shared/theme';
import type { SweepSeries } from '../../src/core/sweep/sweepView';

const chart = {
  blue: '#3794ff',
  orange: '#d18616',
  red: '#f14c4c',
  green: '#89d185',
  purple: '#b180d7',
  yellow: '#cca700',
};
const theme = {
  chart,
  background: '#1e1e1e',
  foreground: '#cccccc',
  series: (c: string) => c,
} as unknown as Theme;

const series = (path: SweepSeries['path'], key: string, src = 0, dst = 1): SweepSeries => ({
  key,
  path,
  src,
  dst,
  cus: 8,
  points: [],
});

describe('sweep series colours', () => {
  it('keeps the path colour for the first series of a path and gives each further one its own', () => {
    const shown = Array.from({ length: 12 }, (_, i) => series('cu/host', `cu/host ${i}`));
    const variants = seriesVariants(shown);
    expect(shown.map((s) => variants.get(seriesKey(s)))).toEqual([...Array(12).keys()]);
    const colours = shown.map((s) => seriesStyle(s, theme, variants.get(s.key)).color);
    expect(colours[0]).toBe(chart.blue);
    expect(new Set(colours).size).toBe(colours.length);
    // The line and marker stay the path's: the path still reads without colour.
    const strokes = new Set(shown.map((s) => JSON.stringify(seriesStyle(s, theme, variants.get(s.key)).dash)));
    expect(strokes.size).toBe(1);
  });

  it('counts variants per path and pair, and leaves the runtime default its purple', () => {
    const shown = [
      series('cu/host', 'a'),
      series('engine/host', 'b'),
      series('cu/host', 'c'),
      series('cu/host', 'd', 1, 0),
    ];
    const variants = seriesVariants(shown);
    expect([...variants.values()]).toEqual([0, 0, 1, 0]);
    expect(seriesStyle({ path: 'engine/host', series: 'runtime-default' }, theme, 3).color).toBe(chart.purple);
    expect(seriesStyle(series('engine/host', 'e'), theme, 0).color).toBe(chart.orange);
    expect(seriesStyle(series('engine/host', 'e'), theme, 1).color).not.toBe(chart.orange);
  });
});
