/**
 * Messages between the extension host and the fleet panel's page, validated on both sides:
 * the page checks each view (and each figure's values) before drawing it, the host each
 * message before acting on it. Every array and string has a bound, so a page never takes in
 * more than a fleet can hold. Browser-safe (valibot and the shared message parts only), so
 * the page bundles it.
 */
import * as v from 'valibot';
import { ReadyMessageSchema, WebviewErrorMessageSchema, finite, parserOf, str } from '../pageMessages';
import { CopyTableMessageSchema, ExportTableMessageSchema } from '../tables/tableMessages';
import { FLEET_STATUSES } from './fleetIndex';

/**
 * How much of a fleet one message carries. Nodes: Slurm's own bound on an allocation
 * (`allocationArgs`, 1..100000). The rest is what a page can show and a person can read; what
 * is left out is counted (`outlierCount`, `failureCount`, `outlierNodeCount`) and said on the page.
 */
export const FLEET_LIMITS = {
  nodes: 100_000,
  figures: 100_000,
  /** Outlier sentences sent; `sdma-lens fleet show --json` has them all. */
  outliers: 10_000,
  /** Outlier nodes named per figure. */
  outlierNodesPerFigure: 100,
  /** Threshold failures sent per node. */
  failuresPerNode: 20,
  runsPerNode: 8,
  adviceGroups: 1_000,
  settingsPerGroup: 1_000,
  notes: 1_000,
} as const;

/** A node name, a figure key, a run id: short text. */
const name = v.pipe(v.string(), v.maxLength(4096));
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const upTo = <S extends v.GenericSchema>(item: S, max: number) => v.pipe(v.array(item), v.maxLength(max));

export const FIGURE_KINDS = ['peak', 'crossover', 'cell'] as const;
export const FIGURE_UNITS = ['GB/s', 'bytes'] as const;

const FleetPageNodeSchema = v.object({
  node: name,
  /** ok, error, crashed, cancelled, incomplete, running, missing (no run): the worst of the node's runs. */
  status: name,
  /** The node's runs, each with the command it ran when the fleet's index says. */
  runs: upTo(v.object({ command: v.optional(name), runId: name }), FLEET_LIMITS.runsPerNode),
  error: v.optional(str),
  simulated: v.boolean(),
  outliers: count,
  /** The first threshold failures; `failureCount` is all of them. */
  failures: upTo(str, FLEET_LIMITS.failuresPerNode),
  failureCount: count,
});
export type FleetPageNode = v.InferOutput<typeof FleetPageNodeSchema>;

const NodeValueSchema = v.object({ node: name, value: finite });

/** A figure over the fleet, without its per-node values (those come with `figure-values`, when the page asks). */
const FleetPageFigureSchema = v.object({
  key: name,
  label: str,
  kind: v.picklist(FIGURE_KINDS),
  unit: v.picklist(FIGURE_UNITS),
  lowIsWeak: v.boolean(),
  /** How many nodes have this figure. */
  nodes: count,
  median: finite,
  /** Enough nodes to judge (outliers.ts, MIN_NODES). */
  judged: v.boolean(),
  low: NodeValueSchema,
  high: NodeValueSchema,
  /** The outlier nodes, lowest value first (at most FLEET_LIMITS.outlierNodesPerFigure); `outlierNodeCount` is all of them. */
  outlierNodes: upTo(name, FLEET_LIMITS.outlierNodesPerFigure),
  outlierNodeCount: count,
});
export type FleetPageFigure = v.InferOutput<typeof FleetPageFigureSchema>;

const FleetPageOutlierSchema = v.object({ node: name, figure: name, side: v.picklist(['low', 'high']), text: str });
export type FleetPageOutlier = v.InferOutput<typeof FleetPageOutlierSchema>;

export const FleetPageViewSchema = v.object({
  id: name,
  createdAt: name,
  status: v.picklist(FLEET_STATUSES),
  message: v.optional(str),
  job: name,
  via: str,
  simulated: v.boolean(),
  /** Nodes with outliers or failures first (fleetPage.ts, `nodeOrder`). */
  nodes: upTo(FleetPageNodeSchema, FLEET_LIMITS.nodes),
  /** Figures with an outlier node first, then by key. */
  figures: upTo(FleetPageFigureSchema, FLEET_LIMITS.figures),
  outliers: upTo(FleetPageOutlierSchema, FLEET_LIMITS.outliers),
  /** All outliers of the fleet; more than `outliers.length` when the list was cut. */
  outlierCount: count,
  advice: upTo(
    v.object({ settings: upTo(str, FLEET_LIMITS.settingsPerGroup), nodes: upTo(name, FLEET_LIMITS.nodes) }),
    FLEET_LIMITS.adviceGroups,
  ),
  adviceDiffers: v.boolean(),
  rule: str,
  thresholds: v.optional(v.object({ failed: count, passed: count })),
  notes: upTo(str, FLEET_LIMITS.notes),
});
export type FleetPageView = v.InferOutput<typeof FleetPageViewSchema>;

/** One node's value of the figure asked for, judged against the fleet. */
const FigureValueSchema = v.object({ node: name, value: finite, deviation: finite, z: finite, outlier: v.boolean() });
export type FigureValue = v.InferOutput<typeof FigureValueSchema>;

/** The host's answer to `select-figure`: every node's value of that figure, lowest first. */
export const FigureValuesSchema = v.object({
  key: name,
  label: str,
  unit: v.picklist(FIGURE_UNITS),
  lowIsWeak: v.boolean(),
  median: finite,
  judged: v.boolean(),
  values: upTo(FigureValueSchema, FLEET_LIMITS.nodes),
});
export type FigureValues = v.InferOutput<typeof FigureValuesSchema>;

/** Host -> page: the fleet; a figure's per-node values. */
export const FleetHostMessageSchema = v.variant('type', [
  v.object({ type: v.literal('fleet-view'), view: FleetPageViewSchema }),
  v.object({ type: v.literal('figure-values'), figure: FigureValuesSchema }),
]);
export type FleetHostMessage = v.InferOutput<typeof FleetHostMessageSchema>;

/**
 * Page -> host: besides ready and errors, a figure picked (the host answers with its values),
 * "Open" next to a node's run, and the table's export and "Copy table" (when the page has no clipboard).
 */
const FleetWebviewMessageSchema = v.variant('type', [
  ReadyMessageSchema,
  WebviewErrorMessageSchema,
  v.object({ type: v.literal('select-figure'), key: name }),
  v.object({ type: v.literal('open-run'), runId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,128}$/)) }),
  ExportTableMessageSchema,
  CopyTableMessageSchema,
]);
export type FleetWebviewMessage = v.InferOutput<typeof FleetWebviewMessageSchema>;

/** The page checks each message before drawing it. */
export const parseFleetHostMessage: (raw: unknown) => FleetHostMessage | undefined = parserOf(FleetHostMessageSchema);
/** The page's message when it is one the host understands; undefined otherwise. */
export const parseFleetWebviewMessage: (raw: unknown) => FleetWebviewMessage | undefined =
  parserOf(FleetWebviewMessageSchema);
