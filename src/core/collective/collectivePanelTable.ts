/**
 * The collective (and overlap) panel's table model, built from the page view the panel already
 * holds, so "Copy table" and the exports write the same rows. Numbers stay numbers at full
 * precision. Browser-safe.
 */
import type { TableCell, TableModel } from '../tables/tableText';
import { notesOf } from '../tables/tableText';
import { formatBytes } from '../units';
import type { CollectivePageView } from './collectiveMessages';
import { modeText } from './collectiveLabels';

/**
 * A collective run: one row per measured point (op, variant, form, size), each with the run's
 * mode and the CUs the point used; an overlap run: one row per copy path beside each compute.
 */
export function collectiveTableModel(view: CollectivePageView): TableModel {
  const collective = view.command === 'collective';
  const notes = notesOf(view.simulated, [
    `${view.node ? `${view.node} · ` : ''}${view.status}${collective ? ` · mode ${modeText(view.mode, view.launcher)}` : ''}`,
    ...view.crossovers.map((c) => c.text),
    ...(view.cus ? [view.cus.text] : []),
    ...view.notes.filter((n) => !n.startsWith('Simulated node:')),
  ]);
  if (view.command === 'overlap') {
    return {
      title: `SDMA Lens overlap ${view.runId}`,
      columns: [
        'compute',
        'bound',
        'copy path',
        'size',
        'bytes',
        'CUs used',
        'total CUs',
        'CU arithmetic',
        'compute kept',
        'copy GB/s alone',
        'copy GB/s',
        'bandwidth kept',
        'decided by',
        'SM MHz',
        'power W',
        'power limit W',
        'telemetry',
        'mechanism',
        'why',
      ],
      rows: view.overlap.rows.map((r) => [
        r.compute,
        r.bound,
        r.label,
        formatBytes(r.copySizeBytes),
        r.copySizeBytes,
        r.cusUsed,
        r.totalCus,
        r.cuArithmetic,
        r.keptFraction,
        r.copyAloneGbps,
        r.copyGbps,
        r.bandwidthKept,
        r.decidedBy,
        r.smClockMHz,
        r.powerW,
        r.powerLimitW,
        r.telemetry,
        r.mechanism,
        r.decidedBy === 'unknown' ? r.cause : r.why,
      ]),
      notes: [
        ...notes,
        ...view.overlap.claims.map((c) => c.text),
        'CU arithmetic: (total CUs - CUs the copy holds) / total CUs. compute kept: the fraction of the compute rate it had alone. bandwidth kept: the copy beside the compute over the same copy alone.',
      ],
    };
  }
  return {
    title: `SDMA Lens collectives ${view.runId}`,
    columns: [
      'op',
      'variant',
      'form',
      'size',
      'bytes',
      'time µs',
      'algbw GB/s',
      'busbw GB/s',
      'path',
      'off path',
      '#wrong',
      'CUs used',
      'CUs source',
      'mode',
      'launcher',
    ],
    rows: view.curves.flatMap((c) =>
      c.points.map((p): TableCell[] => [
        c.op,
        c.variant,
        c.inPlace ? 'in-place' : 'out-of-place',
        formatBytes(p.sizeBytes),
        p.sizeBytes,
        p.timeUs,
        p.algbwGbps,
        p.busbwGbps,
        p.transport,
        p.offPath ? 'yes' : 'no',
        p.wrong,
        p.cusUsed?.count ?? null,
        p.cusUsed?.source ?? null,
        view.mode,
        view.launcher ?? null,
      ]),
    ),
    notes,
  };
}
