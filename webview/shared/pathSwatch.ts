/**
 * A small drawing of a path's line and marker, as the chart draws it: for legends and table
 * headers. SVG presentation attributes, not style attributes, so the panel's CSP allows it.
 */
import type { PathName } from '../../src/core/protocol';
import { pathStyle } from './pathColors';
import type { Theme } from './theme';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 28;
const HEIGHT = 12;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

export function pathSwatch(path: PathName, theme: Theme): SVGSVGElement {
  const style = pathStyle(path, theme);
  const width = theme.highContrast ? 3 : 2;
  const root = svg('svg', { width: WIDTH, height: HEIGHT, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'path-swatch', 'aria-hidden': 'true', focusable: 'false' });
  root.append(svg('line', { x1: 1, y1: HEIGHT / 2, x2: WIDTH - 1, y2: HEIGHT / 2, stroke: style.color, 'stroke-width': width, 'stroke-dasharray': style.dash.join(' ') || 'none' }));
  const cx = WIDTH / 2;
  const cy = HEIGHT / 2;
  const marker =
    style.pointStyle === 'triangle'
      ? svg('polygon', { points: `${cx},${cy - 4.5} ${cx + 4.5},${cy + 3.5} ${cx - 4.5},${cy + 3.5}`, fill: style.color })
      : svg('circle', { cx, cy, r: 3.5, fill: style.color });
  root.append(marker);
  return root;
}
