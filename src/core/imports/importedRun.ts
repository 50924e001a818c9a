/**
 * What a parser makes of another tool's output before it is saved: where it came from, the
 * samples or collective points that map onto SDMA Lens records, and a note for every part
 * that does not. Shared by the parsers so each says "not mapped" the same way and builds its
 * topology only from what the output printed.
 */
import type { CollectivePoint, CollectiveVariant, Gpu, Sample, Topology, Warning } from '../protocol';
import type { RunHeader } from '../run';

export type ImportSource = NonNullable<RunHeader['source']>;

export interface ImportedRun {
  source: ImportSource;
  /** `sweep` for copies (TransferBench transfers, nvbandwidth testcases), `collective` for nccl-tests. */
  command: 'sweep' | 'collective';
  topology?: Topology;
  samples: Sample[];
  collectives: CollectivePoint[];
  /** nccl-tests and rccl-tests: the `collective-variant` record of the variant the output ran (ncclVariant.ts). */
  variants: CollectiveVariant[];
  /** `import-unmapped` (a part with no SDMA Lens record), `import-assumed` (a value the output did not print), `import-source-warning` (the tool's own warning). */
  notes: Warning[];
  /** Why parts were not mapped, each with how many: what an import that maps nothing says. */
  unmappedWhy: { why: string; parts: number }[];
}

/** A part of the output that has no SDMA Lens record: kept as this note, never as a sample. */
export const UNMAPPED = 'import-unmapped';
/** A value the output does not print, taken from the tool's documented default; said once. */
export const ASSUMED = 'import-assumed';
/** A warning or error line the tool itself printed. */
export const SOURCE_WARNING = 'import-source-warning';
/** Which collective variant and mode the output ran, and why (nccl-tests, rccl-tests). */
export const VARIANT = 'import-variant';

/** Notes beyond this many are counted in one last note, so a huge file cannot flood a run. */
export const MAX_NOTES = 200;

/** Text fields of records are at most 4096 characters (protocol.ts). */
const clip = (s: string, n = 4000) => (s.length > n ? `${s.slice(0, n)}…` : s);

export class Notes {
  readonly list: Warning[] = [];
  private dropped = 0;
  private readonly why = new Map<string, number>();

  add(code: string, message: string): void {
    if (this.list.length < MAX_NOTES) this.list.push({ type: 'warning', code, message: clip(message) });
    else this.dropped++;
  }

  /** `what` (the part, with the numbers it printed) did not map, because `why`. */
  unmapped(what: string, why: string): void {
    this.why.set(why, (this.why.get(why) ?? 0) + 1);
    this.add(UNMAPPED, `${what}: ${why}; kept as this note`);
  }

  /** The notes, with one more counting those past MAX_NOTES. */
  done(): Pick<ImportedRun, 'notes' | 'unmappedWhy'> {
    const unmappedWhy = [...this.why].map(([why, parts]) => ({ why, parts }));
    if (this.dropped === 0) return { notes: this.list, unmappedWhy };
    return {
      notes: [
        ...this.list,
        {
          type: 'warning',
          code: UNMAPPED,
          message: `${this.dropped} more notes were left out (only the first ${MAX_NOTES} are listed)`,
        },
      ],
      unmappedWhy,
    };
  }
}

/** A number exactly as printed ("32.075", "1.2e+05", "16057"); undefined for anything else (N/A, nan, inf). */
export function printedNumber(token: string | undefined): number | undefined {
  if (token === undefined || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(token)) return undefined;
  const n = Number(token);
  return Number.isFinite(n) ? n : undefined;
}

/** A whole number of bytes, elements or iterations as printed. */
export function printedCount(token: string | undefined): number | undefined {
  if (token === undefined || !/^\d+$/.test(token)) return undefined;
  const n = Number(token);
  return Number.isSafeInteger(n) ? n : undefined;
}

export type Vendor = Topology['node']['vendor'];

/** The vendor a device name says ("NVIDIA H200", "Tesla V100-SXM2", "AMD Instinct MI300X"); undefined when it does not. */
export function vendorOfName(name: string): Vendor | undefined {
  if (/^(NVIDIA|Tesla|Quadro|GeForce|TITAN)\b/i.test(name.trim())) return 'nvidia';
  if (/^(AMD|Radeon)\b/i.test(name.trim())) return 'amd';
  return undefined;
}

export interface PrintedGpu {
  index: number;
  name: string;
  pciBusId?: string;
}

/**
 * A topology of what the output printed: the GPUs' indices and names (and PCI ids where
 * given), the node's vendor from those names, the libraries it named. What it did not print
 * stays empty or zero: `arch` "" (not reported), `cus` 0 and `memoryBytes` 0 (unknown), no
 * engines, no links. Undefined, with a note, when the names do not say one vendor.
 */
export function printedTopology(
  gpus: PrintedGpu[],
  o: { hostName?: string; libraries?: { name: string; version: string }[]; notes: Notes; tool: string },
): Topology | undefined {
  if (gpus.length === 0) {
    o.notes.add(UNMAPPED, `${o.tool}'s output names no GPUs: the run has no topology (node vendor unknown)`);
    return undefined;
  }
  const vendors = new Set(gpus.map((g) => vendorOfName(g.name)));
  const vendor = vendors.size === 1 ? [...vendors][0] : undefined;
  if (!vendor) {
    o.notes.add(
      UNMAPPED,
      `the GPU names (${[...new Set(gpus.map((g) => g.name))].join(', ')}) do not say one vendor: the run has no topology`,
    );
    return undefined;
  }
  const byIndex = new Map<number, PrintedGpu>();
  // A device index the output did not print as one (missing, negative, fractional) names no GPU.
  const odd = gpus.filter((g) => !Number.isInteger(g.index) || g.index < 0 || g.index > 1023);
  if (odd.length > 0)
    o.notes.add(
      UNMAPPED,
      `${odd.length} of the GPUs ${o.tool} listed have no device index 0..1023: left out of the topology`,
    );
  for (const g of gpus) if (!odd.includes(g) && !byIndex.has(g.index)) byIndex.set(g.index, g);
  if (byIndex.size === 0) return undefined;
  const list: Gpu[] = [...byIndex.values()]
    .sort((a, b) => a.index - b.index)
    .map((g) => ({
      index: g.index,
      name: clip(g.name),
      arch: '',
      cus: 0,
      memoryBytes: 0,
      engines: [],
      ...(g.pciBusId ? { pciBusId: clip(g.pciBusId) } : {}),
    }));
  return {
    type: 'topology',
    node: { name: clip(o.hostName || 'unknown'), vendor, model: list[0]!.name, simulated: false },
    gpus: list,
    links: [],
    libraries: o.libraries ?? [],
  };
}

export function emptyImport(
  source: ImportSource,
  command: ImportedRun['command'],
): Omit<ImportedRun, 'notes' | 'unmappedWhy'> {
  return { source, command, samples: [], collectives: [], variants: [] };
}
