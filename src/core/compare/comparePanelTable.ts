/**
 * The compare panel's table model, built from the page view the panel already holds, so "Copy
 * table" and the exports write the same rows: both runs' figures, the ratio with its interval,
 * the run-to-run tolerance and the verdict, numbers at full precision. Browser-safe.
 */
import type { TableCell, TableModel } from '../tables/tableText';
import type { CompareGroup, ComparePageView, GroupPoint } from './compareMessages';
import { DIMENSION_COLUMNS } from '../seriesKey';

/**
 * A comparison: one row per point of every curve, both runs' bandwidth, the ratio B/A with its
 * interval, the run-to-run tolerance, the verdict, each run's mover evidence word and, where the
 * two runs' bytes were moved differently, the sentence saying so.
 */
export function compareTableModel(view: ComparePageView): TableModel {
  const bw = view.bandwidth;
  // A sweep's curves are whole series: their waves, split, batch and rocSHMEM SDMA mode are columns of their own.
  const sweep = view.kind === 'sweep';
  const dims = (g: CompareGroup): TableCell[] =>
    sweep
      ? [
          g.dimensions?.wavesPerCu ?? null,
          g.dimensions?.waveSize ?? null,
          g.dimensions?.split ?? 1,
          g.dimensions?.splitOver ?? null,
          g.dimensions?.batch ?? 0,
          g.dimensions?.shmemSdma ?? null,
        ]
      : [];
  const rows = view.groups.flatMap((g) =>
    g.points.map((p: GroupPoint): TableCell[] => [
      g.label,
      ...dims(g),
      p.label,
      p.sizeBytes,
      p.a?.gbps ?? null,
      p.b?.gbps ?? null,
      p.ratio ?? null,
      p.interval?.[0] ?? null,
      p.interval?.[1] ?? null,
      p.tolerance ?? null,
      p.state,
      // Empty where neither run has evidence of the point (runs saved before it) or one run alone measured it.
      p.evidence?.a ?? null,
      p.evidence?.b ?? null,
      p.movedDifferently ?? null,
    ]),
  );
  const simulated = [view.a.simulated ? 'A' : '', view.b.simulated ? 'B' : ''].filter(Boolean);
  return {
    title: `SDMA Lens comparison of ${view.kind} runs ${view.a.id} (A) and ${view.b.id} (B)`,
    columns: [
      'curve',
      ...(sweep ? DIMENSION_COLUMNS : []),
      'point',
      'bytes',
      `A ${bw}`,
      `B ${bw}`,
      'ratio B/A',
      'ratio low',
      'ratio high',
      'run-to-run tolerance',
      'verdict',
      'A mover evidence',
      'B mover evidence',
      'moved differently',
    ],
    rows,
    notes: [
      ...(simulated.length > 0
        ? [
            `SIMULATED: run ${simulated.join(' and ')} ${simulated.length > 1 ? 'come' : 'comes'} from the simulated MI350X model, not from a measurement.`,
          ]
        : []),
      ...view.summaryLines,
      ...view.toleranceLines,
      view.method,
      ...view.notes,
    ],
  };
}
