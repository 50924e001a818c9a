/**
 * The one handle on the VS Code webview API, and the one channel a page talks to its host
 * through. `acquireVsCodeApi` may be called only once per page, so a page connects once. The
 * channel validates EVERY message the host sends with the page's schema before the page sees
 * it (an invalid one is reported to the host's log and dropped), reports the page's own
 * failures, and posts only the page's message type.
 */

interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

/** What every page may post: its ready signal and its failures; a page's own type has more. */
type PageMessage = { type: string };

export interface HostChannel<Out extends PageMessage, State> {
  post(message: Out): void;
  /** Reports a failure inside the page to the host's log; never throws. */
  reportError(message: string): void;
  state(): State | undefined;
  saveState(state: State): void;
  /** Tells the host the page is listening: it then posts the view. */
  ready(): void;
}

export interface PageOptions<In> {
  /** "sweep", "timeline", …: prefixes what the page reports. */
  name: string;
  /** The page's schema for host messages; undefined means invalid. */
  parse(raw: unknown): In | undefined;
  /** A valid host message, and when it arrived (before validation, which is part of its cost). */
  onMessage(message: In, arrivedAt: number): void;
}

const MAX_ERROR_CHARS = 2000;

function describe(value: unknown): string {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? `"${type.slice(0, 64)}"` : typeof value;
}

export function connectPage<In, Out extends PageMessage, State>(page: PageOptions<In>): HostChannel<Out, State> {
  const api = acquireVsCodeApi<State>();
  const post = (message: Out) => api.postMessage(message);
  const reportError = (text: string) => {
    try {
      api.postMessage({ type: 'webview-error', message: text.slice(0, MAX_ERROR_CHARS) });
    } catch {
      // Reporting must never become a second failure.
    }
  };
  window.addEventListener('error', (event) => reportError(`${page.name} panel: ${event.message}`));
  window.addEventListener('unhandledrejection', (event) => reportError(`${page.name} panel: ${String(event.reason)}`));
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const arrivedAt = performance.now();
    const message = page.parse(event.data);
    if (message === undefined)
      reportError(`${page.name} panel ignored an invalid message from the host (${describe(event.data)})`);
    else page.onMessage(message, arrivedAt);
  });
  return {
    post,
    reportError,
    state: () => api.getState(),
    saveState: (state) => api.setState(state),
    ready: () => api.postMessage({ type: 'ready' }),
  };
}
