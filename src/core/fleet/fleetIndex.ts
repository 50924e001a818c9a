/**
 * A fleet run: the index of one fleet sweep, saved as `fleet.json` in its own folder beside
 * the runs folder (`.sdma-lens/fleets/<id>/`). Each node's sweep (and matrix) is an ordinary
 * run of the runs folder, with `header.fleet` naming the fleet and the node; the index lists
 * them, with the Slurm job they ran in and how the fleet ended. It is rewritten after each
 * node's run ends, so a fleet cut short keeps every node that finished. Browser-safe.
 */
import * as v from 'valibot';

export const FLEET_FORMAT = 'sdma-lens-fleet';
export const FLEET_COMMANDS = ['sweep', 'matrix'] as const;
export type FleetCommand = (typeof FLEET_COMMANDS)[number];
export const FLEET_STATUSES = ['queued', 'running', 'ok', 'partial', 'cancelled', 'error'] as const;

const text = v.pipe(v.string(), v.maxLength(4096));

export const FleetNodeSchema = v.object({
  node: v.pipe(text, v.minLength(1)),
  runs: v.array(v.object({ command: v.picklist(FLEET_COMMANDS), runId: text, status: text })),
  /** Why this node has no run, or why its run is not whole (the step's own words). */
  error: v.optional(text),
});

export const FleetIndexSchema = v.object({
  format: v.literal(FLEET_FORMAT),
  version: v.literal(1),
  id: v.pipe(text, v.regex(/^[A-Za-z0-9._-]+$/)),
  createdAt: text,
  endedAt: v.optional(text),
  /** Where Slurm was asked: this machine (a login node) or an SSH target to one. */
  via: v.object({ kind: v.picklist(['local', 'ssh']), host: v.optional(text) }),
  slurm: v.object({
    job: text,
    /** The fleet asked for the allocation (and released it); false: an allocation the user gave. */
    ownAllocation: v.boolean(),
    partition: v.optional(text),
    nodelist: v.optional(text),
    /** A queued fleet (`fleet --queue`, batch.ts): the folder its job's nodes write into, collected later. */
    batch: v.optional(v.object({ dir: text, cancelled: v.optional(v.boolean()) })),
    /**
     * The allocation given back (`scancel`, then waiting until Slurm stopped listing the job):
     * `gone` false when it was still listed (`state`, e.g. COMPLETING) when the wait ran out.
     */
    released: v.optional(
      v.object({ gone: v.boolean(), state: v.optional(text), waitedMs: v.pipe(v.number(), v.finite(), v.minValue(0)) }),
    ),
  }),
  /** The helper the nodes ran (a queued fleet's runs are written at collect time). */
  helper: v.optional(text),
  commands: v.array(v.picklist(FLEET_COMMANDS)),
  /** The helper arguments each node ran, per command. */
  args: v.record(v.string(), v.array(text)),
  status: v.picklist(FLEET_STATUSES),
  message: v.optional(text),
  nodes: v.array(FleetNodeSchema),
});

export type FleetIndex = v.InferOutput<typeof FleetIndexSchema>;
export type FleetNode = v.InferOutput<typeof FleetNodeSchema>;
export type FleetStatus = (typeof FLEET_STATUSES)[number];
