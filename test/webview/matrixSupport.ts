/**
 * The extension-side pieces the matrix page check needs, bundled for Node by matrix.mjs: the
 * panel's HTML (same CSP), and the `matrix-view` messages the host would post while a run streams.
 */
import * as v from 'valibot';
import type { MatrixHostMessage } from '../../src/core/matrix/matrixMessages';
import { parseMatrixHostMessage } from '../../src/core/matrix/matrixMessages';
import { matrixPageView } from '../../src/core/matrix/matrixView';
import { applySavedValue, newRun, RunHeaderSchema } from '../../src/core/run';

export { makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';
export { formatGbps } from '../../src/core/units';

/** Replays a saved run: a message after each of `steps` even slices of its records. */
export function matrixMessages(runFileText: string, steps: number): MatrixHostMessage[] {
  const lines = runFileText.split('\n').filter((line) => line.trim().length > 0);
  const run = newRun(v.parse(RunHeaderSchema, JSON.parse(lines[0] ?? 'null')));
  const records = lines.slice(1).map((line) => JSON.parse(line) as unknown);
  const cuts = new Set(Array.from({ length: steps }, (_, i) => Math.round(((i + 1) * records.length) / steps)));
  const messages: MatrixHostMessage[] = [];
  records.forEach((record, i) => {
    applySavedValue(run, record);
    if (!cuts.has(i + 1)) return;
    const message = parseMatrixHostMessage(
      JSON.parse(JSON.stringify({ type: 'matrix-view', view: matrixPageView(run) })),
    );
    if (!message) throw new Error('the view built from this run does not satisfy MatrixHostMessageSchema');
    messages.push(message);
  });
  return messages;
}
