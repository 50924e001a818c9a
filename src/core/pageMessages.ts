/**
 * What every panel's messages share (sweep, matrix, collective, compare, fleet, timeline): the
 * page's `ready` and `webview-error`, the bounded field types, and one way to parse with a
 * schema. Browser-safe (valibot only): the pages bundle it to check what the host posts, the
 * host to check the pages.
 */
import * as v from 'valibot';
import { EVIDENCE_STATES } from './moverEvidence';
import { EVIDENCE_DETAIL_MAX, EVIDENCE_SOURCES, EVIDENCE_VERDICTS, OBSERVED_MOVERS } from './protocol';

export const finite = v.pipe(v.number(), v.finite());
/** A copy endpoint or matrix row: a GPU index, or -1 for host memory. */
export const endpoint = v.pipe(v.number(), v.integer(), v.minValue(-1), v.maxValue(1023));
export const str = v.pipe(v.string(), v.maxLength(100_000));

/**
 * One sample's or cell's mover evidence as a page shows it (moverEvidence.ts `evidenceSummary`):
 * the word, its tooltip, and the four export columns, each bounded as the protocol bounds it.
 */
export const EvidenceSummarySchema = v.object({
  state: v.picklist(EVIDENCE_STATES),
  word: v.pipe(v.string(), v.maxLength(64)),
  title: v.pipe(v.string(), v.maxLength(4096)),
  source: v.optional(v.picklist(EVIDENCE_SOURCES)),
  observed: v.optional(v.picklist(OBSERVED_MOVERS)),
  verdict: v.optional(v.picklist(EVIDENCE_VERDICTS)),
  detail: v.optional(v.pipe(v.string(), v.maxLength(EVIDENCE_DETAIL_MAX))),
});

/** Page -> host, on every page: it is ready for the view; something failed inside it. */
export const ReadyMessageSchema = v.object({ type: v.literal('ready') });
export const WebviewErrorMessageSchema = v.object({
  type: v.literal('webview-error'),
  message: v.pipe(v.string(), v.maxLength(2000)),
});

/** A parser that returns the message when the schema accepts it and undefined otherwise. */
export function parserOf<S extends v.GenericSchema>(schema: S): (raw: unknown) => v.InferOutput<S> | undefined {
  return (raw) => {
    const r = v.safeParse(schema, raw);
    return r.success ? r.output : undefined;
  };
}
