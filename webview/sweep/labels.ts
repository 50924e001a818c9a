/** The words the panel uses for series and run states, in one place so chart, table and header agree. */
import type { SweepSeries } from '../../src/core/sweep/sweepView';

export function cuCountLabel(cus: number): string {
  return `${cus} ${cus === 1 ? 'CU' : 'CUs'}`;
}

/** "cu/host · 64 CUs", "engine/device · 1 CU", "engine/host" (a host-started engine copy uses no CU). */
export function seriesLabel(series: Pick<SweepSeries, 'path' | 'cus'>): string {
  if (series.path.startsWith('engine/') && series.cus === 0) return series.path;
  return `${series.path} · ${cuCountLabel(series.cus)}`;
}

export function seriesKey(series: Pick<SweepSeries, 'path' | 'cus'>): string {
  return `${series.path}#${series.cus}`;
}

export type StatusTone = 'busy' | 'ok' | 'error' | 'muted';

const STATUS: Record<string, { text: string; tone: StatusTone }> = {
  running: { text: 'Running', tone: 'busy' },
  incomplete: { text: 'Incomplete', tone: 'muted' },
  ok: { text: 'Completed', tone: 'ok' },
  error: { text: 'Failed', tone: 'error' },
  cancelled: { text: 'Cancelled', tone: 'muted' },
  crashed: { text: 'Helper crashed', tone: 'error' },
};

export function statusText(status: string): { text: string; tone: StatusTone } {
  return STATUS[status] ?? { text: status, tone: 'muted' };
}
