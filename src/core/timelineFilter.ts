/**
 * The timeline's filter box: a short query such as `kind:packet engine:2 size>=1M` turned into
 * a test over columns. One grammar for keyboard users and for the toggles that write into it.
 *
 *   kind:kernel,cu,packet,doorbell,proxy   path:cu/host,engine/device   op:copy,copy+signal
 *   gpu:0,1   engine:2   cu:5   size>=1M  size<64K  (size applies to events that carry bytes)
 *   a bare word matches a kind, a path, an op or a mover (cu, engine) / initiator (host, device)
 */
import { PACKET_OPS, PATHS, TIMELINE_EVENT_KINDS } from './protocol';
import type { TimelineColumns } from './timelineFile';
import { KIND_CU, KIND_DOORBELL, KIND_PACKET } from './timelineModel';
import { parseSize } from './units';

export interface TimelineFilter {
  kinds?: number[];
  paths?: number[];
  ops?: number[];
  gpus?: number[];
  engines?: number[];
  cus?: number[];
  minBytes?: number;
  maxBytes?: number;
}

export class FilterSyntaxError extends Error {}

const list = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean);

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
  for (const term of query.trim().split(/\s+/).filter(Boolean)) {
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
    const pair = /^([a-z]+):(.+)$/i.exec(term);
    if (pair) {
      const [, key, value] = pair as unknown as [string, string, string];
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
          f.engines = union(f.engines, numbers(list(value), 'engine'));
          break;
        case 'cu':
        case 'sm':
          f.cus = union(f.cus, numbers(list(value), 'CU'));
          break;
        default:
          throw new FilterSyntaxError(`unknown field "${key}" (kind, path, op, gpu, engine, cu, size)`);
      }
      continue;
    }
    const word = term.toLowerCase();
    if ((TIMELINE_EVENT_KINDS as readonly string[]).includes(word)) f.kinds = union(f.kinds, [TIMELINE_EVENT_KINDS.indexOf(word as never)]);
    else if ((PATHS as readonly string[]).includes(word)) f.paths = union(f.paths, [PATHS.indexOf(word as never)]);
    else if (word === 'cu' || word === 'engine') f.paths = union(f.paths, PATHS.flatMap((p, i) => (p.startsWith(`${word}/`) ? [i] : [])));
    else if (word === 'host' || word === 'device') f.paths = union(f.paths, PATHS.flatMap((p, i) => (p.endsWith(`/${word}`) ? [i] : [])));
    else if ((PACKET_OPS as readonly string[]).includes(word)) f.ops = union(f.ops, [PACKET_OPS.indexOf(word as never)]);
    else throw new FilterSyntaxError(`"${term}" is not a kind, path, op or field:value`);
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
  for (let i = 0; i < t.count; i++) {
    const kind = t.kind[i]!;
    if (kinds && !kinds.has(kind)) continue;
    if (paths && !paths.has(t.path[i]!)) continue;
    if (ops && !ops.has(t.op[i]!)) continue;
    if (gpus && !gpus.has(t.gpu[i]!)) continue;
    const onEngine = kind === KIND_PACKET || kind === KIND_DOORBELL;
    if (engines && !(onEngine && engines.has(t.lane[i]!))) continue;
    if (cus && !(kind === KIND_CU && cus.has(t.lane[i]!))) continue;
    const bytes = t.bytes[i]!;
    if (bytes > 0 && (bytes < min || bytes > max)) continue;
    mask[i] = 1;
  }
  return mask;
}
