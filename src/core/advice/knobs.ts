/**
 * The knob catalog: library environment variables that choose between load/store and
 * copy-engine paths, kept as data in knobCatalog.json. The catalog ships with the code, so its
 * check against the schema below runs in the tests (test/unit/knobs.test.ts: the checked
 * catalog is the shipped one, field for field), not at every start; loadCatalog checks any
 * other data given to it.
 */
import * as v from 'valibot';
import raw from './knobCatalog.json';
import type { VersionRange } from './version';
import { compareVersions, inRange, parseVersion } from './version';

/** Which copies or calls a knob governs (docs/ADVICE.md, "The knob catalog"). */
export const SCOPES = [
  'gpu-local-copy',
  'peer-copy-host',
  'all-host-copies',
  'process',
  'device-put',
  'library-alltoall',
  'library-allreduce',
  'rccl-tests-kernels',
  'communicator',
  'allgather-ce',
] as const;

/** The catalog's schemas, built at the first check (a start that checks nothing builds none). */
function catalogSchemas() {
  const versionText = v.pipe(
    v.string(),
    v.check((s) => parseVersion(s) !== undefined, 'not a version'),
  );
  const RangeSchema = v.object({ from: v.nullable(versionText), before: v.nullable(versionText) });
  /** documented: a published documentation page; source: only the library's source; guess: inferred (said so). */
  const Confidence = v.picklist(['documented', 'source', 'guess']);

  const ValueSchema = v.object({
    value: v.string(),
    meaning: v.string(),
    sdma: v.optional(v.boolean()),
    versions: RangeSchema,
    confidence: Confidence,
  });

  const KnobSchema = v.object({
    name: v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]+$/)),
    library: v.picklist(['rccl', 'rccl-tests', 'rocshmem', 'rocr', 'clr', 'mori', 'nccl']),
    /** The binary that reads it (librccl or rccl-tests, ROCr or CLR) and where. */
    reader: v.pipe(v.string(), v.minLength(5)),
    versions: RangeSchema,
    role: v.string(),
    scope: v.picklist(SCOPES),
    /** Turns an engine off for the whole process: never a threshold. */
    processWide: v.optional(v.boolean()),
    meaning: v.pipe(v.string(), v.minLength(10)),
    kind: v.picklist(['bool', 'enum', 'bytes', 'count']),
    default: v.nullable(v.string()),
    defaultNote: v.optional(v.string()),
    recommended: v.optional(v.string()),
    unit: v.string(),
    /** When the engine path is taken: size gt/ge/lt/le value (in `scale` units). */
    comparison: v.optional(v.picklist(['gt', 'ge', 'lt', 'le'])),
    scale: v.optional(v.picklist(['bytes', 'KiB', 'elements'])),
    /** What the compared size counts. */
    per: v.optional(v.picklist(['copy', 'put', 'peer', 'rank', 'message'])),
    values: v.optional(v.array(ValueSchema)),
    source: v.pipe(v.string(), v.minLength(10)),
    /** Where to read it: source files at a commit, or the documentation page. */
    addresses: v.pipe(v.array(v.pipe(v.string(), v.regex(/^https:\/\/\S+$/))), v.minLength(1)),
    confidence: Confidence,
    /** The GPUs the knob is documented for; elsewhere advice carries a caveat. */
    hardware: v.optional(
      v.object({
        vendor: v.picklist(['nvidia', 'amd']),
        minSm: v.optional(v.pipe(v.number(), v.integer())),
        name: v.string(),
      }),
    ),
  });

  const CatalogSchema = v.object({
    format: v.literal('sdma-lens-knobs'),
    version: v.literal(2),
    notes: v.string(),
    knobs: v.array(KnobSchema),
  });
  return { ValueSchema, KnobSchema, CatalogSchema };
}
type CatalogSchemas = ReturnType<typeof catalogSchemas>;
let schemas: CatalogSchemas | undefined;

export type Knob = v.InferOutput<CatalogSchemas['KnobSchema']>;
export type KnobValue = v.InferOutput<CatalogSchemas['ValueSchema']>;
export type Library = Knob['library'];

/** The knobs of catalog data checked against the schema; throws at the first thing wrong. */
export function loadCatalog(data: unknown = raw): Knob[] {
  const r = v.safeParse((schemas ??= catalogSchemas()).CatalogSchema, data);
  if (!r.success) {
    const issue = r.issues[0];
    throw new Error(
      `knob catalog is invalid at ${issue.path?.map((p) => String(p.key)).join('.') ?? '?'}: ${issue.message}`,
    );
  }
  return r.output.knobs;
}

/** The shipped knob catalog (checked by the tests, not here). */
export function allKnobs(): readonly Knob[] {
  return (raw as unknown as { knobs: readonly Knob[] }).knobs;
}

export function knob(name: string): Knob | undefined {
  return allKnobs().find((k) => k.name === name);
}

/** The knobs of a library that apply at a version (all of them when the version is unknown). */
export function knobsFor(library: Library, version: string | undefined): Knob[] {
  return allKnobs().filter((k) => k.library === library && (version === undefined || inRange(version, k.versions)));
}

/** What a value of an enum knob means at a version; several candidates when the version is unknown. */
export function meaningsOf(k: Knob, value: string, version: string | undefined): KnobValue[] {
  return (k.values ?? []).filter((x) => x.value === value && (version === undefined || inRange(version, x.versions)));
}

/** The values of an enum knob that select the copy-engine path, with the versions each applies to. */
export function sdmaValues(k: Knob, version: string | undefined): KnobValue[] {
  return (k.values ?? []).filter((x) => x.sdma === true && (version === undefined || inRange(version, x.versions)));
}

/** True when two half-open version ranges share a version. */
export function rangesOverlap(a: VersionRange, b: VersionRange): boolean {
  const startsBefore = (x: VersionRange, y: VersionRange) =>
    x.before === null || y.from === null || compareVersions(y.from, x.before) < 0;
  return startsBefore(a, b) && startsBefore(b, a);
}

/**
 * Whether the knob is documented for a GPU of this architecture ("sm_90", "gfx950"):
 * 'yes', 'no', or 'unknown' when the architecture is not known or the catalog has no condition to test.
 */
export function documentedFor(k: Knob, arch: string | undefined): 'yes' | 'no' | 'unknown' {
  const hw = k.hardware;
  if (!hw) return 'yes';
  const sm = arch ? /^sm_(\d+)/.exec(arch) : null;
  if (hw.vendor === 'nvidia') {
    if (arch && !sm) return 'no';
    if (!sm || hw.minSm === undefined) return 'unknown';
    return Number(sm[1]) >= hw.minSm ? 'yes' : 'no';
  }
  if (!arch) return 'unknown';
  return sm ? 'no' : 'unknown';
}
