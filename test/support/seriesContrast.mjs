// What the theme checks measure, shared by the real VS Code's (test/ui/themes.mjs) and the
// headless Chromium ones (test/webview/*.mjs): what each panel draws from the theme, how the
// colour a series is drawn in is read back from a page (canvas pixels composited over the
// panel's background, as the user sees them; swatches and chips from computed styles), and
// WCAG 2.2's contrast, written out here rather than imported from the pages' own colour code,
// so the check does not share the arithmetic it checks.
/* global document, getComputedStyle */

/** WCAG 2.2 success criterion 1.4.11, non-text contrast. */
export const MIN_CONTRAST = 3;
/** Pixels of one exact colour a series must cover to count as drawn in it (anti-aliased edges and crossings cover fewer). */
const MIN_PIXELS = 20;

/**
 * What each panel draws from the theme. `marker`: a selector only that page has. Canvas series
 * are found by the hue of their theme variable (or `fallback`, what the page draws where the
 * theme has no such colour: VS Code's High Contrast themes define no `--vscode-charts-orange`),
 * so nothing else of that hue may be on the canvas when it is read (a timeline's selection is
 * drawn in the focus colour); `grey` ones by being nearest its colour instead; `optional` ones
 * may be absent from the data.
 * DOM entries read the computed colour of an element (`text`: the one whose text includes it;
 * `inner`: the element inside it; `strongest`: of all matches, the one standing out most).
 */
export const PAGES = [
  {
    page: 'sweep',
    marker: '.legend-item',
    canvas: '.chart-frame canvas',
    series: [
      { name: 'cu/* line', variable: '--vscode-charts-blue', fallback: '#3794ff' },
      { name: 'engine/* line', variable: '--vscode-charts-orange', fallback: '#d18616' },
    ],
    dom: [
      {
        name: 'cu/host legend swatch',
        selector: '.legend-item',
        text: 'cu/host',
        inner: 'svg line',
        property: 'stroke',
      },
      {
        name: 'engine/host legend swatch',
        selector: '.legend-item',
        text: 'engine/host',
        inner: 'svg line',
        property: 'stroke',
      },
    ],
  },
  {
    page: 'timeline',
    marker: 'canvas.timeline-canvas',
    canvas: 'canvas.timeline-canvas',
    series: [
      { name: 'cu/* spans', variable: '--vscode-charts-blue', fallback: '#3794ff' },
      { name: 'engine/* spans', variable: '--vscode-charts-orange', fallback: '#d18616' },
    ],
    dom: [
      { name: 'cu/host chip', selector: '.path-toggle .swatch.mover-cu', property: 'backgroundColor' },
      { name: 'engine/host chip', selector: '.path-toggle .swatch.mover-engine', property: 'backgroundColor' },
    ],
  },
  {
    page: 'matrix',
    marker: 'table.heatmap',
    series: [],
    dom: [
      {
        name: 'heat map, strongest cell',
        selector: 'table.heatmap td.cell.measured',
        property: 'backgroundColor',
        strongest: true,
      },
      {
        name: 'weakest pair outline',
        selector: 'table.heatmap td.cell.weakest',
        property: 'outlineColor',
        optional: true,
      },
    ],
  },
  {
    page: 'collective',
    marker: 'table.variants',
    canvas: 'figure canvas',
    series: [
      { name: 'default variant line', variable: '--vscode-charts-blue', fallback: '#3794ff' },
      { name: 'engine variant line', variable: '--vscode-charts-orange', fallback: '#d18616' },
      { name: 'off-path ring', variable: '--vscode-charts-red', fallback: '#f14c4c', optional: true },
    ],
    dom: [
      { name: 'default variant swatch', selector: '.swatch.variant-default', property: 'backgroundColor' },
      { name: 'engine variant swatch', selector: '.swatch:not(.variant-default)', property: 'backgroundColor' },
    ],
  },
  {
    page: 'compare',
    marker: '.ratio-chart',
    canvas: 'figure .chart:not(.ratio-chart) canvas',
    series: [
      { name: 'A (baseline) line', variable: '--vscode-descriptionForeground', fallback: '#9d9d9d', grey: true },
      { name: 'B line', variable: '--vscode-charts-purple', fallback: '#b180d7' },
    ],
    dom: [{ name: 'B swatch', selector: '.swatch-b', property: 'borderTopColor' }],
  },
  {
    page: 'fleet',
    marker: '#figure-chart canvas',
    canvas: '#figure-chart canvas',
    series: [
      { name: 'node points', variable: '--vscode-charts-blue', fallback: '#3794ff' },
      { name: 'outlier points', variable: '--vscode-charts-red', fallback: '#f14c4c' },
    ],
    dom: [
      { name: 'node key', selector: '.key-dot', property: 'backgroundColor' },
      { name: 'outlier key', selector: '.key-triangle', property: 'borderBottomColor' },
    ],
  },
];

export function pageSpec(page) {
  const spec = PAGES.find((p) => p.page === page);
  if (!spec) throw new Error(`no theme check for the ${page} page`);
  return spec;
}

// ---- WCAG 2.2 ----

const channel = (c) => {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
export const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
/** `[r, g, b, a]` over an opaque background, as the compositor blends it. */
const over = ([r, g, b, a], [br, bg, bb]) =>
  [r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a)].map(Math.round);
function hueSat([r, g, b]) {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  if (d === 0) return { hue: 0, sat: 0 };
  const hue = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { hue: (hue * 60 + 360) % 360, sat: max === 0 ? 0 : d / max };
}
export const hex = (c) =>
  `#${c
    .slice(0, 3)
    .map((x) => Math.round(x).toString(16).padStart(2, '0'))
    .join('')}`;
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * Reads a panel in its page (passed to evaluate(), so self-contained): the theme it was drawn
 * in, the `--vscode-*` colours, the panel's background, each canvas's pixel colours (counted,
 * after compositing over the background; solid runs only) and the swatches' computed colours,
 * as [r, g, b, a].
 */
export function readPanel(spec) {
  const probe = document.createElement('canvas').getContext('2d');
  const parse = (text) => {
    probe.fillStyle = '#000000';
    probe.fillStyle = text;
    const n = String(probe.fillStyle);
    // color-mix() results come back as color(srgb r g b / a), channels 0..1.
    if (n.startsWith('color(')) {
      const m = (n.match(/[\d.]+/g) ?? []).map(Number);
      return [m[0] * 255, m[1] * 255, m[2] * 255, m[3] ?? 1];
    }
    if (n.startsWith('#')) return [1, 3, 5].map((i) => parseInt(n.slice(i, i + 2), 16)).concat(1);
    const m = (n.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number);
    return [m[0], m[1], m[2], m[3] ?? 1];
  };
  const body = getComputedStyle(document.body);
  const variables = {};
  for (const name of [
    '--vscode-editor-background',
    '--vscode-foreground',
    '--vscode-descriptionForeground',
    '--vscode-charts-foreground',
    '--vscode-charts-lines',
    '--vscode-charts-blue',
    '--vscode-charts-orange',
    '--vscode-charts-red',
    '--vscode-charts-green',
    '--vscode-charts-yellow',
    '--vscode-charts-purple',
    '--vscode-contrastBorder',
    '--vscode-contrastActiveBorder',
    '--vscode-focusBorder',
    '--vscode-editorWidget-background',
    '--vscode-editorWidget-border',
  ]) {
    variables[name] = body.getPropertyValue(name).trim();
  }
  // The page's own background where it sets one (the matrix), else the editor's, which shows through VS Code's transparent webview body.
  const own = parse(body.backgroundColor);
  const editor = parse(variables['--vscode-editor-background'] || '#000000');
  const background = own[3] === 1 ? own : editor;
  const canvases = spec.canvas ? [...document.querySelectorAll(spec.canvas)] : [];
  const counts = new Map();
  for (const c of canvases) {
    if (c.width === 0 || c.height === 0) continue;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const row = c.width * 4;
    const same = (i, j) =>
      j >= 0 &&
      j < d.length &&
      d[i] === d[j] &&
      d[i + 1] === d[j + 1] &&
      d[i + 2] === d[j + 2] &&
      d[i + 3] === d[j + 3];
    for (let i = 0; i < d.length; i += 4) {
      // Only pixels inside a run of three of one colour, across or down: what a line, marker or
      // span is filled with. The blends at the edges of text and shapes come in ones and twos.
      const x = (i / 4) % c.width;
      if (!((x > 0 && x < c.width - 1 && same(i, i - 4) && same(i, i + 4)) || (same(i, i - row) && same(i, i + row))))
        continue;
      const a = d[i + 3] / 255;
      const key =
        ((Math.round(d[i] * a + background[0] * (1 - a)) << 16) |
          (Math.round(d[i + 1] * a + background[1] * (1 - a)) << 8) |
          Math.round(d[i + 2] * a + background[2] * (1 - a))) >>>
        0;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const pixels = [...counts].filter(([, n]) => n >= 8).map(([k, n]) => [(k >> 16) & 255, (k >> 8) & 255, k & 255, n]);
  const elements = (d) =>
    [...document.querySelectorAll(d.selector)]
      .filter((e) => d.text === undefined || (e.textContent ?? '').includes(d.text))
      .map((e) => (d.inner ? e.querySelector(d.inner) : e))
      .filter(Boolean);
  const dom = spec.dom.map((d) => ({
    name: d.name,
    colors: elements(d).map((e) => parse(getComputedStyle(e)[d.property])),
  }));
  return {
    kind: document.body.dataset.vscodeThemeKind ?? '',
    themeId: document.body.dataset.vscodeThemeId ?? '',
    themeName: document.body.dataset.vscodeThemeName ?? '',
    variables,
    background,
    canvases: canvases.length,
    pixels,
    dom,
  };
}

/** What readPanel needs of a page's spec (evaluate() takes plain data). */
export function readSpec(spec) {
  return {
    canvas: spec.canvas,
    dom: spec.dom.map(({ name, selector, text, inner, property }) => ({ name, selector, text, inner, property })),
  };
}

function parseVariable(text) {
  const m = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(text);
  if (m) return [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16)).concat(m[2] ? parseInt(m[2], 16) / 255 : 1);
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])([0-9a-f])?$/i.exec(text);
  if (short)
    return [1, 2, 3]
      .map((i) => parseInt(short[i] + short[i], 16))
      .concat(short[4] ? parseInt(short[4] + short[4], 16) / 255 : 1);
  const n = (text.match(/[\d.]+/g) ?? []).map(Number);
  return n.length >= 3 ? [n[0], n[1], n[2], n[3] ?? 1] : undefined;
}

/** The colour a series is drawn in, from the pixel counts: [r, g, b, pixels], or undefined when nothing is of its colour. */
function seriesPixel(reading, series) {
  const bg = reading.background;
  const raw = parseVariable(reading.variables[series.variable] || series.fallback);
  if (!raw) return undefined;
  const drawn = reading.pixels.filter((p) => p[3] >= MIN_PIXELS && contrast(p, bg) > 1.1);
  if (series.grey) {
    const target = over(raw, bg);
    const near = drawn.filter((p) => hueSat(p).sat < 0.15).sort((a, b) => dist(a, target) - dist(b, target))[0];
    return near && dist(near, target) < 60 ? near : undefined;
  }
  const want = hueSat(raw);
  const same = drawn.filter((p) => {
    const h = hueSat(p);
    const d = Math.abs(h.hue - want.hue);
    return h.sat >= 0.15 && Math.min(d, 360 - d) <= 12;
  });
  // Of that hue, the purest: everything else of it is the series blended with something grey
  // (its bands and fills with the background, text and grid lines over or under it), and such
  // a blend has less chroma (max - min channel). Of the purest few, the most common.
  const chroma = (p) => Math.max(p[0], p[1], p[2]) - Math.min(p[0], p[1], p[2]);
  const top = Math.max(...same.map(chroma));
  return same.filter((p) => chroma(p) >= top - 3).sort((a, b) => b[3] - a[3])[0];
}

/** One row per series and swatch: its colour as seen, and its contrast against the panel background. */
export function measure(spec, reading) {
  const rows = [];
  const bg = reading.background;
  for (const s of spec.series) {
    const p = seriesPixel(reading, s);
    rows.push({
      series: s.name,
      source: 'canvas pixels',
      optional: Boolean(s.optional),
      color: p ? hex(p) : undefined,
      pixels: p?.[3],
      contrast: p ? contrast(p, bg) : undefined,
      variable: reading.variables[s.variable] || undefined,
    });
  }
  for (const d of spec.dom) {
    const found = reading.dom.find((x) => x.name === d.name)?.colors ?? [];
    const seen = found.map((c) => over(c, bg));
    const pick = d.strongest ? seen.sort((a, b) => contrast(b, bg) - contrast(a, bg))[0] : seen[0];
    rows.push({
      series: d.name,
      source: 'computed style',
      optional: Boolean(d.optional),
      color: pick ? hex(pick) : undefined,
      contrast: pick ? contrast(pick, bg) : undefined,
    });
  }
  return rows;
}

/** The rows that fail: under MIN_CONTRAST, or a series that should be drawn and is not. */
export function failuresOf(page, rows, reading) {
  const out = [];
  for (const row of rows) {
    if (row.contrast === undefined && !row.optional)
      out.push(`${page} ${row.series}: not found (${reading.canvases} canvases, ${reading.pixels.length} colours)`);
    else if (row.contrast !== undefined && row.contrast < MIN_CONTRAST)
      out.push(`${page} ${row.series}: ${row.color} on ${hex(reading.background)} is ${row.contrast.toFixed(2)}:1`);
  }
  return out;
}

/** The Markdown table of `results` ({theme, page, series, contrast, color, background, source, pixels, variable}), a column per theme. */
export function contrastTable(results, themes) {
  const pages = [...new Set(results.map((r) => r.page))];
  const lines = [];
  lines.push(
    `Contrast of each series against the panel background (WCAG 2.2 non-text contrast; at least ${MIN_CONTRAST}:1 passes, ✘ marks less; "—": not drawn in that run).`,
    '',
  );
  lines.push(`| page | series | ${themes.join(' | ')} |`);
  lines.push(`|---|---|${themes.map(() => '---:').join('|')}|`);
  for (const page of pages) {
    const names = [...new Set(results.filter((r) => r.page === page).map((r) => r.series))];
    for (const name of names) {
      const cells = themes.map((t) => {
        const r = results.find((x) => x.page === page && x.series === name && x.theme === t);
        if (!r || r.contrast === undefined) return '—';
        return `${r.contrast.toFixed(2)}${r.contrast < MIN_CONTRAST ? ' ✘' : ''}`;
      });
      lines.push(`| ${page} | ${name} | ${cells.join(' | ')} |`);
    }
  }
  lines.push(
    '',
    'Colours as drawn (the series on the panel background; the theme variable it comes from, blank where the theme has none):',
    '',
  );
  lines.push('| theme | page | series | drawn | background | contrast | read from | variable |');
  lines.push('|---|---|---|---|---|---:|---|---|');
  for (const r of results) {
    lines.push(
      `| ${r.theme} | ${r.page} | ${r.series} | ${r.color ?? '—'} | ${r.background} | ${r.contrast?.toFixed(2) ?? '—'} | ${r.source}${r.pixels ? ` (${r.pixels} px)` : ''} | ${r.variable ? `\`${r.variable}\`` : ''} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
