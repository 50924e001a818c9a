import { describe, expect, it } from 'vitest';
import {
  SERIES_CONTRAST,
  contrastRatio,
  flatten,
  parseColor,
  relativeLuminance,
  rounded,
  seriesColor,
  toCss,
  type Rgba,
} from '../../webview/shared/colorMath';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import { VSCODE_THEMES as THEMES } from '../webview/themes.mjs';

/** VS Code's built-in themes as a webview receives them (test/webview/themes.mjs). */
const VSCODE_THEMES = THEMES as Record<string, { variables: Record<string, string> }>;

const rgba = (r: number, g: number, b: number, a = 1): Rgba => ({ r, g, b, a });
const WHITE = rgba(255, 255, 255);
const BLACK = rgba(0, 0, 0);
const must = (text: string): Rgba => {
  const c = parseColor(text);
  if (!c) throw new Error(`${text} did not parse`);
  return c;
};

describe('parseColor: colours as computed styles and --vscode-* variables write them', () => {
  it('reads hex in all four lengths', () => {
    expect(parseColor('#d18616')).toEqual(rgba(209, 134, 22));
    expect(parseColor('#D18616')).toEqual(rgba(209, 134, 22));
    expect(parseColor('#fff')).toEqual(WHITE);
    expect(parseColor('#0008')).toEqual(rgba(0, 0, 0, 0x88 / 255));
    expect(parseColor('#ea5c0054')).toEqual(rgba(234, 92, 0, 0x54 / 255));
  });

  it('reads rgb() and rgba(), comma-separated and space-separated with / alpha, numbers and percentages', () => {
    expect(parseColor('rgba(234, 92, 0, 0.33)')).toEqual(rgba(234, 92, 0, 0.33));
    expect(parseColor('rgb(234, 92, 0)')).toEqual(rgba(234, 92, 0));
    expect(parseColor('rgb(234 92 0 / 33%)')).toEqual(rgba(234, 92, 0, 0.33));
    expect(parseColor('rgb(100% 0% 50%)')).toEqual(rgba(255, 0, 127.5));
    expect(parseColor('  RGBA(1,2,3,.5)  ')).toEqual(rgba(1, 2, 3, 0.5));
  });

  it('reads hsl() and hsla() in degrees and other angle units', () => {
    expect(parseColor('hsl(0, 100%, 50%)')).toEqual(rgba(255, 0, 0));
    expect(parseColor('hsl(120deg 100% 25%)')).toEqual(rgba(0, 127.5, 0));
    expect(parseColor('hsla(240, 100%, 50%, 0.5)')).toEqual(rgba(0, 0, 255, 0.5));
    expect(parseColor('hsl(0.5turn 100% 50% / 25%)')).toEqual(rgba(0, 255, 255, 0.25));
    const orange = must('hsl(23.6, 100%, 45.9%)');
    expect(toCss(rounded(orange))).toBe('#ea5c00');
  });

  it('reads color(srgb …), as color-mix() results are reported, and transparent', () => {
    expect(parseColor('color(srgb 1 0.5 0 / 0.5)')).toEqual(rgba(255, 127.5, 0, 0.5));
    expect(parseColor('transparent')).toEqual(rgba(0, 0, 0, 0));
  });

  it('refuses what it cannot read, rather than guessing black', () => {
    for (const text of [
      '',
      'orange',
      'var(--vscode-charts-orange)',
      '#12',
      '#12345',
      'rgb(1, 2)',
      'rgb(a, b, c)',
      'hsl(10, 20%)',
      'color(display-p3 1 0 0)',
      'rgb(1 2 3 / 4 / 5)',
    ]) {
      expect(parseColor(text), text).toBeUndefined();
    }
  });
});

describe('flatten: a translucent colour as it shows on the background', () => {
  it('composites source-over', () => {
    // VS Code's classic and Modern --vscode-charts-orange on their backgrounds.
    expect(toCss(flatten(must('rgba(234, 92, 0, 0.33)'), WHITE))).toBe('#f8c9ab');
    expect(toCss(flatten(must('rgba(234, 92, 0, 0.33)'), must('#1e1e1e')))).toBe('#613214');
    expect(flatten(rgba(10, 20, 30), WHITE)).toEqual(rgba(10, 20, 30));
    expect(flatten(rgba(10, 20, 30, 0), WHITE)).toEqual(WHITE);
  });

  it('writes opaque colours as #rrggbb and the rest as rgba()', () => {
    expect(toCss(rgba(234, 92, 0))).toBe('#ea5c00');
    expect(toCss(rgba(234.4, 91.6, 0.2, 0.33))).toBe('rgba(234, 92, 0, 0.33)');
  });
});

describe('WCAG 2.2 relative luminance and contrast ratio', () => {
  it('matches the definition at known points', () => {
    expect(relativeLuminance(BLACK)).toBe(0);
    expect(relativeLuminance(WHITE)).toBeCloseTo(1, 12);
    expect(relativeLuminance(rgba(128, 128, 128))).toBeCloseTo(0.2158605, 6);
    expect(relativeLuminance(rgba(255, 0, 0))).toBeCloseTo(0.2126, 12);
    expect(relativeLuminance(rgba(0, 255, 0))).toBeCloseTo(0.7152, 12);
    // Below the 0.04045 knee the channel is linear.
    expect(relativeLuminance(rgba(10, 10, 10))).toBeCloseTo(10 / 255 / 12.92, 12);
  });

  it('gives the ratios the guidelines quote', () => {
    expect(contrastRatio(BLACK, WHITE)).toBeCloseTo(21, 12);
    expect(contrastRatio(WHITE, BLACK)).toBeCloseTo(21, 12);
    expect(contrastRatio(WHITE, WHITE)).toBe(1);
    // #767676 is the lightest grey that passes 4.5:1 on white; #777777 just fails.
    expect(contrastRatio(must('#767676'), WHITE)).toBeCloseTo(4.54, 2);
    expect(contrastRatio(must('#777777'), WHITE)).toBeLessThan(4.5);
    // The pale engine orange of the classic themes before this rule: 1.5:1.
    expect(contrastRatio(must('#f8c9ab'), WHITE)).toBeCloseTo(1.51, 2);
  });
});

describe('seriesColor: opaque, and at least 3:1 against the background', () => {
  it('keeps a colour that already stands 3:1, flattened', () => {
    expect(toCss(seriesColor(must('#0063d3'), WHITE))).toBe('#0063d3');
    expect(toCss(seriesColor(must('#59a4f9'), must('#1f1f1f')))).toBe('#59a4f9');
    // Translucent, but dark enough on its own background: flattened, alpha as the theme set it.
    expect(toCss(seriesColor(must('rgba(0, 0, 0, 0.8)'), WHITE))).toBe('#333333');
  });

  it('draws a translucent colour that falls short at full strength (the classic orange)', () => {
    const light = seriesColor(must('rgba(234, 92, 0, 0.33)'), WHITE);
    expect(toCss(light)).toBe('#ea5c00');
    expect(contrastRatio(light, WHITE)).toBeCloseTo(3.48, 2);
    const dark = seriesColor(must('rgba(234, 92, 0, 0.33)'), must('#1e1e1e'));
    expect(toCss(dark)).toBe('#ea5c00');
    expect(contrastRatio(dark, must('#1e1e1e'))).toBeGreaterThan(4.5);
  });

  it('darkens on a light background, the least that reaches 3:1, keeping the hue', () => {
    // Light 2026's orange, and the one drawn where High Contrast Light has none: 2.94:1 as given.
    const c = seriesColor(must('#d18616'), WHITE);
    expect(contrastRatio(c, WHITE)).toBeGreaterThanOrEqual(SERIES_CONTRAST);
    expect(contrastRatio(c, WHITE)).toBeLessThan(3.1);
    expect(c.r).toBeLessThan(209);
    expect(c.r / c.g).toBeCloseTo(209 / 134, 1);
    expect(c.a).toBe(1);
  });

  it('lightens on a dark background, also when the colour starts darker than it', () => {
    const bg = must('#1e1e1e');
    const dim = seriesColor(must('#3a3a80'), bg);
    expect(contrastRatio(dim, bg)).toBeGreaterThanOrEqual(SERIES_CONTRAST);
    expect(dim.b).toBeGreaterThan(dim.r);
    // Darker than the background: moving toward white first loses contrast, then gains it.
    const black = seriesColor(BLACK, bg);
    expect(contrastRatio(black, bg)).toBeGreaterThanOrEqual(SERIES_CONTRAST);
    expect(black.r).toBeGreaterThan(0x1e);
  });

  it('reaches 3:1 on any background, mid-grey included', () => {
    for (const bg of ['#777777', '#808080', '#5a5a5a', '#9a9a9a', '#ff0000', '#0000ff']) {
      for (const c of ['#808080', '#7f7f80', '#ff0000', 'rgba(128, 128, 128, 0.1)']) {
        expect(contrastRatio(seriesColor(must(c), must(bg)), must(bg)), `${c} on ${bg}`).toBeGreaterThanOrEqual(
          SERIES_CONTRAST,
        );
      }
    }
  });

  it('takes another minimum', () => {
    expect(contrastRatio(seriesColor(must('#d18616'), WHITE, 4.5), WHITE)).toBeGreaterThanOrEqual(4.5);
  });

  it('gives every chart colour of every built-in VS Code theme at least 3:1 on its editor background', () => {
    const fallback: Record<string, string> = { '--vscode-charts-orange': '#d18616' };
    for (const [name, theme] of Object.entries(VSCODE_THEMES)) {
      const bg = must(theme.variables['--vscode-editor-background']!);
      for (const hue of ['blue', 'orange', 'red', 'green', 'purple', 'yellow']) {
        const variable = `--vscode-charts-${hue}`;
        const c = seriesColor(must(theme.variables[variable] ?? fallback[variable]!), bg);
        expect(c.a, `${name} ${hue}`).toBe(1);
        expect(contrastRatio(c, bg), `${name} ${hue}`).toBeGreaterThanOrEqual(SERIES_CONTRAST);
      }
    }
  });
});
