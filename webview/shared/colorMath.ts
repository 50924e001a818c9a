/**
 * Colour arithmetic for theme colours: parsing what the browser reports (`#rgb`, `#rrggbbaa`,
 * `rgb()` / `rgba()` in either syntax, `hsl()` / `hsla()`, `color(srgb …)`), compositing a
 * translucent colour onto a background, and WCAG 2.2's relative luminance and contrast ratio.
 * No DOM: the pages call it through the theme helper (theme.ts), the unit tests directly.
 */

/** Channels 0..255 (not rounded), alpha 0..1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

/** WCAG 2.2 success criterion 1.4.11 (non-text contrast): a data series against its background. */
export const SERIES_CONTRAST = 3;

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** A number, a percentage of `full`, or (for alpha) a fraction; NaN when it is none of them. */
function component(text: string, full: number): number {
  const t = text.trim();
  if (t === 'none') return 0;
  if (t.endsWith('%')) return (Number.parseFloat(t) / 100) * full;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : Number.NaN;
}

/** Degrees from a CSS angle (deg, grad, rad, turn, or a bare number of degrees). */
function angle(text: string): number {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(deg|grad|rad|turn)?$/i.exec(text.trim());
  if (!m) return Number.NaN;
  const x = Number(m[1]);
  const unit = (m[2] ?? 'deg').toLowerCase();
  return unit === 'turn' ? x * 360 : unit === 'rad' ? (x * 180) / Math.PI : unit === 'grad' ? x * 0.9 : x;
}

/** The arguments of `name(…)`: comma-separated, or space-separated with an optional `/ alpha`. */
function args(text: string): { parts: string[]; alpha?: string } | undefined {
  const inner = /^[a-z-]+\((.*)\)$/i.exec(text)?.[1];
  if (inner === undefined) return undefined;
  if (inner.includes(',')) {
    const parts = inner.split(',').map((p) => p.trim());
    return parts.length === 4 ? { parts: parts.slice(0, 3), alpha: parts[3]! } : { parts };
  }
  const [main, alpha, extra] = inner.split('/');
  if (extra !== undefined) return undefined;
  return { parts: main!.trim().split(/\s+/), ...(alpha !== undefined ? { alpha: alpha.trim() } : {}) };
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  // CSS Color 4's hsl-to-rgb: h in degrees, s and l 0..1.
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

/**
 * Parses a colour as computed styles and VS Code's `--vscode-*` variables write it; undefined
 * for anything else (a named colour other than `transparent`, `var(…)`, an empty string).
 */
export function parseColor(text: string): Rgba | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  const hex = /^#([0-9a-f]{3,8})$/.exec(t)?.[1];
  if (hex) {
    if (hex.length === 3 || hex.length === 4) {
      const [r, g, b, a] = [...hex].map((c) => parseInt(c + c, 16));
      return { r: r!, g: g!, b: b!, a: a === undefined ? 1 : a / 255 };
    }
    if (hex.length === 6 || hex.length === 8) {
      const byte = (i: number) => parseInt(hex.slice(i, i + 2), 16);
      return { r: byte(0), g: byte(2), b: byte(4), a: hex.length === 8 ? byte(6) / 255 : 1 };
    }
    return undefined;
  }
  const a = args(t);
  if (!a) return undefined;
  const alpha = a.alpha === undefined ? 1 : component(a.alpha, 1);
  let rgb: number[];
  if (/^rgba?\(/.test(t) && a.parts.length === 3) {
    rgb = a.parts.map((p) => component(p, 255));
  } else if (/^hsla?\(/.test(t) && a.parts.length === 3) {
    const [h, s, l] = [angle(a.parts[0]!), component(a.parts[1]!, 100), component(a.parts[2]!, 100)];
    rgb = hslToRgb(((h % 360) + 360) % 360, clamp(s / 100, 0, 1), clamp(l / 100, 0, 1));
  } else if (t.startsWith('color(') && a.parts.length === 4 && a.parts[0] === 'srgb') {
    rgb = a.parts.slice(1).map((p) => component(p, 1) * 255);
  } else {
    return undefined;
  }
  if (rgb.some(Number.isNaN) || Number.isNaN(alpha)) return undefined;
  return { r: clamp(rgb[0]!, 0, 255), g: clamp(rgb[1]!, 0, 255), b: clamp(rgb[2]!, 0, 255), a: clamp(alpha, 0, 1) };
}

/** `color` composited onto an opaque `background` (source-over, as the browser draws it); opaque. */
export function flatten(color: Rgba, background: Rgba): Rgba {
  const mix = (c: number, b: number) => c * color.a + b * (1 - color.a);
  return { r: mix(color.r, background.r), g: mix(color.g, background.g), b: mix(color.b, background.b), a: 1 };
}

/** Channels rounded to whole 0..255 steps, as a canvas stores them. */
export function rounded(c: Rgba): Rgba {
  return { r: Math.round(c.r), g: Math.round(c.g), b: Math.round(c.b), a: c.a };
}

/** `#rrggbb` for an opaque colour, `rgba(r, g, b, a)` otherwise (channels rounded). */
export function toCss(c: Rgba): string {
  const { r, g, b } = rounded(c);
  if (c.a >= 1) return `#${[r, g, b].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
  return `rgba(${r}, ${g}, ${b}, ${Number(c.a.toFixed(3))})`;
}

/** WCAG 2.2 relative luminance of the colour's sRGB channels (alpha ignored): 0 black .. 1 white. */
export function relativeLuminance(c: Rgba): number {
  const lin = (x: number) => {
    const s = x / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG 2.2 contrast ratio, 1 (none) .. 21 (black on white); order does not matter. */
export function contrastRatio(a: Rgba, b: Rgba): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** `from` moved toward `to` by `t` (0..1), in sRGB as color-mix(in srgb) does. */
function mix(from: Rgba, to: Rgba, t: number): Rgba {
  return { r: from.r + (to.r - from.r) * t, g: from.g + (to.g - from.g) * t, b: from.b + (to.b - from.b) * t, a: 1 };
}

const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };

/**
 * The opaque colour a data series is drawn in, from a theme colour and the (opaque) background
 * it is drawn on, standing at least `min`:1 against it:
 * 1. the colour as it shows on the background (a translucent one flattened onto it);
 * 2. if that falls short and the colour is translucent, the colour at full strength (its
 *    alpha dropped: the hue the theme chose, at the weight a series line needs);
 * 3. if that still falls short, moved toward black on a light background or white on a dark
 *    one (whichever stands further from the background), the least that reaches `min`.
 * Channels come back rounded, and the ratio is checked on the rounded colour.
 */
export function seriesColor(color: Rgba, background: Rgba, min = SERIES_CONTRAST): Rgba {
  const bg = rounded({ ...flatten(background, WHITE), a: 1 });
  const shown = rounded(flatten(color, bg));
  if (contrastRatio(shown, bg) >= min) return shown;
  const full = rounded({ ...color, a: 1 });
  const start = color.a < 1 && contrastRatio(full, bg) > contrastRatio(shown, bg) ? full : shown;
  if (contrastRatio(start, bg) >= min) return start;
  const toward = contrastRatio(BLACK, bg) >= contrastRatio(WHITE, bg) ? BLACK : WHITE;
  // The ratio does not always grow monotonically along the way (a colour on the far side of the
  // background's luminance first loses contrast), so the first step that reaches it is taken.
  const STEPS = 256;
  for (let i = 1; i <= STEPS; i++) {
    const c = rounded(mix(start, toward, i / STEPS));
    if (contrastRatio(c, bg) >= min) return c;
  }
  return toward;
}
