/**
 * VS Code theme colours as a canvas needs them. A canvas cannot use `var(--x)`, so colours are
 * read from the computed style and re-read whenever VS Code switches theme.
 *
 * The one place theme colours are made drawable: a colour a theme gives with alpha < 1 is
 * flattened onto the editor background (what it shows as there), and a data series' colour
 * is also made to stand 3:1 against that background (colorMath.ts `seriesColor`; WCAG non-text
 * contrast). VS Code's classic and Modern themes give `--vscode-charts-orange` as
 * rgba(234, 92, 0, 0.33), which drawn as is leaves the engine series at 1.5:1; its High
 * Contrast themes give none. The chart colours are also set on <body> as `--series-<hue>` (see
 * `CHART_HUES`), so what CSS draws (swatches, chips, the matrix's heat map) matches the canvas.
 */
import { flatten, parseColor, rounded, seriesColor, toCss, type Rgba } from './colorMath';

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export interface Theme {
  kind: ThemeKind;
  highContrast: boolean;
  foreground: string;
  mutedForeground: string;
  background: string;
  border: string;
  grid: string;
  fontFamily: string;
  fontSizePx: number;
  /** Reads any `--vscode-*` colour, with a fallback for pages outside VS Code; opaque (flattened onto `background`). */
  color(variable: string, fallback: string): string;
  /** The chart colours as series colours: opaque, and at least 3:1 against `background`. */
  chart: Record<ChartHue, string>;
  /** Any colour as a series colour (as `chart`), e.g. `mutedForeground` for a baseline drawn grey. */
  series(color: string): string;
}

export type ChartHue = 'blue' | 'orange' | 'red' | 'green' | 'purple' | 'yellow';

/**
 * VS Code's chart colours, and what is drawn where there is none (a page outside VS Code, or a
 * theme that leaves one out): VS Code's own values for its dark and light themes.
 */
export const CHART_HUES: Record<ChartHue, { variable: string; dark: string; light: string }> = {
  blue: { variable: '--vscode-charts-blue', dark: '#3794ff', light: '#1a85ff' },
  orange: { variable: '--vscode-charts-orange', dark: '#d18616', light: '#d18616' },
  red: { variable: '--vscode-charts-red', dark: '#f14c4c', light: '#e51400' },
  green: { variable: '--vscode-charts-green', dark: '#89d185', light: '#388a34' },
  purple: { variable: '--vscode-charts-purple', dark: '#b180d7', light: '#652d90' },
  yellow: { variable: '--vscode-charts-yellow', dark: '#cca700', light: '#bf8803' },
};

function themeKind(body: HTMLElement): ThemeKind {
  const c = body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (c.contains('vscode-high-contrast')) return 'high-contrast';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };

let probe: CanvasRenderingContext2D | null | undefined;

/** Normalises any CSS colour the canvas understands to `rgba(...)` with the given alpha. */
export function withAlpha(color: string, alpha: number): string {
  probe ??= document.createElement('canvas').getContext('2d');
  if (!probe) return color;
  probe.fillStyle = '#000000';
  probe.fillStyle = color;
  const normal = probe.fillStyle;
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(normal);
  if (hex) return `rgba(${parseInt(hex[1]!, 16)}, ${parseInt(hex[2]!, 16)}, ${parseInt(hex[3]!, 16)}, ${alpha})`;
  const rgba = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)/.exec(normal);
  if (rgba) return `rgba(${rgba[1]}, ${rgba[2]}, ${rgba[3]}, ${alpha})`;
  return normal;
}

/** Any CSS colour as the canvas normalises it (`#rrggbb` or `rgba(…)`), for what parseColor does not read (a named colour). */
function normalized(color: string): string {
  probe ??= document.createElement('canvas').getContext('2d');
  if (!probe) return color;
  probe.fillStyle = '#000000';
  probe.fillStyle = color;
  return String(probe.fillStyle);
}

function rgbaOf(color: string): Rgba | undefined {
  return parseColor(color) ?? parseColor(normalized(color));
}

export function readTheme(): Theme {
  const style = getComputedStyle(document.body);
  const raw = (variable: string, fallback: string) => style.getPropertyValue(variable).trim() || fallback;
  const kind = themeKind(document.body);
  const highContrast = kind.startsWith('high-contrast');
  const light = kind === 'light' || kind === 'high-contrast-light';
  const backgroundText = raw('--vscode-editor-background', light ? '#ffffff' : '#1e1e1e');
  const backgroundRgba = rgbaOf(backgroundText);
  const bg: Rgba = backgroundRgba ? rounded(flatten(backgroundRgba, light ? WHITE : BLACK)) : light ? WHITE : BLACK;
  const opaque = (text: string) => {
    const c = rgbaOf(text);
    return c && c.a < 1 ? toCss(rounded(flatten(c, bg))) : text;
  };
  const series = (text: string) => {
    const c = rgbaOf(text);
    return c ? toCss(seriesColor(c, bg)) : text;
  };
  const color = (variable: string, fallback: string) => opaque(raw(variable, fallback));
  const foreground = color('--vscode-foreground', light ? '#3b3b3b' : '#cccccc');
  const contrastBorder = color('--vscode-contrastBorder', '');
  const chart = Object.fromEntries(
    Object.entries(CHART_HUES).map(([hue, c]) => [hue, series(raw(c.variable, light ? c.light : c.dark))]),
  ) as Record<ChartHue, string>;
  publishChartColors(chart);
  return {
    kind,
    highContrast,
    foreground,
    mutedForeground: color('--vscode-descriptionForeground', withAlpha(foreground, 0.75)),
    background: toCss(bg),
    border:
      highContrast && contrastBorder
        ? contrastBorder
        : color('--vscode-editorWidget-border', withAlpha(foreground, 0.4)),
    // Grid lines come from the text colour so they keep their weight relative to the labels in every theme.
    grid: withAlpha(foreground, highContrast ? 0.35 : 0.12),
    fontFamily: raw('--vscode-font-family', 'system-ui, sans-serif'),
    fontSizePx: Number.parseFloat(raw('--vscode-font-size', '13px')) || 13,
    color,
    chart,
    series,
  };
}

/**
 * The chart colours as `--series-<hue>` on <body>, for the pages' CSS (set through the CSSOM,
 * which the panels' CSP allows; <body>'s style is not what observeTheme watches).
 */
function publishChartColors(chart: Record<ChartHue, string>): void {
  for (const [hue, value] of Object.entries(chart)) document.body.style.setProperty(`--series-${hue}`, value);
}

/**
 * Calls `onChange` after VS Code changes theme: it flips the body class between
 * vscode-light / vscode-dark / vscode-high-contrast, and rewrites the `--vscode-*` variables
 * on <html> (the only signal when switching between two themes of the same kind).
 */
export function observeTheme(onChange: () => void): () => void {
  let pending = 0;
  const schedule = () => {
    if (pending) return;
    // Class and variables change in separate mutations; one frame later both are in.
    pending = requestAnimationFrame(() => {
      pending = 0;
      onChange();
    });
  };
  const observer = new MutationObserver(schedule);
  observer.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return () => observer.disconnect();
}
