/**
 * How each copy path is drawn, in every view (sweep chart, legend, table, timeline): the same
 * path looks the same everywhere, and each of the two axes of the comparison reads without
 * colour as well as with it.
 *
 * | path          | colour | line                   | marker          |
 * |---------------|--------|------------------------|-----------------|
 * | cu/host       | blue   | solid                  | circle          |
 * | cu/device     | blue   | dashed                 | triangle        |
 * | engine/host   | orange | long dashes and dots   | square          |
 * | engine/device | orange | dotted                 | diamond         |
 *
 * The mover: compute units blue, plain lines (solid, dashed) and round-based markers (circle,
 * triangle); the copy engine orange, lines with dots and square-based markers (square, diamond).
 * The initiator: of each mover's pair, the device-started path has the shorter strokes and the
 * pointed marker. Colours are VS Code's chart colours, so themes restyle them (as series colours:
 * theme.ts makes them opaque and at least 3:1 against the background).
 *
 * The sweep's runtime-default series (what the runtime does by default, whatever mover it uses at
 * each size) is never drawn as a path: purple, a dash and two dots, a diamond marker.
 */
import type { Initiator, Mover, PathName } from '../../src/core/protocol';
import type { ChartHue, Theme } from './theme';

export interface PathStyle {
  color: string;
  /** Canvas line dash; empty for solid. */
  dash: number[];
  /** Whether the line is broken (every path but cu/host). */
  dashed: boolean;
  /** Chart.js point style, a second cue where the line's pattern is too short to see. */
  pointStyle: PointStyle;
}

export type PointStyle = 'circle' | 'triangle' | 'rect' | 'rectRot';

const MOVER_HUE: Record<Mover, ChartHue> = { cu: 'blue', engine: 'orange' };

/** Line and marker per mover and initiator (the table above). */
const STROKE: Record<Mover, Record<Initiator, { dash: number[]; pointStyle: PointStyle }>> = {
  cu: { host: { dash: [], pointStyle: 'circle' }, device: { dash: [7, 4], pointStyle: 'triangle' } },
  engine: { host: { dash: [12, 3, 2, 3], pointStyle: 'rect' }, device: { dash: [2, 3], pointStyle: 'rectRot' } },
};

export function moverOf(path: PathName): Mover {
  return path.startsWith('cu/') ? 'cu' : 'engine';
}

export function initiatorOf(path: PathName): Initiator {
  return path.endsWith('/host') ? 'host' : 'device';
}

/** The line and marker of a mover and a second axis (the initiator, or a collective's in-place form as `device`). */
export function strokeOf(mover: Mover, initiator: Initiator): { dash: number[]; pointStyle: PointStyle } {
  return STROKE[mover][initiator];
}

export function moverColor(mover: Mover, theme: Theme): string {
  return theme.chart[MOVER_HUE[mover]];
}

/** The runtime-default series' line and marker (the note above). */
export function runtimeDefaultStyle(theme: Theme): PathStyle {
  return { color: theme.chart.purple, dash: [10, 3, 2, 3, 2, 3], dashed: true, pointStyle: 'rectRot' };
}

export function pathStyle(path: PathName, theme: Theme): PathStyle {
  const stroke = strokeOf(moverOf(path), initiatorOf(path));
  return {
    color: moverColor(moverOf(path), theme),
    dash: stroke.dash,
    dashed: stroke.dash.length > 0,
    pointStyle: stroke.pointStyle,
  };
}
