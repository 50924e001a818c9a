/**
 * The extension-side pieces the preview harness needs, bundled for Node by preview.mjs: the
 * panel's HTML (same CSP), and the `sweep` messages the host would post while a run streams.
 */
import * as v from 'valibot';
import type { HostMessage } from '../../src/core/sweep/sweepMessages';
import { parseHostMessage } from '../../src/core/sweep/sweepMessages';
import { applySavedValue, newRun, RunHeaderSchema } from '../../src/core/run';
import { sweepView } from '../../src/core/sweep/sweepView';
import { adviseFromRun } from '../../src/core/advice/advice';
import { adviceView } from '../../src/core/advice/adviceView';

export { makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';

/**
 * Replays a saved run and returns the messages the host would post: a few while it streams
 * (after `steps - 1` even slices of the records), then the finished run.
 */
export function sweepMessages(runFileText: string, steps: number): HostMessage[] {
  const lines = runFileText.split('\n').filter((line) => line.trim().length > 0);
  const header = v.parse(RunHeaderSchema, JSON.parse(lines[0] ?? 'null'));
  const records = lines.slice(1).map((line) => JSON.parse(line) as unknown);
  const run = newRun(header);
  const cuts = new Set(Array.from({ length: steps }, (_, i) => Math.round(((i + 1) * records.length) / steps)));
  const messages: HostMessage[] = [];
  records.forEach((record, i) => {
    applySavedValue(run, record);
    if (!cuts.has(i + 1)) return;
    // A round trip through JSON is what postMessage does to the view anyway.
    const advice = run.samples.length > 0 ? adviceView(adviseFromRun(run)) : undefined;
    const message = parseHostMessage(
      JSON.parse(JSON.stringify({ type: 'sweep', view: sweepView(run), ...(advice ? { advice } : {}) })),
    );
    if (!message) throw new Error('the view built from this run does not satisfy HostMessageSchema');
    messages.push(message);
  });
  return messages;
}
