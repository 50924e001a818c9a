/**
 * The timeline's filter box: a short query such as `kind:packet engine:2 size>=1M` turned into
 * a test over columns. One grammar for keyboard users, for the toggles that write into it and
 * for the code lens that opens a kernel's launches.
 *
 *   kind:kernel,cu,packet,doorbell,proxy,transfer   path:cu/host,engine/device   op:copy,copy+signal
 *   gpu:0,1   engine:2   engine:unknown   cu:5   size>=1M  size<64K  (size applies to events that carry bytes)
 *   kernel:NAME   kernel:"void ns::k<float, 4>(float*, int)","k2"   (Profile timelines: the
 *     launches of these kernels and every event on their GPU during them; see kernelNameMatches)
 *   a bare word matches a kind, a path, an op or a mover (cu, engine) / initiator (host, device);
 *   `inferred` keeps the events the hardware did not report, `observed` the others
 *
 * Terms are separated by spaces outside double quotes; inside quotes `\"` is a quote and `\\`
 * a backslash. Terms of different fields must all hold; values of one field (and repeated
 * terms of it) are alternatives.
 */
import { baseName } from '../kernels/names';
import { PACKET_OPS, PATHS, TIMELINE_EVENT_KINDS } from '../protocol';
import type { TimelineColumns } from './timelineFile';
import { isInferred } from './timelineFile';
import { ENGINE_UNKNOWN, KIND_CU, KIND_DOORBELL, KIND_KERNEL, KIND_PACKET } from './timelineModel';
import { parseSize } from '../units';

export interface TimelineFilter {
  kinds?: number[];
  paths?: number[];
  ops?: number[];
  gpus?: number[];
  engines?: number[];
  cus?: number[];
  minBytes?: number;
  maxBytes?: number;
  /** Keep only inferred events (true) or only observed ones (false). */
  inferred?: boolean;
  /** Kernel names (printed, qualified or short); see kernelNameMatches. */
  kernels?: string[];
}

export class FilterSyntaxError extends Error {}

/** Splits a query into terms at spaces outside double quotes; the terms keep their quotes. */
function terms(query: string): string[] {
  const out: string[] = [];
  let term = '';
  let quoted = false;
  for (let i = 0; i < query.length; i++) {
    const c = query[i]!;
    if (quoted && c === '\\' && i + 1 < query.length) {
      term += c + query[++i];
    } else if (c === '"') {
      quoted = !quoted;
      term += c;
    } else if (!quoted && /\s/.test(c)) {
      if (term) out.push(term);
      term = '';
    } else {
      term += c;
    }
  }
  if (quoted)
    throw new FilterSyntaxError(
      `a quote is not closed in ${term} (names with spaces go in double quotes: kernel:"ns::k(float*, int)")`,
    );
  if (term) out.push(term);
  return out;
}

/** The values of `kernel:`: a comma list of bare words or double-quoted names (which may hold commas and spaces). */
function kernelValues(value: string): string[] {
  const values: string[] = [];
  let i = 0;
  while (i <= value.length) {
    let name = '';
    if (value[i] === '"') {
      i++;
      for (; i < value.length && value[i] !== '"'; i++) name += value[i] === '\\' ? value[++i] : value[i];
      i++; // the closing quote
      if (i < value.length && value[i] !== ',')
        throw new FilterSyntaxError(`kernel: expected a comma after the quoted name "${name}"`);
    } else {
      const comma = value.indexOf(',', i);
      name = value.slice(i, comma < 0 ? value.length : comma);
      i += name.length;
      if (name.includes('"'))
        throw new FilterSyntaxError(`kernel: a quote inside ${name}: put the whole name in double quotes`);
    }
    name = name.trim();
    if (!name)
      throw new FilterSyntaxError('kernel: needs a name, e.g. kernel:myKernel or kernel:"ns::k<float>(float*, int)"');
    values.push(name);
    i++; // the comma
  }
  return values;
}

/** `name` in double quotes, escaped for the filter box. */
export function quoteFilterValue(name: string): string {
  return `"${name.replace(/[\\"]/g, '\\$&')}"`;
}

/** The filter the code lens opens a kernel with: every printed name of its launches. */
export function kernelFilter(printedNames: readonly string[]): string {
  return `kernel:${[...new Set(printedNames)].map(quoteFilterValue).join(',')}`;
}

/**
 * Whether a printed kernel name is what a `kernel:` value asks for: the same printed name, or
 * the same name once return type, template arguments and parameters are dropped (`ns::k`),
 * or that name's last parts (`k`, `ns::k`). The rules of matchKernel (kernels/names.ts).
 */
export function kernelNameMatches(printed: string, wanted: string): boolean {
  if (printed === wanted) return true;
  // "(anonymous namespace)::" is how demanglers print an unnamed namespace; users leave it out.
  const anonymous = /\(anonymous namespace\)::/g;
  const have = baseName(printed.replace(anonymous, ''));
  const want = baseName(wanted.replace(anonymous, ''));
  return want.length > 0 && (have === want || have.endsWith(`::${want}`));
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function indices(values: string[], names: readonly string[], what: string): number[] {
  return values.map((value) => {
    const i = names.indexOf(value.toLowerCase());
    if (i < 0) throw new FilterSyntaxError(`unknown ${what} "${value}" (one of ${names.join(', ')})`);
    return i;
  });
}

function numbers(values: string[], what: string): number[] {
  return values.map((value) => {
    if (!/^\d{1,6}$/.test(value)) throw new FilterSyntaxError(`${what} "${value}" is not a whole number`);
    return Number(value);
  });
}

const union = (a: number[] | undefined, b: number[]) => [...new Set([...(a ?? []), ...b])];

/** Throws FilterSyntaxError naming the first bad term. An empty query keeps everything. */
export function parseFilter(query: string): TimelineFilter {
  const f: TimelineFilter = {};
  for (const term of terms(query)) {
    const size = /^size(<=|>=|<|>|=)(.+)$/i.exec(term);
    if (size) {
      let bytes: number;
      try {
        bytes = parseSize(size[2]!);
      } catch (err) {
        throw new FilterSyntaxError((err as Error).message);
      }
      const op = size[1]!;
      if (op === '>=' || op === '=') f.minBytes = Math.max(f.minBytes ?? 0, bytes);
      if (op === '>') f.minBytes = Math.max(f.minBytes ?? 0, bytes + 1);
      if (op === '<=' || op === '=') f.maxBytes = Math.min(f.maxBytes ?? Infinity, bytes);
      if (op === '<') f.maxBytes = Math.min(f.maxBytes ?? Infinity, bytes - 1);
      continue;
    }
    if (term.includes('"') && !/^kernel:/i.test(term))
      throw new FilterSyntaxError(`quotes are for kernel names only (kernel:"..."), not in ${term}`);
    const pair = /^([a-z]+):(.*)$/is.exec(term);
    if (pair) {
      const [, key, value] = pair as unknown as [string, string, string];
      if (!value && key.toLowerCase() !== 'kernel') throw new FilterSyntaxError(`${key}: needs a value`);
      switch (key.toLowerCase()) {
        case 'kind':
          f.kinds = union(f.kinds, indices(list(value), TIMELINE_EVENT_KINDS, 'kind'));
          break;
        case 'path':
          f.paths = union(f.paths, indices(list(value), PATHS, 'path'));
          break;
        case 'op':
          f.ops = union(f.ops, indices(list(value), PACKET_OPS, 'op'));
          break;
        case 'gpu':
          f.gpus = union(f.gpus, numbers(list(value), 'GPU'));
          break;
        case 'engine':
          f.engines = union(
            f.engines,
            list(value).flatMap((e) => (e.toLowerCase() === 'unknown' ? [ENGINE_UNKNOWN] : numbers([e], 'engine'))),
          );
          break;
        case 'cu':
        case 'sm':
          f.cus = union(f.cus, numbers(list(value), 'CU'));
          break;
        case 'kernel':
          f.kernels = [...new Set([...(f.kernels ?? []), ...kernelValues(value)])];
          break;
        default:
          throw new FilterSyntaxError(`unknown field "${key}" (kind, path, op, gpu, engine, cu, kernel, size)`);
      }
      continue;
    }
    const word = term.toLowerCase();
    if ((TIMELINE_EVENT_KINDS as readonly string[]).includes(word))
      f.kinds = union(f.kinds, [TIMELINE_EVENT_KINDS.indexOf(word as never)]);
    else if ((PATHS as readonly string[]).includes(word)) f.paths = union(f.paths, [PATHS.indexOf(word as never)]);
    else if (word === 'cu' || word === 'engine')
      f.paths = union(
        f.paths,
        PATHS.flatMap((p, i) => (p.startsWith(`${word}/`) ? [i] : [])),
      );
    else if (word === 'host' || word === 'device')
      f.paths = union(
        f.paths,
        PATHS.flatMap((p, i) => (p.endsWith(`/${word}`) ? [i] : [])),
      );
    else if ((PACKET_OPS as readonly string[]).includes(word))
      f.ops = union(f.ops, [PACKET_OPS.indexOf(word as never)]);
    else if (word === 'inferred' || word === 'observed') {
      const inferred = word === 'inferred';
      if (f.inferred !== undefined && f.inferred !== inferred)
        throw new FilterSyntaxError('inferred and observed exclude each other: use one');
      f.inferred = inferred;
    } else throw new FilterSyntaxError(`"${term}" is not a kind, path, op, inferred, observed or field:value`);
  }
  return f;
}

export function isEmptyFilter(f: TimelineFilter): boolean {
  return Object.keys(f).length === 0;
}

/** 1 for every event the filter keeps. */
export function filterMask(t: TimelineColumns, f: TimelineFilter): Uint8Array {
  const mask = new Uint8Array(t.count);
  const set = (values: number[] | undefined) => (values ? new Set(values) : undefined);
  const kinds = set(f.kinds);
  const paths = set(f.paths);
  const ops = set(f.ops);
  const gpus = set(f.gpus);
  const engines = set(f.engines);
  const cus = set(f.cus);
  const min = f.minBytes ?? 0;
  const max = f.maxBytes ?? Infinity;
  const during = f.kernels ? kernelWindows(t, f.kernels) : undefined;
  for (let i = 0; i < t.count; i++) {
    const kind = t.kind[i]!;
    if (during && !during(i)) continue;
    if (kinds && !kinds.has(kind)) continue;
    if (paths && !paths.has(t.path[i]!)) continue;
    if (ops && !ops.has(t.op[i]!)) continue;
    if (gpus && !gpus.has(t.gpu[i]!)) continue;
    const onEngine = kind === KIND_PACKET || kind === KIND_DOORBELL;
    if (engines && !(onEngine && engines.has(t.lane[i]!))) continue;
    if (cus && !(kind === KIND_CU && cus.has(t.lane[i]!))) continue;
    const bytes = t.bytes[i]!;
    if (bytes > 0 && (bytes < min || bytes > max)) continue;
    if (f.inferred !== undefined && isInferred(t, i) !== f.inferred) continue;
    mask[i] = 1;
  }
  return mask;
}

/**
 * For `kernel:`: a test keeping the launches of the named kernels and every other event on
 * their GPU that overlaps one of them (the copies it made, the engines busy meanwhile).
 * Launches of other kernels are hidden even when they overlap.
 */
function kernelWindows(t: TimelineColumns, wanted: readonly string[]): (i: number) => boolean {
  const labels = t.labels ?? [];
  const matches = new Uint8Array(labels.length);
  labels.forEach((name, i) => (matches[i] = wanted.some((w) => kernelNameMatches(name, w)) ? 1 : 0));
  const isWanted = (i: number) => {
    const l = t.label?.[i] ?? -1;
    return l >= 0 && matches[l] === 1;
  };
  // Merged [start, end] windows of the wanted launches, per GPU.
  const spans = new Map<number, [number, number][]>();
  for (let i = 0; i < t.count; i++) {
    if (t.kind[i] !== KIND_KERNEL || !isWanted(i)) continue;
    const list = spans.get(t.gpu[i]!) ?? [];
    list.push([t.startNs[i]!, Math.max(t.endNs[i]!, t.startNs[i]!)]);
    spans.set(t.gpu[i]!, list);
  }
  const windows = new Map<number, { starts: Float64Array; ends: Float64Array }>();
  for (const [gpu, list] of spans) {
    list.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [a, b] of list) {
      const last = merged.at(-1);
      if (last && a <= last[1]) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    windows.set(gpu, { starts: Float64Array.from(merged, (m) => m[0]), ends: Float64Array.from(merged, (m) => m[1]) });
  }
  return (i) => {
    if (t.kind[i] === KIND_KERNEL) return isWanted(i);
    const w = windows.get(t.gpu[i]!);
    if (!w) return false;
    const a = t.startNs[i]!;
    const b = Math.max(t.endNs[i]!, a);
    // The last window starting at or before b; it overlaps when it ends at or after a.
    let lo = 0;
    let hi = w.starts.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (w.starts[m]! <= b) lo = m + 1;
      else hi = m;
    }
    return lo > 0 && w.ends[lo - 1]! >= a;
  };
}
