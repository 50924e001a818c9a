/**
 * VS Code theme colours as a canvas needs them. A canvas cannot use `var(--x)`, so colours are
 * read from the computed style and re-read whenever VS Code switches theme.
 */

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
  /** Reads any `--vscode-*` colour, with a fallback for pages outside VS Code. */
  color(variable: string, fallback: string): string;
}

function themeKind(body: HTMLElement): ThemeKind {
  const c = body.classList;
  if (c.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (c.contains('vscode-high-contrast')) return 'high-contrast';
  if (c.contains('vscode-light')) return 'light';
  return 'dark';
}

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

export function readTheme(): Theme {
  const style = getComputedStyle(document.body);
  const color = (variable: string, fallback: string) => style.getPropertyValue(variable).trim() || fallback;
  const kind = themeKind(document.body);
  const highContrast = kind.startsWith('high-contrast');
  const light = kind === 'light' || kind === 'high-contrast-light';
  const foreground = color('--vscode-foreground', light ? '#3b3b3b' : '#cccccc');
  const contrastBorder = color('--vscode-contrastBorder', '');
  return {
    kind,
    highContrast,
    foreground,
    mutedForeground: color('--vscode-descriptionForeground', withAlpha(foreground, 0.75)),
    background: color('--vscode-editor-background', light ? '#ffffff' : '#1e1e1e'),
    border: highContrast && contrastBorder ? contrastBorder : color('--vscode-editorWidget-border', withAlpha(foreground, 0.4)),
    // Grid lines come from the text colour so they keep their weight relative to the labels in every theme.
    grid: withAlpha(foreground, highContrast ? 0.35 : 0.12),
    fontFamily: color('--vscode-font-family', 'system-ui, sans-serif'),
    fontSizePx: Number.parseFloat(color('--vscode-font-size', '13px')) || 13,
    color,
  };
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
