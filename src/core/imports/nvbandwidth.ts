/**
 * nvbandwidth's testcases (text, or JSON with -j) as sweep samples. Five testcases have an
 * SDMA Lens path between a pair's endpoints: host_to_device / device_to_host by the copy
 * engine (`*_memcpy_ce`, engine/host) or by SM kernels (`*_memcpy_sm`, cu/host), and
 * device_local_copy (cuMemcpyAsync within one GPU, engine/host as the helper's GPU-local
 * copy). Every other testcase is a note. nvbandwidth prints neither its buffer size nor its
 * sample count: its defaults are taken and said (docs/IMPORT.md).
 */
import type { Mover, Sample } from '../protocol';
import type { ImportedRun, PrintedGpu } from './importedRun';
import { ASSUMED, Notes, SOURCE_WARNING, emptyImport, printedNumber, printedTopology } from './importedRun';

/** nvbandwidth's defaults (common.h): -b 512 (MiB) and -i 3 (samples, of which the median is printed). */
export const NVBANDWIDTH_DEFAULT_BUFFER_BYTES = 512 * 1024 * 1024;
const DEFAULT_SAMPLES = 3;

interface Mapping {
  mover: Mover;
  /** The description nvbandwidth prints above the matrix: another one means another layout, so no mapping. */
  description: string;
  pair: (gpu: number) => { src: number; dst: number };
}

const MAPPED: Record<string, Mapping> = {
  host_to_device_memcpy_ce: {
    mover: 'engine',
    description: 'memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)',
    pair: (g) => ({ src: -1, dst: g }),
  },
  device_to_host_memcpy_ce: {
    mover: 'engine',
    description: 'memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)',
    pair: (g) => ({ src: g, dst: -1 }),
  },
  host_to_device_memcpy_sm: {
    mover: 'cu',
    description: 'memcpy SM CPU(row) -> GPU(column) bandwidth (GB/s)',
    pair: (g) => ({ src: -1, dst: g }),
  },
  device_to_host_memcpy_sm: {
    mover: 'cu',
    description: 'memcpy SM CPU(row) <- GPU(column) bandwidth (GB/s)',
    pair: (g) => ({ src: g, dst: -1 }),
  },
  device_local_copy: {
    mover: 'engine',
    description: 'memcpy local GPU(column) bandwidth (GB/s)',
    pair: (g) => ({ src: g, dst: g }),
  },
};

/** One testcase as printed: its matrix of values ("55.40", "N/A"), one row per source row. */
interface Testcase {
  name: string;
  status?: string;
  description?: string;
  rows: string[][];
}

interface Printed {
  version?: string;
  git?: string;
  driver?: string;
  hostName?: string;
  gpus: PrintedGpu[];
  testcases: Testcase[];
  warnings: string[];
  /** nvbandwidth warns when -b is below its default: the size is then unknown. */
  smallBuffer: boolean;
}

export interface NvbandwidthOptions {
  /** The -b the run used, in bytes, when the user says it; the output never does. */
  bufferBytes?: number;
}

const SMALL_BUFFER = /You have chosen a buffer size that is smaller than the default/;

export function isNvbandwidthText(text: string): boolean {
  return (
    /^nvbandwidth Version: /m.test(text) || (/^Running [a-z0-9_]+\.\s*$/m.test(text) && /^SUM [a-z0-9_]+ /m.test(text))
  );
}

export function isNvbandwidthJson(value: unknown): boolean {
  const root = (value as { nvbandwidth?: unknown } | null)?.nvbandwidth;
  return typeof root === 'object' && root !== null && !Array.isArray(root);
}

export function parseNvbandwidthText(text: string, file: string, options: NvbandwidthOptions = {}): ImportedRun {
  const lines = text.split(/\r?\n/);
  const p: Printed = { gpus: [], testcases: [], warnings: [], smallBuffer: SMALL_BUFFER.test(text) };
  let current: Testcase | undefined;
  let header: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const field = (name: string) => (line.startsWith(`${name}: `) ? line.slice(name.length + 2).trim() : undefined);
    p.version ??= field('nvbandwidth Version');
    p.git ??= field('Built from Git version');
    p.driver ??= field('Driver Version');
    const device = /^Device (\d+): (.*) \(([0-9a-fA-F:.]+)\)\s*$/.exec(line);
    if (device) {
      if (p.gpus.length === 0 && i > 0 && lines[i - 1]!.trim()) p.hostName = lines[i - 1]!.trim();
      p.gpus.push({ index: Number(device[1]), name: device[2]!, pciBusId: device[3]! });
      continue;
    }
    const running = /^Running ([A-Za-z0-9_]+)\.\s*$/.exec(line);
    if (running) {
      current = { name: running[1]!, rows: [] };
      header = undefined;
      p.testcases.push(current);
      continue;
    }
    if (/^(ERROR|Error|Waived)\b/.test(line) || /^(Warning|NOTE):/.test(line)) {
      if (current && /^(Error|Waived)\b/.test(line)) current.status = line.trim();
      // The closing note ends the last testcase; the lines after it are prose.
      if (/^NOTE: The reported results may not reflect/.test(line)) current = undefined;
      else p.warnings.push(line.trim());
      continue;
    }
    if (!current || /^SUM /.test(line) || /^(MIN|MAX|AVG) /.test(line) || /^\s*Sample \d+:/.test(line)) continue;
    if (current.description === undefined) {
      if (line.trim()) current.description = line.trim();
      continue;
    }
    const tokens = line.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0) continue;
    if (header === undefined) {
      header = tokens;
      continue;
    }
    if (tokens.length === header.length + 1) current.rows.push(tokens.slice(1));
  }
  return mapTestcases(
    p,
    { tool: 'nvbandwidth', format: 'text', file, ...(p.version ? { version: p.version } : {}) },
    options,
  );
}

export function parseNvbandwidthJson(value: unknown, file: string, options: NvbandwidthOptions = {}): ImportedRun {
  const root = (value as { nvbandwidth: Record<string, unknown> }).nvbandwidth;
  const str = (x: unknown) => (typeof x === 'string' ? x : typeof x === 'number' ? String(x) : undefined);
  const p: Printed = { gpus: [], testcases: [], warnings: [], smallBuffer: false };
  const version = str(root.version);
  if (version) p.version = version;
  const driver = str(root['Driver Version']);
  if (driver) p.driver = driver;
  const devices = Array.isArray(root['GPU Device list']) ? root['GPU Device list'] : [];
  for (const d of devices) {
    // "0: NVIDIA H200 (00000000:00:06): (vm)"
    const m = typeof d === 'string' ? /^(\d+): (.*) \(([0-9a-fA-F:.]+)\): \((.*)\)$/.exec(d) : null;
    if (!m) continue;
    p.gpus.push({ index: Number(m[1]), name: m[2]!, pciBusId: m[3]! });
    p.hostName ??= m[4]!;
  }
  for (const key of ['error', 'warning']) {
    const w = str(root[key]);
    if (w) {
      p.warnings.push(w);
      if (SMALL_BUFFER.test(w)) p.smallBuffer = true;
    }
  }
  const testcases = Array.isArray(root.testcases) ? root.testcases : [];
  for (const t of testcases as Record<string, unknown>[]) {
    const name = str(t?.name);
    if (!name) continue;
    const status = str(t.status);
    const description = str(t.bandwidth_description);
    const matrix = Array.isArray(t.bandwidth_matrix) ? t.bandwidth_matrix : [];
    const rows = matrix.map((r) => (Array.isArray(r) ? r.map((x) => str(x) ?? 'N/A') : []));
    const error = str(t.error);
    if (error) p.warnings.push(`${name}: ${error}`);
    p.testcases.push({
      name,
      rows,
      ...(description ? { description } : {}),
      ...(status && status !== 'Passed' ? { status } : {}),
    });
  }
  return mapTestcases(
    p,
    { tool: 'nvbandwidth', format: 'json', file, ...(p.version ? { version: p.version } : {}) },
    options,
  );
}

function mapTestcases(p: Printed, source: ImportedRun['source'], options: NvbandwidthOptions): ImportedRun {
  const notes = new Notes();
  for (const w of p.warnings) notes.add(SOURCE_WARNING, `nvbandwidth printed: ${w}`);
  const libraries = p.driver ? [{ name: 'nvidia-driver', version: p.driver }] : [];
  const topology = printedTopology(p.gpus, {
    ...(p.hostName ? { hostName: p.hostName } : {}),
    libraries,
    notes,
    tool: 'nvbandwidth',
  });
  const out = { ...emptyImport(source, 'sweep'), ...(topology ? { topology } : {}) };
  const size = options.bufferBytes ?? (p.smallBuffer ? undefined : NVBANDWIDTH_DEFAULT_BUFFER_BYTES);
  for (const t of p.testcases) {
    const mapping = MAPPED[t.name];
    const skip = (why: string) =>
      notes.unmapped(
        `testcase ${t.name}${t.rows.length > 0 ? ` (${t.rows.map((r) => r.join(' ')).join(' | ')} GB/s)` : ''}`,
        why,
      );
    if (t.status) skip(`nvbandwidth reported "${t.status}"`);
    else if (!mapping)
      skip(
        'no SDMA Lens path between one pair of endpoints (bidirectional, several GPUs at once, GPU to GPU by read or write context, or a latency)',
      );
    else if (t.description !== undefined && t.description !== mapping.description)
      skip(`its description is "${t.description}", not the "${mapping.description}" this mapping reads`);
    else if (t.rows.length !== 1) skip(`its matrix has ${t.rows.length} rows, not one`);
    else if (size === undefined)
      skip(
        'nvbandwidth ran with a buffer smaller than its default and printed not which: the size of the copies is unknown (sdma-lens import --buffer-size SIZE says it)',
      );
    else for (const sample of samplesOf(t, mapping, size, skip)) out.samples.push(sample);
  }
  if (out.samples.length > 0) {
    if (options.bufferBytes === undefined)
      notes.add(
        ASSUMED,
        `nvbandwidth prints no buffer size: its default, 512 MiB (-b 512), is taken as each copy's size; GB/s are as printed, times are size / GB/s (sdma-lens import --buffer-size SIZE gives another)`,
      );
    notes.add(
      ASSUMED,
      `nvbandwidth prints no sample count: its default, ${DEFAULT_SAMPLES} samples (-i 3), is taken as each point's iterations; the GB/s printed is their median (the mean with -m), and the output does not say whether the data was verified (-s skips it), so no sample counts as validated`,
    );
    if (out.samples.some((s) => s.mover === 'cu'))
      notes.add(
        ASSUMED,
        "cu/host samples carry 0 CUs: nvbandwidth's SM copies run a block on every SM of the GPU and the output does not print how many; their copy is also cut to a multiple of 512 threads x SMs x 16 bytes, a little under the buffer size",
      );
  }
  return { ...out, ...notes.done() };
}

function samplesOf(t: Testcase, m: Mapping, sizeBytes: number, skip: (why: string) => void): Sample[] {
  const out: Sample[] = [];
  t.rows[0]!.forEach((text, gpu) => {
    const gbps = printedNumber(text);
    if (text === 'N/A') return;
    if (gbps === undefined || gbps <= 0) return skip(`GPU ${gpu}'s value is not a positive GB/s`);
    out.push({
      type: 'sample',
      mover: m.mover,
      initiator: 'host',
      ...m.pair(gpu),
      sizeBytes,
      cus: 0,
      engines: m.mover === 'engine' ? 1 : 0,
      iters: DEFAULT_SAMPLES,
      meanNs: sizeBytes / gbps,
      gbps,
      validated: false,
    });
  });
  return out;
}
