/**
 * What the sweep panel draws, derived from a run. Pure and shared with the webview, so the
 * numbers on screen are computed in one place and tested without a browser.
 */
import type { EndpointPair } from '../endpoints';
import { comparePairs, pairName, samePair } from '../endpoints';
import type { EvidenceSummary } from '../moverEvidence';
import { evidenceSummary } from '../moverEvidence';
import type { Initiator, Mover, PathName, Sample, SampleSeries } from '../protocol';
import { PATHS, pathName } from '../protocol';
import type { Run } from '../run';
import { isSimulated, runStatus } from '../run';
import type { SeriesDimensions } from '../seriesKey';
import { compareDimensions, dimensionFields, pairSeriesKey, seriesDimensions } from '../seriesKey';
import { pointKey } from './refine';

export interface SweepPoint {
  sizeBytes: number;
  gbps: number;
  /** Bandwidth of the slowest and fastest timed iteration: the spread a user should see. */
  gbpsLow: number;
  gbpsHigh: number;
  meanNs: number;
  /** Measured by a refinement round (`sweep --refine`, Refine Crossover), not by the grid. */
  refined?: true;
  /** What moved the bytes as the platform saw it; absent: not recorded (a run saved before the helper printed it, an import). */
  evidence?: EvidenceSummary;
  /** The runtime-default series: the mover the runtime used at this size (its series' path names the API, not the mover). */
  mover?: Mover;
}

export interface SweepSeries {
  /** The series' whole key with its endpoints (`pairSeriesKey`): what the panel and its table tell series apart by. */
  key: string;
  path: PathName;
  /** The endpoints (-1 = host) the copies went between. */
  src: number;
  dst: number;
  /** CUs carrying the copy; for engine paths the fixed value the helper reported (0 or 1). */
  cus: number;
  /**
   * `runtime-default`: what the HIP runtime does by default with the user's environment, one
   * series per pair and initiator whatever mover the runtime used at each size (each point
   * says which); `path` is then `engine/<initiator>`, the copy API it was asked through. Never
   * merged with the helper's own series of that path. Absent: the helper's own series.
   */
  series?: SampleSeries;
  /** The seed's dimensions where not the default (docs/SEED-EXPERIMENTS.md): absent in runs saved before them. */
  wavesPerCu?: number;
  waveSize?: 32 | 64;
  split?: number;
  splitOver?: Sample['splitOver'];
  batch?: number;
  shmemSdma?: Sample['shmemSdma'];
  points: SweepPoint[];
}

/** A series' dimensions, normalised (seriesKey.ts), from what the view keeps of them. */
export function sweepSeriesDimensions(
  series: Pick<
    SweepSeries,
    'path' | 'cus' | 'series' | 'wavesPerCu' | 'waveSize' | 'split' | 'splitOver' | 'batch' | 'shmemSdma'
  >,
): SeriesDimensions {
  const [mover, initiator] = series.path.split('/') as [Mover, Initiator];
  return seriesDimensions({
    mover,
    initiator,
    cus: series.cus,
    ...(series.series ? { series: series.series } : {}),
    ...(series.wavesPerCu !== undefined ? { wavesPerCu: series.wavesPerCu } : {}),
    ...(series.waveSize !== undefined ? { waveSize: series.waveSize } : {}),
    ...(series.split !== undefined ? { split: series.split } : {}),
    ...(series.splitOver !== undefined ? { splitOver: series.splitOver } : {}),
    ...(series.batch !== undefined ? { batch: series.batch } : {}),
    ...(series.shmemSdma !== undefined ? { shmemSdma: series.shmemSdma } : {}),
  });
}

export interface SweepView {
  runId: string;
  title: string;
  createdAt: string;
  simulated: boolean;
  backend: string;
  nodeLabel: string;
  /** The first pair shown (GPU 0 → GPU 1 for a run without samples yet, as older runs were). */
  src: number;
  dst: number;
  /** Every endpoint pair the run has samples or unsupported paths for, in display order. */
  pairs: SweepPair[];
  /** Paths that cannot exist between a pair: shown with the reason, never silently missing. */
  unsupported: UnsupportedPath[];
  status: string;
  statusMessage: string;
  progress: { done: number; total: number };
  cuCounts: number[];
  sizes: number[];
  series: SweepSeries[];
  warnings: string[];
  problems: string[];
}

export interface SweepPair extends EndpointPair {
  /** `host → GPU 0`, `GPU 0 local`, `GPU 0 → GPU 1`. */
  label: string;
}

export interface UnsupportedPath extends EndpointPair {
  path: PathName;
  reason: string;
  points: number;
  /** `engine/device: not for host → GPU 0: <reason>`. */
  text: string;
}

function point(s: Sample, refined: boolean): SweepPoint {
  const gbpsAt = (ns: number) => (ns > 0 ? s.sizeBytes / ns : 0);
  // A summary-only sample (imported) has no spread: its band is the point itself.
  return {
    sizeBytes: s.sizeBytes,
    gbps: s.gbps,
    gbpsLow: s.maxNs !== undefined ? gbpsAt(s.maxNs) : s.gbps,
    gbpsHigh: s.minNs !== undefined ? gbpsAt(s.minNs) : s.gbps,
    meanNs: s.meanNs,
    ...(refined ? { refined: true as const } : {}),
    ...(s.moverEvidence ? { evidence: evidenceSummary(s.mover, s.moverEvidence) } : {}),
    ...(s.series ? { mover: s.mover } : {}),
  };
}

/** The path a sample's series is drawn as: its own, or for the runtime-default series the engine path of its initiator (the copy API it was asked through). */
/** The path a sample's series is drawn as: the runtime-default and rocSHMEM-threshold series are engine curves whatever mover a size took. */
function seriesPath(s: Sample): PathName {
  return seriesDimensions(s).path;
}

/**
 * What a user should know about where a path's numbers come from, beyond the helper's own
 * warnings: AMD's engine/device path through rocSHMEM is compiled in SDMA Lens's CI only
 * against a declarations-only rocSHMEM API (Debian packages no rocSHMEM; docs/MEASUREMENT.md,
 * "AMD builds") and has never been run on AMD hardware by SDMA Lens.
 */
export const ROCSHMEM_UNTESTED =
  "engine/device here went through rocSHMEM's SDMA transport (rocshmem-sdma): SDMA Lens builds this path in its CI only against a declarations-only rocSHMEM API and has not run it on AMD hardware; check its numbers against rocSHMEM's own tests before relying on them.";

function provenanceNotes(run: Run): string[] {
  return run.samples.some((s) => s.label === 'rocshmem-sdma') ? [ROCSHMEM_UNTESTED] : [];
}

/** `live` is true while the helper still runs: an unfinished run then reads "running", not "incomplete". */
export function sweepView(run: Run, live = false): SweepView {
  // A sweep read with its refinement rounds (runs/refinements.ts) names the samples they added.
  // By point key: the run's samples are built afresh from columns on each read (sampleTable.ts), so never the same objects.
  const refined = new Set<string>(
    ('refinedSamples' in run ? (run as Run & { refinedSamples: Sample[] }).refinedSamples : []).map((s) =>
      pointKey(s, true),
    ),
  );
  const byKey = new Map<string, SweepSeries>();
  const cuCounts = new Set<number>();
  const sizes = new Set<number>();
  for (const s of run.samples) {
    const path = seriesPath(s);
    if (s.mover === 'cu' && !s.series) cuCounts.add(s.cus);
    sizes.add(s.sizeBytes);
    // One series per whole key: path, CUs, waves, split, batch, rocSHMEM SDMA mode, runtime default.
    const key = pairSeriesKey(s);
    let series = byKey.get(key);
    if (!series) {
      series = s.series
        ? { key, path, src: s.src, dst: s.dst, cus: 0, series: s.series, points: [] }
        : { key, path, src: s.src, dst: s.dst, cus: s.cus, ...dimensionFields(s), points: [] };
      byKey.set(key, series);
    }
    series.points.push(point(s, refined.size > 0 && refined.has(pointKey(s, true))));
  }
  const order = (p: PathName) => PATHS.indexOf(p);
  // By pair, then path, the helper's own series of a path before the runtime-default one, CUs, waves, split, batch, mode.
  const dims = new Map([...byKey.values()].map((x) => [x, sweepSeriesDimensions(x)]));
  const series = [...byKey.values()].sort(
    (a, b) => comparePairs(a, b) || compareDimensions(dims.get(a)!, dims.get(b)!) || a.cus - b.cus,
  );
  for (const s of series) s.points.sort((a, b) => a.sizeBytes - b.sizeBytes);
  const unsupported: UnsupportedPath[] = (run.pathUnsupported ?? []).map((u) => {
    const path = pathName(u.mover, u.initiator);
    return {
      path,
      src: u.src,
      dst: u.dst,
      reason: u.reason,
      points: u.points,
      text: `${path}: not for ${pairName(u)}: ${u.reason}`,
    };
  });
  unsupported.sort((a, b) => comparePairs(a, b) || order(a.path) - order(b.path));
  const byPair = new Map<string, SweepPair>();
  for (const list of [series, unsupported]) {
    for (const p of list) {
      const key = `${p.src}:${p.dst}`;
      if (!byPair.has(key)) byPair.set(key, { src: p.src, dst: p.dst, label: pairName(p) });
    }
  }
  const pairs = [...byPair.values()].sort(comparePairs);
  const first = pairs[0];
  const node = run.topology?.node;
  const status = live && !run.end ? 'running' : runStatus(run);
  return {
    runId: run.header.id,
    title: `Transfer sweep ${run.header.id}${pairs.length === 1 ? ` · ${pairs[0]!.label}` : pairs.length > 1 ? ` · ${pairs.length} endpoint pairs` : ''}`,
    createdAt: run.header.createdAt,
    simulated: isSimulated(run),
    backend: run.hello?.backend ?? 'unknown',
    nodeLabel: node ? `${node.model}${run.header.target.host ? ` on ${run.header.target.host}` : ''}` : 'unknown node',
    src: first?.src ?? 0,
    dst: first?.dst ?? 1,
    pairs,
    unsupported,
    status,
    statusMessage: run.end?.message ?? run.errors.at(-1)?.message ?? '',
    progress: run.progress,
    cuCounts: [...cuCounts].sort((a, b) => a - b),
    sizes: [...sizes].sort((a, b) => a - b),
    series,
    warnings: [...run.warnings.map((w) => w.message), ...provenanceNotes(run)],
    problems: run.problems,
  };
}

/** The samples whose mover evidence contradicts their label, over every series of the view. */
export function contradictingPoints(view: Pick<SweepView, 'series'>): { series: SweepSeries; point: SweepPoint }[] {
  return view.series.flatMap((series) =>
    series.points.filter((point) => point.evidence?.state === 'contradicts').map((point) => ({ series, point })),
  );
}

/** The series to draw for one CU count (and one pair, when given): every cu/* series at that count (each waves value its own) plus the engine series. */
export function seriesForCus(view: SweepView, cus: number, pair?: EndpointPair): SweepSeries[] {
  return view.series.filter((s) => (s.path.startsWith('engine/') || s.cus === cus) && (!pair || samePair(s, pair)));
}

/** The series of one endpoint pair. */
export function seriesOfPair(view: SweepView, pair: EndpointPair): SweepSeries[] {
  return view.series.filter((s) => samePair(s, pair));
}

/** The unsupported paths of one endpoint pair. */
export function unsupportedOfPair(view: SweepView, pair: EndpointPair): UnsupportedPath[] {
  return view.unsupported.filter((u) => samePair(u, pair));
}
