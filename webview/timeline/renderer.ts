/**
 * Draws one frame on a 2D canvas: lane gutter, time ruler, the level-of-detail result of the
 * worker (mapped to the current window, so a pan or zoom redraws at once while the worker
 * computes the next level), selection and its related events, the measured range. A box the
 * hardware did not report (inferred) is drawn hatched in its own colour with an outline, a
 * doorbell hollow.
 *
 * Rectangles are batched by fill style: a frame sets a handful of styles and then issues
 * plain fillRect calls, which is what keeps a frame within a few milliseconds.
 */
import { PACKET_OPS, PATHS } from '../../src/core/protocol';
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { escapeControls } from '../../src/core/text';
import { isInferred, labelOf } from '../../src/core/timeline/timelineFile';
import type { LodResult, RangeMeasure } from '../../src/core/timeline/timelineLod';
import { LOD_LEVELS, visibleStartNs } from '../../src/core/timeline/timelineLod';
import type { TimelineIndex } from '../../src/core/timeline/timelineModel';
import { KIND_CU, KIND_DOORBELL, KIND_KERNEL, KIND_PACKET, KIND_PROXY } from '../../src/core/timeline/timelineModel';
import { formatBytes, formatDuration, formatGbps } from '../../src/core/units';
import { initiatorOf, pathStyle } from '../shared/pathColors';
import type { Theme } from '../shared/theme';
import { withAlpha } from '../shared/theme';
import type { Layout, Row } from './layout';
import { formatTick, tickStepNs } from './timeFormat';

export const GUTTER_PX = 190;
export const RULER_PX = 28;

export interface Palette {
  path: string[];
  /** [path][level]: run fills by occupancy step. */
  runs: string[][];
  kernel: string[];
  queued: string[];
  hatch: CanvasPattern | string;
  /** The fill of an inferred box of this colour: stripes in the colour on a faint wash of it. */
  inferred(color: string): CanvasPattern | string;
  doorbell: string;
  proxy: string;
  special: string;
  foreground: string;
  muted: string;
  background: string;
  gutter: string;
  laneAlt: string;
  grid: string;
  border: string;
  selection: string;
  related: string;
  measure: string;
  measureEdge: string;
  font: string;
  smallFont: string;
  highContrast: boolean;
}

export function makePalette(theme: Theme, ctx: CanvasRenderingContext2D): Palette {
  const path = PATHS.map((p) => pathStyle(p, theme).color);
  const hc = theme.highContrast;
  const runs = path.map((c) =>
    Array.from({ length: LOD_LEVELS + 1 }, (_, level) =>
      withAlpha(c, level === 0 ? 0.9 : 0.18 + (0.82 * level) / LOD_LEVELS),
    ),
  );
  // Device-initiated spans carry diagonal stripes, the timeline's version of the sweep chart's dashes.
  const tile = document.createElement('canvas');
  tile.width = 8;
  tile.height = 8;
  const t = tile.getContext('2d');
  let hatch: CanvasPattern | string = 'transparent';
  if (t) {
    t.strokeStyle = withAlpha(theme.background, hc ? 0.9 : 0.55);
    t.lineWidth = 2;
    t.beginPath();
    t.moveTo(-2, 10);
    t.lineTo(10, -2);
    t.moveTo(6, 10);
    t.lineTo(10, 6);
    t.moveTo(-2, 2);
    t.lineTo(2, -2);
    t.stroke();
    hatch = ctx.createPattern(tile, 'repeat') ?? 'transparent';
  }
  const focus = theme.color('--vscode-focusBorder', '#0078d4');
  // Inferred boxes: stripes the other way round from the device-initiated ones, in the box's
  // own colour, so the two marks read apart and either reads on any theme's background.
  const inferredFills = new Map<string, CanvasPattern | string>();
  const inferred = (color: string): CanvasPattern | string => {
    let fill = inferredFills.get(color);
    if (fill !== undefined) return fill;
    fill = withAlpha(color, 0.3);
    const tileCanvas = document.createElement('canvas');
    tileCanvas.width = 8;
    tileCanvas.height = 8;
    const g = tileCanvas.getContext('2d');
    if (g) {
      g.fillStyle = withAlpha(color, hc ? 0 : 0.14);
      g.fillRect(0, 0, 8, 8);
      g.strokeStyle = color;
      g.lineWidth = hc ? 2 : 1.5;
      g.beginPath();
      g.moveTo(-2, -2);
      g.lineTo(10, 10);
      g.moveTo(-2, 6);
      g.lineTo(2, 10);
      g.moveTo(6, -2);
      g.lineTo(10, 2);
      g.stroke();
      fill = ctx.createPattern(tileCanvas, 'repeat') ?? fill;
    }
    inferredFills.set(color, fill);
    return fill;
  };
  return {
    path,
    runs,
    kernel: path.map((c) => withAlpha(c, hc ? 0.5 : 0.38)),
    queued: path.map((c) => withAlpha(c, hc ? 0.6 : 0.35)),
    hatch,
    inferred,
    doorbell: theme.chart.yellow,
    proxy: theme.chart.purple,
    special: theme.chart.purple,
    foreground: theme.foreground,
    muted: theme.mutedForeground,
    background: theme.background,
    gutter: theme.color('--vscode-editorWidget-background', theme.background),
    laneAlt: withAlpha(theme.foreground, hc ? 0 : 0.03),
    grid: theme.grid,
    border: theme.border,
    selection: hc ? theme.color('--vscode-contrastActiveBorder', focus) : focus,
    related: theme.chart.yellow,
    measure: withAlpha(focus, 0.14),
    measureEdge: focus,
    font: `${theme.fontSizePx - 1}px ${theme.fontFamily}`,
    smallFont: `${theme.fontSizePx - 2}px ${theme.fontFamily}`,
    highContrast: hc,
  };
}

export interface Scene {
  widthPx: number;
  heightPx: number;
  startNs: number;
  endNs: number;
  scrollY: number;
  layout: Layout;
  /** The events drawn one by one (the level-of-detail answer's and the selection's): read by event index. */
  columns: TimelineColumns;
  /** The lanes and occupancy strips, and the lane of each event drawn one by one. */
  index: Pick<TimelineIndex, 'laneOf' | 'heat' | 'lanes'>;
  result: LodResult | undefined;
  selected: number;
  related: number[];
  doorbell: number;
  measure: { fromNs: number; toNs: number; result?: RangeMeasure } | undefined;
  hoverX: number | undefined;
  focusRow: number;
  /** Whether the canvas has keyboard focus: the focused lane is outlined only then. */
  keyboardFocus: boolean;
  simulated: boolean;
}

export function plotWidth(widthPx: number): number {
  return Math.max(1, widthPx - GUTTER_PX);
}

export function timeToX(scene: Pick<Scene, 'startNs' | 'endNs' | 'widthPx'>, ns: number): number {
  return GUTTER_PX + ((ns - scene.startNs) / (scene.endNs - scene.startNs)) * plotWidth(scene.widthPx);
}

export function xToTime(scene: Pick<Scene, 'startNs' | 'endNs' | 'widthPx'>, x: number): number {
  return scene.startNs + ((x - GUTTER_PX) / plotWidth(scene.widthPx)) * (scene.endNs - scene.startNs);
}

function eventLabel(t: TimelineColumns, e: number): string {
  const kind = t.kind[e];
  const bytes = t.bytes[e]! > 0 ? ` ${formatBytes(t.bytes[e]!)}` : '';
  // A kernel name or copy label is the run's: drawn on the canvas (no element to isolate it in) with its controls and bidi marks escaped.
  const label = labelOf(t, e);
  const name = label === undefined ? undefined : escapeControls(label);
  if (name !== undefined) return kind === KIND_KERNEL ? name : `${name}${bytes}`;
  if (kind === KIND_PACKET) return `${PACKET_OPS[t.op[e]!] ?? 'packet'}${bytes}`;
  if (kind === KIND_KERNEL) return `${PATHS[t.path[e]!] ?? ''} kernel${bytes}`;
  if (kind === KIND_PROXY) return 'proxy';
  return bytes.trim();
}

export function draw(ctx: CanvasRenderingContext2D, scene: Scene, p: Palette): void {
  const { widthPx, heightPx, layout } = scene;
  const plotTop = RULER_PX;
  ctx.save();
  ctx.fillStyle = p.background;
  ctx.fillRect(0, 0, widthPx, heightPx);

  const visible = layout.rows.filter((r) => r.y + r.h > scene.scrollY && r.y - scene.scrollY < heightPx - plotTop);
  const rowTop = (r: Row) => plotTop + r.y - scene.scrollY;
  const x = (ns: number) => timeToX(scene, ns);

  // Lane backgrounds and grid.
  visible.forEach((r) => {
    if (r.kind === 'group') {
      ctx.fillStyle = p.gutter;
      ctx.fillRect(0, rowTop(r), widthPx, r.h);
    } else if (r.kind === 'lane' && (layout.rows.indexOf(r) & 1) === 1) {
      ctx.fillStyle = p.laneAlt;
      ctx.fillRect(GUTTER_PX, rowTop(r), widthPx - GUTTER_PX, r.h);
    }
  });
  const step = tickStepNs(scene.endNs - scene.startNs, plotWidth(widthPx));
  const firstTick = Math.ceil(scene.startNs / step) * step;
  ctx.fillStyle = p.grid;
  for (let tick = firstTick; tick <= scene.endNs; tick += step)
    ctx.fillRect(Math.round(x(tick)), plotTop, 1, heightPx - plotTop);

  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER_PX, plotTop, widthPx - GUTTER_PX, heightPx - plotTop);
  ctx.clip();
  if (scene.simulated) drawWatermark(ctx, scene, p);
  if (scene.result) drawResult(ctx, scene, p, rowTop);
  drawSelection(ctx, scene, p, rowTop);
  if (scene.measure) {
    const a = x(Math.min(scene.measure.fromNs, scene.measure.toNs));
    const b = x(Math.max(scene.measure.fromNs, scene.measure.toNs));
    ctx.fillStyle = p.measure;
    ctx.fillRect(a, plotTop, Math.max(1, b - a), heightPx - plotTop);
    ctx.fillStyle = p.measureEdge;
    ctx.fillRect(a, plotTop, 1, heightPx - plotTop);
    ctx.fillRect(b, plotTop, 1, heightPx - plotTop);
  }
  if (scene.hoverX !== undefined && scene.hoverX >= GUTTER_PX) {
    ctx.fillStyle = withAlpha(p.foreground, 0.35);
    ctx.fillRect(Math.round(scene.hoverX), plotTop, 1, heightPx - plotTop);
  }
  ctx.restore();

  drawGutter(ctx, scene, p, visible, rowTop);
  drawRuler(ctx, scene, p, step, firstTick);
  ctx.restore();
}

function drawWatermark(ctx: CanvasRenderingContext2D, scene: Scene, p: Palette): void {
  const w = scene.widthPx - GUTTER_PX;
  const size = Math.max(18, Math.min(56, w / 11));
  ctx.font = `bold ${size}px ${p.font.replace(/^\S+\s/, '')}`;
  ctx.fillStyle = withAlpha(p.foreground, p.highContrast ? 0.12 : 0.06);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText('SIMULATED', GUTTER_PX + w / 2, RULER_PX + (scene.heightPx - RULER_PX) / 2);
}

function drawResult(ctx: CanvasRenderingContext2D, scene: Scene, p: Palette, rowTop: (r: Row) => number): void {
  const r = scene.result!;
  const { layout, columns: t } = scene;
  const nsPerBucket = (r.endNs - r.startNs) / r.buckets;
  const x = (ns: number) => timeToX(scene, ns);
  const top = RULER_PX;
  const bottom = scene.heightPx;
  const runs = r.runs;

  // Runs grouped by fill: one fillStyle per (path, level, inferred) actually present. Inferred
  // runs are hatched whatever their occupancy: what they sum was not reported.
  const groups = new Map<number, number[]>();
  for (let i = 0; i < runs.lane.length; i++) {
    const key = (runs.inferred[i]! ? 256 : 0) + runs.path[i]! * 16 + runs.level[i]!;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(i);
  }
  for (const [key, list] of groups) {
    const path = (key >> 4) & 15;
    const level = key & 15;
    ctx.fillStyle = key >= 256 ? p.inferred(p.path[path]!) : p.runs[path]![level]!;
    for (const i of list) {
      const row = layout.rowOfLane.get(runs.lane[i]!);
      if (!row) continue;
      const y = rowTop(row);
      if (y + row.h < top || y > bottom) continue;
      const x0 = x(r.startNs + runs.b0[i]! * nsPerBucket);
      const x1 = x(r.startNs + runs.b1[i]! * nsPerBucket);
      const pad = row.category === 'cu' ? 1 : 3;
      if (level === 0) ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), Math.min(6, row.h / 3));
      else ctx.fillRect(x0, y + pad, Math.max(1, x1 - x0), row.h - 2 * pad);
    }
  }

  // Raw events: spans first, then doorbell markers on top.
  const labels: [string, number, number, number][] = [];
  const doorbells: number[] = [];
  // Outlines of inferred boxes, stroked after every fill: x, y, width, height, colour.
  const outlines: [number, number, number, number, string][] = [];
  let hatchRects: number[] = [];
  ctx.font = p.smallFont;
  for (let i = 0; i < r.raw.length; i++) {
    const e = r.raw[i]!;
    const row = layout.rowOfLane.get(scene.index.laneOf[e]!);
    if (!row) continue;
    const y = rowTop(row);
    if (y + row.h < top || y > bottom) continue;
    const kind = t.kind[e]!;
    if (kind === KIND_DOORBELL) {
      doorbells.push(e);
      continue;
    }
    const path = t.path[e]! & 3;
    const s = t.startNs[e]!;
    const en = Math.max(t.endNs[e]!, s);
    const x0 = x(s);
    const right = Math.max(x0 + 1, x(en));
    // A pixel of gap keeps back-to-back spans (chained packets, repeated copies) apart.
    const x1 = right - x0 > 3 ? right - 1 : right;
    const pad = row.category === 'cu' ? 1 : 3;
    const h = row.h - 2 * pad;
    const inferred = isInferred(t, e);
    if (kind === KIND_PACKET) {
      const q = visibleStartNs(t, e);
      if (q < s) {
        ctx.fillStyle = inferred ? p.inferred(p.path[path]!) : p.queued[path]!;
        ctx.fillRect(x(q), y + pad + h * 0.62, x0 - x(q), h * 0.38);
      }
      const op = t.op[e]!;
      const color = op === 3 || op === 4 || op === 5 ? p.special : p.path[path]!;
      ctx.fillStyle = inferred ? p.inferred(color) : color;
      ctx.fillRect(x0, y + pad + 6, x1 - x0, h - 6);
      if (inferred) outlines.push([x0, y + pad + 6, x1 - x0, h - 6, color]);
      if (op === 2 && x1 - x0 > 4) {
        // copy+signal: the signal is the last thing the packet does; a notch marks it.
        ctx.fillStyle = p.foreground;
        ctx.fillRect(x1 - 2, y + pad + 6, 2, h - 6);
      }
    } else if (kind === KIND_KERNEL) {
      ctx.fillStyle = inferred ? p.inferred(p.path[path]!) : p.kernel[path]!;
      ctx.fillRect(x0, y + pad, x1 - x0, h);
      ctx.strokeStyle = p.path[path]!;
      ctx.lineWidth = 1;
      ctx.strokeRect(x0 + 0.5, y + pad + 0.5, Math.max(0, x1 - x0 - 1), h - 1);
    } else {
      const color = kind === KIND_PROXY ? p.proxy : p.path[path]!;
      ctx.fillStyle = inferred ? p.inferred(color) : color;
      ctx.fillRect(x0, y + pad, x1 - x0, h);
      if (inferred) outlines.push([x0, y + pad, x1 - x0, h, color]);
    }
    // Device-initiated stripes go on observed boxes: an inferred one has its own hatching.
    if (!inferred && initiatorOf(PATHS[path]!) === 'device' && kind !== KIND_PROXY && x1 - x0 >= 3)
      hatchRects.push(x0, y + pad + (kind === KIND_PACKET ? 6 : 0), x1 - x0, kind === KIND_PACKET ? h - 6 : h);
    if (x1 - x0 > 48 && row.h >= 20)
      labels.push([
        eventLabel(t, e),
        Math.max(x0, GUTTER_PX) + 4,
        y + pad + (kind === KIND_PACKET ? 3 : 0) + h / 2,
        Math.min(x1, scene.widthPx) - Math.max(x0, GUTTER_PX) - 8,
      ]);
  }
  if (hatchRects.length > 0) {
    ctx.fillStyle = p.hatch;
    for (let i = 0; i < hatchRects.length; i += 4)
      ctx.fillRect(hatchRects[i]!, hatchRects[i + 1]!, hatchRects[i + 2]!, hatchRects[i + 3]!);
    hatchRects = [];
  }
  ctx.lineWidth = 1;
  for (const [ox, oy, ow, oh, color] of outlines) {
    ctx.strokeStyle = color;
    ctx.strokeRect(ox + 0.5, oy + 0.5, Math.max(0, ow - 1), Math.max(0, oh - 1));
  }
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (const [text, lx, ly, room] of labels) {
    if (room < 20) continue;
    const shown = fit(ctx, text, room);
    if (!shown) continue;
    ctx.fillStyle = p.background;
    const w = ctx.measureText(shown).width;
    ctx.globalAlpha = 0.75;
    ctx.fillRect(lx - 2, ly - 7, w + 4, 14);
    ctx.globalAlpha = 1;
    ctx.fillStyle = p.foreground;
    ctx.fillText(shown, lx, ly);
  }
  // An inferred doorbell is hollow: its outline only, over the background.
  for (const e of doorbells) {
    const row = layout.rowOfLane.get(scene.index.laneOf[e]!)!;
    diamond(ctx, x(t.startNs[e]!), rowTop(row) + 5, 4.5);
    if (isInferred(t, e)) {
      ctx.fillStyle = p.background;
      ctx.fill();
      ctx.strokeStyle = p.doorbell;
      ctx.lineWidth = 1.5;
      ctx.stroke();
    } else {
      ctx.fillStyle = p.doorbell;
      ctx.fill();
    }
  }
}

/** A diamond's path, for the caller to fill or stroke. */
function diamond(ctx: CanvasRenderingContext2D, cx: number, cy: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(cx, cy - r);
  ctx.lineTo(cx + r, cy);
  ctx.lineTo(cx, cy + r);
  ctx.lineTo(cx - r, cy);
  ctx.closePath();
}

function fit(ctx: CanvasRenderingContext2D, text: string, room: number): string {
  if (ctx.measureText(text).width <= room) return text;
  for (let n = text.length - 1; n > 2; n--) {
    const s = `${text.slice(0, n)}…`;
    if (ctx.measureText(s).width <= room) return s;
  }
  return '';
}

function drawSelection(ctx: CanvasRenderingContext2D, scene: Scene, p: Palette, rowTop: (r: Row) => number): void {
  const { columns: t, layout, index } = scene;
  const x = (ns: number) => timeToX(scene, ns);
  const box = (e: number, color: string, width: number, dash: number[]) => {
    const row = layout.rowOfLane.get(index.laneOf[e]!) ?? (t.kind[e] === KIND_CU ? heatRowOf(scene, e) : undefined);
    if (!row) return undefined;
    const y = rowTop(row);
    const x0 = x(visibleStartNs(t, e));
    const x1 = Math.max(x0 + 2, x(Math.max(t.endNs[e]!, t.startNs[e]!)));
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    if (t.kind[e] === KIND_DOORBELL) {
      ctx.beginPath();
      ctx.arc(x0, y + 5, 7, 0, Math.PI * 2);
      ctx.stroke();
    } else {
      ctx.strokeRect(x0 - 1, y + 1, x1 - x0 + 2, row.h - 2);
    }
    ctx.setLineDash([]);
    return { x0, x1, y, h: row.h };
  };
  for (const e of scene.related) if (e !== scene.selected) box(e, p.related, 1.5, [4, 3]);
  // Doorbell -> each packet it announced: arrows, the way a flow is drawn in trace viewers.
  if (scene.doorbell >= 0) {
    const drow = layout.rowOfLane.get(index.laneOf[scene.doorbell]!);
    if (drow) {
      const dx = x(t.startNs[scene.doorbell]!);
      const dy = rowTop(drow) + 5;
      ctx.strokeStyle = p.related;
      ctx.fillStyle = p.related;
      ctx.lineWidth = 1.5;
      for (const e of scene.related) {
        if (t.kind[e] !== KIND_PACKET) continue;
        const px = x(t.startNs[e]!);
        const py = rowTop(drow) + drow.h / 2 + 3;
        ctx.beginPath();
        ctx.moveTo(dx, dy);
        ctx.bezierCurveTo(dx + (px - dx) / 2, dy, dx + (px - dx) / 2, py, px, py);
        ctx.stroke();
        ctx.beginPath();
        ctx.moveTo(px, py);
        ctx.lineTo(px - 6, py - 3.5);
        ctx.lineTo(px - 6, py + 3.5);
        ctx.closePath();
        ctx.fill();
      }
    }
  }
  if (scene.selected >= 0) box(scene.selected, p.selection, 2, []);
}

function heatRowOf(scene: Scene, e: number): Row | undefined {
  const heat = scene.index.heat.find((h) => h.gpu === scene.columns.gpu[e]);
  return heat ? scene.layout.rowOfLane.get(heat.id) : undefined;
}

function drawGutter(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  p: Palette,
  visible: Row[],
  rowTop: (r: Row) => number,
): void {
  ctx.fillStyle = p.gutter;
  ctx.fillRect(0, RULER_PX, GUTTER_PX, scene.heightPx - RULER_PX);
  ctx.fillStyle = p.border;
  ctx.fillRect(GUTTER_PX - 1, 0, 1, scene.heightPx);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (const r of visible) {
    const y = rowTop(r);
    const focused = scene.keyboardFocus && scene.layout.rows.indexOf(r) === scene.focusRow;
    if (r.kind === 'group') {
      ctx.font = `bold ${p.font}`;
      ctx.fillStyle = p.foreground;
      ctx.fillText(`${r.collapsed ? '▸' : '▾'} ${r.label}`, 8, y + r.h / 2, scene.widthPx - 16);
      ctx.fillStyle = p.border;
      ctx.fillRect(0, y + r.h - 1, scene.widthPx, 1);
    } else if (r.kind === 'cu-toggle') {
      ctx.font = p.smallFont;
      ctx.fillStyle = p.muted;
      ctx.fillText(`${r.expanded ? '▾' : '▸'} ${r.label}`, 22, y + r.h / 2, GUTTER_PX - 28);
    } else {
      ctx.font = r.category === 'cu' ? p.smallFont : p.font;
      ctx.fillStyle = r.category === 'cu' ? p.muted : p.foreground;
      if (r.category !== 'cu' || r.h >= 11)
        ctx.fillText(r.label, r.category === 'cu' ? 34 : 22, y + r.h / 2, GUTTER_PX - 40);
    }
    if (focused) {
      ctx.strokeStyle = p.selection;
      ctx.lineWidth = 1;
      ctx.strokeRect(1.5, y + 1.5, GUTTER_PX - 4, r.h - 3);
    }
  }
}

function drawRuler(ctx: CanvasRenderingContext2D, scene: Scene, p: Palette, step: number, firstTick: number): void {
  ctx.fillStyle = p.gutter;
  ctx.fillRect(0, 0, scene.widthPx, RULER_PX);
  ctx.fillStyle = p.border;
  ctx.fillRect(0, RULER_PX - 1, scene.widthPx, 1);
  ctx.font = p.smallFont;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  ctx.fillStyle = p.muted;
  ctx.fillText(`window ${formatDuration(scene.endNs - scene.startNs)}`, 8, RULER_PX / 2);
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER_PX, 0, scene.widthPx - GUTTER_PX, RULER_PX);
  ctx.clip();
  for (let tick = firstTick; tick <= scene.endNs; tick += step) {
    const tx = Math.round(timeToX(scene, tick));
    ctx.fillStyle = p.border;
    ctx.fillRect(tx, RULER_PX - 7, 1, 6);
    ctx.fillStyle = p.muted;
    ctx.fillText(
      formatTick(tick, step, Math.max(Math.abs(scene.startNs), Math.abs(scene.endNs))),
      tx + 4,
      RULER_PX / 2 - 1,
    );
  }
  if (scene.measure?.result) {
    const m = scene.measure.result;
    const a = timeToX(scene, m.fromNs);
    const b = timeToX(scene, m.toNs);
    const d = m.toNs - m.fromNs;
    const gbps = d > 0 ? m.bytes / d : 0;
    const text = `${formatDuration(d)} · ${formatBytes(Math.round(m.bytes))} · ${formatGbps(gbps)} GB/s`;
    ctx.font = `bold ${p.smallFont}`;
    const w = ctx.measureText(text).width + 12;
    const cx = Math.min(Math.max((a + b) / 2 - w / 2, GUTTER_PX + 2), scene.widthPx - w - 2);
    ctx.fillStyle = p.measureEdge;
    ctx.fillRect(cx, 3, w, RULER_PX - 7);
    // On the focus colour (a mid blue, or orange in high contrast) white or black reads best.
    ctx.fillStyle = p.highContrast ? p.background : '#ffffff';
    ctx.fillText(text, cx + 6, RULER_PX / 2 - 1);
  }
  ctx.restore();
}
