/** The words the panel uses for series and run states, in one place so chart, table and header agree. */
import type { SweepSeries } from '../../src/core/sweep/sweepView';

/** The series names the exported table uses too (core/tables/panelTables.ts), so both read alike. */
export { cuCountLabel, seriesLabel } from '../../src/core/sweep/sweepPanelTable';

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
