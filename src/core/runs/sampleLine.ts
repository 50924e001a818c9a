/**
 * A sample line of a run file read without JSON.parse: the bulk of a sweep's lines, written by
 * the helper in one form, `{"type":"sample","mover":"cu",...}`, its fields in the schema's order
 * (protocol.ts PLAIN_SAMPLE_FIELDS), no space anywhere. `SampleLineReader.read` fills one reused
 * record of a fixed shape with the fields it finds and gives it back when it is exactly what
 * `JSON.parse(line)` would give and `isPlainSample` accepts (checked by `isPlainSample` itself on
 * that record), so the caller adds it to the run's table as it would the parsed one. Anything it
 * is not sure of gives undefined, and the line is parsed and checked as any other:
 *
 * - a key not a field of the schema, repeated, or out of the schema's order; any space;
 *   anything after the closing brace;
 * - a string holding an escape or a control character (its text is then not the slice of the
 *   line between its quotes);
 * - a number outside JSON's grammar (a sign `+`, a leading zero, a bare `.`): one of at most 15
 *   digits without exponent is worked out from its digits (exact: a whole number below 2^53
 *   over an exact power of ten, one division, rounds as JSON.parse does); any other one
 *   JSON's grammar allows is converted by `Number`, which rounds as JSON.parse does;
 * - `timesNs` not an array of numbers; `engineIds` or `moverEvidence` not flat (nested
 *   brackets, a string with an escape): these two are JSON.parse'd alone, their slice of the
 *   line, and the last few kept by their text, so a sweep's evidence, repeated on every line,
 *   is parsed once and the same object is given each time (never changed: read-only).
 *
 * The record and its `timesNs` array are the reader's, filled again by the next `read`: a caller
 * copies what it keeps (SampleTable.push copies every field). Bounded: nothing is kept but the
 * record, the times of one line, and RECENT_JSON nested values a field.
 */
import type { Sample } from '../protocol';
import { PLAIN_SAMPLE_FIELDS, isPlainSample } from '../protocol';

/** How a sample line starts as the helper writes it. */
export const SAMPLE_LINE_START = '{"type":"sample"';

type Field = (typeof PLAIN_SAMPLE_FIELDS)[number];

/** How a field's value is read: its JSON kind as the helper writes it. */
const enum Kind {
  Number,
  String,
  Boolean,
  /** An array of numbers, into the reader's own array (`timesNs`). */
  Numbers,
  /** A flat array or object, JSON.parse'd alone and kept by its text (`engineIds`, `moverEvidence`). */
  Array,
  Object,
  /** `type`: read as the start of the line. */
  Type,
}

const KINDS: Record<Field, Kind> = {
  type: Kind.Type,
  mover: Kind.String,
  initiator: Kind.String,
  src: Kind.Number,
  dst: Kind.Number,
  sizeBytes: Kind.Number,
  cus: Kind.Number,
  engines: Kind.Number,
  iters: Kind.Number,
  timesNs: Kind.Numbers,
  meanNs: Kind.Number,
  minNs: Kind.Number,
  maxNs: Kind.Number,
  stdevNs: Kind.Number,
  gbps: Kind.Number,
  gbpsMax: Kind.Number,
  validated: Kind.Boolean,
  medianNs: Kind.Number,
  gbpsMedian: Kind.Number,
  mode: Kind.String,
  opsPerIter: Kind.Number,
  label: Kind.String,
  engineIds: Kind.Array,
  traced: Kind.Boolean,
  cusSeen: Kind.Number,
  series: Kind.String,
  runtimeRule: Kind.String,
  moverEvidence: Kind.Object,
  wavesPerCu: Kind.Number,
  waveSize: Kind.Number,
  split: Kind.Number,
  splitOver: Kind.String,
  batch: Kind.Number,
  shmemSdma: Kind.String,
};

const FIELD_COUNT = PLAIN_SAMPLE_FIELDS.length;
const FIELD_KINDS = PLAIN_SAMPLE_FIELDS.map((f) => KINDS[f]);
/** Each field's key as it stands after the value before it: `,"mover":`. */
const FIELD_KEYS = PLAIN_SAMPLE_FIELDS.map((f) => `,"${f}":`);
/** Each field's first letter (a key's third character). */
const FIELD_FIRST = PLAIN_SAMPLE_FIELDS.map((f) => f.charCodeAt(0));

/** Digits of a number worked out from its digits (below 2^53, so exact). */
const EXACT_DIGITS = 15;
/** Digits of a number worked out by `wideQuotient` (the helper's doubles, printed whole, have 17). */
const WIDE_DIGITS = 22;
/** Powers of ten exact in a double: 10^0 .. 10^22. */
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));
/** The most digits after the point a number worked out from its digits may have (its divisor an exact power of ten). */
const MAX_FRACTION = 22;

/** Dekker's splitter for a double's 53 bits: 2^27 + 1. */
const SPLITTER = 134217729;
/** The rounding error of the product `p = fl(a·b)`: a·b = p + the result exactly (Dekker; no overflow here). */
function productError(a: number, b: number, p: number): number {
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

const BITS = new DataView(new ArrayBuffer(8));
/** How far the nearest doubles above and below `r` (positive, normal) are, halved; NaN for another `r`. */
function halfGaps(r: number, above: boolean): number {
  BITS.setFloat64(0, r);
  const high = BITS.getUint32(0);
  const powerOfTwo = (high & 0xfffff) === 0 && BITS.getUint32(4) === 0;
  const exp = high >>> 20;
  if (exp <= 53 || exp >= 0x7ff) return NaN;
  // The gap above r is 2^(exp-1075); below it too, unless r is a power of two (then half that).
  BITS.setUint32(0, (exp - 53) << 20);
  BITS.setUint32(4, 0);
  const half = BITS.getFloat64(0);
  return !above && powerOfTwo ? half / 2 : half;
}

/**
 * `(hi·10^loDigits + lo) / 10^fraction` rounded to the nearest double, as JSON.parse rounds the
 * decimal it is written as; NaN when it cannot be told cheaply (then `Number` is used). The
 * numerator M is held exactly as a sum of doubles, `s + t`; r, a first quotient, is corrected
 * once by its residual M - r·10^fraction (worked out exactly with Dekker's products, up to an
 * error under 2^-48 of a gap between doubles), and kept only when the residual then puts the
 * true quotient closer to r than half the gap to either neighbour, by a margin far over that
 * error: r is then the double nearest to it.
 */
function wideQuotient(hi: number, lo: number, loDigits: number, fraction: number): number {
  const scale = POW10[loDigits]!;
  const p = hi * scale;
  const e = productError(hi, scale, p);
  const s = p + lo;
  const b = s - p;
  const t = p - (s - b) + (lo - b) + e;
  if (s === 0) return NaN;
  const d = POW10[fraction]!;
  let r = s / d;
  let q = r * d;
  r += (s - q + (t - productError(r, d, q))) / d;
  q = r * d;
  const residual = s - q + (t - productError(r, d, q));
  const half = halfGaps(r, residual >= 0) * d;
  return Math.abs(residual) < half * (1 - 2 ** -20) ? r : NaN;
}
/** How many distinct nested values a field keeps by their text. */
const RECENT_JSON = 8;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Whether `line` holds `text` at `at`: `line.startsWith(text, at)`, as a loop the compiler inlines
 * (the builtin is a call each time, and a line makes some forty of these).
 */
function holds(line: string, at: number, text: string): boolean {
  const n = text.length;
  if (at + n > line.length) return false;
  for (let k = 0; k < n; k++) if (line.charCodeAt(at + k) !== text.charCodeAt(k)) return false;
  return true;
}

/** A nested value kept by its text (the last few of a field, replaced in turn). */
interface KeptJson {
  texts: string[];
  values: unknown[];
  next: number;
}

/** The record `read` fills: every field of the schema, undefined when the line has none (as JSON.parse's object lacks it). */
class SampleRecord {
  type = 'sample';
  mover: unknown = undefined;
  initiator: unknown = undefined;
  src: unknown = undefined;
  dst: unknown = undefined;
  sizeBytes: unknown = undefined;
  cus: unknown = undefined;
  engines: unknown = undefined;
  iters: unknown = undefined;
  timesNs: unknown = undefined;
  meanNs: unknown = undefined;
  minNs: unknown = undefined;
  maxNs: unknown = undefined;
  stdevNs: unknown = undefined;
  gbps: unknown = undefined;
  gbpsMax: unknown = undefined;
  validated: unknown = undefined;
  medianNs: unknown = undefined;
  gbpsMedian: unknown = undefined;
  mode: unknown = undefined;
  opsPerIter: unknown = undefined;
  label: unknown = undefined;
  engineIds: unknown = undefined;
  traced: unknown = undefined;
  cusSeen: unknown = undefined;
  series: unknown = undefined;
  runtimeRule: unknown = undefined;
  moverEvidence: unknown = undefined;
  wavesPerCu: unknown = undefined;
  waveSize: unknown = undefined;
  split: unknown = undefined;
  splitOver: unknown = undefined;
  batch: unknown = undefined;
  shmemSdma: unknown = undefined;

  /** Each field by name (one shape, fast stores), from `v` in the schema's order. */
  fill(v: readonly unknown[]): void {
    this.mover = v[1];
    this.initiator = v[2];
    this.src = v[3];
    this.dst = v[4];
    this.sizeBytes = v[5];
    this.cus = v[6];
    this.engines = v[7];
    this.iters = v[8];
    this.timesNs = v[9];
    this.meanNs = v[10];
    this.minNs = v[11];
    this.maxNs = v[12];
    this.stdevNs = v[13];
    this.gbps = v[14];
    this.gbpsMax = v[15];
    this.validated = v[16];
    this.medianNs = v[17];
    this.gbpsMedian = v[18];
    this.mode = v[19];
    this.opsPerIter = v[20];
    this.label = v[21];
    this.engineIds = v[22];
    this.traced = v[23];
    this.cusSeen = v[24];
    this.series = v[25];
    this.runtimeRule = v[26];
    this.moverEvidence = v[27];
    this.wavesPerCu = v[28];
    this.waveSize = v[29];
    this.split = v[30];
    this.splitOver = v[31];
    this.batch = v[32];
    this.shmemSdma = v[33];
  }
}

/** Off (every line declined, so parsed) should the schema's fields no longer be the record's, in its order. */
export const SAMPLE_LINE_CURRENT = Object.keys(new SampleRecord()).join() === PLAIN_SAMPLE_FIELDS.join();

/** Reads sample lines of the helper's form (see the file's comment); one per reader of a run file. */
export class SampleLineReader {
  private line = '';
  private at = 0;
  /** The values found, in the schema's order (undefined: absent). */
  private readonly values: unknown[] = new Array<unknown>(FIELD_COUNT).fill(undefined);
  private readonly record = new SampleRecord();
  private readonly times: number[] = [];
  /** Per field: the last string read, given again (the same string) when the next line has it too. */
  private readonly lastStrings: string[] = PLAIN_SAMPLE_FIELDS.map(() => '');
  private readonly kept: KeptJson[] = PLAIN_SAMPLE_FIELDS.map(() => ({ texts: [], values: [], next: 0 }));

  /**
   * The sample `line` holds, when it is of the helper's form and `isPlainSample` accepts what
   * JSON.parse would make of it; else undefined (the line is to be parsed). The record given back
   * is this reader's and changes at the next call.
   */
  read(line: string): Sample | undefined {
    if (!SAMPLE_LINE_CURRENT || !line.startsWith(SAMPLE_LINE_START)) return undefined;
    const values = this.values;
    values.fill(undefined);
    this.line = line;
    this.at = SAMPLE_LINE_START.length;
    const last = line.length - 1;
    let field = 0;
    let ok = false;
    try {
      while (this.at < last) {
        if (line.charCodeAt(this.at) !== COMMA) return undefined;
        // The next key: a field after the last one read (the helper leaves optional ones out).
        // Told apart by the key's first letter, then compared whole.
        const first = line.charCodeAt(this.at + 2);
        let f = field + 1;
        while (f < FIELD_COUNT && (FIELD_FIRST[f] !== first || !holds(line, this.at, FIELD_KEYS[f]!))) f++;
        if (f === FIELD_COUNT) return undefined;
        this.at += FIELD_KEYS[f]!.length;
        const value = this.value(FIELD_KINDS[f]!, f);
        if (value === undefined) return undefined;
        values[f] = value;
        field = f;
      }
      if (this.at !== last || line.charCodeAt(last) !== CLOSE_BRACE) return undefined;
      ok = true;
    } finally {
      this.line = '';
      if (!ok) this.times.length = 0;
    }
    const record = this.record;
    record.fill(values);
    return isPlainSample(record) ? record : undefined;
  }

  /** The value of field `f` at `at`, of kind `kind`; undefined when it is not of the form read plainly. */
  private value(kind: Kind, f: number): unknown {
    switch (kind) {
      case Kind.Number: {
        const x = this.number();
        return x === x ? x : undefined;
      }
      case Kind.String:
        return this.string(f);
      case Kind.Boolean: {
        const line = this.line;
        if (holds(line, this.at, 'true')) {
          this.at += 4;
          return true;
        }
        if (holds(line, this.at, 'false')) {
          this.at += 5;
          return false;
        }
        return undefined;
      }
      case Kind.Numbers:
        return this.numbers();
      case Kind.Array:
      case Kind.Object:
        return this.flatJson(kind, f);
      default:
        return undefined;
    }
  }

  /**
   * A number at `at` in JSON's grammar, `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, as
   * JSON.parse gives it; NaN (which JSON cannot write) when the text there is not one. Without an
   * exponent: up to EXACT_DIGITS digits from the digits (exact), up to WIDE_DIGITS by
   * `wideQuotient` (exact, or NaN when it cannot tell); any other number by `Number`.
   */
  private number(): number {
    const line = this.line;
    let at = this.at;
    const from = at;
    let c = line.charCodeAt(at);
    const negative = c === 45;
    if (negative) c = line.charCodeAt(++at);
    // The digits as `hi` (the first EXACT_DIGITS) and `lo` (the rest).
    let hi = 0;
    let lo = 0;
    let digits = 0;
    if (c === 48) {
      c = line.charCodeAt(++at);
      digits = 1;
      if (c >= 48 && c <= 57) return NaN;
    } else if (c >= 49 && c <= 57) {
      do {
        if (digits < EXACT_DIGITS) hi = hi * 10 + (c - 48);
        else lo = lo * 10 + (c - 48);
        digits++;
        c = line.charCodeAt(++at);
      } while (c >= 48 && c <= 57);
    } else return NaN;
    let fraction = 0;
    if (c === 46) {
      c = line.charCodeAt(++at);
      const start = at;
      while (c >= 48 && c <= 57) {
        if (digits < EXACT_DIGITS) hi = hi * 10 + (c - 48);
        else lo = lo * 10 + (c - 48);
        digits++;
        c = line.charCodeAt(++at);
      }
      fraction = at - start;
      if (fraction === 0) return NaN;
    }
    let exponent = false;
    if (c === 101 || c === 69) {
      exponent = true;
      c = line.charCodeAt(++at);
      if (c === 43 || c === 45) c = line.charCodeAt(++at);
      const start = at;
      while (c >= 48 && c <= 57) c = line.charCodeAt(++at);
      if (at === start) return NaN;
    }
    this.at = at;
    if (!exponent && fraction <= MAX_FRACTION) {
      let x = NaN;
      if (digits <= EXACT_DIGITS) x = fraction === 0 ? hi : hi / POW10[fraction]!;
      else if (digits <= WIDE_DIGITS) x = wideQuotient(hi, lo, digits - EXACT_DIGITS, fraction);
      if (x === x) return negative ? -x : x;
    }
    return Number(line.slice(from, at));
  }

  /** A string at `at` without escapes or control characters (its text is its slice); undefined otherwise. */
  private string(f: number): string | undefined {
    const line = this.line;
    if (line.charCodeAt(this.at) !== QUOTE) return undefined;
    const from = this.at + 1;
    // Mostly the same string as the last line's (a sweep's mode, its movers): that one again.
    const last = this.lastStrings[f]!;
    if (line.charCodeAt(from + last.length) === QUOTE && holds(line, from, last)) {
      this.at = from + last.length + 1;
      return last;
    }
    let at = from;
    for (let c = line.charCodeAt(at); c >= 0x20 && c !== QUOTE && c !== BACKSLASH; c = line.charCodeAt(at)) at++;
    if (line.charCodeAt(at) !== QUOTE) return undefined;
    const s = line.slice(from, at);
    this.at = at + 1;
    this.lastStrings[f] = s;
    return s;
  }

  /** `[n,n,...]` at `at`, into the reader's array; undefined when not of that form. */
  private numbers(): number[] | undefined {
    const line = this.line;
    if (line.charCodeAt(this.at) !== OPEN_BRACKET) return undefined;
    this.at++;
    const times = this.times;
    let n = 0;
    if (line.charCodeAt(this.at) !== CLOSE_BRACKET)
      for (;;) {
        const x = this.number();
        if (x !== x) return undefined;
        times[n++] = x;
        const c = line.charCodeAt(this.at++);
        if (c === CLOSE_BRACKET) break;
        if (c !== COMMA) return undefined;
      }
    else this.at++;
    times.length = n;
    return times;
  }

  /**
   * A flat array (no strings, no nesting) or flat object (strings without escapes, no nesting)
   * at `at`: the one kept with the same text, else its slice JSON.parse'd and kept. Undefined
   * when not flat or not valid JSON.
   */
  private flatJson(kind: Kind, f: number): unknown {
    const line = this.line;
    const from = this.at;
    const kept = this.kept[f]!;
    for (let k = 0; k < kept.texts.length; k++) {
      const text = kept.texts[k]!;
      // A long text compared by the builtin (one call), not a character at a time.
      if (line.startsWith(text, from)) {
        this.at = from + text.length;
        return kept.values[k];
      }
    }
    const open = kind === Kind.Array ? OPEN_BRACKET : OPEN_BRACE;
    const close = kind === Kind.Array ? CLOSE_BRACKET : CLOSE_BRACE;
    if (line.charCodeAt(from) !== open) return undefined;
    let at = from + 1;
    let inString = false;
    for (;;) {
      const c = line.charCodeAt(at);
      if (c !== c || c === BACKSLASH) return undefined;
      if (c === QUOTE) {
        if (kind === Kind.Array) return undefined;
        inString = !inString;
      } else if (!inString) {
        if (c === close) break;
        if (c === OPEN_BRACE || c === OPEN_BRACKET || c === CLOSE_BRACE || c === CLOSE_BRACKET) return undefined;
      }
      at++;
    }
    at++;
    const text = line.slice(from, at);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    // A kept text is a whole flat value: a line starting with it there holds that value there.
    kept.texts[kept.next] = text;
    kept.values[kept.next] = value;
    kept.next = (kept.next + 1) % RECENT_JSON;
    this.at = at;
    return value;
  }
}
