/**
 * Small SVG builders. Text goes in through textContent, never markup, so nothing the helper
 * prints can become markup in the page.
 */
const NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number | undefined> = {}, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined) node.setAttribute(name, String(value));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | undefined> = {}, ...children: (Node | string | null | undefined | false)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined) node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

const UNITS = [
  ['GiB', 2 ** 30],
  ['MiB', 2 ** 20],
  ['KiB', 2 ** 10],
] as const;

export function formatSize(bytes: number): string {
  for (const [name, unit] of UNITS) {
    if (bytes >= unit) {
      const v = bytes / unit;
      return `${Number.isInteger(v) ? v : v.toFixed(1)} ${name}`;
    }
  }
  return `${bytes} B`;
}
