/**
 * A sample line of a run file read without JSON.parse: the bulk of a sweep's lines, written by
 * the helper in one form, `{"type":"sample","mover":"cu",...}`, its fields in the schema's order
 * (protocol.ts PLAIN_SAMPLE_FIELDS), no space anywhere. `SampleLineReader.readBytes` reads the
 * line's bytes (an ASCII window of the file as run files are read, runStore.ts; `read` takes a
 * string) and fills one reused record of a fixed shape with the fields it finds; it gives that
 * record back only when it is exactly what `JSON.parse(line)` would give and `isPlainSample`
 * accepts (checked by `isPlainSample` itself on that record), so the caller adds it to the run's
 * table as it would the parsed one. Anything it is not sure of gives undefined, and the line is
 * parsed and checked as any other:
 *
 * - a key not a field of the schema, repeated, or out of the schema's order; any space;
 *   anything after the closing brace; a line of other than ASCII;
 * - a string holding an escape or a control character (its text is then not the slice of the
 *   line between its quotes);
 * - a number outside JSON's grammar (a sign `+`, a leading zero, a bare `.`). Within it, one
 *   without exponent is worked out from its digits: up to 15 exactly (a whole number below 2^53
 *   over an exact power of ten, one division, rounds as JSON.parse does), up to 22 (the 17 of a
 *   double printed whole) by `wideQuotient`, which gives the nearest double or says it cannot
 *   tell; any other number, and one it cannot tell, is converted by `Number`, which rounds as
 *   JSON.parse does;
 * - `timesNs` not an array of numbers; `engineIds` or `moverEvidence` not flat (nested
 *   brackets, a string with an escape): these two are JSON.parse'd alone, their slice of the
 *   line.
 *
 * Keys, and the last few strings and nested values of each field, are compared with the line
 * four bytes at a time: a sweep's evidence, repeated on every line, is parsed once and the same
 * object is given each time (never changed: read-only), its movers and modes are the same
 * strings. The record and its `timesNs` array are the reader's, filled again by the next read: a
 * caller copies what it keeps (SampleTable.push copies every field). Bounded: nothing is kept
 * but the record, the times and bytes of one line, and RECENT_JSON texts a field.
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
/** Integers below this are exact doubles. */
const TWO_53 = 2 ** 53;
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
/** How many distinct strings and nested values a field keeps by their text. */
const RECENT_JSON = 8;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * A constant text to compare bytes with: its bytes, and as big-endian 32-bit words (four bytes
 * compared at a time).
 */
interface Bytes {
  readonly text: string;
  readonly bytes: Uint8Array;
  readonly words: Int32Array;
}

/** `text` (ASCII) as Bytes. */
function bytesOf(text: string): Bytes {
  const n = text.length;
  const bytes = new Uint8Array(n);
  for (let k = 0; k < n; k++) bytes[k] = text.charCodeAt(k);
  const words = new Int32Array(n >> 2);
  for (let k = 0; k < words.length; k++)
    words[k] = (bytes[4 * k]! << 24) | (bytes[4 * k + 1]! << 16) | (bytes[4 * k + 2]! << 8) | bytes[4 * k + 3]!;
  return { text, bytes, words };
}

/** Each field's key as it stands after the value before it, as bytes. */
const KEY_BYTES = FIELD_KEYS.map(bytesOf);
const TRUE = bytesOf('true');
const FALSE = bytesOf('false');
const START = bytesOf(SAMPLE_LINE_START);

/** Strings or nested values kept by their text (the last few of a field, replaced in turn). */
interface KeptJson {
  texts: Bytes[];
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
  /** The line being read: its bytes, a view of them, where it ends, and the text they are (`text` index = byte index + `shift`). */
  private bytes: Uint8Array = new Uint8Array(0);
  private view = new DataView(this.bytes.buffer);
  private end = 0;
  private text = '';
  private shift = 0;
  private at = 0;
  /** The values found, in the schema's order (undefined: absent). */
  private readonly values: unknown[] = new Array<unknown>(FIELD_COUNT).fill(undefined);
  private readonly record = new SampleRecord();
  private readonly times: number[] = [];
  /** Per field: the strings (with their quotes) and nested values kept by their text. */
  private readonly kept: KeptJson[] = PLAIN_SAMPLE_FIELDS.map(() => ({ texts: [], values: [], next: 0 }));
  /** `read`'s bytes of a line given as a string. */
  private scratch = Buffer.alloc(0);

  /**
   * The sample `line` holds, when it is of the helper's form and `isPlainSample` accepts what
   * JSON.parse would make of it; else undefined (the line is to be parsed). The record given back
   * is this reader's and changes at the next call. A line of other than ASCII is declined.
   */
  read(line: string): Sample | undefined {
    if (!line.startsWith(SAMPLE_LINE_START)) return undefined;
    const n = line.length;
    if (Buffer.byteLength(line, 'utf8') !== n) return undefined;
    if (this.scratch.length < n + 1) this.scratch = Buffer.alloc(Math.max(n + 1, 2 * this.scratch.length));
    this.scratch.write(line, 0, 'latin1');
    this.scratch[n] = 10;
    return this.readBytes(this.scratch, 0, n, line, 0);
  }

  /**
   * `read` of the line in `bytes` from `from` to `to` (ASCII: as many bytes as characters),
   * which is `text` from `textFrom`; `bytes[to]` must be a newline or past the end.
   */
  readBytes(bytes: Uint8Array, from: number, to: number, text: string, textFrom: number): Sample | undefined {
    if (!SAMPLE_LINE_CURRENT || (to < bytes.length && bytes[to] !== 10)) return undefined;
    if (bytes !== this.bytes) {
      this.bytes = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    this.end = to;
    if (!this.holds(from, START)) return undefined;
    const values = this.values;
    values.fill(undefined);
    this.text = text;
    this.shift = textFrom - from;
    this.at = from + START.bytes.length;
    const last = to - 1;
    let field = 0;
    let ok = false;
    try {
      while (this.at < last) {
        if (bytes[this.at] !== COMMA) return undefined;
        // The next key: a field after the last one read (the helper leaves optional ones out).
        // Told apart by the key's first letter, then compared whole.
        const first = bytes[this.at + 2];
        let f = field + 1;
        while (f < FIELD_COUNT && (FIELD_FIRST[f] !== first || !this.holds(this.at, KEY_BYTES[f]!))) f++;
        if (f === FIELD_COUNT) return undefined;
        this.at += KEY_BYTES[f]!.bytes.length;
        const value = this.value(FIELD_KINDS[f]!, f);
        if (value === undefined) return undefined;
        values[f] = value;
        field = f;
      }
      if (this.at !== last || bytes[last] !== CLOSE_BRACE) return undefined;
      ok = true;
    } finally {
      this.text = '';
      if (!ok) this.times.length = 0;
    }
    const record = this.record;
    record.fill(values);
    return isPlainSample(record) ? record : undefined;
  }

  /** Lets go of the bytes last read (a reader kept for later files must not hold a chunk of the last one). */
  release(): void {
    this.bytes = new Uint8Array(0);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Whether the line holds `t` at `at` (within the line), four bytes at a time. */
  private holds(at: number, t: Bytes): boolean {
    const bytes = t.bytes;
    const n = bytes.length;
    if (at + n > this.end) return false;
    const words = t.words;
    const view = this.view;
    for (let k = 0; k < words.length; k++) if (view.getInt32(at + 4 * k) !== words[k]) return false;
    const line = this.bytes;
    for (let k = words.length * 4; k < n; k++) if (line[at + k] !== bytes[k]) return false;
    return true;
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
        if (this.holds(this.at, TRUE)) {
          this.at += 4;
          return true;
        }
        if (this.holds(this.at, FALSE)) {
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
   * `wideQuotient` (exact, or NaN when it cannot tell); any other number by `Number`. The line's
   * end (a newline, or past the bytes) is no digit, so no loop runs past it.
   */
  private number(): number {
    const line = this.bytes;
    let at = this.at;
    const from = at;
    let c = line[at]!;
    const negative = c === 45;
    if (negative) c = line[++at]!;
    // The digits as `hi` (the first EXACT_DIGITS) and `lo` (the rest).
    let hi = 0;
    let lo = 0;
    let digits = 0;
    if (c === 48) {
      c = line[++at]!;
      digits = 1;
      if (c >= 48 && c <= 57) return NaN;
    } else if (c >= 49 && c <= 57) {
      do {
        if (digits < EXACT_DIGITS) hi = hi * 10 + (c - 48);
        else lo = lo * 10 + (c - 48);
        digits++;
        c = line[++at]!;
      } while (c >= 48 && c <= 57);
    } else return NaN;
    let fraction = 0;
    if (c === 46) {
      c = line[++at]!;
      const start = at;
      while (c >= 48 && c <= 57) {
        if (digits < EXACT_DIGITS) hi = hi * 10 + (c - 48);
        else lo = lo * 10 + (c - 48);
        digits++;
        c = line[++at]!;
      }
      fraction = at - start;
      if (fraction === 0) return NaN;
    }
    let exponent = false;
    if (c === 101 || c === 69) {
      exponent = true;
      c = line[++at]!;
      if (c === 43 || c === 45) c = line[++at]!;
      const start = at;
      while (c >= 48 && c <= 57) c = line[++at]!;
      if (at === start) return NaN;
    }
    if (at > this.end) return NaN;
    this.at = at;
    if (!exponent && fraction <= MAX_FRACTION) {
      let x = NaN;
      if (digits <= EXACT_DIGITS) x = fraction === 0 ? hi : hi / POW10[fraction]!;
      else if (digits <= WIDE_DIGITS) {
        // The digits as one integer, exact when under 2^53 (a sum or product that reaches 2^53
        // rounds to 2^53 or more): then one division rounds as JSON.parse does (Clinger's fast
        // path), as for most of the helper's 16- and 17-digit times.
        const whole = hi * POW10[digits - EXACT_DIGITS]! + lo;
        x = whole < TWO_53 ? whole / POW10[fraction]! : wideQuotient(hi, lo, digits - EXACT_DIGITS, fraction);
      }
      if (x === x) return negative ? -x : x;
    }
    return Number(this.text.slice(from + this.shift, at + this.shift));
  }

  /**
   * A string at `at` without escapes or control characters (its text is its slice); undefined
   * otherwise. A string kept (with its quotes) is given again: a sweep's movers, modes and
   * labels repeat.
   */
  private string(f: number): string | undefined {
    const line = this.bytes;
    const from = this.at;
    if (line[from] !== QUOTE) return undefined;
    const kept = this.kept[f]!;
    for (let k = 0; k < kept.texts.length; k++) {
      const text = kept.texts[k]!;
      if (this.holds(from, text)) {
        this.at = from + text.bytes.length;
        return kept.values[k] as string;
      }
    }
    let at = from + 1;
    const end = this.end;
    for (let c = line[at]!; at < end && c >= 0x20 && c !== QUOTE && c !== BACKSLASH; c = line[at]!) at++;
    if (at >= end || line[at] !== QUOTE) return undefined;
    const s = this.text.slice(from + 1 + this.shift, at + this.shift);
    this.at = at + 1;
    // Kept with its quotes: a line holding that text there holds that string there.
    this.keep(kept, this.text.slice(from + this.shift, at + 1 + this.shift), s);
    return s;
  }

  private keep(kept: KeptJson, text: string, value: unknown): void {
    kept.texts[kept.next] = bytesOf(text);
    kept.values[kept.next] = value;
    kept.next = (kept.next + 1) % RECENT_JSON;
  }

  /** `[n,n,...]` at `at`, into the reader's array; undefined when not of that form. */
  private numbers(): number[] | undefined {
    const line = this.bytes;
    if (line[this.at] !== OPEN_BRACKET) return undefined;
    this.at++;
    const times = this.times;
    let n = 0;
    if (line[this.at] !== CLOSE_BRACKET)
      for (;;) {
        const x = this.number();
        if (x !== x || this.at >= this.end) return undefined;
        times[n++] = x;
        const c = line[this.at++];
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
    const line = this.bytes;
    const from = this.at;
    const kept = this.kept[f]!;
    for (let k = 0; k < kept.texts.length; k++) {
      const text = kept.texts[k]!;
      if (this.holds(from, text)) {
        this.at = from + text.bytes.length;
        return kept.values[k];
      }
    }
    const open = kind === Kind.Array ? OPEN_BRACKET : OPEN_BRACE;
    const close = kind === Kind.Array ? CLOSE_BRACKET : CLOSE_BRACE;
    if (line[from] !== open) return undefined;
    let at = from + 1;
    let inString = false;
    const end = this.end;
    for (;;) {
      if (at >= end) return undefined;
      const c = line[at]!;
      if (c === BACKSLASH) return undefined;
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
    const text = this.text.slice(from + this.shift, at + this.shift);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    // A kept text is a whole flat value: a line holding it there holds that value there.
    this.keep(kept, text, value);
    this.at = at;
    return value;
  }
}
