/**
 * How each copy path is drawn, in every view (sweep chart, table, timeline): the mover picks
 * the hue family (compute units blue, copy engine orange), the initiator the stroke (host
 * solid, device dashed), so both axes of the comparison read at a glance and the same path
 * looks the same everywhere. Colours are VS Code's chart colours, so themes restyle them.
 */
import type { Initiator, Mover, PathName } from '../../src/core/protocol';
import type { Theme } from './theme';

export interface PathStyle {
  color: string;
  /** Canvas line dash; empty for solid. */
  dash: number[];
  dashed: boolean;
  /** Chart.js point style, a second cue for the initiator where dashes are too short to see. */
  pointStyle: 'circle' | 'triangle';
}

const MOVER_COLOR: Record<Mover, { variable: string; dark: string; light: string }> = {
  cu: { variable: '--vscode-charts-blue', dark: '#3794ff', light: '#1a85ff' },
  engine: { variable: '--vscode-charts-orange', dark: '#d18616', light: '#d18616' },
};

const DEVICE_DASH = [7, 4];

export function moverOf(path: PathName): Mover {
  return path.startsWith('cu/') ? 'cu' : 'engine';
}

export function initiatorOf(path: PathName): Initiator {
  return path.endsWith('/host') ? 'host' : 'device';
}

export function pathStyle(path: PathName, theme: Theme): PathStyle {
  const hue = MOVER_COLOR[moverOf(path)];
  const light = theme.kind === 'light' || theme.kind === 'high-contrast-light';
  const dashed = initiatorOf(path) === 'device';
  return {
    color: theme.color(hue.variable, light ? hue.light : hue.dark),
    dash: dashed ? DEVICE_DASH : [],
    dashed,
    pointStyle: dashed ? 'triangle' : 'circle',
  };
}
