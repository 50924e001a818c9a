/**
 * The one handle on the VS Code webview API. `acquireVsCodeApi` may be called only once per
 * page, so every module posts through here, and only messages the schema allows get posted.
 */
import type { WebviewMessage } from '../../src/core/sweep/sweepMessages';

interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

export interface WebviewHost<State> {
  post(message: WebviewMessage): void;
  /** Reports a failure inside the page to the host's log; never throws. */
  reportError(message: string): void;
  state(): State | undefined;
  saveState(state: State): void;
}

const MAX_ERROR_CHARS = 2000;

export function connectToHost<State>(): WebviewHost<State> {
  const api = acquireVsCodeApi<State>();
  const post = (message: WebviewMessage) => api.postMessage(message);
  return {
    post,
    reportError: (message) => {
      try {
        post({ type: 'webview-error', message: message.slice(0, MAX_ERROR_CHARS) });
      } catch {
        // Reporting must never become a second failure.
      }
    },
    state: () => api.getState(),
    saveState: (state) => api.setState(state),
  };
}
