/**
 * The sdma-probe protocol, version 1: the one place where its records are defined
 * (docs/PROTOCOL.md is the prose of the same contract).
 *
 * Validation uses valibot: it never evaluates generated code, so the same schemas run in the
 * webview under a strict CSP without 'unsafe-eval'; it is tree-shakable, so the webview
 * bundle only carries the schemas it uses; and its types are inferred from the schemas, so
 * there is no second hand-written copy of each record to drift.
 */
import * as v from 'valibot';
import { fastPredicate } from './fastCheck';
import { isEndpoint } from './endpoints';
import { LIMITS } from './limits';

export const PROTOCOL_VERSION = 1;

/**
 * A schema built at its first use. The record types a command may never meet (timelines,
 * matrix, collective, overlap and `run` records) are built so, and RECORD_SCHEMAS reads them
 * through getters: a start that validates a sweep builds none of them. Their exported names are
 * kept, each made by a call marked pure, so a bundle that never reads one drops it.
 */
function lazy<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

export const MOVERS = ['cu', 'engine'] as const;
export const INITIATORS = ['host', 'device'] as const;
export type Mover = (typeof MOVERS)[number];
export type Initiator = (typeof INITIATORS)[number];
export const PATHS = ['cu/host', 'cu/device', 'engine/host', 'engine/device'] as const;
export type PathName = (typeof PATHS)[number];
export const BACKENDS = ['sim', 'hip', 'cuda'] as const;
export type Backend = (typeof BACKENDS)[number];
/** one-shot: one copy per timed iteration (latency); pipelined: copies back to back (bandwidth). */
export const TIMING_MODES = ['one-shot', 'pipelined'] as const;
export type TimingMode = (typeof TIMING_MODES)[number];

export function pathName(mover: Mover, initiator: Initiator): PathName {
  return `${mover}/${initiator}`;
}

// Numbers are checked by one function each rather than a pipeline of actions: samples are
// mostly numbers, and per-field pipelines made validation the ingest bottleneck
// (bench/ingest.bench.ts).
const count = v.custom<number>((x) => Number.isInteger(x) && (x as number) >= 0, 'must be a whole number, 0 or more');
const gpuIndex = v.custom<number>(
  (x) => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 1023,
  'must be a GPU index in 0..1023',
);
/** A copy endpoint: a GPU index, or -1 for host memory (endpoints.ts names them). */
const endpoint = v.custom<number>(isEndpoint, 'must be a GPU index in 0..1023, or -1 for host memory');
const finite = v.custom<number>((x) => typeof x === 'number' && Number.isFinite(x), 'must be a finite number');
const nonNegative = v.custom<number>(
  (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0,
  'must be a finite number, 0 or more',
);
/** Per-iteration times, the bulk of every sample, in one pass. */
const nonNegativeList = v.custom<number[]>(
  (x) => Array.isArray(x) && x.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0),
  'must be a list of non-negative numbers',
);
const text = v.pipe(v.string(), v.maxLength(4096));

/** At most this many entries in hello.runtimeKnobs (the helper sets two). */
export const RUNTIME_KNOBS_MAX = 16;

/**
 * A variable the helper put into its own environment before the backend opened (docs/PROTOCOL.md,
 * hello): the value it set, and what the environment held before (null: unset).
 */
export const RuntimeKnobSchema = v.object({
  name: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{0,63}$/)),
  value: text,
  previous: v.nullable(text),
  setBy: v.literal('helper'),
});

export const HelloSchema = v.object({
  type: v.literal('hello'),
  protocol: v.literal(PROTOCOL_VERSION),
  helper: v.object({ name: text, version: text }),
  command: v.nullable(text),
  backend: v.picklist(BACKENDS),
  simulated: v.boolean(),
  backendsBuilt: v.array(text),
  pid: count,
  /**
   * `sweep`, `matrix`, `overlap` with the hip or sim backend: ROC_P2P_SDMA_SIZE and
   * GPU_FORCE_BLIT_COPY_SIZE, set to 0 so engine copies on AMD are SDMA at every size
   * (docs/MEASUREMENT.md). Absent elsewhere and in runs saved before it.
   */
  runtimeKnobs: v.optional(v.pipe(v.array(RuntimeKnobSchema), v.maxLength(RUNTIME_KNOBS_MAX))),
});

const EngineSchema = v.object({
  id: count,
  kind: v.picklist(['xgmi', 'pcie', 'copy']),
  maxGbps: v.optional(nonNegative),
});

export const GpuSchema = v.object({
  index: gpuIndex,
  name: text,
  arch: text,
  cus: count,
  memoryBytes: nonNegative,
  engines: v.array(EngineSchema),
  /** Real GPUs only. */
  pciBusId: v.optional(text),
  l2Bytes: v.optional(count),
  /** AMD: the dies (XCDs) the CUs are spread over. */
  xccs: v.optional(count),
  /** The host NUMA node nearest the GPU (where its pinned host buffers go); -1 unknown. */
  numaNode: v.optional(
    v.custom<number>(
      (x) => Number.isInteger(x) && (x as number) >= -1 && (x as number) <= 1023,
      'must be a NUMA node index, or -1 when unknown',
    ),
  ),
});

export const TopologySchema = v.object({
  type: v.literal('topology'),
  node: v.object({
    name: text,
    vendor: v.picklist(['amd', 'nvidia']),
    model: text,
    simulated: v.boolean(),
    /** gethostname() of the machine the helper ran on (runs saved before it lack it). */
    hostname: v.optional(text),
  }),
  /** The host side of host <-> GPU copies. */
  host: v.optional(v.object({ numaNodes: count })),
  gpus: v.array(GpuSchema),
  /** GPU <-> GPU links, and host <-> GPU (`src` or `dst` -1, kind pcie). */
  links: v.array(
    v.object({
      src: endpoint,
      dst: endpoint,
      kind: v.picklist(['xgmi', 'nvlink', 'pcie']),
      count,
      gbpsPerDirection: nonNegative,
    }),
  ),
  libraries: v.array(v.object({ name: text, version: text })),
});

export const ProgressSchema = v.object({
  type: v.literal('progress'),
  done: count,
  total: count,
  message: v.optional(text),
});

/**
 * Long work that is moving and has printed nothing for a while (the helper's heartbeatMs, in
 * native/src/limits.json): a profiled program still running, a slow unit. A helper that prints
 * neither records nor heartbeats is stuck; the session's stall limit stops it. Not saved in run files.
 */
export const HeartbeatSchema = v.object({
  type: v.literal('heartbeat'),
  elapsedMs: count,
});

/** Where a sample's mover evidence came from (docs/PROTOCOL.md, `moverEvidence`). */
export const EVIDENCE_SOURCES = ['none', 'kfd-sdma', 'cupti', 'rocshmem-log', 'simulated'] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];
/** What the evidence says carried the bytes; `unknown`: nothing observed. */
export const OBSERVED_MOVERS = ['engine', 'cu', 'unknown'] as const;
export type ObservedMover = (typeof OBSERVED_MOVERS)[number];
/** The evidence against the record's own `mover`. */
export const EVIDENCE_VERDICTS = ['matches', 'contradicts', 'not-observed'] as const;
export type EvidenceVerdict = (typeof EVIDENCE_VERDICTS)[number];
/** `sample.series`: absent for the helper's own series. */
export const SAMPLE_SERIES = ['runtime-default'] as const;
export type SampleSeries = (typeof SAMPLE_SERIES)[number];
/** The error a sample whose evidence contradicts its label is followed by (exit 4). */
export const MOVER_MISMATCH = 'mover-mismatch';
/** The helper cuts `detail` and `kernel` to this many bytes, `copyKind` and `channelType` to EVIDENCE_WORD_MAX. */
export const EVIDENCE_DETAIL_MAX = 256;
export const EVIDENCE_WORD_MAX = 16;

/** A string of at most `max` UTF-16 units: the helper's byte limit holds for any text it printed, since no character takes fewer bytes than UTF-16 units. */
const bounded = (max: number) => v.pipe(v.string(), v.maxLength(max));
const uint32 = v.custom<number>(
  (x) => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffff_ffff,
  'must be a whole number in 0..4294967295',
);

/**
 * What moved a sample's or cell's bytes as the platform saw it, and the verdict of that against
 * the record's `mover`. Unknown sources, movers and verdicts are refused like every other
 * unknown name of the protocol; texts longer than the helper prints are refused, not cut.
 */
export const MoverEvidenceSchema = v.object({
  source: v.picklist(EVIDENCE_SOURCES),
  observed: v.picklist(OBSERVED_MOVERS),
  verdict: v.picklist(EVIDENCE_VERDICTS),
  detail: bounded(EVIDENCE_DETAIL_MAX),
  /** CUPTI: HtoD, DtoH, DtoD, PtoP, ... */
  copyKind: v.optional(bounded(EVIDENCE_WORD_MAX)),
  /** CUPTI: async-memcpy, compute, unknown. */
  channelType: v.optional(bounded(EVIDENCE_WORD_MAX)),
  channelId: v.optional(uint32),
  /** A kernel that carried the copy (CUPTI) or ran it. */
  kernel: v.optional(bounded(EVIDENCE_DETAIL_MAX)),
  /** CUPTI: copy records seen in the pass. */
  records: v.optional(count),
  /** KFD: the SDMA activity counters' change over the point, microseconds. */
  sdmaUs: v.optional(count),
  /** KFD: the point's engine time the change is held to, microseconds. */
  engineUs: v.optional(nonNegative),
});

/**
 * The verdict the evidence must carry against a record's mover: `not-observed` when nothing
 * was observed, else whether the observed mover is the labelled one (the helper's own rule,
 * native/src/backend/mover_evidence.cpp `judgeEvidence`).
 */
export function verdictOf(mover: Mover, observed: ObservedMover): EvidenceVerdict {
  if (observed === 'unknown') return 'not-observed';
  return observed === mover ? 'matches' : 'contradicts';
}

/** One copy path between two endpoints at one size, as a sweep sample and a matrix cell both report it. */
const COPY_POINT = {
  mover: v.picklist(MOVERS),
  initiator: v.picklist(INITIATORS),
  src: endpoint,
  dst: endpoint,
  sizeBytes: v.pipe(count, v.minValue(1)),
  cus: count,
  engines: count,
  iters: v.pipe(count, v.minValue(1)),
};

/** `sample.splitOver`: what `split` counted (engines by id on AMD, streams on NVIDIA, rocSHMEM SDMA channels). */
export const SPLIT_OVER = ['engines', 'streams', 'channels'] as const;
export type SplitOver = (typeof SPLIT_OVER)[number];
/** `sample.shmemSdma` (engine/device on rocSHMEM): absent = `forced` (every put on SDMA, as before). */
export const SHMEM_SDMA = ['forced', 'library', 'off'] as const;
export type ShmemSdma = (typeof SHMEM_SDMA)[number];

/**
 * The seed's dimensions of a sample (docs/SEED-EXPERIMENTS.md). The helper prints each only when
 * it is not the default, so a run saved before reads as today's defaults: absent wavesPerCu is
 * 1024 threads per CU on cu/* (one thread's put on engine/device), absent split is one copy,
 * absent batch is the single-copy API, absent shmemSdma is `forced`.
 */
const SEED_DIMENSIONS = {
  /** Wavefronts per CU (cu/*), or of the kernel issuing the puts (engine/device). */
  wavesPerCu: v.optional(v.pipe(count, v.minValue(1), v.maxValue(LIMITS.wavesPerCuMax))),
  /** Threads of one wavefront: 64 (AMD wave64) or 32 (an NVIDIA warp). Printed with wavesPerCu. */
  waveSize: v.optional(v.picklist([32, 64])),
  /** One copy split over this many engines, streams or channels (absent: 1). */
  split: v.optional(v.pipe(count, v.minValue(2), v.maxValue(LIMITS.splitMax))),
  splitOver: v.optional(v.picklist(SPLIT_OVER)),
  /** engine/host as one batched call of this many pieces (absent: the single-copy API). */
  batch: v.optional(v.pipe(count, v.minValue(1), v.maxValue(LIMITS.batchMax))),
  shmemSdma: v.optional(v.picklist(SHMEM_SDMA)),
};

export const SampleSchema = v.object({
  type: v.literal('sample'),
  ...COPY_POINT,
  /**
   * One per timed iteration. The helper always prints them (and minNs, maxNs, stdevNs,
   * gbpsMax); a run imported from another tool's summary may carry only meanNs and gbps,
   * and advice from such a sample says it saw no repetitions.
   */
  timesNs: v.optional(nonNegativeList),
  meanNs: nonNegative,
  minNs: v.optional(nonNegative),
  maxNs: v.optional(nonNegative),
  stdevNs: v.optional(nonNegative),
  gbps: nonNegative,
  gbpsMax: v.optional(nonNegative),
  validated: v.boolean(),
  medianNs: v.optional(nonNegative),
  gbpsMedian: v.optional(nonNegative),
  mode: v.optional(v.picklist(TIMING_MODES)),
  /** Copies inside one timed iteration (pipelined); timesNs are per copy. */
  opsPerIter: v.optional(v.pipe(count, v.minValue(1))),
  /** e.g. "proxy-initiated": a host thread submitted the copy a kernel asked for; "rocshmem-sdma": a kernel's rocSHMEM puts on SDMA (AMD). */
  label: v.optional(text),
  engineIds: v.optional(v.array(count)),
  traced: v.optional(v.boolean()),
  /** Distinct CUs/SMs the trace saw carrying the copy. */
  cusSeen: v.optional(count),
  /** `runtime-default`: what the HIP runtime does by default with the user's environment; `mover` is what it used at this size. */
  series: v.optional(v.picklist(SAMPLE_SERIES)),
  /** With `series`: the runtime's rule and the values that gave `mover` (at most 256 bytes). */
  runtimeRule: v.optional(bounded(EVIDENCE_DETAIL_MAX)),
  moverEvidence: v.optional(MoverEvidenceSchema),
  ...SEED_DIMENSIONS,
});

/** `transfer` (5): a kernel-started transfer whose CUs are unknown; only in timelines built from `run` records, never written by the helper. */
export const TIMELINE_EVENT_KINDS = ['kernel', 'cu', 'packet', 'doorbell', 'proxy', 'transfer'] as const;
export const PACKET_OPS = ['none', 'copy', 'copy+signal', 'atomic', 'fence', 'timestamp'] as const;

const timelineEventSchema = lazy(() =>
  v.object({
    kind: v.picklist(TIMELINE_EVENT_KINDS),
    gpu: gpuIndex,
    lane: count,
    id: v.pipe(v.number(), v.integer()),
    ref: v.pipe(v.number(), v.integer()),
    op: v.picklist(PACKET_OPS),
    startNs: finite,
    endNs: finite,
    queuedNs: finite,
    bytes: nonNegative,
    path: v.picklist(PATHS),
    /** The hardware did not report this event: its times were derived (written only when true). */
    inferred: v.optional(v.boolean()),
  }),
);
export const TimelineEventSchema = /* @__PURE__ */ timelineEventSchema();

/** Real GPUs: which device clock the times come from and how well host times align to it. */
const timelineClockSchema = lazy(() => v.object({ source: text, alignUncertaintyNs: nonNegative }));
export const TimelineClockSchema = /* @__PURE__ */ timelineClockSchema();

const timelineSchema = lazy(() =>
  v.union([
    v.object({
      type: v.literal('timeline'),
      path: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)),
      format: v.literal('sdmatl'),
      /** 2 from this helper (a `flags` column); 1 in older runs. */
      version: v.picklist([1, 2]),
      eventCount: count,
      fileBytes: count,
      sizeBytes: count,
      clock: v.optional(timelineClockSchema()),
      /** The endpoints the timeline's copies ran between (absent in older runs: GPU 0 -> GPU 1). */
      src: v.optional(endpoint),
      dst: v.optional(endpoint),
    }),
    v.object({
      type: v.literal('timeline'),
      events: v.array(timelineEventSchema()),
      sizeBytes: count,
      clock: v.optional(timelineClockSchema()),
      src: v.optional(endpoint),
      dst: v.optional(endpoint),
    }),
  ]),
);
export const TimelineSchema = /* @__PURE__ */ timelineSchema();

export const WarningSchema = v.object({ type: v.literal('warning'), code: text, message: text });

/** The matrix cell an error belongs to (`matrix`): that cell failed, the run went on. */
export const CellRefSchema = v.object({
  mover: v.picklist(MOVERS),
  initiator: v.picklist(INITIATORS),
  src: endpoint,
  dst: endpoint,
});

/**
 * A path that cannot exist between two endpoints (e.g. engine/device with host memory or on
 * one GPU), printed once where its samples would have been: the path is never silently missing.
 */
export const PathUnsupportedSchema = v.object({
  type: v.literal('path-unsupported'),
  mover: v.picklist(MOVERS),
  initiator: v.picklist(INITIATORS),
  src: endpoint,
  dst: endpoint,
  reason: text,
  /** Sample points (sizes x CU counts) it stands for; progress counts them as done. */
  points: count,
});

export const ErrorSchema = v.object({
  type: v.literal('error'),
  code: text,
  message: text,
  detail: v.optional(text),
  /** What the user can do about it. */
  hint: v.optional(text),
  cell: v.optional(CellRefSchema),
});

/** `matrix`: one ordered GPU pair measured alone at one size (docs/MATRIX.md). */
const matrixCellSchema = lazy(() =>
  v.object({
    type: v.literal('matrix-cell'),
    ...COPY_POINT,
    medianNs: nonNegative,
    meanNs: nonNegative,
    minNs: nonNegative,
    maxNs: nonNegative,
    /** size / median time: the cell's figure. */
    gbps: nonNegative,
    /** size / mean time. */
    gbpsMean: nonNegative,
    validated: v.boolean(),
    mode: v.optional(v.picklist(TIMING_MODES)),
    opsPerIter: v.optional(v.pipe(count, v.minValue(1))),
    label: v.optional(text),
    /** `--concurrent`: the pair ran while every other pair of its path did; its own GB/s under that load. */
    concurrent: v.optional(v.boolean()),
    moverEvidence: v.optional(MoverEvidenceSchema),
  }),
);
export const MatrixCellSchema = /* @__PURE__ */ matrixCellSchema();

/** `matrix --concurrent`: one path's pairs all at once, summed (docs/MATRIX.md). */
const matrixTotalSchema = lazy(() =>
  v.object({
    type: v.literal('matrix-total'),
    mover: v.picklist(MOVERS),
    initiator: v.picklist(INITIATORS),
    sizeBytes: v.pipe(count, v.minValue(1)),
    /** CUs each cu/* pair asked for (0 for engine paths). */
    cus: count,
    /** Ordered pairs that ran at the same time. */
    pairs: v.pipe(count, v.minValue(1)),
    iters: v.pipe(count, v.minValue(1)),
    /** Bytes all pairs moved in the timed iterations. */
    bytes: v.pipe(count, v.minValue(1)),
    /** Sum over the timed iterations of first start to last end. */
    seconds: v.pipe(nonNegative, v.minValue(Number.MIN_VALUE)),
    /** bytes / seconds / 1e9: the node's aggregate under this load. */
    gbps: nonNegative,
    /** Per GPU: the sums of its row (sent) and column (received) of cells. */
    gpus: v.pipe(
      v.array(v.object({ gpu: endpoint, sendGbps: nonNegative, receiveGbps: nonNegative })),
      v.maxLength(1024),
    ),
  }),
);
export const MatrixTotalSchema = /* @__PURE__ */ matrixTotalSchema();

export const DoneSchema = v.object({
  type: v.literal('done'),
  status: v.picklist(['ok', 'error', 'cancelled']),
  samples: count,
  elapsedMs: nonNegative,
});

export const COLLECTIVE_OPS = ['allgather', 'alltoall'] as const;
export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];
/**
 * default: the library's own kernels; ce: copy-engine collectives (NCCL >= 2.28, RCCL's
 * NCCL_CTA_POLICY=ZERO host path); gin-sdma-lib: librccl's in-library AlltoAll GIN-SDMA path;
 * gin-sdma-dev: rccl-tests' device-API GIN-SDMA kernels (imported runs); unknown: an imported run
 * that could not tell. Runs saved before the rename say `gin-sdma`, read as gin-sdma-lib
 * (`LEGACY_VARIANT_NAMES`).
 */
export const COLLECTIVE_VARIANTS = ['default', 'ce', 'gin-sdma-lib', 'gin-sdma-dev', 'unknown'] as const;
export type CollectiveVariantName = (typeof COLLECTIVE_VARIANTS)[number];
/** Old variant names and what they are read as (a saved run, or an older helper on a node). */
export const LEGACY_VARIANT_NAMES: Readonly<Record<string, CollectiveVariantName>> = { 'gin-sdma': 'gin-sdma-lib' };
/**
 * How the ranks were laid out in processes: one process per GPU (rank-per-process, the
 * helper's default), or one process driving every GPU (single-process, nccl-tests' -g N).
 * Imports may say unknown; runs saved before the field lack it and were single-process.
 */
export const COLLECTIVE_MODES = ['rank-per-process', 'single-process', 'unknown'] as const;
export type CollectiveMode = (typeof COLLECTIVE_MODES)[number];
/** The modes a run can be asked for (`collective --mode`). */
export const COLLECTIVE_RUN_MODES = ['rank-per-process', 'single-process'] as const;
export type CollectiveRunMode = (typeof COLLECTIVE_RUN_MODES)[number];
/** What `collective` runs without `--mode`. */
export const DEFAULT_COLLECTIVE_MODE: CollectiveRunMode = 'rank-per-process';
/** Who started the rank processes of a rank-per-process run. */
export const COLLECTIVE_LAUNCHERS = ['helper', 'srun', 'mpirun'] as const;
export type CollectiveLauncher = (typeof COLLECTIVE_LAUNCHERS)[number];
/** Where a point's `cusUsed.count` came from. */
export const CUS_USED_SOURCES = ['log', 'zero-cta', 'model', 'unknown'] as const;
export type CusUsedSource = (typeof CUS_USED_SOURCES)[number];

/** At most this many conditions on one variant record. */
export const VARIANT_CONDITIONS_MAX = 64;
/** At most this many entries in an imported variant's basis or unknowns. */
export const VARIANT_BASIS_MAX = 64;

/** A picklist whose refusal names the values it takes. */
const oneOf = <const T extends readonly string[]>(options: T) =>
  v.picklist(options, `must be one of ${options.map((o) => `"${o}"`).join(', ')}`);

/** One condition a variant needed, as checked before it ran: what it needs, what the node has ("" unknown). */
const variantConditionSchema = lazy(() =>
  v.object({
    name: v.pipe(v.string(), v.maxLength(256)),
    want: v.pipe(v.string(), v.maxLength(256)),
    found: v.pipe(v.string(), v.maxLength(1024)),
    ok: v.boolean(),
  }),
);
export const VariantConditionSchema = /* @__PURE__ */ variantConditionSchema();
export type VariantCondition = v.InferOutput<typeof VariantConditionSchema>;

/** `collective`: one variant's set-up (what the library is, what it was told, how the ranks ran). */
const collectiveVariantSchema = lazy(() =>
  v.pipe(
    v.object({
      type: v.literal('collective-variant'),
      variant: oneOf(COLLECTIVE_VARIANTS),
      supported: v.boolean(),
      reason: v.optional(text),
      hint: v.optional(text),
      library: v.object({ name: text, version: text, path: text }),
      /** Environment the variant set before its communicator was created. */
      env: v.record(v.string(), text),
      /** Buffers from ncclMemAlloc, registered as symmetric windows. */
      symmetric: v.boolean(),
      /** Absent in runs saved before it: those were single-process (`collectiveModeOf`). */
      mode: v.optional(oneOf(COLLECTIVE_MODES)),
      /** Who started the rank processes (rank-per-process only). */
      launcher: v.optional(oneOf(COLLECTIVE_LAUNCHERS)),
      /** What was checked before the variant ran; an unsupported variant's reason names the failing ones. */
      conditions: v.optional(v.pipe(v.array(variantConditionSchema()), v.maxLength(VARIANT_CONDITIONS_MAX))),
      /** Imports: what the variant name was read from (file name, command line, log lines). */
      variantBasis: v.optional(v.pipe(v.array(text), v.maxLength(VARIANT_BASIS_MAX))),
      /** Imports: what could not be told about the variant. */
      variantUnknowns: v.optional(v.pipe(v.array(text), v.maxLength(VARIANT_BASIS_MAX))),
      simulated: v.boolean(),
    }),
    v.check(
      (r) => r.launcher === undefined || r.mode === 'rank-per-process',
      'launcher: only a rank-per-process variant has a launcher',
    ),
  ),
);
export const CollectiveVariantSchema = /* @__PURE__ */ collectiveVariantSchema();

/** The CUs (SMs) one rank's library kernels used for the call: one CTA per channel, each on a CU of its own. */
const cusUsedSchema = lazy(() =>
  v.pipe(
    v.object({
      /** null: nothing said. */
      count: v.nullable(v.pipe(count, v.maxValue(65_535))),
      source: oneOf(CUS_USED_SOURCES),
      /** The log line it came from, or what the model assumes. */
      evidence: v.optional(text),
    }),
    v.check(
      (c) => (c.source === 'unknown' ? c.count === null : c.source === 'zero-cta' ? c.count === 0 : true),
      'cusUsed: count must be null when the source is "unknown" and 0 when it is "zero-cta"',
    ),
  ),
);
export const CusUsedSchema = /* @__PURE__ */ cusUsedSchema();
export type CusUsed = v.InferOutput<typeof CusUsedSchema>;

/**
 * The run's rank layout from its variant records: the one they name; single-process for runs
 * saved before the field (and for a run with no variant record yet); unknown for an import that
 * could not tell, or records that disagree.
 */
export function collectiveModeOf(records: readonly CollectiveVariant[]): CollectiveMode {
  const modes = new Set(records.map((r) => r.mode ?? 'single-process'));
  if (modes.size === 0) return 'single-process';
  return modes.size === 1 ? [...modes][0]! : 'unknown';
}

/** Who started the rank processes of a rank-per-process run; undefined otherwise or when no record says. */
export function collectiveLauncherOf(records: readonly CollectiveVariant[]): CollectiveLauncher | undefined {
  if (collectiveModeOf(records) !== 'rank-per-process') return undefined;
  return records.find((r) => r.launcher !== undefined)?.launcher;
}

/**
 * `collective`: one point, with nccl-tests' size, algbw and busbw definitions (docs/COLLECTIVES.md).
 * With `repeats` (helper runs since --repeats; older runs and imports lack both) the point was
 * timed that many times, `samplesUs` holds each repeat's mean time per call, and `timeUs`,
 * `algbwGbps`, `busbwGbps` are those of their median.
 */
const collectiveSchema = lazy(() =>
  v.pipe(
    v.object({
      type: v.literal('collective'),
      op: oneOf(COLLECTIVE_OPS),
      variant: oneOf(COLLECTIVE_VARIANTS),
      /** 1: a one-GPU run (the helper's rank-per-process run on one GPU, or an imported nccl-tests run); busbw 0 by its formula. */
      ranks: v.pipe(count, v.minValue(1)),
      /** Bytes each rank receives. */
      sizeBytes: v.pipe(count, v.minValue(1)),
      count,
      dtype: text,
      inPlace: v.boolean(),
      iters: v.pipe(count, v.minValue(1)),
      /** Timed loops of `iters` calls (collective --repeats). */
      /** At most the helper's --repeats limit, so a run file cannot make samplesUs (as long as repeats) any longer. */
      repeats: v.optional(v.pipe(count, v.minValue(1), v.maxValue(LIMITS.collectiveRepeatsMax))),
      timeUs: nonNegative,
      /** Each repeat's mean time per call, in microseconds; as many as `repeats`. */
      samplesUs: v.optional(nonNegativeList),
      algbwGbps: nonNegative,
      busbwGbps: nonNegative,
      /** Mismatched 32-bit words over all ranks; null when not checked. */
      wrong: v.nullable(count),
      /** What the library said it ran (e.g. sdma, lsa, ring/simple); null when it said nothing. */
      transport: v.nullable(text),
      transportEvidence: v.optional(text),
      /** The CUs one rank's library kernels used for the call; absent in runs saved before it. */
      cusUsed: v.optional(cusUsedSchema()),
      simulated: v.boolean(),
    }),
    v.check(
      (p) =>
        p.repeats === undefined
          ? p.samplesUs === undefined
          : p.samplesUs !== undefined && p.samplesUs.length === p.repeats,
      'samplesUs must come with repeats and hold that many samples',
    ),
  ),
);
export const CollectiveSchema = /* @__PURE__ */ collectiveSchema();

export const OVERLAP_PHASES = ['alone-before', 'beside', 'alone-after'] as const;
/** The compute kernels `overlap` runs beside a copy: two compute-bound, one memory-bound (STREAM triad). */
export const OVERLAP_COMPUTES = ['gemm', 'fma', 'triad'] as const;
export type OverlapCompute = (typeof OVERLAP_COMPUTES)[number];
/** What limits a compute kernel alone: its arithmetic (gemm, fma) or memory bandwidth (triad). */
export const OVERLAP_BOUNDS = ['compute', 'memory'] as const;
export type OverlapBound = (typeof OVERLAP_BOUNDS)[number];
/** The bound each compute kernel has: the record's `bound` must say the same. */
export const OVERLAP_BOUND_OF: Readonly<Record<OverlapCompute, OverlapBound>> = {
  gemm: 'compute',
  fma: 'compute',
  triad: 'memory',
};
/** Where an overlap record's clocks and power came from: the vendor SMI, the simulator's model, nowhere. */
export const OVERLAP_TELEMETRY = ['nvml', 'amd-smi', 'model', 'none'] as const;
export type OverlapTelemetry = (typeof OVERLAP_TELEMETRY)[number];
/** At most this many characters in an overlap record's `mechanism` (a sentence, not a log). */
export const OVERLAP_MECHANISM_MAX = 512;
/** The most CUs (SMs) a GPU is taken to have: a bound on a record's CU counts. */
const CUS_MAX = 65_535;
/** How far a record's `cuArithmetic` may sit from (totalCus - cusUsed) / totalCus: the helper prints 6 significant digits. */
const CU_ARITHMETIC_SLACK = 1e-3;

const cuCount = lazy(() => v.pipe(count, v.maxValue(CUS_MAX)));
const unitFraction = lazy(() =>
  v.custom<number>(
    (x) => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1,
    'must be a finite number from 0 to 1',
  ),
);

/**
 * `overlap`: a compute kernel's throughput in one phase, alone or beside a copy. The fields
 * after `throttleReasons` came with the CU arithmetic (compute kind `triad`, the copy measured
 * alone, the CUs the copy holds, what moved its bytes, where the clocks came from): optional,
 * so runs saved before them still load; null where the phase has none (alone phases).
 */
const overlapSchema = lazy(() =>
  v.pipe(
    v.object({
      type: v.literal('overlap'),
      compute: oneOf(OVERLAP_COMPUTES),
      computeLabel: text,
      phase: v.picklist(OVERLAP_PHASES),
      path: v.picklist(['alone', ...PATHS]),
      cus: v.optional(v.pipe(count, v.minValue(1))),
      copySizeBytes: count,
      durationMs: nonNegative,
      computeTflops: nonNegative,
      /** Against the mean of the alone runs before and after; null for those. */
      keptFraction: v.nullable(nonNegative),
      copyGbps: v.nullable(nonNegative),
      copies: count,
      smClockMHz: v.nullable(nonNegative),
      memClockMHz: v.nullable(nonNegative),
      powerW: v.nullable(nonNegative),
      powerLimitW: v.nullable(nonNegative),
      throttleReasons: v.array(text),
      /** `compute` (gemm, fma) or `memory` (triad). */
      bound: v.optional(oneOf(OVERLAP_BOUNDS)),
      /** triad: the bytes it moved per second (12 per element); null for gemm and fma. */
      computeGbps: v.optional(v.nullable(nonNegative)),
      /** beside: the same copy (path, CUs, size, endpoints) with nothing else running. */
      copyAloneGbps: v.optional(v.nullable(nonNegative)),
      /** beside: copyGbps / copyAloneGbps. */
      bandwidthKept: v.optional(v.nullable(nonNegative)),
      /** The GPU's CUs (SMs). */
      totalCus: v.optional(v.nullable(v.pipe(cuCount(), v.minValue(1)))),
      /** beside: the CUs the copy holds while copying (cu/host its cus, engine/host 0, engine/device 1). */
      cusUsed: v.optional(v.nullable(cuCount())),
      /** beside: (totalCus - cusUsed) / totalCus. */
      cuArithmetic: v.optional(v.nullable(unitFraction())),
      /** beside: what moved the bytes, in words (outside text). */
      mechanism: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(OVERLAP_MECHANISM_MAX)))),
      telemetry: v.optional(oneOf(OVERLAP_TELEMETRY)),
      simulated: v.boolean(),
    }),
    v.check(
      (p) => p.bound === undefined || p.bound === OVERLAP_BOUND_OF[p.compute],
      'bound: gemm and fma are compute-bound, triad memory-bound',
    ),
    v.check(
      (p) => p.cusUsed == null || p.totalCus == null || p.cusUsed <= p.totalCus,
      'cusUsed: the copy cannot hold more CUs than the GPU has (totalCus)',
    ),
    v.check(
      (p) =>
        p.cuArithmetic == null ||
        p.cusUsed == null ||
        p.totalCus == null ||
        Math.abs(p.cuArithmetic - (p.totalCus - p.cusUsed) / p.totalCus) <= CU_ARITHMETIC_SLACK,
      'cuArithmetic: must be (totalCus - cusUsed) / totalCus',
    ),
  ),
);
export const OverlapSchema = /* @__PURE__ */ overlapSchema();

/** `run`: where a dispatch or copy record came from (docs/PROFILE.md). `sim`: made up by the simulator. */
export const RUN_SOURCES = ['cupti', 'rocprofv3', 'device-trace', 'sim'] as const;
export type RunSource = (typeof RUN_SOURCES)[number];
/** GPU index, or -1 for host memory. */
const gpuOrHost = lazy(() => v.pipe(v.number(), v.integer(), v.minValue(-1), v.maxValue(1023)));
const dim3 = lazy(() => v.pipe(v.array(count), v.length(3)));

/** `run`: the user's program started or ended. The helper exits 0 whatever the program's exit code. */
const programSchema = lazy(() =>
  v.object({
    type: v.literal('program'),
    event: v.picklist(['start', 'exit']),
    argv: v.array(text),
    pid: count,
    /** exit: the exit code, or null when a signal ended it. */
    exitCode: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
    /** exit: e.g. "SIGTERM", or null when it exited. */
    signal: v.optional(v.nullable(text)),
    /** exit, AMD: the KFD's per-process SDMA activity counters (sysfs sdma_<gpu id>), summed over the program's processes. */
    kfdSdma: v.optional(
      v.array(v.object({ gpu: v.pipe(v.number(), v.integer(), v.minValue(-1)), kfdGpuId: count, activity: count })),
    ),
  }),
);
export const ProgramSchema = /* @__PURE__ */ programSchema();

/** `run`: one kernel launch. Times are ns since the program started, on the host's monotonic clock. */
const dispatchSchema = lazy(() =>
  v.object({
    type: v.literal('dispatch'),
    /** As the profiler prints it: demangled when possible. */
    name: text,
    mangled: v.optional(text),
    gpu: gpuIndex,
    startNs: finite,
    endNs: finite,
    /** Blocks (CUDA) or work-items (rocprofv3's Grid_Size) per dimension; 0 when unknown. */
    grid: dim3(),
    block: dim3(),
    source: v.picklist(RUN_SOURCES),
    correlationId: v.optional(count),
    /** Distinct CUs/SMs the device trace saw inside this dispatch. */
    cusSeen: v.optional(count),
  }),
);
export const DispatchSchema = /* @__PURE__ */ dispatchSchema();

/** `run`: bytes moved between memories (srcGpu/dstGpu -1: host memory). */
const copySchema = lazy(() =>
  v.object({
    type: v.literal('copy'),
    mover: v.picklist(MOVERS),
    initiator: v.picklist(INITIATORS),
    srcGpu: gpuOrHost(),
    dstGpu: gpuOrHost(),
    bytes: nonNegative,
    startNs: finite,
    endNs: finite,
    source: v.picklist(RUN_SOURCES),
    engineId: v.optional(count),
    /** The copy kind (HtoD, PtoP, ...) or the device-trace label. */
    label: v.optional(text),
  }),
);
export const CopySchema = /* @__PURE__ */ copySchema();

/** A GPU index, or -1 for none (a device span's peer when it is a scope); one check, so the ingest fast path can take it. */
const peerGpu = lazy(() =>
  v.custom<number>(
    (x) => Number.isInteger(x) && (x as number) >= -1 && (x as number) <= 1023,
    'must be a GPU index in 0..1023, or -1 for none',
  ),
);
/** A CU within its XCC, or an XCC: the hardware ids the device trace read. */
const hardwareId = lazy(() =>
  v.custom<number>(
    (x) => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 1023,
    'must be a whole number in 0..1023',
  ),
);

/**
 * `run`: one span a kernel recorded with trace.h on one CU (merged with the spans of that CU
 * and label that touch it): a scope (`peer` -1, no bytes) or bytes moved to `peer` (from it
 * when `pull`). The same time line as `dispatch`. Up to `--span-records` of them, after the
 * dispatches and copies (docs/PROFILE.md).
 */
const deviceSpanSchema = lazy(() =>
  v.object({
    type: v.literal('device-span'),
    gpu: gpuIndex,
    /** `%smid` on NVIDIA; the CU id within its XCC on AMD. */
    cu: hardwareId(),
    /** AMD: the die (XCC) of the CU; 0 on NVIDIA. */
    xcc: hardwareId(),
    label: text,
    startNs: finite,
    endNs: finite,
    bytes: nonNegative,
    peer: peerGpu(),
    mover: v.picklist(MOVERS),
    pull: v.boolean(),
  }),
);
export const DeviceSpanSchema = /* @__PURE__ */ deviceSpanSchema();

/** What the size of a `library-calls` record counts: the call's bytes (NCCL's tuner line) or bytes per peer (RCCL's GIN line). */
export const LIBRARY_SIZE_KINDS = ['bytes', 'bytesPerPeer'] as const;

/**
 * `run --library-log`: calls of one collective that took one path, with sizes in one
 * power-of-two range, as the library's own log lines name them (docs/PROFILE.md).
 */
const libraryCallsSchema = lazy(() =>
  v.object({
    type: v.literal('library-calls'),
    /** Absent when no version line or GIN line said which library wrote the log. */
    library: v.optional(v.picklist(['nccl', 'rccl'])),
    /** As the library names the collective: "AllToAll", "AllGather", ... */
    op: text,
    /** Lower case as logged: sdma, lsa (RCCL GIN), ring/simple, tree/ll (NCCL's tuner), ce, symmetric-kernel. */
    transport: text,
    /** Absent when the lines carry no size. */
    sizeKind: v.optional(v.picklist(LIBRARY_SIZE_KINDS)),
    minBytes: v.optional(count),
    maxBytes: v.optional(count),
    /** The most such lines one rank logged (each rank logs the calls it takes part in; NCCL's tuner line only rank 0). */
    calls: v.pipe(count, v.minValue(1)),
    /** Ranks (log file, process, device) that logged such a line. */
    ranks: v.pipe(count, v.minValue(1)),
    /** The first such line, after "NCCL INFO ". */
    evidence: text,
  }),
);
export const LibraryCallsSchema = /* @__PURE__ */ libraryCallsSchema();

export type Hello = v.InferOutput<typeof HelloSchema>;
export type RuntimeKnob = v.InferOutput<typeof RuntimeKnobSchema>;
export type Topology = v.InferOutput<typeof TopologySchema>;
export type Gpu = v.InferOutput<typeof GpuSchema>;
export type Progress = v.InferOutput<typeof ProgressSchema>;
export type Heartbeat = v.InferOutput<typeof HeartbeatSchema>;
export type Sample = v.InferOutput<typeof SampleSchema>;
export type MoverEvidence = v.InferOutput<typeof MoverEvidenceSchema>;
export type TimelineEvent = v.InferOutput<typeof TimelineEventSchema>;
export type Timeline = v.InferOutput<typeof TimelineSchema>;
export type TimelineFileRef = Extract<Timeline, { path: string }>;
export type Warning = v.InferOutput<typeof WarningSchema>;
export type ErrorRecord = v.InferOutput<typeof ErrorSchema>;
export type Done = v.InferOutput<typeof DoneSchema>;
export type CellRef = v.InferOutput<typeof CellRefSchema>;
export type PathUnsupported = v.InferOutput<typeof PathUnsupportedSchema>;
export type MatrixCell = v.InferOutput<typeof MatrixCellSchema>;
export type MatrixTotal = v.InferOutput<typeof MatrixTotalSchema>;
export type CollectiveVariant = v.InferOutput<typeof CollectiveVariantSchema>;
export type CollectivePoint = v.InferOutput<typeof CollectiveSchema>;
export type OverlapPoint = v.InferOutput<typeof OverlapSchema>;
export type Program = v.InferOutput<typeof ProgramSchema>;
export type Dispatch = v.InferOutput<typeof DispatchSchema>;
export type CopyOp = v.InferOutput<typeof CopySchema>;
export type LibraryCalls = v.InferOutput<typeof LibraryCallsSchema>;
export type DeviceSpan = v.InferOutput<typeof DeviceSpanSchema>;
export type HelperRecord =
  | Hello
  | Topology
  | Progress
  | Heartbeat
  | Sample
  | Timeline
  | Warning
  | ErrorRecord
  | PathUnsupported
  | Done
  | MatrixCell
  | MatrixTotal
  | CollectiveVariant
  | CollectivePoint
  | OverlapPoint
  | Program
  | Dispatch
  | CopyOp
  | DeviceSpan
  | LibraryCalls;
export type RecordType = HelperRecord['type'];

/** The full schema of each record type (parseLine tries a generated fast check first). */
export const RECORD_SCHEMAS: {
  readonly [K in RecordType]: v.GenericSchema<unknown, Extract<HelperRecord, { type: K }>>;
} = {
  hello: HelloSchema,
  topology: TopologySchema,
  progress: ProgressSchema,
  heartbeat: HeartbeatSchema,
  sample: SampleSchema,
  get timeline() {
    return timelineSchema();
  },
  warning: WarningSchema,
  error: ErrorSchema,
  'path-unsupported': PathUnsupportedSchema,
  done: DoneSchema,
  get 'matrix-cell'() {
    return matrixCellSchema();
  },
  get 'matrix-total'() {
    return matrixTotalSchema();
  },
  get 'collective-variant'() {
    return collectiveVariantSchema();
  },
  get collective() {
    return collectiveSchema();
  },
  get overlap() {
    return overlapSchema();
  },
  get program() {
    return programSchema();
  },
  get dispatch() {
    return dispatchSchema();
  },
  get copy() {
    return copySchema();
  },
  get 'device-span'() {
    return deviceSpanSchema();
  },
  get 'library-calls'() {
    return libraryCallsSchema();
  },
};

export const RECORD_TYPES = Object.keys(RECORD_SCHEMAS) as RecordType[];

/**
 * Each record type's fast predicate (fastCheck.ts), made at the first record of that type: a
 * process that never validates a type (the CLI's `--help`, a sweep that sees no spans) never
 * builds its predicate. null: the type has none.
 */
const FAST = new Map<RecordType, ((value: unknown) => boolean) | null>();
function fastOf(type: RecordType): ((value: unknown) => boolean) | null {
  let p = FAST.get(type);
  if (p === undefined) {
    p = fastPredicate(RECORD_SCHEMAS[type] as v.GenericSchema) ?? null;
    FAST.set(type, p);
  }
  return p;
}

/** Whether `x` is a whole number in `min..max`. */
function wholeIn(x: unknown, min: number, max: number): boolean {
  return Number.isInteger(x) && (x as number) >= min && (x as number) <= max;
}
/** A finite number, 0 or more (`nonNegative`). */
function isNonNegative(x: unknown): boolean {
  return typeof x === 'number' && x >= 0 && x !== Infinity;
}
function isOptNonNegative(x: unknown): boolean {
  return x === undefined || (typeof x === 'number' && x >= 0 && x !== Infinity);
}
function isOptCount(x: unknown, min = 0, max = Infinity): boolean {
  return x === undefined || (Number.isInteger(x) && (x as number) >= min && (x as number) <= max);
}
function isOptText(x: unknown, max: number): boolean {
  return x === undefined || (typeof x === 'string' && x.length <= max);
}
function isOptIn(x: unknown, options: readonly unknown[]): boolean {
  return x === undefined || options.includes(x);
}

/** The fields `isPlainSample` and `isPlainEvidence` check, in their schemas' order: the same as the schemas' (checked below, and by a test). */
export const PLAIN_SAMPLE_FIELDS = [
  'type',
  'mover',
  'initiator',
  'src',
  'dst',
  'sizeBytes',
  'cus',
  'engines',
  'iters',
  'timesNs',
  'meanNs',
  'minNs',
  'maxNs',
  'stdevNs',
  'gbps',
  'gbpsMax',
  'validated',
  'medianNs',
  'gbpsMedian',
  'mode',
  'opsPerIter',
  'label',
  'engineIds',
  'traced',
  'cusSeen',
  'series',
  'runtimeRule',
  'moverEvidence',
  'wavesPerCu',
  'waveSize',
  'split',
  'splitOver',
  'batch',
  'shmemSdma',
] as const;
export const PLAIN_EVIDENCE_FIELDS = [
  'source',
  'observed',
  'verdict',
  'detail',
  'copyKind',
  'channelType',
  'channelId',
  'kernel',
  'records',
  'sdmaUs',
  'engineUs',
] as const;
const sameKeys = (a: readonly string[], b: object) => a.join() === Object.keys(b).join();
/** Off (every sample goes through the schema) should the schemas gain, lose or reorder a field the checks below do not know. */
const PLAIN_CHECKS_CURRENT =
  sameKeys(PLAIN_SAMPLE_FIELDS, SampleSchema.entries) && sameKeys(PLAIN_EVIDENCE_FIELDS, MoverEvidenceSchema.entries);

function isPlainEvidence(e: unknown, mover: Mover): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const x = e as Record<string, unknown>;
  const observed = x.observed;
  if (observed !== 'engine' && observed !== 'cu' && observed !== 'unknown') return false;
  return (
    EVIDENCE_SOURCES.includes(x.source as EvidenceSource) &&
    // The verdict against the record's own mover (`consistent`), which implies a known verdict.
    x.verdict === verdictOf(mover, observed) &&
    typeof x.detail === 'string' &&
    x.detail.length <= EVIDENCE_DETAIL_MAX &&
    isOptText(x.copyKind, EVIDENCE_WORD_MAX) &&
    isOptText(x.channelType, EVIDENCE_WORD_MAX) &&
    isOptCount(x.channelId, 0, 0xffff_ffff) &&
    isOptText(x.kernel, EVIDENCE_DETAIL_MAX) &&
    isOptCount(x.records) &&
    isOptCount(x.sdmaUs) &&
    isOptNonNegative(x.engineUs)
  );
}

/**
 * Whether `value` is a sample that `SampleSchema` accepts and whose evidence verdict is
 * consistent (`consistent`): each field checked by hand, in plain code, for the millions of
 * samples a big run file holds. It says yes only where the schema does; false sends the value
 * through the schema (the verdict and its reason). test/unit/protocolSampleCheck.test.ts holds
 * the two to the same answers on random and mutated samples.
 */
export function isPlainSample(value: unknown): value is Sample {
  if (!PLAIN_CHECKS_CURRENT || typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  if (s.type !== 'sample') return false;
  const mover = s.mover;
  if (mover !== 'cu' && mover !== 'engine') return false;
  const initiator = s.initiator;
  if (initiator !== 'host' && initiator !== 'device') return false;
  if (!isEndpoint(s.src) || !isEndpoint(s.dst)) return false;
  if (!wholeIn(s.sizeBytes, 1, Infinity) || !wholeIn(s.cus, 0, Infinity) || !wholeIn(s.engines, 0, Infinity))
    return false;
  if (!wholeIn(s.iters, 1, Infinity)) return false;
  const times = s.timesNs;
  if (times !== undefined) {
    if (!Array.isArray(times)) return false;
    for (let i = 0; i < times.length; i++) {
      const t: unknown = times[i];
      if (typeof t !== 'number' || !(t >= 0) || t === Infinity) return false;
    }
  }
  if (!isNonNegative(s.meanNs) || !isNonNegative(s.gbps) || typeof s.validated !== 'boolean') return false;
  if (!isOptNonNegative(s.minNs) || !isOptNonNegative(s.maxNs) || !isOptNonNegative(s.stdevNs)) return false;
  if (!isOptNonNegative(s.gbpsMax) || !isOptNonNegative(s.medianNs) || !isOptNonNegative(s.gbpsMedian)) return false;
  if (!isOptIn(s.mode, TIMING_MODES) || !isOptCount(s.opsPerIter, 1) || !isOptText(s.label, 4096)) return false;
  const engineIds = s.engineIds;
  if (engineIds !== undefined) {
    if (!Array.isArray(engineIds)) return false;
    for (let i = 0; i < engineIds.length; i++) if (!wholeIn(engineIds[i], 0, Infinity)) return false;
  }
  if (s.traced !== undefined && typeof s.traced !== 'boolean') return false;
  if (!isOptCount(s.cusSeen) || !isOptIn(s.series, SAMPLE_SERIES) || !isOptText(s.runtimeRule, EVIDENCE_DETAIL_MAX))
    return false;
  if (s.moverEvidence !== undefined && !isPlainEvidence(s.moverEvidence, mover)) return false;
  return (
    isOptCount(s.wavesPerCu, 1, LIMITS.wavesPerCuMax) &&
    (s.waveSize === undefined || s.waveSize === 32 || s.waveSize === 64) &&
    isOptCount(s.split, 2, LIMITS.splitMax) &&
    isOptIn(s.splitOver, SPLIT_OVER) &&
    isOptCount(s.batch, 1, LIMITS.batchMax) &&
    isOptIn(s.shmemSdma, SHMEM_SDMA)
  );
}

/** What one line of helper output turned out to be. Never throws. */
export type LineResult =
  | { kind: 'record'; record: HelperRecord }
  | { kind: 'unknown-type'; type: string }
  | { kind: 'malformed'; reason: string };

/** Validates an already-parsed JSON value as a helper record. */
export function validateRecord(value: unknown): LineResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'malformed', reason: 'not a JSON object' };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { kind: 'malformed', reason: 'no string field "type"' };
  if (!Object.hasOwn(RECORD_SCHEMAS, type)) return { kind: 'unknown-type', type: type.slice(0, 64) };
  if (type === 'sample' && isPlainSample(value)) return { kind: 'record', record: value };
  if (type === 'collective' || type === 'collective-variant') value = renamedVariant(value);
  // Most lines are valid: a plain check read off the schema accepts them without building a
  // copy; anything it does not vouch for goes through the schema for the verdict and reason.
  if (fastOf(type as RecordType)?.(value)) return consistent(value as HelperRecord);
  const result = v.safeParse(RECORD_SCHEMAS[type as RecordType], value);
  if (result.success) return consistent(result.output);
  const issue = result.issues[0];
  const where = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  return { kind: 'malformed', reason: `${type}${where ? `.${where}` : ''}: ${issue.message}` };
}

/**
 * A collective record under an old variant name (`gin-sdma`, before gin-sdma-lib and
 * gin-sdma-dev were told apart), as a copy under the name it has now; anything else as it is.
 * Saved runs and a node's older helper are read the same way.
 */
function renamedVariant(value: object): object {
  const variant = (value as { variant?: unknown }).variant;
  if (typeof variant !== 'string' || !Object.hasOwn(LEGACY_VARIANT_NAMES, variant)) return value;
  return { ...value, variant: LEGACY_VARIANT_NAMES[variant] };
}

/**
 * What a record's schema cannot say alone: a mover evidence's verdict is the evidence against
 * the record's own mover, so one that says otherwise (a sample labelled engine whose evidence saw
 * a CU kernel and "matches") is refused rather than shown as either.
 */
function consistent(record: HelperRecord): LineResult {
  if ((record.type === 'sample' || record.type === 'matrix-cell') && record.moverEvidence) {
    const e = record.moverEvidence;
    const expected = verdictOf(record.mover, e.observed);
    if (e.verdict !== expected)
      return {
        kind: 'malformed',
        reason: `${record.type}.moverEvidence.verdict: must be "${expected}" for a ${record.mover} ${record.type === 'sample' ? 'sample' : 'cell'} whose evidence observed ${e.observed} (got "${e.verdict}")`,
      };
  }
  return { kind: 'record', record };
}

/** Parses and validates one NDJSON line. Never throws. */
export function parseLine(line: string): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { kind: 'malformed', reason: `invalid JSON (${(err as Error).message})` };
  }
  return validateRecord(value);
}
