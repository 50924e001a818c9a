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

export function statusText(status: string): { text: string; tone: StatusTone } {
  switch (status) {
    case 'running':
      return { text: 'Running', tone: 'busy' };
    case 'incomplete':
      return { text: 'Incomplete', tone: 'muted' };
    case 'ok':
      return { text: 'Completed', tone: 'ok' };
    case 'error':
      return { text: 'Failed', tone: 'error' };
    case 'cancelled':
      return { text: 'Cancelled', tone: 'muted' };
    case 'crashed':
      return { text: 'Helper crashed', tone: 'error' };
    default:
      return { text: status, tone: 'muted' };
  }
}
