/**
 * The HTML shell of the timeline panel. Pure, so the browser harness and the benchmark serve
 * the page with the exact CSP the extension ships.
 *
 * The CSP is the sweep panel's plus one directive: `worker-src blob:`. Level-of-detail work runs
 * in a Worker, and VS Code webviews cannot start a worker from an extension resource URL (it
 * is cross-origin to the page); the worker's code is bundled into the page's script and
 * started from a blob: URL the page creates itself, so nothing else is allowed in.
 */
import type { PanelHtmlOptions } from './webviewHtml';
import { contentSecurityPolicy, makeNonce, panelHtml } from './webviewHtml';

export type TimelineHtmlOptions = Omit<PanelHtmlOptions, 'extraDirectives'>;

export const TIMELINE_DIRECTIVES = ['worker-src blob:'] as const;

export const timelineNonce = makeNonce;

export function timelineCsp(cspSource: string, nonce: string): string {
  return contentSecurityPolicy(cspSource, nonce, TIMELINE_DIRECTIVES);
}

export function timelineHtml(options: TimelineHtmlOptions): string {
  return panelHtml({ ...options, extraDirectives: TIMELINE_DIRECTIVES });
}
