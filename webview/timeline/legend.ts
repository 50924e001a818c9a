/**
 * The legend beside the path toggles: the marks the timeline draws that colour alone does not
 * explain. Today one, shown only when the timeline has such events: a hatched box (a hollow
 * doorbell) is inferred, not reported by the hardware. Pure: the entries are a function of the
 * columns, unit-tested; the toolbar draws them.
 */
import type { TimelineColumns } from '../../src/core/timeline/timelineFile';
import { anyInferred } from '../../src/core/timeline/timelineFile';
import { INFERRED_WORDS } from '../../src/core/timeline/timelineDescribe';

export interface LegendEntry {
  /** Stable name, also the swatch's class (`swatch legend-<id>`). */
  id: 'inferred';
  /** What the legend says. */
  text: string;
  /** The longer explanation, as the entry's tooltip. */
  title: string;
}

export const INFERRED_ENTRY: LegendEntry = {
  id: 'inferred',
  text: `inferred: ${INFERRED_WORDS}`,
  title:
    'Hatched boxes and hollow doorbells were not reported by the hardware: their times were derived from what was observed around them (select one for why)',
};

/** The entries this timeline needs, in the order shown. */
export function legendEntries(t: Pick<TimelineColumns, 'flags'> | undefined): LegendEntry[] {
  return t && anyInferred(t) ? [INFERRED_ENTRY] : [];
}
