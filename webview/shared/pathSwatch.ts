/**
 * A small drawing of a path's line and marker, as the chart draws it (pathColors.ts): for
 * legends and table headers. SVG presentation attributes, not style attributes, so the
 * panel's CSP allows it.
 */
import type { PathName } from '../../src/core/protocol';
import { pathStyle, type PointStyle } from './pathColors';
import type { Theme } from './theme';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 44;
const HEIGHT = 12;

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/** The marker of a point style, centred on (cx, cy), as chart.js draws it. */
function marker(style: PointStyle, cx: number, cy: number, fill: string): SVGElement {
  const r = 3.5;
  if (style === 'circle') return svg('circle', { cx, cy, r, fill });
  const points = (pts: [number, number][]) =>
    svg('polygon', { points: pts.map(([x, y]) => `${cx + x},${cy + y}`).join(' '), fill });
  if (style === 'triangle')
    return points([
      [0, -4.5],
      [4.5, 3.5],
      [-4.5, 3.5],
    ]);
  if (style === 'rectRot')
    return points([
      [0, -4.5],
      [4.5, 0],
      [0, 4.5],
      [-4.5, 0],
    ]);
  return points([
    [-r, -r],
    [r, -r],
    [r, r],
    [-r, r],
  ]);
}

export function pathSwatch(path: PathName, theme: Theme): SVGSVGElement {
  return strokeSwatch(pathStyle(path, theme), theme);
}

/** The swatch of any line and marker (a collective's variant and form: pathColors.ts `strokeOf`). */
export function strokeSwatch(
  style: { color: string; dash: number[]; pointStyle: PointStyle },
  theme: Theme,
): SVGSVGElement {
  const width = theme.highContrast ? 3 : 2;
  const root = svg('svg', {
    width: WIDTH,
    height: HEIGHT,
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'path-swatch',
    'aria-hidden': 'true',
    focusable: 'false',
  });
  const cx = WIDTH / 2;
  const cy = HEIGHT / 2;
  // The pattern is centred on the marker at the middle of what follows its first dash (a gap, or
  // an engine line's dot), so a whole dash shows on either side of the marker, then the rest.
  const period = style.dash.reduce((a, b) => a + b, 0);
  const centre = period > 0 ? style.dash[0]! + (period - style.dash[0]!) / 2 : 0;
  const offset = period > 0 ? (((centre - (cx - 1)) % period) + period) % period : 0;
  root.append(
    svg('line', {
      x1: 1,
      y1: cy,
      x2: WIDTH - 1,
      y2: cy,
      stroke: style.color,
      'stroke-width': width,
      'stroke-dasharray': style.dash.join(' ') || 'none',
      'stroke-dashoffset': offset,
    }),
  );
  root.append(marker(style.pointStyle, cx, cy, style.color));
  return root;
}
