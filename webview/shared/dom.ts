/**
 * Builds DOM nodes from data. Text always goes in through textContent, never markup, so
 * nothing the helper prints can become HTML in the page. Text from runs (node, GPU and kernel
 * names, warnings, notes, file names) is bidi-isolated: every element of a page is an isolate
 * (webview/shared/page.css), so a direction override or embedding in such text ends with the
 * element that holds it; where a page puts outside text beside its own words in one element,
 * the outside text goes in its own `<bdi>` (`bdi`), so it cannot reorder them.
 */

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined) node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

/** Outside text as an element of its own: a `<bdi>` (isolated, its direction from its own text) holding it as text. */
export function bdi(text: string): HTMLElement {
  const node = document.createElement('bdi');
  node.textContent = text;
  return node;
}

/** Outside texts each in its own `<bdi>`, with `separator` (the page's own text) between them. */
export function bdiList(texts: readonly string[], separator: string): (HTMLElement | string)[] {
  return texts.flatMap((t, i) => (i === 0 ? [bdi(t)] : [separator, bdi(t)]));
}

/** Replaces the children of `parent` in one DOM operation. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

/** A function that calls `fn` on the next animation frame, once however often it is called before then. */
export function onNextFrame(fn: () => void): () => void {
  let frame = 0;
  return () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      fn();
    });
  };
}
