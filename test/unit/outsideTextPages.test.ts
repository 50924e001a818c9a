/**
 * The panels show text from runs as data: through textContent (never markup) and bidi-isolated.
 * The pages run here on a small stand-in DOM whose markup setters throw, fed the view the host
 * would post with a payload (a right-to-left override, markup, an isolate) appended to every
 * string its message schema lets hold free text. Every text node that carries outside text must
 * end the element holding it (nothing of the page's own words after it, and no other outside
 * text before it in the same node): every element is a bidi isolate (page.css), so an override
 * in it cannot reach the page's words; where a page puts a name beside its words, it is in a
 * `<bdi>` of its own. The sources are checked too: no markup sink anywhere in webview/.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { adviseFromRun } from '../../src/core/advice/advice';
import { adviceView } from '../../src/core/advice/adviceView';
import { parseCollectiveHostMessage } from '../../src/core/collective/collectiveMessages';
import { collectivePageView } from '../../src/core/collective/collectiveView';
import { compareRuns } from '../../src/core/compare/compare';
import { parseCompareHostMessage } from '../../src/core/compare/compareMessages';
import { comparePageView } from '../../src/core/compare/compareView';
import { parseFleetHostMessage } from '../../src/core/fleet/fleetMessages';
import { fleetPageView } from '../../src/core/fleet/fleetPage';
import { fleetView } from '../../src/core/fleet/fleetView';
import { parseMatrixHostMessage } from '../../src/core/matrix/matrixMessages';
import { matrixPageView } from '../../src/core/matrix/matrixView';
import type { Run } from '../../src/core/run';
import { sweepView } from '../../src/core/sweep/sweepView';
import { benchRun, runFromText } from '../support/benchRuns';
import { asNode, fleetIndexOf } from '../support/fleets';
import { overlapRunText } from '../support/overlapRecords';

const MARK = '«run»';
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
/** Appended to every free-text string of a view: an override, the mark, markup, an isolate left open. */
const PAYLOAD = `\u202e${MARK}<img src=x onerror="alert(1)"><b>x</b>\u2066`;

// ---------------------------------------------------------------------------------------------
// A stand-in DOM: enough of it for the pages, markup refused.

class FakeNode {
  parentNode: FakeElement | null = null;
  get parentElement(): FakeElement | null {
    return this.parentNode;
  }
  get nextSibling(): FakeNode | null {
    const s = this.parentNode?.childNodes;
    return s ? (s[s.indexOf(this) + 1] ?? null) : null;
  }
  remove(): void {
    const p = this.parentNode;
    if (p) p.childNodes.splice(p.childNodes.indexOf(this), 1);
    this.parentNode = null;
  }
}

class FakeText extends FakeNode {
  readonly nodeType = 3;
  constructor(public data: string) {
    super();
  }
  get textContent(): string {
    return this.data;
  }
  set textContent(v: string) {
    this.data = v;
  }
}

const MARKUP = (what: string) => () => {
  throw new Error(`the page used ${what}: markup, not text`);
};

type Listener = (event: unknown) => void;

class FakeElement extends FakeNode {
  readonly nodeType = 1;
  readonly childNodes: FakeNode[] = [];
  readonly attributes = new Map<string, string>();
  readonly listeners = new Map<string, Listener[]>();
  readonly style = { setProperty: () => {}, removeProperty: () => {} } as Record<string, unknown>;
  hidden = false;
  open = false;
  value = '';
  max = 0;
  tabIndex = -1;
  disabled = false;
  width = 300;
  height = 150;
  readonly localName: string;
  constructor(tag: string) {
    super();
    this.localName = tag.toLowerCase();
  }
  get tagName(): string {
    return this.localName.toUpperCase();
  }
  get id(): string {
    return this.getAttribute('id') ?? '';
  }
  set id(v: string) {
    this.setAttribute('id', v);
  }
  get className(): string {
    return this.getAttribute('class') ?? '';
  }
  set className(v: string) {
    this.setAttribute('class', v);
  }
  get classList() {
    const names = this.className.split(/\s+/).filter(Boolean);
    const set = (list: string[]) => (this.className = list.join(' '));
    return Object.assign([...names], {
      add: (...c: string[]) => set([...new Set([...names, ...c])]),
      remove: (...c: string[]) => set(names.filter((n) => !c.includes(n))),
      toggle: (c: string, on?: boolean) => {
        const want = on ?? !names.includes(c);
        set(want ? [...new Set([...names, c])] : names.filter((n) => n !== c));
        return want;
      },
      contains: (c: string) => names.includes(c),
    });
  }
  get dataset(): Record<string, string> {
    return Object.fromEntries(
      [...this.attributes]
        .filter(([k]) => k.startsWith('data-'))
        .map(([k, v]) => [k.slice(5).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), v]),
    );
  }
  setAttribute(name: string, value: unknown): void {
    this.attributes.set(name.toLowerCase(), String(value));
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name.toLowerCase()) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name.toLowerCase());
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name.toLowerCase());
  }
  toggleAttribute(name: string, on?: boolean): boolean {
    const want = on ?? !this.hasAttribute(name);
    if (want) this.setAttribute(name, '');
    else this.removeAttribute(name);
    return want;
  }
  append(...nodes: (FakeNode | string)[]): void {
    for (const n of nodes) {
      const node = typeof n === 'string' ? new FakeText(n) : n;
      node.remove();
      node.parentNode = this;
      this.childNodes.push(node);
    }
  }
  appendChild<T extends FakeNode>(node: T): T {
    this.append(node);
    return node;
  }
  prepend(...nodes: (FakeNode | string)[]): void {
    const rest = this.childNodes.splice(0);
    this.append(...nodes);
    for (const r of rest) this.childNodes.push(r);
  }
  insertBefore<T extends FakeNode>(node: T, ref: FakeNode | null): T {
    node.remove();
    node.parentNode = this;
    const at = ref ? this.childNodes.indexOf(ref) : -1;
    this.childNodes.splice(at < 0 ? this.childNodes.length : at, 0, node);
    return node;
  }
  replaceChildren(...nodes: (FakeNode | string)[]): void {
    for (const c of [...this.childNodes]) c.remove();
    this.append(...nodes);
  }
  replaceWith(...nodes: (FakeNode | string)[]): void {
    const p = this.parentNode;
    if (!p) return;
    const at = p.childNodes.indexOf(this);
    this.remove();
    const made = nodes.map((n) => (typeof n === 'string' ? new FakeText(n) : n));
    for (const [i, n] of made.entries()) p.insertBefore(n, p.childNodes[at + i] ?? null);
  }
  get children(): FakeElement[] {
    return this.childNodes.filter((c): c is FakeElement => c instanceof FakeElement);
  }
  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): FakeNode | null {
    return this.childNodes.at(-1) ?? null;
  }
  get firstElementChild(): FakeElement | null {
    return this.children[0] ?? null;
  }
  get textContent(): string {
    return this.childNodes.map((c) => (c as FakeText | FakeElement).textContent).join('');
  }
  set textContent(v: string) {
    this.replaceChildren(...(v === '' ? [] : [v]));
  }
  get innerText(): string {
    return this.textContent;
  }
  set innerText(v: string) {
    this.textContent = v;
  }
  set innerHTML(_: string) {
    MARKUP('innerHTML')();
  }
  get innerHTML(): string {
    return MARKUP('innerHTML')() as never;
  }
  set outerHTML(_: string) {
    MARKUP('outerHTML')();
  }
  insertAdjacentHTML = MARKUP('insertAdjacentHTML');
  matches(selector: string): boolean {
    return selector.split(',').some((s) => matchesChain(this, s.trim().split(/\s+(?![^[]*\])/)));
  }
  closest(selector: string): FakeElement | null {
    if (this.matches(selector)) return this;
    return this.parentNode?.closest(selector) ?? null;
  }
  querySelectorAll(selector: string): FakeElement[] {
    const out: FakeElement[] = [];
    const walk = (e: FakeElement) => {
      for (const c of e.children) {
        if (c.matches(selector)) out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }
  querySelector(selector: string): FakeElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }
  getElementsByTagName(tag: string): FakeElement[] {
    return this.querySelectorAll(tag);
  }
  addEventListener(type: string, fn: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  removeEventListener(type: string, fn: Listener): void {
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((f) => f !== fn),
    );
  }
  dispatchEvent(event: { type: string }): boolean {
    for (const fn of this.listeners.get(event.type) ?? []) fn(event);
    return true;
  }
  focus(): void {
    fakeDocument.activeElement = this;
  }
  blur(): void {}
  click(): void {
    this.dispatchEvent({ type: 'click' });
  }
  scrollIntoView(): void {}
  getBoundingClientRect() {
    return { x: 0, y: 0, left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0 };
  }
  getContext(): null {
    return null;
  }
  get clientWidth(): number {
    return 0;
  }
  get clientHeight(): number {
    return 0;
  }
  get offsetWidth(): number {
    return 0;
  }
  get ownerDocument() {
    return fakeDocument;
  }
  get isConnected(): boolean {
    return this === fakeDocument.documentElement || (this.parentNode?.isConnected ?? false);
  }
}

/** One compound selector: tag, #id, .class, [attr], [attr="value"]. */
function matchesCompound(e: FakeElement, compound: string): boolean {
  const parts = compound.match(/^[a-zA-Z][\w-]*|#[\w-]+|\.[\w-]+|\[[^\]]+\]/g) ?? [];
  if (parts.join('') !== compound) return false;
  return parts.every((p) => {
    if (p.startsWith('#')) return e.id === p.slice(1);
    if (p.startsWith('.')) return e.classList.contains(p.slice(1));
    if (p.startsWith('[')) {
      const m = /^\[([\w-]+)(?:=["']?([^"'\]]*)["']?)?\]$/.exec(p);
      if (!m) return false;
      return m[2] === undefined ? e.hasAttribute(m[1]!) : e.getAttribute(m[1]!) === m[2];
    }
    return e.localName === p.toLowerCase();
  });
}

function matchesChain(e: FakeElement, chain: string[]): boolean {
  if (!matchesCompound(e, chain.at(-1)!)) return false;
  let rest = chain.slice(0, -1);
  for (let a = e.parentNode; a && rest.length > 0; a = a.parentNode)
    if (matchesCompound(a, rest.at(-1)!)) rest = rest.slice(0, -1);
  return rest.length === 0;
}

const html = new FakeElement('html');
const body = new FakeElement('body');
const fakeDocument = {
  documentElement: html,
  body,
  activeElement: null as FakeElement | null,
  createElement: (tag: string) => new FakeElement(tag),
  createElementNS: (_: string, tag: string) => new FakeElement(tag),
  createTextNode: (data: string) => new FakeText(data),
  getElementById: (id: string) => html.querySelector(`#${id}`),
  querySelector: (s: string) => html.querySelector(s),
  querySelectorAll: (s: string) => html.querySelectorAll(s),
  addEventListener: () => {},
  removeEventListener: () => {},
  write: MARKUP('document.write'),
  createRange: () => ({ createContextualFragment: MARKUP('createContextualFragment') }),
};
html.append(body);

const windowListeners = new Map<string, Listener[]>();
const fakeWindow = {
  addEventListener: (type: string, fn: Listener) =>
    windowListeners.set(type, [...(windowListeners.get(type) ?? []), fn]),
  removeEventListener: () => {},
  setTimeout: (fn: () => void, ms?: number) => setTimeout(fn, ms),
  clearTimeout: (t: ReturnType<typeof setTimeout>) => clearTimeout(t),
  devicePixelRatio: 1,
  matchMedia: () => ({ matches: false, addEventListener: () => {}, removeEventListener: () => {} }),
  getComputedStyle: () => ({ getPropertyValue: () => '' }),
  requestAnimationFrame: (fn: (t: number) => void) => setTimeout(() => fn(0), 0),
  cancelAnimationFrame: () => {},
  document: fakeDocument,
};

let posted: unknown[] = [];

beforeEach(() => {
  vi.resetModules();
  body.replaceChildren(Object.assign(new FakeElement('div'), {}));
  body.firstElementChild!.id = 'root';
  windowListeners.clear();
  posted = [];
  vi.stubGlobal('document', fakeDocument);
  vi.stubGlobal('window', fakeWindow);
  vi.stubGlobal('HTMLElement', FakeElement);
  vi.stubGlobal('Element', FakeElement);
  vi.stubGlobal('Node', FakeNode);
  vi.stubGlobal('getComputedStyle', fakeWindow.getComputedStyle);
  vi.stubGlobal('requestAnimationFrame', fakeWindow.requestAnimationFrame);
  vi.stubGlobal('cancelAnimationFrame', fakeWindow.cancelAnimationFrame);
  vi.stubGlobal(
    'MutationObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
  // chart.js draws on a canvas this stand-in has not got; the charts' text is drawn, not put in the page.
  vi.doMock('chart.js', () => {
    class Chart {
      static register(): void {}
      options: Record<string, unknown>;
      data: unknown;
      constructor(_canvas: unknown, config: { options?: Record<string, unknown>; data?: unknown }) {
        this.options = config.options ?? {};
        this.data = config.data ?? { datasets: [] };
      }
      update(): void {}
      destroy(): void {}
    }
    return { Chart, Filler: {}, LinearScale: {}, LineController: {}, LineElement: {}, PointElement: {}, Tooltip: {} };
  });
  vi.stubGlobal('acquireVsCodeApi', () => ({
    postMessage: (m: unknown) => posted.push(m),
    getState: () => undefined,
    setState: () => {},
  }));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

// ---------------------------------------------------------------------------------------------
// Views with outside text in every free-text string, and what the page made of them

type Path = (string | number)[];

function stringPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((x, i) => stringPaths(x, [...path, i]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, x]) => stringPaths(x, [...path, k]));
  return [];
}
const at = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((x, k) => (x as Record<string | number, unknown>)[k], value);
function put(value: unknown, path: Path, x: unknown): void {
  (at(value, path.slice(0, -1)) as Record<string | number, unknown>)[path.at(-1)!] = x;
}

/** The message with PAYLOAD appended to every string its schema still accepts so (names, messages, notes), and those strings. */
function withOutsideText<M extends { view: unknown }>(
  message: M,
  parse: (raw: unknown) => unknown,
): { message: M; outside: string[] } {
  const out = JSON.parse(JSON.stringify(message)) as M;
  const outside: string[] = [];
  for (const path of stringPaths(message.view).map((p) => ['view', ...p])) {
    if (path.at(-1) === 'type') continue;
    const probe = JSON.parse(JSON.stringify(out)) as M;
    put(probe, path, `${String(at(probe, path))}${PAYLOAD}`);
    if (parse(probe) === undefined) continue;
    put(out, path, `${String(at(out, path))}${PAYLOAD}`);
    outside.push(String(at(out, path)));
  }
  expect(parse(out), 'the message with outside text is still valid').toBeDefined();
  expect(outside.length).toBeGreaterThan(3);
  return { message: out, outside };
}

/** Every text node under `root` that carries outside text. */
function outsideTextNodes(root: FakeElement): FakeText[] {
  const found: FakeText[] = [];
  const walk = (e: FakeElement) => {
    for (const c of e.childNodes) {
      if (c instanceof FakeText && c.data.includes(MARK)) found.push(c);
      if (c instanceof FakeElement) walk(c);
    }
  };
  walk(root);
  return found;
}

/**
 * Each text node of outside text ends the element holding it: it is the element's last child,
 * and it holds one outside string at its end with nothing of another before it. The element is
 * an isolate (page.css), so an override in that text reaches nothing of the page's.
 */
function expectIsolated(root: FakeElement, outside: string[], page: string): number {
  const nodes = outsideTextNodes(root);
  const wrong: string[] = [];
  for (const t of nodes) {
    // Outside text shown with its controls and bidi marks escaped (an <option>, which holds text only) cannot reorder anything.
    if (!UNSAFE.test(t.data)) continue;
    const parent = t.parentNode!;
    const where = `${page}: <${parent.localName} class="${parent.className}"> holding ${JSON.stringify(t.data.replace(PAYLOAD, '[payload]'))}`;
    if (parent.lastChild !== t)
      wrong.push(`${where}: the page's own text or elements follow the outside text in the same element`);
    const own = outside.filter((s) => t.data.endsWith(s)).sort((a, b) => b.length - a.length)[0];
    if (own === undefined) wrong.push(`${where}: the page's own text follows the outside text in the same text node`);
    else if (t.data.indexOf(MARK) < t.data.length - own.length)
      wrong.push(`${where}: other outside text before it in the same text node`);
  }
  expect(wrong).toEqual([]);
  // Markup in the payload stayed text: no element came from it.
  expect(root.querySelectorAll('img')).toEqual([]);
  return nodes.length;
}

function post(message: unknown): void {
  for (const fn of windowListeners.get('message') ?? []) fn({ data: message });
}

/**
 * A page's module, loaded afresh on the stand-in DOM. By a computed path: the pages are
 * type-checked by webview/tsconfig.json (the DOM's types), not by the host's.
 */
const page = (module: string): Promise<unknown> => import(join(__dirname, '..', '..', 'webview', `${module}.ts`));

const fixture = (name: string) => runFromText(readFileSync(join(__dirname, '..', 'fixtures', 'runs', name), 'utf8'));
const root = () => body.firstElementChild!;

describe('the panels put text from runs in as isolated text', () => {
  it("matrix: node, failed cells' errors and notes", async () => {
    const { message, outside } = withOutsideText(
      { type: 'matrix-view' as const, view: matrixPageView(fixture('sim-matrix-seed1.ndjson')) },
      parseMatrixHostMessage,
    );
    await page('matrix/main');
    post(message);
    expect(posted).toContainEqual({ type: 'ready' });
    expect(expectIsolated(root(), outside, 'matrix')).toBeGreaterThan(5);
    expect(root().textContent).toContain(`failed: `);
  });

  it("fleet: node names, Slurm's words, the outlier sentences and the advice groups", async () => {
    const sweep = fixture('sim-sweep-seed1.ndjson');
    const names = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
    const runs = new Map(
      names.map((n, i) => [n, { sweep: asNode(sweep, n, 1 + i * 0.001, n === 'h6' ? 0.5 : 1) as Run }]),
    );
    const index = { ...fleetIndexOf(names, { h3: 'crashed' }), message: 'one node ended early' };
    index.nodes[2]!.error = 'srun: step lost';
    const { message, outside } = withOutsideText(
      { type: 'fleet-view' as const, view: fleetPageView(fleetView(index, runs)) },
      parseFleetHostMessage,
    );
    await page('fleet/main');
    post(message);
    expect(expectIsolated(root(), outside, 'fleet')).toBeGreaterThan(10);
  });

  it("compare: the runs' ids, nodes, dates and sources, the notes", async () => {
    const a = fixture('sim-sweep-seed1.ndjson');
    const b = {
      ...a,
      header: { ...a.header, id: 'other', source: { tool: 'TransferBench', format: 'a2a', file: 'tb.txt' } },
    } as Run;
    const { message, outside } = withOutsideText(
      { type: 'compare-view' as const, view: comparePageView(compareRuns(a, b)) },
      parseCompareHostMessage,
    );
    await page('compare/main');
    post(message);
    expect(expectIsolated(root(), outside, 'compare')).toBeGreaterThan(3);
  });

  it('collective: node, notes, the advice and its evidence', async () => {
    const run = benchRun('collective');
    run.warnings.push({ type: 'warning', code: 'rccl-log', message: 'RCCL_ENABLE_INTRANET is not set' });
    const { message, outside } = withOutsideText(
      { type: 'collective-view' as const, view: collectivePageView(run) },
      parseCollectiveHostMessage,
    );
    await page('collective/main');
    post(message);
    expect(expectIsolated(root(), outside, 'collective')).toBeGreaterThan(3);
  });

  it('overlap: the mechanism of each copy, the rows, the claim lines and the advice', async () => {
    const { message, outside } = withOutsideText(
      { type: 'collective-view' as const, view: collectivePageView(runFromText(overlapRunText())) },
      parseCollectiveHostMessage,
    );
    expect(outside.some((s) => s.startsWith('load/store kernel on 32 CUs'))).toBe(true);
    await page('collective/main');
    post(message);
    expect(expectIsolated(root(), outside, 'overlap')).toBeGreaterThan(20);
    expect(root().querySelectorAll('table.overlap-table td.mechanism bdi').length).toBe(12);
  });

  it("sweep: the header, the helper's warnings and problems, the advice and its evidence", async () => {
    const run = fixture('sim-sweep-seed1.ndjson');
    run.warnings.push({ type: 'warning', code: 'sim-note', message: 'no real engines' });
    run.problems.push('skipped a malformed record: line 9');
    const view = sweepView(run);
    const advice = adviceView(adviseFromRun(run));
    const parse = (m: unknown) => m;
    const { message, outside } = withOutsideText({ view: { view, advice } }, parse);
    const { SweepHeader } = (await page('sweep/header')) as {
      SweepHeader: new () => { element: FakeElement; update(view: unknown): void };
    };
    const { renderNotes } = (await page('sweep/notes')) as {
      renderNotes(root: FakeElement, warnings: readonly string[], problems: readonly string[]): void;
    };
    const { renderAdvice } = (await page('sweep/advice')) as {
      renderAdvice(root: FakeElement, advice: unknown, cus: number | undefined, onSuggest: () => void): void;
    };
    const header = new SweepHeader();
    header.update(message.view.view);
    const notes = new FakeElement('section');
    renderNotes(notes, message.view.view.warnings, message.view.view.problems);
    const adviceRoot = new FakeElement('section');
    renderAdvice(adviceRoot, message.view.advice, undefined, () => {});
    root().append(header.element, notes, adviceRoot);
    expect(expectIsolated(root(), outside, 'sweep')).toBeGreaterThan(5);
  });

  it("timeline: the title and the node beside the page's words", async () => {
    const { Toolbar } = (await page('timeline/toolbar')) as {
      Toolbar: new (actions: Record<string, () => void>) => { element: FakeElement; setMeta(meta: unknown): void };
    };
    const toolbar = new Toolbar({
      onFilter: () => {},
      onFit: () => {},
      onZoomSelection: () => {},
      onMeasureMode: () => {},
      onToggleCus: () => {},
      onExport: () => {},
    });
    const meta = {
      key: 'r/timeline.sdmatl',
      runId: 'r',
      title: `Timeline of run r${PAYLOAD}`,
      simulated: false,
      nodeLabel: `AMD Instinct MI350X x8${PAYLOAD}`,
      vendor: 'amd' as const,
      sizeBytes: 1 << 20,
      gpuCus: [256],
    };
    toolbar.setMeta(meta);
    root().append(
      toolbar.element,
      (toolbar as unknown as { title: FakeElement }).title,
      (toolbar as unknown as { facts: FakeElement }).facts,
    );
    expect(expectIsolated(root(), [meta.title, meta.nodeLabel], 'timeline')).toBeGreaterThanOrEqual(2);
  });
});

describe('the pages never make markup', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) =>
      statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : /\.(ts|mjs|js)$/.test(f) ? [join(dir, f)] : [],
    );
  const webview = join(__dirname, '..', '..', 'webview');

  it('no innerHTML, outerHTML, insertAdjacentHTML, document.write, DOMParser, createContextualFragment or srcdoc in webview/', () => {
    const sinks =
      /\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|srcdoc/;
    const found = files(webview).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((l, i) => [l, i] as const)
        .filter(([l]) => sinks.test(l))
        .map(([l, i]) => `${f}:${i + 1}: ${l.trim()}`),
    );
    expect(found).toEqual([]);
  });

  it("every page's stylesheet starts with the shared one, which makes every element a bidi isolate", () => {
    const css = readFileSync(join(webview, 'shared', 'page.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(css).toMatch(/(^|\})\s*body \*\s*\{\s*unicode-bidi:\s*isolate;\s*\}/);
    const build = readFileSync(join(__dirname, '..', '..', 'scripts', 'build.mjs'), 'utf8');
    const pages = readdirSync(webview).filter((d) => statSync(join(webview, d)).isDirectory() && d !== 'shared');
    for (const page of pages) {
      const built =
        page === 'timeline'
          ? /pageCss\(join\(here, 'timeline\.css'\)/.test(readFileSync(join(webview, 'timeline', 'build.mjs'), 'utf8'))
          : new RegExp(`'${page}'`).test(/for \(const page of \[([^\]]*)\]\)\s*pageCss/.exec(build)?.[1] ?? '');
      expect(built, `${page}'s stylesheet is built with the shared styles (scripts/pageCss.mjs)`).toBe(true);
    }
    const pageCss = readFileSync(join(__dirname, '..', '..', 'scripts', 'pageCss.mjs'), 'utf8');
    expect(pageCss).toMatch(/\[\.\.\.shared, readFileSync\(source/);
  });
});
