/**
 * Messages between the extension host and the sweep panel's webview: discriminated unions,
 * validated on both sides (a webview is a web page; the host trusts nothing it posts, and
 * the page checks what it receives before drawing it).
 */
import * as v from 'valibot';
import { PATHS } from './protocol';

const finite = v.pipe(v.number(), v.finite());
const str = v.pipe(v.string(), v.maxLength(100_000));

const SweepPointSchema = v.object({ sizeBytes: finite, gbps: finite, gbpsLow: finite, gbpsHigh: finite, meanNs: finite });

export const SweepViewSchema = v.object({
  runId: str,
  title: str,
  createdAt: str,
  simulated: v.boolean(),
  backend: str,
  nodeLabel: str,
  src: finite,
  dst: finite,
  status: str,
  statusMessage: str,
  progress: v.object({ done: finite, total: finite }),
  cuCounts: v.array(finite),
  sizes: v.array(finite),
  series: v.array(v.object({ path: v.picklist(PATHS), cus: finite, points: v.array(SweepPointSchema) })),
  warnings: v.array(str),
  problems: v.array(str),
});

/** Host -> webview. */
export const HostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('sweep'), view: SweepViewSchema }),
]);
export type HostMessage = v.InferOutput<typeof HostMessageSchema>;

/** Webview -> host. */
export const WebviewMessageSchema = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('cus-selected'), cus: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4096)) }),
  v.object({ type: v.literal('webview-error'), message: v.pipe(v.string(), v.maxLength(2000)) }),
]);
export type WebviewMessage = v.InferOutput<typeof WebviewMessageSchema>;

export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  const r = v.safeParse(WebviewMessageSchema, value);
  return r.success ? r.output : undefined;
}

export function parseHostMessage(value: unknown): HostMessage | undefined {
  const r = v.safeParse(HostMessageSchema, value);
  return r.success ? r.output : undefined;
}
