/**
 * The VS Code webview API for a panel with its own message types. `acquireVsCodeApi` may be
 * called only once per page, so a page makes exactly one channel and posts through it.
 */

interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

export interface HostChannel<Out, State> {
  post(message: Out): void;
  /** Reports a failure inside the page to the host's log; never throws. */
  reportError(message: string): void;
  state(): State | undefined;
  saveState(state: State): void;
}

const MAX_ERROR_CHARS = 2000;

export function connectChannel<Out, State>(errorMessage: (text: string) => Out): HostChannel<Out, State> {
  const api = acquireVsCodeApi<State>();
  const post = (message: Out) => api.postMessage(message);
  return {
    post,
    reportError: (text) => {
      try {
        post(errorMessage(text.slice(0, MAX_ERROR_CHARS)));
      } catch {
        // Reporting must never become a second failure.
      }
    },
    state: () => api.getState(),
    saveState: (state) => api.setState(state),
  };
}
