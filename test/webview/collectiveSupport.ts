/**
 * The extension-side pieces the collective page check needs, bundled for Node by
 * collective.mjs: the panel's HTML (same CSP), the `collective-view` message the host
 * posts for a saved run, checked against the page's schema as the page will check it, and a
 * hand-made overlap run in the helper's record shape (test/support/overlapRecords.ts).
 */
import * as v from 'valibot';
import type { CollectiveHostMessage } from '../../src/core/collective/collectiveMessages';
import { parseCollectiveHostMessage } from '../../src/core/collective/collectiveMessages';
import { collectivePageView } from '../../src/core/collective/collectiveView';
import { applySavedValue, newRun, RunHeaderSchema } from '../../src/core/run';

export { makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';
export { overlapRunText } from '../support/overlapRecords';

export function collectiveMessage(runFileText: string): CollectiveHostMessage {
  const lines = runFileText.split('\n').filter((line) => line.trim().length > 0);
  const run = newRun(v.parse(RunHeaderSchema, JSON.parse(lines[0] ?? 'null')));
  for (const line of lines.slice(1)) applySavedValue(run, JSON.parse(line) as unknown);
  const message = parseCollectiveHostMessage(
    JSON.parse(JSON.stringify({ type: 'collective-view', view: collectivePageView(run) })),
  );
  if (!message) throw new Error('the view built from this run does not satisfy CollectiveHostMessageSchema');
  return message;
}
