/**
 * busbw against size for one operation: one line per variant and form, the crossover marked,
 * points where an engine variant ran another path ringed.
 */
import type { CollectiveCrossover, Curve } from '../../src/core/collective/collectiveMessages';
import { formatSize, svg } from './svg';

const WIDTH = 640;
const HEIGHT = 300;
const PAD = { left: 56, right: 16, top: 16, bottom: 40 };

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  return Math.ceil(value / step) * step;
}

export function collectiveChart(op: string, curves: Curve[], crossover: CollectiveCrossover | undefined): SVGSVGElement {
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart', role: 'img', 'aria-label': `${op} busbw by size` });
  const all = curves.flatMap((c) => c.points);
  if (all.length === 0) return root;
  const sizes = all.map((p) => p.sizeBytes);
  const lo = Math.log2(Math.min(...sizes));
  const hi = Math.max(lo + 1, Math.log2(Math.max(...sizes)));
  const yMax = niceMax(Math.max(...all.map((p) => p.busbwGbps)));
  const x = (bytes: number) => PAD.left + ((Math.log2(bytes) - lo) / (hi - lo)) * (WIDTH - PAD.left - PAD.right);
  const y = (gbps: number) => HEIGHT - PAD.bottom - (gbps / yMax) * (HEIGHT - PAD.top - PAD.bottom);

  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    root.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: 'grid' }));
    root.append(svg('text', { x: PAD.left - 6, y: y(v) + 4, class: 'tick', 'text-anchor': 'end' }, v.toFixed(0)));
  }
  const step = Math.max(1, Math.ceil((hi - lo) / 8));
  for (let e = Math.ceil(lo); e <= hi; e += step) {
    root.append(svg('text', { x: x(2 ** e), y: HEIGHT - PAD.bottom + 16, class: 'tick', 'text-anchor': 'middle' }, formatSize(2 ** e)));
  }
  root.append(svg('text', { x: 14, y: PAD.top + 4, class: 'axis', transform: `rotate(-90 14 ${PAD.top + 4})`, 'text-anchor': 'end' }, 'busbw GB/s'));
  root.append(svg('text', { x: WIDTH - PAD.right, y: HEIGHT - 4, class: 'axis', 'text-anchor': 'end' }, 'size (bytes each rank receives)'));

  if (crossover?.fromBytes !== undefined && crossover.kind === 'crossover') {
    const cx = x(crossover.fromBytes);
    root.append(svg('line', { x1: cx, x2: cx, y1: PAD.top, y2: HEIGHT - PAD.bottom, class: 'crossover' }));
    root.append(svg('text', { x: cx + 4, y: PAD.top + 12, class: 'crossover-label' }, `${crossover.engineVariant} from ${formatSize(crossover.fromBytes)}`));
  }

  for (const curve of curves) {
    const cls = `series variant-${curve.variant}${curve.inPlace ? ' in-place' : ''}`;
    const d = curve.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.sizeBytes).toFixed(1)},${y(p.busbwGbps).toFixed(1)}`).join(' ');
    root.append(svg('path', { d, class: cls }));
    for (const p of curve.points) {
      const dot = svg('circle', { cx: x(p.sizeBytes), cy: y(p.busbwGbps), r: p.offPath ? 5 : 3, class: `${cls} dot${p.offPath ? ' off-path' : ''}` });
      dot.append(svg('title', {}, `${curve.variant}${curve.inPlace ? ' in-place' : ''} ${formatSize(p.sizeBytes)}: busbw ${p.busbwGbps.toFixed(1)} GB/s, ${p.timeUs.toFixed(1)} us, path ${p.transport ?? 'not reported'}${p.offPath ? ' (not the variant\u2019s path)' : ''}${p.wrong ? `, ${p.wrong} wrong` : ''}`));
      root.append(dot);
    }
  }
  return root;
}
