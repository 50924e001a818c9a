/**
 * A run's samples as columns rather than one object each: a sweep of 10^7 points held as
 * objects costs about 1 KB of heap a sample; as columns it costs under 200 bytes.
 *
 * - numbers: one typed column each, Int32 while every value is a whole number that fits (the
 *   endpoints, sizes, counts, the helper's whole-nanosecond minima), else Float64; an absent
 *   value is a sentinel (the Int32 minimum, or NaN: neither can come from a validated record);
 * - `timesNs`: one shared pool with a start and a count per sample, Uint32 while every time is
 *   a whole number below 2^32 (as the helper prints them), else Float64;
 * - strings (mover, label, series, ...): small codes into a dictionary per column;
 * - booleans: a byte (false, true, absent);
 * - the nested fields (`moverEvidence`, `engineIds`, any field of the schema not named here):
 *   their JSON, interned, so a sweep whose evidence repeats stores it once.
 *
 * A column is allocated when its first value arrives, so a field no sample carries costs
 * nothing. `at(i)` and iteration build a `Sample` object on demand, in the schema's field
 * order, read-only (frozen, its `timesNs` too: change samples with `mapped`); what is read back
 * equals what was pushed (test/unit/sampleTable.test.ts). A table of at most SHARE_BUILT_MAX
 * samples keeps the objects it built while anyone holds them (a WeakRef): the advice and
 * figures that walk its samples many times build them once, and a run at rest holds only its
 * columns. A bigger table builds each on demand, so a walk never holds them all; `select`
 * (reorder, subset), `numbersOf` and `numberAt` (one field), `timesCountAt` and `copyTimes`
 * (a sample's iteration times) and `groupsOf` (samples alike in some fields) work on the
 * columns and build none.
 * Browser-safe.
 */
import type { Sample } from './protocol';
import { SampleSchema } from './protocol';

const NUMBER_FIELDS = [
  'src',
  'dst',
  'sizeBytes',
  'cus',
  'engines',
  'iters',
  'meanNs',
  'minNs',
  'maxNs',
  'stdevNs',
  'gbps',
  'gbpsMax',
  'medianNs',
  'gbpsMedian',
  'opsPerIter',
  'cusSeen',
  'wavesPerCu',
  'waveSize',
  'split',
  'batch',
] as const satisfies readonly (keyof Sample)[];
const STRING_FIELDS = [
  'mover',
  'initiator',
  'mode',
  'label',
  'series',
  'runtimeRule',
  'splitOver',
  'shmemSdma',
] as const satisfies readonly (keyof Sample)[];
const BOOLEAN_FIELDS = ['validated', 'traced'] as const satisfies readonly (keyof Sample)[];

/** The fields held as numbers. */
export type NumberField = (typeof NUMBER_FIELDS)[number];
/** The fields held as strings, as booleans, and nested (as interned JSON): `moverEvidence`, `engineIds`, any the schema adds. */
export type StringField = (typeof STRING_FIELDS)[number];
export type BooleanField = (typeof BOOLEAN_FIELDS)[number];
export type NestedField = Exclude<keyof Sample, NumberField | StringField | BooleanField | 'type' | 'timesNs'>;
/** The fields `groupsOf` groups samples by: all but `type` and `timesNs`. */
export type GroupField = NumberField | StringField | BooleanField | NestedField;

type Kind = 'number' | 'string' | 'boolean' | 'times' | 'rest';

/** Every field of the schema, in its order, with the column kind that holds it. */
const FIELDS: readonly (readonly [string, Kind, number])[] = Object.keys(SampleSchema.entries)
  .filter((k) => k !== 'type')
  .map((k) => {
    const n = (NUMBER_FIELDS as readonly string[]).indexOf(k);
    const t = (STRING_FIELDS as readonly string[]).indexOf(k);
    const b = (BOOLEAN_FIELDS as readonly string[]).indexOf(k);
    if (n >= 0) return [k, 'number', n] as const;
    if (t >= 0) return [k, 'string', t] as const;
    if (b >= 0) return [k, 'boolean', b] as const;
    return [k, k === 'timesNs' ? 'times' : 'rest', -1] as const;
  });
/** Each field's column kind and index in its kind's list, by name. */
const FIELD_KIND = new Map(FIELDS.map(([name, kind, k]) => [name, [kind, k] as const]));
/** The fields kept as interned JSON (nested values, and any field added to the schema later). */
const REST_FIELDS = FIELDS.filter(([, k]) => k === 'rest').map(([f]) => f);

const INT_ABSENT = -0x80000000;
/** How many distinct nested values a table keeps parsed (beyond them, only the last one built). */
const REST_KEPT = 64;
const NO_CODE = -1;
/** How many recent distinct nested values `add` compares a sample's with before writing its JSON. */
const RECENT_REST = 4;
const NO_TIMES = 0xffffffff;
const MIN_CAPACITY = 64;
/** The most samples `expect` makes room for at once (about 2^27: beyond it columns grow by doubling). */
const MAX_EXPECTED = 1 << 27;
/** The most iteration times `expect` makes room for at once (1 GiB of Uint32). */
const MAX_POOL_EXPECTED = 1 << 28;
/**
 * Tables up to this many samples keep what they built while it is held (see the file's comment).
 * Not more: a million samples built at once (about 630 MB of objects) beside their columns would
 * not fit `advise` in 2 GiB of address space (bench/scale.bench.ts); bigger tables build a sample
 * at a time.
 */
export const SHARE_BUILT_MAX = 4096;

function isInt32(x: number): boolean {
  return (x | 0) === x && x !== INT_ABSENT && !Object.is(x, -0);
}

type NumberColumn = Int32Array | Float64Array;
/** Reads one field of sample `i` from its column (`rest`: the sample's nested fields, parsed). */
interface Reader {
  readonly name: string;
  readonly kind: ReaderKind;
  /** The column read: numbers, string codes, booleans, or times counts. */
  readonly column: Int32Array | Float64Array | Uint8Array | Uint32Array | undefined;
  /** A string column's values by code. */
  readonly values?: readonly string[];
}
/**
 * How a reader reads its field: plain data, not a closure per table, so that the one `build`
 * stays optimised across every table (a closure made per table deoptimises it at each new one).
 */
const enum ReaderKind {
  Int,
  Float,
  String,
  Boolean,
  Times,
  Rest,
}

/** `x` and everything in it frozen (a value shared by several readers, which none may change). */
export function deepFreeze<T>(x: T): T {
  if (typeof x === 'object' && x !== null) {
    for (const v of Object.values(x)) deepFreeze(v);
    Object.freeze(x);
  }
  return x;
}

/**
 * Equal as JSON, for the shapes the nested fields have: flat objects and arrays of numbers and
 * strings. `kb`: the keys of `b` (Object.keys, kept with it), so that a comparison allocates
 * nothing; `a`'s are walked with for-in, which gives its own keys in the same order (and then any
 * enumerable inherited one, which makes it differ: a false "not equal" only writes the JSON again).
 */
function samePlain(a: unknown, b: unknown, kb: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || kb === undefined) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    // An array's JSON is its elements.
    const y = b as unknown[];
    if (a.length !== y.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      if (x !== y[i] || (typeof x === 'object' && x !== null)) return false;
    }
    return true;
  }
  let k = 0;
  for (const key in a) {
    if (key !== kb[k++]) return false;
    const x = (a as Record<string, unknown>)[key];
    if (x !== (b as Record<string, unknown>)[key] || (typeof x === 'object' && x !== null)) return false;
  }
  return k === kb.length;
}

/** A nested value kept to compare with (`sameRest`): its fields, each one's keys, its code. */
interface RecentRest {
  value: Record<string, unknown>;
  keys: (string[] | undefined)[];
  code: number;
}

function sameRest(a: Record<string, unknown>, b: RecentRest): boolean {
  for (let f = 0; f < REST_FIELDS.length; f++) {
    const name = REST_FIELDS[f]!;
    if (!samePlain(a[name], b.value[name], b.keys[f])) return false;
  }
  return true;
}

/** A grown copy of `a` with `capacity` slots, the new ones set to `fill`. */
function grow<T extends Int32Array | Float64Array | Uint32Array | Uint8Array>(a: T, capacity: number, fill: number): T {
  const b = new (a.constructor as new (n: number) => T)(capacity);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

/** A string column's dictionary: each distinct value once, its code the index. */
class Dictionary {
  readonly values: string[] = [];
  private readonly codes = new Map<string, number>();
  /** The last value coded, and its code: a column's values mostly repeat the last sample's. */
  private last: string | undefined;
  private lastCode = NO_CODE;
  code(s: string): number {
    if (s === this.last) return this.lastCode;
    let c = this.codes.get(s);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(s);
      this.codes.set(s, c);
    }
    this.last = s;
    this.lastCode = c;
    return c;
  }
}

export class SampleTable implements Iterable<Sample> {
  private n = 0;
  private capacity = 0;
  /** Indexed as NUMBER_FIELDS, STRING_FIELDS, BOOLEAN_FIELDS; undefined until a value comes. */
  private readonly numbers: (NumberColumn | undefined)[] = NUMBER_FIELDS.map(() => undefined);
  private readonly strings: ({ codes: Int32Array; dict: Dictionary } | undefined)[] = STRING_FIELDS.map(
    () => undefined,
  );
  private readonly booleans: (Uint8Array | undefined)[] = BOOLEAN_FIELDS.map(() => undefined);
  private rest: Int32Array | undefined;
  private readonly restDict = new Dictionary();
  /** The last few distinct nested values added, and their codes (RECENT_REST of them, replaced in turn). */
  private readonly recentRest: RecentRest[] = [];
  private recentNext = 0;
  private lastBuiltRest: { value: Record<string, unknown>; code: number } | undefined;
  /** The first REST_KEPT codes' nested fields, parsed: a sweep's paths alternate between a few. */
  private readonly restParsed: (Record<string, unknown> | undefined)[] = [];
  /** How samples are built from the columns as they are now (see `plan`); rebuilt when a column is added or replaced. */
  private readers: Reader[] | undefined;
  /** A sample built: its values by reader (reused), and one object per shape (fields present) to copy. */
  private scratch: unknown[] = [];
  private readonly shapes = new Map<number, Record<string, unknown>>();
  private lastMask = -1;
  private lastShape: Record<string, unknown> | undefined;
  /** Per sample: where its times start in the pool, and how many (NO_TIMES: absent). */
  private timesStart: Float64Array | undefined;
  private timesCount: Uint32Array | undefined;
  private pool: Uint32Array | Float64Array = new Uint32Array(0);
  private poolLength = 0;
  /** Whether `expect` made room ahead: full columns then grow by an eighth, not by doubling. */
  private expected = false;
  /** The samples built, while something holds them (tables of at most SHARE_BUILT_MAX). */
  private built: WeakRef<Sample[]> | undefined;

  static from(samples: Iterable<Sample>): SampleTable {
    const t = new SampleTable();
    for (const s of samples) t.push(s);
    return t;
  }

  get length(): number {
    return this.n;
  }

  /** Adds a validated sample (protocol.ts); fields outside the schema are not kept, as the schema's own output would not keep them. */
  push(s: Sample, ...more: Sample[]): void {
    this.add(s);
    for (const m of more) this.add(m);
  }

  private add(s: Sample): void {
    const i = this.n;
    if (i === this.capacity) this.reserve(this.grown(this.capacity, MIN_CAPACITY));
    const record = s as unknown as Record<string, unknown>;
    // Each field read by name (not by a computed key): the records of one file share a shape,
    // so these reads stay fast. The order is NUMBER_FIELDS', STRING_FIELDS', BOOLEAN_FIELDS'.
    this.setNumber(0, i, s.src);
    this.setNumber(1, i, s.dst);
    this.setNumber(2, i, s.sizeBytes);
    this.setNumber(3, i, s.cus);
    this.setNumber(4, i, s.engines);
    this.setNumber(5, i, s.iters);
    this.setNumber(6, i, s.meanNs);
    this.setNumber(7, i, s.minNs);
    this.setNumber(8, i, s.maxNs);
    this.setNumber(9, i, s.stdevNs);
    this.setNumber(10, i, s.gbps);
    this.setNumber(11, i, s.gbpsMax);
    this.setNumber(12, i, s.medianNs);
    this.setNumber(13, i, s.gbpsMedian);
    this.setNumber(14, i, s.opsPerIter);
    this.setNumber(15, i, s.cusSeen);
    this.setNumber(16, i, s.wavesPerCu);
    this.setNumber(17, i, s.waveSize);
    this.setNumber(18, i, s.split);
    this.setNumber(19, i, s.batch);
    this.setString(0, i, s.mover);
    this.setString(1, i, s.initiator);
    this.setString(2, i, s.mode);
    this.setString(3, i, s.label);
    this.setString(4, i, s.series);
    this.setString(5, i, s.runtimeRule);
    this.setString(6, i, s.splitOver);
    this.setString(7, i, s.shmemSdma);
    this.setBoolean(0, i, s.validated);
    this.setBoolean(1, i, s.traced);
    if (s.timesNs !== undefined) this.setTimes(i, s.timesNs);
    // A sweep's evidence mostly repeats one of the last few samples' (a sweep alternates between
    // movers): compared field by field (the record's own, no copy made), it is not written as
    // JSON again.
    let restCode = NO_CODE;
    const recent = this.recentRest;
    for (let r = 0; r < recent.length; r++)
      if (sameRest(record, recent[r]!)) {
        restCode = recent[r]!.code;
        break;
      }
    if (restCode === NO_CODE) {
      let rest: Record<string, unknown> | undefined;
      for (const f of REST_FIELDS) {
        const x = record[f];
        if (x !== undefined) (rest ??= {})[f] = x;
      }
      if (rest) {
        restCode = this.restDict.code(JSON.stringify(rest));
        const value = rest;
        const keys = REST_FIELDS.map((f) => {
          const x = value[f];
          return typeof x === 'object' && x !== null ? Object.keys(x) : undefined;
        });
        recent[this.recentNext] = { value, keys, code: restCode };
        this.recentNext = (this.recentNext + 1) % RECENT_REST;
      }
    }
    if (restCode !== NO_CODE) {
      if (!this.rest) {
        this.rest = new Int32Array(this.capacity).fill(NO_CODE);
        this.readers = undefined;
      }
      this.rest[i] = restCode;
    }
    this.n = i + 1;
    this.built = undefined;
  }

  /**
   * One reader per column present, in the schema's field order: a sample is built by calling
   * only these, each knowing its column's type, rather than testing all of the schema's fields
   * and types for every sample. Made again whenever a column is created, widened or regrown.
   */
  private plan(): Reader[] {
    if (this.readers) return this.readers;
    const readers: Reader[] = [];
    for (const [name, kind, k] of FIELDS) {
      switch (kind) {
        case 'number': {
          const c = this.numbers[k];
          if (c) readers.push({ name, kind: c instanceof Int32Array ? ReaderKind.Int : ReaderKind.Float, column: c });
          break;
        }
        case 'string': {
          const c = this.strings[k];
          if (c) readers.push({ name, kind: ReaderKind.String, column: c.codes, values: c.dict.values });
          break;
        }
        case 'boolean': {
          const c = this.booleans[k];
          if (c) readers.push({ name, kind: ReaderKind.Boolean, column: c });
          break;
        }
        case 'times':
          if (this.timesStart && this.timesCount)
            readers.push({ name, kind: ReaderKind.Times, column: this.timesCount });
          break;
        case 'rest':
          if (this.rest) readers.push({ name, kind: ReaderKind.Rest, column: undefined });
          break;
      }
    }
    this.readers = readers;
    this.scratch = readers.map(() => undefined);
    // A mask's bits name readers: with another set of readers, the shapes made for the old masks
    // would give a sample fields it lacks (a column added after samples were built).
    this.shapes.clear();
    this.lastMask = -1;
    this.lastShape = undefined;
    return readers;
  }

  /** Field `reader` of sample `i` (`rest`: the sample's nested fields, parsed). */
  private read(reader: Reader, i: number, rest: Record<string, unknown> | undefined): unknown {
    const c = reader.column!;
    switch (reader.kind) {
      case ReaderKind.Int:
        return c[i] === INT_ABSENT ? undefined : c[i];
      case ReaderKind.Float:
        return Number.isNaN(c[i]) ? undefined : c[i];
      case ReaderKind.String:
        return c[i] === NO_CODE ? undefined : reader.values![c[i]!];
      case ReaderKind.Boolean:
        return c[i] === 2 ? undefined : c[i] === 1;
      case ReaderKind.Times: {
        const count = c[i]!;
        if (count === NO_TIMES) return undefined;
        const start = this.timesStart![i]!;
        const pool = this.pool;
        const out = new Array<number>(count);
        for (let j = 0; j < count; j++) out[j] = pool[start + j]!;
        return Object.freeze(out);
      }
      case ReaderKind.Rest:
        return rest?.[reader.name];
    }
  }

  /** The sample at `i` (negative: from the end), read-only; undefined outside the table. */
  at(index: number): Sample | undefined {
    const i = index < 0 ? this.n + index : index;
    if (!Number.isInteger(i) || i < 0 || i >= this.n) return undefined;
    const all = this.built?.deref();
    return all && all.length === this.n ? all[i] : this.build(i);
  }

  /** Every sample built, shared while held (small tables); undefined for a big table (built one at a time). */
  private shared(): Sample[] | undefined {
    if (this.n > SHARE_BUILT_MAX) return undefined;
    let all = this.built?.deref();
    if (!all || all.length !== this.n) {
      all = new Array<Sample>(this.n);
      for (let i = 0; i < this.n; i++) all[i] = this.build(i);
      this.built = new WeakRef(all);
    }
    return all;
  }

  *[Symbol.iterator](): Iterator<Sample> {
    const all = this.shared();
    if (all) yield* all;
    else for (let i = 0; i < this.n; i++) yield this.build(i);
  }

  /** Every sample as objects: for callers that hold a few (a refinement, a comparison), not a whole big run. */
  toArray(): Sample[] {
    const all = this.shared();
    if (all) return all.slice();
    const out = new Array<Sample>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.build(i);
    return out;
  }

  /** A table written as JSON is its samples, as the array it stands for. */
  toJSON(): Sample[] {
    return this.toArray();
  }

  map<T>(f: (s: Sample, i: number) => T): T[] {
    const out = new Array<T>(this.n);
    const all = this.shared();
    for (let i = 0; i < this.n; i++) out[i] = f(all ? all[i]! : this.build(i), i);
    return out;
  }

  filter(f: (s: Sample, i: number) => boolean): Sample[] {
    const out: Sample[] = [];
    const all = this.shared();
    for (let i = 0; i < this.n; i++) {
      const s = all ? all[i]! : this.build(i);
      if (f(s, i)) out.push(s);
    }
    return out;
  }

  some(f: (s: Sample, i: number) => boolean): boolean {
    return this.findIndex(f) !== -1;
  }

  every(f: (s: Sample, i: number) => boolean): boolean {
    return this.findIndex((s, i) => !f(s, i)) === -1;
  }

  find(f: (s: Sample, i: number) => boolean): Sample | undefined {
    const i = this.findIndex(f);
    return i === -1 ? undefined : this.at(i);
  }

  findIndex(f: (s: Sample, i: number) => boolean): number {
    const all = this.shared();
    for (let i = 0; i < this.n; i++) if (f(all ? all[i]! : this.build(i), i)) return i;
    return -1;
  }

  /**
   * A new table of `f` of each sample: the way to change samples, since `at` and iteration give
   * read-only ones. `f` gets a copy it may change (its `timesNs` too; nested fields stay shared).
   */
  mapped(f: (s: Sample, i: number) => Sample): SampleTable {
    const t = new SampleTable();
    const all = this.shared();
    for (let i = 0; i < this.n; i++) {
      const s = all ? all[i]! : this.build(i);
      t.push(f({ ...s, ...(s.timesNs ? { timesNs: [...s.timesNs] } : {}) }, i));
    }
    return t;
  }

  forEach(f: (s: Sample, i: number) => void): void {
    const all = this.shared();
    for (let i = 0; i < this.n; i++) f(all ? all[i]! : this.build(i), i);
  }

  /**
   * The values of one number field, sample by sample, without building a sample (NaN where a
   * sample lacks it): for a walk that needs a field or two of a big table. Given `rows`, those
   * samples' values only, in that order.
   */
  numbersOf(field: NumberField, rows?: ArrayLike<number>): Float64Array {
    const c = this.numbers[NUMBER_FIELDS.indexOf(field)];
    if (rows) {
      const out = new Float64Array(rows.length);
      for (let k = 0; k < rows.length; k++) out[k] = this.numberIn(c, this.row(rows[k]!));
      return out;
    }
    const out = new Float64Array(this.n).fill(NaN);
    if (c instanceof Int32Array) {
      for (let i = 0; i < this.n; i++) if (c[i] !== INT_ABSENT) out[i] = c[i]!;
    } else if (c) out.set(c.subarray(0, this.n));
    return out;
  }

  /** One number field of sample `i`, without building it (NaN where it lacks the field). */
  numberAt(field: NumberField, i: number): number {
    return this.numberIn(this.numbers[NUMBER_FIELDS.indexOf(field)], this.row(i));
  }

  /** Row `i` of a number column as a number, NaN when absent (the column's sentinel, or no column). */
  private numberIn(c: NumberColumn | undefined, i: number): number {
    if (!c) return NaN;
    const x = c[i]!;
    return c instanceof Int32Array && x === INT_ABSENT ? NaN : x;
  }

  /**
   * The fields `fields` of sample `i` (those it has), read from their columns, without building
   * the whole sample: an object with only these fields, the values `at(i)` has for them (a
   * nested one the same frozen object). Not `timesNs`.
   */
  pick<K extends GroupField>(i: number, fields: readonly K[]): Pick<Sample, K> {
    const row = this.row(i);
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const [kind, k] = FIELD_KIND.get(f) ?? [];
      let x: unknown;
      if (kind === 'number') {
        const v = this.numberIn(this.numbers[k!], row);
        x = Number.isNaN(v) ? undefined : v;
      } else if (kind === 'string') {
        const c = this.strings[k!];
        const code = c ? c.codes[row]! : NO_CODE;
        x = code === NO_CODE ? undefined : c!.dict.values[code];
      } else if (kind === 'boolean') {
        const b = this.booleans[k!]?.[row] ?? 2;
        x = b === 2 ? undefined : b === 1;
      } else if (kind === 'rest') {
        const code = this.rest?.[row] ?? NO_CODE;
        x = code === NO_CODE ? undefined : this.restOf(code)[f];
      } else throw new RangeError(`pick: ${f} is not a field it can read`);
      if (x !== undefined) out[f] = x;
    }
    return out as Pick<Sample, K>;
  }

  /** How many iteration times sample `i` holds; -1 when it has no `timesNs`. */
  timesCountAt(i: number): number {
    const count = this.timesCount?.[this.row(i)] ?? NO_TIMES;
    return count === NO_TIMES ? -1 : count;
  }

  /** Sample `i`'s iteration times copied into `into` from its start (as many as `timesCountAt` says; `into` must hold them). */
  copyTimes(i: number, into: Float64Array): void {
    const count = this.timesCountAt(i);
    if (count <= 0) return;
    if (into.length < count) throw new RangeError(`copyTimes: ${count} times do not fit ${into.length}`);
    const start = this.timesStart![i]!;
    const pool = this.pool;
    for (let j = 0; j < count; j++) into[j] = pool[start + j]!;
  }

  /** `i` when it is a sample of the table, else a RangeError. */
  private row(i: number): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.n) throw new RangeError(`index ${i} is outside 0..${this.n - 1}`);
    return i;
  }

  /**
   * The samples grouped by their values of `fields`, without building a sample: `group[i]` is
   * sample i's group, numbered in the order groups first appear, and `first[g]` the first sample
   * of group g. Two samples share a group exactly when each of the fields is absent from both or
   * equal in both (numbers as `===` has them; a nested field as its JSON, and all nested fields
   * together: samples that differ in any one are apart). For a walk that needs something of each
   * distinct combination (a key, a label) made once, not once a sample. Given `rows` (indices of
   * samples), only those are grouped, in that order: `group[k]` is the group of sample `rows[k]`,
   * and `first[g]` is still an index in the table.
   */
  groupsOf(fields: readonly GroupField[], rows?: ArrayLike<number>): { group: Int32Array; first: number[] } {
    const columns: (Int32Array | Float64Array | Uint8Array)[] = [];
    for (const f of fields) {
      const [kind, k] = FIELD_KIND.get(f) ?? [];
      const c =
        kind === 'number'
          ? this.numbers[k!]
          : kind === 'string'
            ? this.strings[k!]?.codes
            : kind === 'boolean'
              ? this.booleans[k!]
              : kind === 'rest'
                ? this.rest
                : undefined;
      if (kind === undefined || kind === 'times') throw new RangeError(`groupsOf: ${f} is not a field it can group by`);
      // A column no sample has: every sample absent from it, equal.
      if (c && !columns.includes(c)) columns.push(c);
    }
    const m = rows ? rows.length : this.n;
    if (rows) for (let k = 0; k < m; k++) this.row(rows[k]!);
    const group = new Int32Array(m);
    const first: number[] = [];
    const same = (i: number, j: number): boolean => {
      for (let k = 0; k < columns.length; k++) {
        const a = columns[k]![i]!;
        const b = columns[k]![j]!;
        // NaN is a Float64 column's absent value: absent equals absent.
        if (a !== b && !(a !== a && b !== b)) return false;
      }
      return true;
    };
    // A walk through a sweep meets its groups in turn at each size: the group after the last one
    // met is tried first, then the last one, then every group by its values as text.
    const byValues = new Map<string, number>();
    let last = -1;
    for (let k = 0; k < m; k++) {
      const i = rows ? rows[k]! : k;
      let g = -1;
      if (first.length > 0) {
        const next = (last + 1) % first.length;
        if (same(i, first[next]!)) g = next;
        else if (same(i, first[last]!)) g = last;
      }
      if (g < 0) {
        let text = '';
        for (const c of columns) text += `${c[i]},`;
        g = byValues.get(text) ?? -1;
        if (g < 0) {
          g = first.length;
          first.push(i);
          byValues.set(text, g);
        }
      }
      group[k] = last = g;
    }
    return { group, first };
  }

  /**
   * A new table of the samples at `indices`, in that order (an index may repeat), copied column
   * by column: reordering or subsetting a big table builds no sample.
   */
  select(indices: ArrayLike<number>): SampleTable {
    const m = indices.length;
    for (let j = 0; j < m; j++) {
      const i = indices[j]!;
      if (!Number.isInteger(i) || i < 0 || i >= this.n)
        throw new RangeError(`select: index ${i} is outside 0..${this.n - 1}`);
    }
    const t = new SampleTable();
    t.n = m;
    t.capacity = m;
    const gather = <T extends Int32Array | Float64Array | Uint32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(m);
      for (let j = 0; j < m; j++) b[j] = a[indices[j]!]!;
      return b;
    };
    this.numbers.forEach((c, f) => {
      if (c) t.numbers[f] = gather(c);
    });
    this.strings.forEach((c, f) => {
      if (!c) return;
      const dict = new Dictionary();
      for (const v of c.dict.values) dict.code(v);
      t.strings[f] = { codes: gather(c.codes), dict };
    });
    this.booleans.forEach((c, f) => {
      if (c) t.booleans[f] = gather(c);
    });
    if (this.rest) {
      t.rest = gather(this.rest);
      for (const v of this.restDict.values) t.restDict.code(v);
    }
    if (this.timesStart && this.timesCount) {
      const counts = gather(this.timesCount);
      const starts = new Float64Array(m);
      let total = 0;
      for (let j = 0; j < m; j++) if (counts[j] !== NO_TIMES) total += counts[j]!;
      const pool = new (this.pool.constructor as new (n: number) => Uint32Array | Float64Array)(total);
      let at = 0;
      for (let j = 0; j < m; j++) {
        const count = counts[j]!;
        if (count === NO_TIMES) continue;
        const from = this.timesStart[indices[j]!]!;
        pool.set(this.pool.subarray(from, from + count), at);
        starts[j] = at;
        at += count;
      }
      t.timesStart = starts;
      t.timesCount = counts;
      t.pool = pool;
      t.poolLength = total;
    }
    return t;
  }

  /** Gives back the slack of growth: called once a run is read whole. */
  trim(): void {
    // A slack of a few percent (a reader's estimate that was close) is kept rather than copied.
    if (this.capacity - this.n > this.n / 32) this.reserve(this.n, true);
    if (this.pool.length - this.poolLength > this.poolLength / 32) this.pool = this.pool.slice(0, this.poolLength);
    this.readers = undefined;
  }

  /**
   * Room for `count` samples in all, made now: a reader that can tell how many samples a file
   * holds (its size over its first sample's line) grows each column once, not by doubling
   * (each doubling copies it). More than MAX_EXPECTED is not made ahead.
   */
  expect(count: number, timesEach = 0): void {
    if (!Number.isFinite(count) || count <= this.capacity) return;
    const n = Math.min(Math.ceil(count), MAX_EXPECTED);
    this.reserve(n);
    this.expected = true;
    // The iteration times' pool too, when each sample is expected to carry `timesEach`.
    const pooled =
      Number.isFinite(timesEach) && timesEach > 0 ? Math.min(Math.ceil(n * timesEach), MAX_POOL_EXPECTED) : 0;
    if (pooled > this.pool.length) {
      const wider = new (this.pool.constructor as new (n: number) => Uint32Array | Float64Array)(pooled);
      wider.set(this.pool.subarray(0, this.poolLength));
      this.pool = wider;
      this.readers = undefined;
    }
  }

  /** The bytes the columns hold (typed arrays only; the dictionaries are extra and small when values repeat). */
  columnBytes(): number {
    let bytes = this.pool.byteLength;
    for (const c of this.numbers) bytes += c?.byteLength ?? 0;
    for (const c of this.strings) bytes += c?.codes.byteLength ?? 0;
    for (const c of this.booleans) bytes += c?.byteLength ?? 0;
    bytes += (this.rest?.byteLength ?? 0) + (this.timesStart?.byteLength ?? 0) + (this.timesCount?.byteLength ?? 0);
    return bytes;
  }

  /**
   * The size a full column (or pool) of `size` grows to: double, or, once `expect` has made room
   * for what a reader estimated, an eighth more (an estimate a little short must not cost twice
   * the memory).
   */
  private grown(size: number, least: number): number {
    return Math.max(least, this.expected ? size + Math.ceil(size / 8) : size * 2);
  }

  private reserve(capacity: number, exact = false): void {
    if (!exact && capacity <= this.capacity) return;
    const resize = <T extends Int32Array | Float64Array | Uint32Array | Uint8Array>(a: T, fill: number): T =>
      exact ? (a.slice(0, capacity) as T) : grow(a, capacity, fill);
    this.numbers.forEach((c, f) => {
      if (c) this.numbers[f] = resize(c, c instanceof Int32Array ? INT_ABSENT : NaN);
    });
    for (const c of this.strings) if (c) c.codes = resize(c.codes, NO_CODE);
    this.booleans.forEach((c, f) => {
      if (c) this.booleans[f] = resize(c, 2);
    });
    if (this.rest) this.rest = resize(this.rest, NO_CODE);
    if (this.timesStart) this.timesStart = resize(this.timesStart, 0);
    if (this.timesCount) this.timesCount = resize(this.timesCount, NO_TIMES);
    this.capacity = capacity;
    this.readers = undefined;
  }

  private setNumber(f: number, i: number, x: number | undefined): void {
    if (typeof x !== 'number') return;
    const c = this.numbers[f];
    // The common case inline: a Float64 column takes anything; an Int32 one a whole number that
    // fits, is not the absent sentinel and is not -0 (1 / -0 is -Infinity).
    if (
      c !== undefined &&
      (c.BYTES_PER_ELEMENT === 8 || ((x | 0) === x && x !== INT_ABSENT && (x !== 0 || 1 / x > 0)))
    ) {
      c[i] = x;
      return;
    }
    this.setNumberSlow(f, i, x);
  }

  /** A number whose column is missing, or an Int32 column that must widen to hold it. */
  private setNumberSlow(f: number, i: number, x: number): void {
    let c = this.numbers[f];
    if (!c) {
      // Made Float64 at once for a first value that is not a whole Int32 (no Int32 column made to be copied).
      c = isInt32(x) ? new Int32Array(this.capacity).fill(INT_ABSENT) : new Float64Array(this.capacity).fill(NaN);
      this.numbers[f] = c;
      this.readers = undefined;
    }
    if (c instanceof Int32Array && !isInt32(x)) {
      const wide = new Float64Array(this.capacity);
      for (let k = 0; k < c.length; k++) {
        const y = c[k]!;
        wide[k] = y === INT_ABSENT ? NaN : y;
      }
      c = wide;
      this.numbers[f] = c;
      this.readers = undefined;
    }
    c[i] = x;
  }

  private setString(f: number, i: number, x: string | undefined): void {
    if (typeof x !== 'string') return;
    let c = this.strings[f];
    if (!c) {
      c = { codes: new Int32Array(this.capacity).fill(NO_CODE), dict: new Dictionary() };
      this.strings[f] = c;
      this.readers = undefined;
    }
    c.codes[i] = c.dict.code(x);
  }

  private setBoolean(f: number, i: number, x: boolean | undefined): void {
    if (typeof x !== 'boolean') return;
    let c = this.booleans[f];
    if (!c) {
      c = new Uint8Array(this.capacity).fill(2);
      this.booleans[f] = c;
      this.readers = undefined;
    }
    c[i] = x ? 1 : 0;
  }

  private setTimes(i: number, times: readonly number[]): void {
    if (!this.timesStart || !this.timesCount) {
      this.timesStart = new Float64Array(this.capacity);
      this.timesCount = new Uint32Array(this.capacity).fill(NO_TIMES);
      this.readers = undefined;
    }
    const need = this.poolLength + times.length;
    if (need > this.pool.length) {
      const wider = new (this.pool.constructor as new (n: number) => Uint32Array | Float64Array)(
        Math.max(need, this.grown(this.pool.length, 1024)),
      );
      wider.set(this.pool.subarray(0, this.poolLength));
      this.pool = wider;
      this.readers = undefined;
    }
    let pool = this.pool;
    const at = this.poolLength;
    const n = times.length;
    let k = 0;
    if (pool instanceof Uint32Array) {
      // Uint32 while every time is a whole number below 2^32 and not -0; the first that is not widens the pool.
      for (; k < n; k++) {
        const t = times[k]!;
        if (t >>> 0 !== t || (t === 0 && 1 / t < 0)) break;
        pool[at + k] = t;
      }
      if (k < n) {
        pool = this.pool = Float64Array.from(pool);
        this.readers = undefined;
      }
    }
    for (; k < n; k++) pool[at + k] = times[k]!;
    this.timesStart[i] = this.poolLength;
    this.timesCount[i] = times.length;
    this.poolLength = need;
  }

  /**
   * The nested fields of a code, parsed once and frozen: every sample built with them shares
   * them (a sweep's evidence is the same object in each), and nothing can change them.
   */
  private restOf(code: number): Record<string, unknown> {
    const kept = code < REST_KEPT ? this.restParsed[code] : undefined;
    if (kept) return kept;
    if (this.lastBuiltRest?.code === code) return this.lastBuiltRest.value;
    const value = deepFreeze(JSON.parse(this.restDict.values[code]!) as Record<string, unknown>);
    if (code < REST_KEPT) this.restParsed[code] = value;
    else this.lastBuiltRest = { code, value };
    return value;
  }

  private build(i: number): Sample {
    const readers = this.plan();
    const restCode = this.rest?.[i] ?? NO_CODE;
    const rest = restCode !== NO_CODE ? this.restOf(restCode) : undefined;
    // The values present, and which they are as a mask (one bit a reader, exact in a double).
    const values = this.scratch;
    let mask = 0;
    let bit = 1;
    for (let r = 0; r < readers.length; r++, bit *= 2) {
      const x = this.read(readers[r]!, i, rest);
      values[r] = x;
      if (x !== undefined) mask += bit;
    }
    // One object of the mask's shape, made once; each sample of that shape is a copy of it
    // with its values, built at its final size as JSON.parse builds objects (an object grown
    // a field at a time takes twice the memory, which counts when a caller holds a million).
    let shape = mask === this.lastMask ? this.lastShape : this.shapes.get(mask);
    if (!shape) {
      // Made by JSON.parse, as a record read from a file is (an object given more than a dozen
      // fields one at a time turns into a dictionary, slow to copy, as would be every copy), and
      // frozen: in V8 a copy of a frozen object freezes in a fraction of the time, at half the
      // memory, of a copy of one that is not.
      let json = '{"type":"sample"';
      for (let r = 0; r < readers.length; r++)
        if (values[r] !== undefined) json += `,${JSON.stringify(readers[r]!.name)}:0`;
      shape = Object.freeze(JSON.parse(`${json}}`) as Record<string, unknown>);
      this.shapes.set(mask, shape);
    }
    this.lastMask = mask;
    this.lastShape = shape;
    const out: Record<string, unknown> = { ...shape };
    for (let r = 0; r < readers.length; r++) {
      const x = values[r];
      if (x !== undefined) {
        out[readers[r]!.name] = x;
        values[r] = undefined;
      }
    }
    return Object.freeze(out) as unknown as Sample;
  }
}

// The field lists and the reads by name in `add` must name the same fields in the same order.
const ADD_ORDER = [NUMBER_FIELDS.length, STRING_FIELDS.length, BOOLEAN_FIELDS.length].join();
if (ADD_ORDER !== '20,8,2') throw new Error(`sampleTable.ts: add() reads 20,8,2 fields, the lists have ${ADD_ORDER}`);
