/**
 * The extension-side pieces the compare page check needs, bundled for Node by compare.mjs:
 * the panel's HTML (same CSP) and the `compare-view` messages the host posts for two real
 * comparisons (the 2x H200 sweep and its rerun; the matrix alone and all pairs at once),
 * checked against the page's schema as the page will check them.
 */
import type { CompareHostMessage } from '../../src/core/compare/compareMessages';
import { parseCompareHostMessage } from '../../src/core/compare/compareMessages';
import { compareRuns } from '../../src/core/compare/compare';
import { comparePageView } from '../../src/core/compare/compareView';
import { benchRun } from '../support/benchRuns';

export { makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';

const PAIRS = {
  sweep: ['sweep', 'sweepRerun'],
  matrix: ['matrix', 'matrixConcurrent'],
} as const;

export function compareMessage(which: keyof typeof PAIRS): CompareHostMessage {
  const [a, b] = PAIRS[which];
  const message = parseCompareHostMessage(JSON.parse(JSON.stringify({ type: 'compare-view', view: comparePageView(compareRuns(benchRun(a, 'first'), benchRun(b, 'rerun'))) })));
  if (!message) throw new Error('the view of this comparison does not satisfy CompareHostMessageSchema');
  return message;
}
