/**
 * nccl-tests and rccl-tests results (the text table, or the JSON of -J) as collective points.
 * The test binary names the collective (alltoall_perf, all_gather_perf: the two the protocol
 * knows); each row is one size, out-of-place and in-place, with time, algbw and busbw taken
 * as printed. A collective the protocol does not know, a run on one rank, or a row that does
 * not read is a note. The variant and the mode the run used are decided from what the file
 * shows (ncclVariant.ts). Field by field: docs/IMPORT.md.
 */
import type { CollectiveOp, CollectivePoint } from '../protocol';
import type { ImportedRun, PrintedGpu, Vendor } from './importedRun';
import type { ImportedVariantName, VariantEvidence } from './ncclVariant';
import { InfoEnv, decideVariant, envOfList, variantRecord } from './ncclVariant';
import {
  Notes,
  SOURCE_WARNING,
  UNMAPPED,
  VARIANT,
  emptyImport,
  printedCount,
  printedNumber,
  printedTopology,
  vendorOfName,
} from './importedRun';

/** One placement of one row, as printed. */
interface Placement {
  inPlace: boolean;
  time?: string;
  algbw?: string;
  busbw?: string;
  wrong?: string | null;
}

interface Row {
  size: string;
  count: string;
  type: string;
  places: Placement[];
}

interface RankLine extends PrintedGpu {
  host: string;
  /** The process that drove the rank, as printed; undefined where it did not read. */
  pid?: number;
}

interface Printed {
  tool: NcclFamily;
  format: 'text' | 'json';
  version?: string;
  commandLine?: string;
  /** The test binary, e.g. alltoall_perf. */
  program?: string;
  /** The library's own version code (nccl-library= / nccl_version), e.g. 22809. */
  libraryCode?: number;
  iters?: number;
  aggIters?: number;
  graphLaunches?: number;
  /** nThread x nGpus: the GPUs one process drives. */
  gpusPerProcess?: number;
  /** The command line words (JSON args). */
  args?: string[];
  /** The JSON's environment list, the variant's variables only. */
  env?: Map<string, string>;
  info: InfoEnv;
  ranks: RankLine[];
  rows: Row[];
  warnings: string[];
}

const OPS: Record<string, CollectiveOp> = { alltoall_perf: 'alltoall', all_gather_perf: 'allgather' };
/** Element types of 32 bits: the protocol counts wrong 32-bit words, nccl-tests wrong elements. */
const WORD_TYPES = new Set(['float', 'float32', 'int', 'int32', 'uint32']);

export function isNcclTestsText(text: string): boolean {
  return (
    /^# (nccl|rccl)-tests version /m.test(text) ||
    /^rccl-tests: Version /m.test(text) ||
    (/^# nThread \d+ nGpus \d+ minBytes /m.test(text) && /^#\s+size\s+count\s+type\s+redop\s+root/m.test(text))
  );
}

export function isNcclTestsJson(value: unknown): boolean {
  const o = value as { results?: unknown; config?: unknown } | null;
  return (
    typeof o === 'object' && o !== null && Array.isArray(o.results) && typeof o.config === 'object' && o.config !== null
  );
}

export type NcclFamily = 'nccl-tests' | 'rccl-tests';

/** rccl-tests names itself in its header; the text is otherwise nccl-tests'. */
export function ncclTextTool(text: string): NcclFamily {
  return /^(# rccl-tests version |rccl-tests: Version )/m.test(text) ? 'rccl-tests' : 'nccl-tests';
}

/** One JSON layout for both (rccl-tests took nccl-tests' writer); rccl-tests is the one that runs on AMD GPUs. */
export function ncclJsonTool(value: unknown): NcclFamily {
  const devices = ((value as { config?: { devices?: unknown } }).config?.devices ?? []) as { device_info?: unknown }[];
  const first = Array.isArray(devices) ? devices[0]?.device_info : undefined;
  return typeof first === 'string' && vendorOfName(first) === 'amd' ? 'rccl-tests' : 'nccl-tests';
}

export function parseNcclTestsText(text: string, file: string): ImportedRun {
  const p: Printed = {
    tool: ncclTextTool(text),
    format: 'text',
    info: new InfoEnv(),
    ranks: [],
    rows: [],
    warnings: [],
  };
  let groups: boolean[] | undefined;
  let columns: string[] | undefined;
  // Where each placement's fields are, worked out once per header rather than once per row.
  let layout: Layout | undefined;
  for (const line of text.split(/\r?\n/)) {
    const version =
      /^# (?:nccl|rccl)-tests version (\S+)(?:.*?-library=(\d+))?/.exec(line) ??
      /^rccl-tests: Version (\S+)/.exec(line);
    if (version) {
      p.version = version[1]!;
      if (version[2]) p.libraryCode = Number(version[2]);
      continue;
    }
    const program = /^# Collective test starting: (\S+)/.exec(line);
    if (program) {
      p.program = program[1]!;
      continue;
    }
    const params = /warmup iters: \d+ iters: (\d+) agg iters: (\d+) validation: \d+ graph: (\d+)/.exec(line);
    if (line.startsWith('# nThread') && params) {
      p.iters = Number(params[1]);
      p.aggIters = Number(params[2]);
      p.graphLaunches = Number(params[3]);
      const per = /^# nThread (\d{1,9}) nGpus (\d{1,9}) /.exec(line);
      const gpus = per ? printedCount(per[1]) : undefined;
      const each = per ? printedCount(per[2]) : undefined;
      if (gpus !== undefined && each !== undefined && gpus * each >= 1) p.gpusPerProcess = gpus * each;
      continue;
    }
    const rank =
      /^#\s+Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s+(.*?)\s*$/.exec(
        line,
      );
    if (rank) {
      const pid = printedCount(rank[2]);
      p.ranks.push({
        index: Number(rank[4]),
        host: rank[3]!,
        pciBusId: rank[5]!,
        name: rank[6]!,
        ...(pid !== undefined ? { pid } : {}),
      });
      continue;
    }
    // NCCL_DEBUG=INFO lines interleaved with the output: what the library was told.
    if (!line.startsWith('#') && p.info.read(line)) continue;
    if (line.startsWith('#')) {
      const tokens = line.slice(1).trim().split(/\s+/);
      if (/out-of-place|in-place/.test(line) && !tokens.includes('size')) {
        groups = [...line.matchAll(/out-of-place|in-place/g)].map((m) => m[0] === 'in-place');
        layout = undefined;
      } else if (tokens[0] === 'size' && tokens[1] === 'count') {
        columns = tokens;
        layout = undefined;
      } else if (/^# (error:|Out of bounds values : \d+ FAILED)/.test(line)) p.warnings.push(line.slice(2).trim());
      continue;
    }
    if (columns && /^\s*\d+\s+\d+\s+\S+/.test(line)) {
      layout ??= layoutOf(columns, groups);
      const row = rowOf(line, layout);
      if (typeof row === 'string') p.warnings.push(`a row not read (${row}): ${line.trim()}`);
      else p.rows.push(row);
    }
  }
  return mapRows(p, file);
}

/** The columns of a header: how many values a row has, and each placement's fields by index (or why the placements cannot be told apart). */
interface Layout {
  width: number;
  places: { inPlace: boolean; time?: number; algbw?: number; busbw?: number; wrong?: number }[] | string;
}

/** size count type redop root, then each placement's time algbw busbw #wrong [i_min ...]. */
function layoutOf(columns: string[], groups: boolean[] | undefined): Layout {
  const width = columns.includes('timestamp') ? columns.length - 1 : columns.length;
  const starts = columns.flatMap((c, i) => (c === 'time' || c === 'cputime' ? [i] : []));
  const placeOf = groups ?? (starts.length === 2 ? [false, true] : undefined);
  if (!placeOf || placeOf.length !== starts.length)
    return { width, places: 'the header does not say which columns are out-of-place and which in-place' };
  const places = starts.map((start, g) => {
    const end = starts[g + 1] ?? width;
    const at = (name: string) => {
      const i = columns.slice(start, end).indexOf(name);
      return i < 0 ? undefined : start + i;
    };
    return {
      inPlace: placeOf[g]!,
      time: at('time') ?? at('cputime'),
      algbw: at('algbw'),
      busbw: at('busbw'),
      wrong: at('#wrong'),
    };
  });
  return { width, places };
}

/** One table row, by the header's layout. */
function rowOf(line: string, layout: Layout): Row | string {
  const tokens = line.trim().split(/\s+/);
  if (tokens.length < layout.width) return `${tokens.length} values for ${layout.width} columns`;
  if (typeof layout.places === 'string') return layout.places;
  const token = (i: number | undefined) => (i === undefined ? undefined : tokens[i]);
  const places = layout.places.map((p) => ({
    inPlace: p.inPlace,
    time: token(p.time),
    algbw: token(p.algbw),
    busbw: token(p.busbw),
    wrong: token(p.wrong),
  }));
  return { size: tokens[0]!, count: tokens[1]!, type: tokens[2]!, places };
}

export function parseNcclTestsJson(value: unknown, file: string): ImportedRun {
  const o = value as Record<string, unknown>;
  const config = o.config as Record<string, unknown>;
  const args = Array.isArray(o.args) ? o.args.filter((a): a is string => typeof a === 'string') : [];
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  const text = (x: unknown) =>
    typeof x === 'number' && Number.isFinite(x) ? String(x) : typeof x === 'string' ? x : undefined;
  const devices = Array.isArray(config.devices) ? (config.devices as Record<string, unknown>[]) : [];
  const env = envOfList(o.env);
  // nccl-tests writes the library's code as nccl_version, rccl-tests as rccl_version (util.cu jsonOutputInit).
  const code = num(o.nccl_version) ?? num(o.rccl_version);
  const threads = num(config.nthreads);
  const gpus = num(config.ngpus);
  const p: Printed = {
    tool: ncclJsonTool(value),
    format: 'json',
    info: new InfoEnv(),
    ...(args.length > 0 ? { args } : {}),
    ...(env ? { env } : {}),
    ...(threads !== undefined && gpus !== undefined && Number.isSafeInteger(threads * gpus) && threads * gpus >= 1
      ? { gpusPerProcess: threads * gpus }
      : {}),
    ...(args.length > 0 ? { commandLine: args.map(shellWord).join(' '), program: args[0]!.split('/').pop()! } : {}),
    ...(code !== undefined && Number.isSafeInteger(code) && code > 0 ? { libraryCode: code } : {}),
    ...(num(config.iterations) !== undefined ? { iters: num(config.iterations)! } : {}),
    ...(num(config.aggregated_iterations) !== undefined ? { aggIters: num(config.aggregated_iterations)! } : {}),
    ...(num(config.graph) !== undefined ? { graphLaunches: num(config.graph)! } : {}),
    ranks: devices.map((d) => {
      const pid = num(d?.pid);
      return {
        index: num(d?.device) ?? -1,
        host: text(d?.hostname) ?? '',
        name: text(d?.device_info) ?? '',
        ...(text(d?.device_hex) ? { pciBusId: text(d?.device_hex)! } : {}),
        ...(pid !== undefined && Number.isSafeInteger(pid) && pid >= 0 ? { pid } : {}),
      };
    }),
    rows: [],
    warnings: (Array.isArray(o.errors) ? o.errors : [])
      .filter((e): e is string => typeof e === 'string' && e.trim() !== '')
      .map((e) => `error: ${e}`),
  };
  for (const r of (Array.isArray(o.results) ? o.results : []) as Record<string, unknown>[]) {
    const place = (key: 'out_of_place' | 'in_place'): Placement | undefined => {
      const x = r?.[key] as Record<string, unknown> | null | undefined;
      if (!x) return undefined;
      return {
        inPlace: key === 'in_place',
        time: text(x.time ?? x.cpu_time),
        algbw: text(x.alg_bw),
        busbw: text(x.bus_bw),
        wrong: x.nwrong === null ? null : text(x.nwrong),
      };
    };
    const places = [place('out_of_place'), place('in_place')].filter((x): x is Placement => x !== undefined);
    p.rows.push({ size: text(r?.size) ?? '', count: text(r?.count) ?? '', type: text(r?.type) ?? '', places });
  }
  return mapRows(p, file);
}

/** An argument as a shell would need it to mean the same word. */
function shellWord(a: string): string {
  return /^[A-Za-z0-9_./=:,+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9 on, X*1000 + Y*100 + Z before. */
export function libraryVersion(code: number): string {
  const [major, rest] =
    code >= 10000 ? [Math.floor(code / 10000), code % 10000] : [Math.floor(code / 1000), code % 1000];
  return `${major}.${Math.floor(rest / 100)}.${rest % 100}`;
}

function mapRows(p: Printed, file: string): ImportedRun {
  const notes = new Notes();
  for (const w of p.warnings) notes.add(SOURCE_WARNING, `${p.tool} printed: ${w}`);
  const source = {
    tool: p.tool,
    format: p.format,
    file,
    ...(p.version ? { version: p.version } : {}),
    ...(p.commandLine ? { commandLine: p.commandLine } : {}),
  };
  const firstHost = p.ranks[0]?.host;
  const onFirstNode = p.ranks.filter((r) => r.host === firstHost);
  if (onFirstNode.length < p.ranks.length)
    notes.add(
      SOURCE_WARNING,
      `the ranks ran on ${new Set(p.ranks.map((r) => r.host)).size} nodes: the topology lists ${firstHost}'s GPUs`,
    );
  const vendor: Vendor | undefined = p.tool === 'rccl-tests' ? 'amd' : vendorOfName(p.ranks[0]?.name ?? '');
  // NCCL runs on NVIDIA GPUs only, RCCL on AMD's: the library is the vendor's.
  const libraries =
    p.libraryCode !== undefined && vendor
      ? [{ name: vendor === 'amd' ? 'rccl' : 'nccl', version: libraryVersion(p.libraryCode) }]
      : [];
  const topology = printedTopology(onFirstNode, {
    ...(firstHost ? { hostName: firstHost } : {}),
    libraries,
    notes,
    tool: p.tool,
  });
  const out = { ...emptyImport(source, 'collective'), ...(topology ? { topology } : {}) };
  const op = p.program ? OPS[p.program.replace(/_mpi$/, '')] : undefined;
  const evidence: VariantEvidence = {
    tool: p.tool,
    format: p.format,
    ...(op ? { op } : {}),
    ...(libraries[0] ? { libraryVersion: libraries[0].version } : {}),
    ...(p.args ? { args: p.args } : {}),
    ...(p.env ? { env: p.env } : {}),
    info: p.info,
    pids: p.ranks.map((r) => r.pid),
    ...(p.gpusPerProcess !== undefined ? { gpusPerProcess: p.gpusPerProcess } : {}),
  };
  const decision = decideVariant(evidence);
  notes.add(VARIANT, decision.note);
  out.variants.push(
    variantRecord(decision, {
      name: p.tool === 'rccl-tests' ? 'rccl' : 'nccl',
      version: libraries[0]?.version ?? '',
    }),
  );
  const ranks = p.ranks.length;
  const iters = p.iters !== undefined ? p.iters * (p.aggIters || 1) * Math.max(1, p.graphLaunches ?? 0) : undefined;
  const why = !p.program
    ? 'the output does not name the test binary, so not which collective ran'
    : !op
      ? `${p.program} runs no collective the protocol knows (allgather, alltoall)`
      : ranks < 1
        ? 'the output lists no rank'
        : iters === undefined || iters < 1
          ? 'the output does not say how many iterations were timed'
          : undefined;
  for (const row of p.rows) {
    for (const place of row.places) {
      const label = `size ${row.size} ${row.type} ${place.inPlace ? 'in-place' : 'out-of-place'}: time ${place.time ?? '?'} us, algbw ${place.algbw ?? '?'} GB/s, busbw ${place.busbw ?? '?'} GB/s`;
      const point = why ? why : pointOf(row, place, { op: op!, ranks, iters: iters!, variant: decision.variant });
      if (typeof point === 'string') notes.unmapped(label, point);
      else {
        if (point.wrongDropped)
          notes.add(
            UNMAPPED,
            `${label}: #wrong ${place.wrong} counts ${row.type} elements, not the protocol's 32-bit words: the point's wrong is null, the count is this note`,
          );
        out.collectives.push(point.point);
      }
    }
  }
  if (p.rows.length === 0) notes.unmapped('the file', `no ${p.tool} result row was found`);
  return { ...out, ...notes.done() };
}

function pointOf(
  row: Row,
  place: Placement,
  o: { op: CollectiveOp; ranks: number; iters: number; variant: ImportedVariantName },
): { point: CollectivePoint; wrongDropped: boolean } | string {
  const size = printedCount(row.size);
  const perRank = printedCount(row.count);
  const timeUs = printedNumber(place.time);
  const algbw = printedNumber(place.algbw);
  const busbw = printedNumber(place.busbw);
  if (size === undefined || size < 1) return `size ${row.size} is not a positive number of bytes`;
  if (perRank === undefined) return `count ${row.count} is not a whole number`;
  if (timeUs === undefined || algbw === undefined || busbw === undefined || timeUs < 0 || algbw < 0 || busbw < 0)
    return 'its time, algbw or busbw is not a number';
  const wrongValue =
    place.wrong === undefined || place.wrong === null || place.wrong === 'N/A' ? null : printedNumber(place.wrong);
  if (wrongValue === undefined || (wrongValue !== null && (!Number.isInteger(wrongValue) || wrongValue < 0)))
    return `#wrong "${place.wrong}" is not a count`;
  const keepWrong = wrongValue === null || wrongValue === 0 || WORD_TYPES.has(row.type);
  return {
    wrongDropped: !keepWrong,
    point: {
      type: 'collective',
      op: o.op,
      variant: o.variant,
      ranks: o.ranks,
      sizeBytes: size,
      // nccl-tests prints elements per rank; the protocol's count is the elements of the whole buffer.
      count: perRank * o.ranks,
      dtype: row.type,
      inPlace: place.inPlace,
      iters: o.iters,
      timeUs,
      algbwGbps: algbw,
      busbwGbps: busbw,
      wrong: keepWrong ? wrongValue : null,
      transport: null,
      simulated: false,
    },
  };
}
