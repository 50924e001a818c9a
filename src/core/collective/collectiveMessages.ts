/**
 * What the collective panel's page receives and may send back. Type-only apart from the
 * schema of the page's messages, so the page bundles nothing of the host's code.
 */
import * as v from 'valibot';
import type { CollectiveOp, CollectiveVariant, CollectiveVariantName, OverlapPoint } from '../protocol';

export interface CurvePoint {
  sizeBytes: number;
  busbwGbps: number;
  algbwGbps: number;
  timeUs: number;
  transport: string | null;
  /** The point ran on another path than its variant is for (e.g. gin-sdma fell back to lsa). */
  offPath: boolean;
  wrong: number | null;
}

export interface Curve {
  op: CollectiveOp;
  variant: CollectiveVariantName;
  inPlace: boolean;
  points: CurvePoint[];
}

export interface CollectiveCrossover {
  op: CollectiveOp;
  engineVariant: CollectiveVariantName;
  kind: 'crossover' | 'engine-always' | 'default-always' | 'no-clear-winner' | 'insufficient';
  /** Smallest size from which the engine variant stays ahead. */
  fromBytes?: number;
  /** Largest size the default path still won. */
  lastDefaultBytes?: number;
  ranks: number;
  text: string;
}

export interface OverlapRow {
  compute: OverlapPoint['compute'];
  path: string;
  label: string;
  cus?: number;
  keptFraction: number;
  copyGbps: number | null;
  smClockMHz: number | null;
  powerW: number | null;
  /** Why the compute slowed: lost SMs, or power (clock fell while the board sat at its cap). */
  cause: 'sms' | 'power' | 'both' | 'none' | 'unknown';
}

export interface OverlapAlone {
  tflops: number;
  smClockMHz: number | null;
  powerW: number | null;
  powerLimitW: number | null;
}

export interface OverlapView {
  rows: OverlapRow[];
  alone: Partial<Record<OverlapPoint['compute'], OverlapAlone>>;
}

export interface PageRecommendation {
  knob: string;
  value?: string;
  evidence: string;
  confidence: 'clear' | 'uncertain' | 'none';
}

export interface CollectivePageView {
  runId: string;
  title: string;
  command: 'collective' | 'overlap';
  status: string;
  simulated: boolean;
  node: string;
  progress: { done: number; total: number };
  variants: CollectiveVariant[];
  curves: Curve[];
  crossovers: CollectiveCrossover[];
  overlap: OverlapView;
  recommendations: PageRecommendation[];
  cuBudget: string[];
  notes: string[];
  /** `export NAME=value` lines of the recommendations that carry a value. */
  exports: string;
}

export type CollectiveHostMessage = { type: 'collective-view'; view: CollectivePageView };

const CollectiveWebviewMessageSchema = v.variant('type', [
  v.object({ type: v.literal('ready') }),
  v.object({ type: v.literal('copy-exports') }),
  v.object({ type: v.literal('webview-error'), message: v.pipe(v.string(), v.maxLength(2000)) }),
]);
export type CollectiveWebviewMessage = v.InferOutput<typeof CollectiveWebviewMessageSchema>;

/** The page's message when it is one the host understands; undefined otherwise. */
export function parseCollectiveWebviewMessage(raw: unknown): CollectiveWebviewMessage | undefined {
  const r = v.safeParse(CollectiveWebviewMessageSchema, raw);
  return r.success ? r.output : undefined;
}
