/**
 * The extension-side pieces the compare page check needs, bundled for Node by compare.mjs:
 * the panel's HTML (same CSP) and the `compare-view` messages the host posts for real
 * comparisons (the 2x H200 sweep and its rerun by each run's spread alone, and by the default
 * run-to-run tolerance; the 1x H200 sweep and its rerun with two baseline runs; the matrix alone
 * and all pairs at once), checked against the page's schema as the page will check them.
 */
import type { CompareHostMessage } from '../../src/core/compare/compareMessages';
import { parseCompareHostMessage } from '../../src/core/compare/compareMessages';
import type { CompareOptions } from '../../src/core/compare/compare';
import { compareRuns } from '../../src/core/compare/compare';
import { comparePageView } from '../../src/core/compare/compareView';
import { benchRun } from '../support/benchRuns';

export { makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';

const PAIRS = {
  // Each run's spread alone (a given tolerance of 0): regressions to open on.
  sweep: ['sweep', 'sweepRerun', () => ({ tolerance: 0 })],
  sweepDefault: ['sweep', 'sweepRerun', () => ({})],
  baselines: [
    'h200x1Default',
    'h200x1DefaultRerun',
    () => ({ baselines: [benchRun('h200x1Full', 'full'), benchRun('h200x1FullRerun', 'full-rerun')] }),
  ],
  matrix: ['matrix', 'matrixConcurrent', () => ({ tolerance: 0 })],
} as const satisfies Record<string, readonly [string, string, () => CompareOptions]>;

export function compareMessage(which: keyof typeof PAIRS): CompareHostMessage {
  const [a, b, options] = PAIRS[which];
  const message = parseCompareHostMessage(
    JSON.parse(
      JSON.stringify({
        type: 'compare-view',
        view: comparePageView(compareRuns(benchRun(a, 'first'), benchRun(b, 'rerun'), options())),
      }),
    ),
  );
  if (!message) throw new Error('the view of this comparison does not satisfy CompareHostMessageSchema');
  return message;
}
