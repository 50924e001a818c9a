/**
 * TransferBench's result blocks (a config file or `cmdline`; text, or CSV with OUTPUT_TO_CSV=1,
 * with or without SHOW_ITERATIONS=1) as sweep samples. Each block is one Test: its executors,
 * the Transfers they ran at once, the CPU-timed aggregate. A Test of one Transfer from pinned
 * host memory (C) or GPU memory (G) to the other, run by a DMA (D) or GFX (G) executor on the
 * GPU that SDMA Lens would run the copy on, is a sample; anything else is a note. Field by
 * field: docs/IMPORT.md.
 */
import type { Sample } from '../protocol';
import type { ImportedRun } from './importedRun';
import {
  ASSUMED,
  Notes,
  SOURCE_WARNING,
  emptyImport,
  printedCount,
  printedNumber,
  printedTopology,
} from './importedRun';

const SEP = String.raw`\s*[|,]\s*`;
const EXECUTOR = new RegExp(
  String.raw`^\s*Executor:\s+(CPU|GPU|DMA)\s+(\d+)${SEP}(\S+)\s+GB/s${SEP}(\S+)\s+ms${SEP}(\d+)\s+bytes${SEP}(\S+)\s+GB/s \(sum\)\s*$`,
);
const TRANSFER = new RegExp(
  String.raw`^\s*Transfer\s+(\d+)${SEP}(\S+)\s+GB/s${SEP}(\S+)\s+ms${SEP}(\d+)\s+bytes${SEP}(\S+)\s+->\s+(CPU|GPU|DMA)(\d+)(\.\*|\.\d+)?:(\d+)\s+->\s+(\S+)\s*$`,
);
const ITER = new RegExp(String.raw`^\s*Iter\s+(\d+)${SEP}(\S+)\s+GB/s${SEP}(\S+)\s+ms\s*[|,](.*)$`);
const STDEV = new RegExp(String.raw`^\s*StandardDev${SEP}(\S+)\s+GB/s${SEP}(\S+)\s+ms\s*[|,]?\s*$`);
const AGGREGATE = /^\s*Aggregate \(CPU\)\s*[|,]/;
const ENV_TEXT = /^([A-Z][A-Z0-9_]*)\s+=\s+(\S+)\s+:/;
const ENV_CSV = /^([A-Z][A-Z0-9_]*)\s*,\s*(\S+?)\s*,/;
const FAILED = /^\[ERROR\] Failed Transfer details: #(\d+):/;

/** TransferBench's default NUM_ITERATIONS (EnvVars.hpp), assumed when the environment block is hidden. */
const DEFAULT_ITERATIONS = 10;

interface Iteration {
  index: number;
  gbps: string;
  ms: string;
  cus: string[];
}

interface TransferLine {
  index: number;
  gbps: string;
  ms: string;
  bytes: string;
  src: string;
  exe: 'CPU' | 'GPU' | 'DMA';
  exeIndex: number;
  subIndex?: string;
  subExecs: number;
  dst: string;
  iterations: Iteration[];
  stdevMs?: string;
}

interface Block {
  test: number;
  transfers: TransferLine[];
  failed: Set<number>;
}

export function isTransferBenchText(text: string): boolean {
  return (
    /^TransferBench v\d/m.test(text) ||
    /^EnvVar,Value,Description,\(TransferBench v/m.test(text) ||
    (/^\s*Executor:\s+(CPU|GPU|DMA)\s+\d+\s*[|,]/m.test(text) && /^\s*Transfer\s+\d+\s*[|,]/m.test(text))
  );
}

/** OUTPUT_TO_CSV=1 writes its own environment header and separates the result fields by commas. */
export function transferBenchFormat(text: string): 'text' | 'csv' {
  return /^EnvVar,Value,Description/m.test(text) || /^\s*Executor:\s+(CPU|GPU|DMA)\s+\d+\s*,/m.test(text)
    ? 'csv'
    : 'text';
}

export function parseTransferBench(text: string, file: string): ImportedRun {
  const lines = text.split(/\r?\n/);
  const csv = transferBenchFormat(text) === 'csv';
  const version = /^TransferBench (v\S+)/m.exec(text)?.[1] ?? /\(TransferBench (v[^)\s]+)\)/.exec(text)?.[1];
  const notes = new Notes();
  const env = new Map<string, string>();
  const blocks: Block[] = [];
  let block: Block | undefined;
  let open = false;
  let pendingFailed = new Set<number>();
  let nextTest = 1;

  const startBlock = (test: number) => {
    block = { test, transfers: [], failed: pendingFailed };
    pendingFailed = new Set();
    blocks.push(block);
    open = true;
    nextTest = test + 1;
  };

  for (const line of lines) {
    const envMatch = (csv ? ENV_CSV : ENV_TEXT).exec(line);
    if (envMatch && !env.has(envMatch[1]!)) {
      env.set(envMatch[1]!, envMatch[2]!);
      continue;
    }
    const test = /^Test (\d+):\s*$/.exec(line);
    if (test) {
      startBlock(Number(test[1]));
      continue;
    }
    if (line.startsWith('[WARN]') || line.startsWith('[ERROR]')) {
      const failed = FAILED.exec(line);
      // Text prints "Test N:" before the run's checks, CSV has no such line: the failure belongs to the Test whose results follow.
      if (failed) (block && open && block.transfers.length === 0 ? block.failed : pendingFailed).add(Number(failed[1]));
      if (!line.startsWith('[ERROR] SRC') && !line.startsWith('[ERROR] DST') && !line.startsWith('[ERROR] EXPECTED'))
        notes.add(SOURCE_WARNING, `TransferBench printed: ${line.trim()}`);
      continue;
    }
    if (EXECUTOR.test(line)) {
      if (!open || !block) startBlock(nextTest);
      continue;
    }
    const t = TRANSFER.exec(line);
    if (t && block && open) {
      block.transfers.push({
        index: Number(t[1]),
        gbps: t[2]!,
        ms: t[3]!,
        bytes: t[4]!,
        src: t[5]!,
        exe: t[6] as TransferLine['exe'],
        exeIndex: Number(t[7]),
        ...(t[8] ? { subIndex: t[8] } : {}),
        subExecs: Number(t[9]),
        dst: t[10]!,
        iterations: [],
      });
      continue;
    }
    const it = ITER.exec(line);
    const last = block?.transfers.at(-1);
    if (it && last) {
      const cus =
        /CUs:((?:\s+\d+:\d+)*)/
          .exec(it[4] ?? '')?.[1]
          ?.trim()
          .split(/\s+/)
          .filter(Boolean) ?? [];
      last.iterations.push({ index: Number(it[1]), gbps: it[2]!, ms: it[3]!, cus });
      continue;
    }
    const sd = STDEV.exec(line);
    if (sd && last) {
      last.stdevMs = sd[2]!;
      continue;
    }
    if (AGGREGATE.test(line)) open = false;
    else if (/directional copy peak bandwidth GB\/s/.test(line))
      notes.unmapped(
        `the table "${line.trim()}"`,
        "TransferBench's p2p preset tables are not read, only Test result blocks",
      );
  }

  const source = { tool: 'TransferBench', format: csv ? 'csv' : 'text', file, ...(version ? { version } : {}) };
  const out = emptyImport(source, 'sweep');
  // Its Test output names no GPU: no topology, and the vendor stays unknown.
  printedTopology([], { notes, tool: 'TransferBench' });
  const iters = iterationsOf(env, notes);
  const subIterations = printedCount(env.get('NUM_SUBITERATIONS')) ?? 1;
  for (const b of blocks) {
    const sample = sampleOf(b, { iters, subIterations, notes });
    if (sample) out.samples.push(sample);
  }
  if (blocks.length === 0)
    notes.unmapped('the file', 'no TransferBench Test result block (Executor / Transfer lines) was found');
  return { ...out, ...notes.done() };
}

function iterationsOf(env: Map<string, string>, notes: Notes): number | undefined {
  const raw = env.get('NUM_ITERATIONS');
  if (raw === undefined) {
    notes.add(
      ASSUMED,
      `the output prints no NUM_ITERATIONS (HIDE_ENV=1): TransferBench's default, ${DEFAULT_ITERATIONS}, is taken as the number of timed iterations`,
    );
    return DEFAULT_ITERATIONS;
  }
  const n = printedCount(raw);
  if (n !== undefined && n > 0) return n;
  notes.add(
    ASSUMED,
    `NUM_ITERATIONS = ${raw}: the Tests ran for a time, not a count of iterations, and the output does not say how many ran`,
  );
  return undefined;
}

interface Endpoint {
  endpoint: number;
  numa?: number;
}

/** C<n>: pinned host memory on NUMA node n; G<n>: GPU n's global memory. Others (B, F, U, M, N, several) have no SDMA Lens endpoint. */
function endpointOf(memory: string): Endpoint | string {
  const m = /^([A-Z])(\d+)$/.exec(memory);
  if (!m)
    return memory === 'N'
      ? 'no memory (N: a read-only or write-only Transfer)'
      : `${memory}: more than one memory location`;
  const index = Number(m[2]);
  if (m[1] === 'C') return { endpoint: -1, numa: index };
  if (m[1] === 'G') return index <= 1023 ? { endpoint: index } : `${memory}: GPU index out of range`;
  const kinds: Record<string, string> = {
    B: 'fine-grained host memory',
    F: 'fine-grained GPU memory',
    U: 'unpinned host memory',
    M: 'managed memory',
    N: 'no memory (N)',
  };
  return `${memory}: ${kinds[m[1]!] ?? 'an unknown memory type'}, which SDMA Lens does not measure`;
}

function describe(b: Block, t: TransferLine): string {
  return `test ${b.test}, transfer ${String(t.index).padStart(2, '0')}: ${t.src} -> ${t.exe}${String(t.exeIndex).padStart(2, '0')}${t.subIndex ?? ''}:${String(t.subExecs).padStart(3, '0')} -> ${t.dst}, ${t.bytes} bytes at ${t.gbps} GB/s`;
}

function sampleOf(b: Block, o: { iters: number | undefined; subIterations: number; notes: Notes }): Sample | undefined {
  const skip = (why: string, t?: TransferLine) => {
    o.notes.unmapped(t ? describe(b, t) : `test ${b.test}`, why);
    return undefined;
  };
  if (b.transfers.length !== 1) {
    if (b.transfers.length === 0) return skip('the block lists no Transfer line');
    const all = b.transfers.map((t) => describe(b, t).replace(/^test \d+, /, '')).join('; ');
    o.notes.unmapped(
      `test ${b.test} (${all})`,
      'several Transfers ran at the same time; a sample is one copy running alone',
    );
    return undefined;
  }
  const t = b.transfers[0]!;
  if (b.failed.has(t.index)) return skip('TransferBench found wrong bytes at its destination', t);
  if (t.exe === 'CPU') return skip('a CPU executor (CPU threads copy) has no SDMA Lens path', t);
  const src = endpointOf(t.src);
  const dst = endpointOf(t.dst);
  if (typeof src === 'string') return skip(`the source is ${src}`, t);
  if (typeof dst === 'string') return skip(`the destination is ${dst}`, t);
  if (src.endpoint === -1 && dst.endpoint === -1) return skip('host to host is no SDMA Lens endpoint pair', t);
  // SDMA Lens runs a copy on its source GPU, or on the destination GPU when the source is host memory.
  const gpu = src.endpoint >= 0 ? src.endpoint : dst.endpoint;
  if (t.exeIndex !== gpu)
    return skip(
      `another GPU than the one SDMA Lens runs such a copy on (the source GPU, or the destination when the source is host memory) executed it`,
      t,
    );
  const gbps = printedNumber(t.gbps);
  const bytes = printedCount(t.bytes);
  if (bytes === undefined || bytes < 1) return skip('its byte count is not a positive whole number', t);
  if (gbps === undefined || gbps <= 0) return skip('its GB/s is not a positive number', t);
  if (o.iters === undefined) return skip('the number of timed iterations is not printed', t);
  if (t.exe === 'GPU' && t.subExecs < 1) return skip('it ran on a variable number of CUs (0 sub-executors)', t);
  const numa = src.numa ?? dst.numa;
  const engine = t.exe === 'DMA';
  const engineId = t.subIndex && t.subIndex !== '.*' ? Number(t.subIndex.slice(1)) : undefined;
  return {
    type: 'sample',
    mover: engine ? 'engine' : 'cu',
    initiator: 'host',
    src: src.endpoint,
    dst: dst.endpoint,
    sizeBytes: bytes,
    cus: engine ? 0 : t.subExecs,
    engines: engine ? 1 : 0,
    iters: o.iters,
    // TransferBench's GB/s is bytes / mean time: the mean time, to the digits of its GB/s.
    meanNs: bytes / gbps,
    gbps,
    // It checks every Transfer's destination after its iterations and stops on a mismatch.
    validated: true,
    ...(o.subIterations > 1 ? { opsPerIter: o.subIterations } : {}),
    ...(numa !== undefined ? { label: `host-numa-${numa}` } : {}),
    ...(engineId !== undefined ? { engineIds: [engineId] } : {}),
    ...perIteration(t, o.iters, o.subIterations, o.notes, b),
  };
}

/** SHOW_ITERATIONS=1: each timed iteration's time, its spread and the fastest iteration's GB/s, as printed. */
function perIteration(t: TransferLine, iters: number, subIterations: number, notes: Notes, b: Block): Partial<Sample> {
  if (t.iterations.length === 0) return {};
  if (subIterations !== 1) {
    notes.unmapped(
      `${describe(b, t)}, per-iteration lines`,
      `each times ${subIterations} copies (NUM_SUBITERATIONS), not one`,
    );
    return {};
  }
  const times = [...t.iterations].sort((a, z) => a.index - z.index).map((i) => printedNumber(i.ms));
  const rates = t.iterations.map((i) => printedNumber(i.gbps));
  if (t.iterations.length !== iters || times.some((x) => x === undefined) || rates.some((x) => x === undefined)) {
    notes.unmapped(
      `${describe(b, t)}, ${t.iterations.length} per-iteration lines`,
      `they do not read as its ${iters} iterations`,
    );
    return {};
  }
  const timesNs = (times as number[]).map((ms) => ms * 1e6);
  const cus = new Set<string>();
  for (const i of t.iterations) for (const c of i.cus) cus.add(c);
  const stdevMs = printedNumber(t.stdevMs);
  // Loops, not Math.min(...list): a list of many iterations would overflow the call stack.
  let minNs = Number.POSITIVE_INFINITY;
  let maxNs = Number.NEGATIVE_INFINITY;
  for (const x of timesNs) {
    if (x < minNs) minNs = x;
    if (x > maxNs) maxNs = x;
  }
  let gbpsMax = Number.NEGATIVE_INFINITY;
  for (const x of rates as number[]) if (x > gbpsMax) gbpsMax = x;
  return {
    timesNs,
    minNs,
    maxNs,
    gbpsMax,
    ...(stdevMs !== undefined ? { stdevNs: stdevMs * 1e6 } : {}),
    ...(cus.size > 0 ? { cusSeen: cus.size } : {}),
  };
}
