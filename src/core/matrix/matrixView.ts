/**
 * The bandwidth matrix as users read it (docs/MATRIX.md): per copy path an N x N grid of
 * GB/s, sources in rows and destinations in columns, with min/median/max and the weak pairs
 * named: those the fleet's outlier rule (median/MAD, src/core/outliers.ts) puts below
 * the others, or a sentence saying no pair stands out. A pure function of a run, shared by the
 * panel and the CLI.
 */
import type { MatrixGridCell, MatrixPageView, MatrixPathView } from './matrixMessages';
import { HOST, pairName, parseEndpoint } from '../endpoints';
import { evidenceSummary } from '../moverEvidence';
import { MIN_DEVIATION, MIN_NODES, Z_LIMIT, judge } from '../outliers';
import type { PathName } from '../protocol';
import { PATHS, pathName } from '../protocol';
import type { Run } from '../run';
import { isSimulated, runStatus } from '../run';
import { formatGbps } from '../units';

/** The value of `--flag` in the helper's arguments, if given. */
function argOf(run: Run, flag: string): string | undefined {
  const args = run.header.helper.args;
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * The endpoints the matrix spans (-1: host, first): as asked (--gpus), else the node's GPUs
 * (with host on a one-GPU node, the helper's default, or when a cell names host), else
 * those seen in records.
 */
export function matrixGpus(run: Run): number[] {
  const asked = argOf(run, '--gpus');
  if (asked && asked !== 'all') {
    try {
      return asked.split(',').map(parseEndpoint);
    } catch {
      // an edited file: fall through to what the run itself says
    }
  }
  const seen = new Set<number>();
  for (const c of run.matrixCells ?? []) seen.add(c.src).add(c.dst);
  for (const e of run.errors) if (e.cell) seen.add(e.cell.src).add(e.cell.dst);
  if (run.topology) {
    const gpus = run.topology.gpus.map((g) => g.index);
    return seen.has(HOST) || gpus.length === 1 ? [HOST, ...gpus] : gpus;
  }
  return [...seen].sort((a, b) => a - b);
}

/** The paths the matrix was asked for, in the protocol's order. */
export function matrixPaths(run: Run): PathName[] {
  const asked = argOf(run, '--paths');
  if (!asked || asked === 'all') return [...PATHS];
  const names = new Set(asked.split(','));
  return PATHS.filter((p) => names.has(p));
}

function median(sorted: number[]): number {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

const pairText = pairName;

/** A measured pair against the median of its kind (below). */
interface JudgedPair {
  src: number;
  dst: number;
  gbps: number;
  median: number;
  /** (gbps − median) / median. */
  deviation: number;
  z: number;
  weak: boolean;
}

/**
 * Which pairs are weak: each kind of pair (between GPUs, host to GPU, GPU to host: a PCIe copy
 * is slower than a GPU link by design, not weak) judged by the fleet's rule, `judge`, against
 * the median of its kind; a pair is weak when the rule flags it below that median. A kind with
 * fewer than MIN_NODES pairs is not judged.
 */
function judgePairs(cells: readonly { src: number; dst: number; gbps: number }[]): JudgedPair[] {
  const kinds = new Map<string, { src: number; dst: number; gbps: number }[]>();
  for (const c of cells) {
    const kind = c.src === HOST ? 'from-host' : c.dst === HOST ? 'to-host' : 'gpus';
    kinds.set(kind, [...(kinds.get(kind) ?? []), c]);
  }
  const out: JudgedPair[] = [];
  for (const list of kinds.values()) {
    const j = judge(list.map((c) => c.gbps));
    if (!j.judged) continue;
    list.forEach((c, i) =>
      out.push({
        src: c.src,
        dst: c.dst,
        gbps: c.gbps,
        median: j.median,
        deviation: j.deviation[i]!,
        z: j.z[i]!,
        weak: j.outlier[i]! && j.deviation[i]! < 0,
      }),
    );
  }
  return out;
}

const percent = (fraction: number) => `${(Math.abs(fraction) * 100).toFixed(1)}%`;
/** Minus as the rule writes it: "−5.2". */
const signed = (x: number) => x.toFixed(1).replace('-', '−');
const WEAK_RULE = `weak: more than ${MIN_DEVIATION * 100}% below the median of its kind and a modified z-score below −${Z_LIMIT}`;

function weakText(measured: number, judged: JudgedPair[], weak: JudgedPair[]): string {
  if (weak.length === 1) {
    const w = weak[0]!;
    return `Weak pair: ${pairText(w)}, ${formatGbps(w.gbps)} GB/s, ${percent(w.deviation)} below the median ${formatGbps(w.median)} (modified z-score ${signed(w.z)}).`;
  }
  if (weak.length > 1)
    return `Weak pairs: ${weak.map((w) => `${pairText(w)} (${formatGbps(w.gbps)} GB/s, ${percent(w.deviation)} below the median ${formatGbps(w.median)})`).join(', ')}.`;
  if (judged.length === 0)
    return `No pair stands out: ${measured} measured pair${measured === 1 ? ' is' : 's are'} too few to judge (at least ${MIN_NODES} of a kind: between GPUs, host to GPU, GPU to host).`;
  const slowest = judged.reduce((a, b) => (b.deviation < a.deviation ? b : a));
  const where =
    slowest.deviation < 0
      ? `${percent(slowest.deviation)} below the median ${formatGbps(slowest.median)}`
      : `at the median ${formatGbps(slowest.median)}`;
  return `No pair stands out: the slowest, ${pairText(slowest)} at ${formatGbps(slowest.gbps)} GB/s, is ${where} (${WEAK_RULE}).`;
}

/** Whether the run put every pair of a path on the node at once (`--concurrent`). */
export function isConcurrentMatrix(run: Run): boolean {
  return run.header.helper.args.includes('--concurrent') || (run.matrixCells ?? []).some((c) => c.concurrent === true);
}

/** Row and column sums of the measured cells: what each GPU sent and received while all pairs ran. */
function gpuTotalsOf(
  rows: MatrixGridCell[][],
  gpus: number[],
): { gpu: number; sendGbps: number; receiveGbps: number }[] {
  return gpus.map((gpu, i) => ({
    gpu,
    sendGbps: rows[i]!.reduce((sum, c) => sum + (c.state === 'measured' ? c.gbps! : 0), 0),
    receiveGbps: rows.reduce((sum, row) => sum + (row[i]!.state === 'measured' ? row[i]!.gbps! : 0), 0),
  }));
}

function concurrentParts(
  run: Run,
  path: PathName,
  rows: MatrixGridCell[][],
  gpus: number[],
  failed: number,
): Pick<MatrixPathView, 'gpuTotals' | 'total' | 'totalText'> {
  const gpuTotals = gpuTotalsOf(rows, gpus);
  const cellSumGbps = gpuTotals.reduce((sum, g) => sum + g.sendGbps, 0);
  const record = (run.matrixTotals ?? []).filter((t) => pathName(t.mover, t.initiator) === path).at(-1);
  if (!record) {
    const why =
      failed > 0
        ? `${failed} pair${failed === 1 ? '' : 's'} failed, so there is no total for the path`
        : 'no total yet';
    return { gpuTotals, totalText: `All pairs at once: ${why}.` };
  }
  const total = { pairs: record.pairs, bytes: record.bytes, seconds: record.seconds, gbps: record.gbps, cellSumGbps };
  const totalText = `All ${record.pairs} pairs at once: ${formatGbps(record.gbps)} GB/s in total (every byte over first start to last end); the cells add up to ${formatGbps(cellSumGbps)} GB/s.`;
  return { gpuTotals, total, totalText };
}

function pathView(run: Run, path: PathName, gpus: number[]): MatrixPathView {
  const cells = (run.matrixCells ?? []).filter((c) => pathName(c.mover, c.initiator) === path);
  const errors = run.errors.filter((e) => e.cell && pathName(e.cell.mover, e.cell.initiator) === path);
  const key = (src: number, dst: number) => `${src}>${dst}`;
  // A cell measured twice (never by the helper, but a file may be edited) shows the last one.
  const measuredAt = new Map(cells.map((c) => [key(c.src, c.dst), c]));
  const failedAt = new Map(errors.map((e) => [key(e.cell!.src, e.cell!.dst), e]));
  const measuredInGrid = [...measuredAt.values()].filter((c) => gpus.includes(c.src) && gpus.includes(c.dst));
  // A cell whose evidence contradicts its label is not the path's figure: flagged, and left out of the stats and the judging.
  const contradicting = (c: { moverEvidence?: { verdict: string } }) => c.moverEvidence?.verdict === 'contradicts';
  const inGrid = measuredInGrid.filter((c) => !contradicting(c));
  const values = inGrid.map((c) => c.gbps).sort((a, b) => a - b);
  const scaleMax = Math.max(0, ...measuredInGrid.map((c) => c.gbps));
  const stats =
    values.length > 0 ? { minGbps: values[0]!, medianGbps: median(values), maxGbps: values.at(-1)! } : undefined;
  const judged = judgePairs(inGrid);
  const weakPairs = judged.filter((p) => p.weak).sort((a, b) => a.gbps - b.gbps || a.src - b.src || a.dst - b.dst);
  const weakest = weakPairs.map((c) => ({ src: c.src, dst: c.dst, gbps: c.gbps }));
  const isWeak = new Set(weakest.map((w) => key(w.src, w.dst)));

  let measured = 0;
  let failed = 0;
  let missing = 0;
  const rows = gpus.map((src) =>
    gpus.map((dst): MatrixGridCell => {
      if (src === dst) return { src, dst, state: 'self', weakest: false };
      const cell = measuredAt.get(key(src, dst));
      if (cell) {
        measured++;
        // Against the best cell, not the spread: noise of a few percent must not look like a weak link.
        const max = stats?.maxGbps ?? scaleMax;
        const level = max > 0 ? Math.min(1, Math.max(0, 2 * (cell.gbps / max) - 1)) : 0;
        const measuredCell: MatrixGridCell = {
          src,
          dst,
          state: 'measured',
          gbps: cell.gbps,
          level,
          weakest: isWeak.has(key(src, dst)),
        };
        if (cell.moverEvidence) measuredCell.evidence = evidenceSummary(cell.mover, cell.moverEvidence);
        return measuredCell;
      }
      const error = failedAt.get(key(src, dst));
      if (error) {
        failed++;
        return {
          src,
          dst,
          state: 'failed',
          error: `${error.code}: ${error.message}${error.hint ? ` (${error.hint})` : ''}`,
          weakest: false,
        };
      }
      missing++;
      return { src, dst, state: 'missing', weakest: false };
    }),
  );
  const cus = path.startsWith('cu/') ? (cells[0]?.cus ?? Number(argOf(run, '--cus') ?? 0)) : 0;
  const label = path.startsWith('cu/') && cus > 0 ? `${path} · ${cus} CU${cus === 1 ? '' : 's'}` : path;
  const weakestText = stats
    ? weakText(inGrid.length, judged, weakPairs)
    : measuredInGrid.length > 0
      ? "No pair is judged: every measured cell's mover evidence contradicts its label, so none is this path's figure."
      : 'No cell measured yet.';
  const concurrent = isConcurrentMatrix(run);
  const extra = concurrent ? concurrentParts(run, path, rows, gpus, failed) : {};
  const contradicts = measuredInGrid.filter(contradicting).length;
  const evidenceText = evidenceWords(rows.flat());
  return {
    path,
    label,
    cus,
    gpus,
    rows,
    ...(stats ? { stats } : {}),
    weakest,
    weakestText,
    measured,
    failed,
    missing,
    ...(contradicts > 0 ? { contradicts } : {}),
    ...(evidenceText ? { evidenceText } : {}),
    concurrent,
    ...extra,
  };
}

/** The measured cells' evidence words counted, most first: "56 simulated", "55 ✓ engine (KFD), 1 ✗ contradicts"; undefined when no cell has any. */
function evidenceWords(cells: readonly MatrixGridCell[]): string | undefined {
  const counts = new Map<string, number>();
  for (const c of cells)
    if (c.state === 'measured')
      counts.set(c.evidence?.word ?? 'not recorded', (counts.get(c.evidence?.word ?? 'not recorded') ?? 0) + 1);
  if (![...cells].some((c) => c.evidence)) return undefined;
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([word, n]) => `${n} ${word}`)
    .join(', ');
}

export function matrixPageView(run: Run): MatrixPageView {
  const gpus = matrixGpus(run);
  const simulated = isSimulated(run);
  const notes: string[] = [];
  if (simulated)
    notes.push('Simulated node: every cell comes from the simulated MI350X model, not from a measurement.');
  for (const w of run.warnings) notes.push(`${w.code}: ${w.message}`);
  for (const e of run.errors) if (!e.cell) notes.push(`error ${e.code}: ${e.message}${e.hint ? ` (${e.hint})` : ''}`);
  for (const p of run.problems) notes.push(p);
  const first = run.matrixCells?.[0];
  const sizeArg = argOf(run, '--size');
  return {
    runId: run.header.id,
    status: runStatus(run),
    simulated,
    node: run.topology ? `${run.topology.node.model} x${run.topology.gpus.length}` : '',
    sizeBytes: first?.sizeBytes ?? (sizeArg ? sizeFromArg(sizeArg) : 0),
    iters: first?.iters ?? 0,
    progress: run.progress,
    concurrent: isConcurrentMatrix(run),
    paths: matrixPaths(run).map((p) => pathView(run, p, gpus)),
    notes,
  };
}

/** "256M" -> 268435456, as the helper's --size reads it. */
function sizeFromArg(text: string): number {
  const m = /^(\d+)([KMG]?)$/i.exec(text);
  if (!m) return 0;
  const shift = { '': 0, K: 10, M: 20, G: 30 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Number(m[1]) * 2 ** shift;
}
