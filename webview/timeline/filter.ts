/** The filter box: parses the query, computes the page's mask, hands the worker its own and tells the host what it kept. */
import { TIMELINE_FILTER_MAX } from '../../src/core/timeline/timelineMessages';
import { FilterSyntaxError, filterMask, isEmptyFilter, parseFilter } from '../../src/core/timeline/timelineFilter';
import { requestMeasure } from './input';
import { select } from './selection';
import { s, saveState, schedule, stats, wire } from './state';

export function applyFilter(text: string): void {
  try {
    const filter = parseFilter(text);
    wire.toolbar.setFilterError(undefined);
    s.filterVersion++;
    // One pass over the columns when the query changes; the worker applies it while aggregating.
    const mask = s.columns && !isEmptyFilter(filter) ? filterMask(s.columns, filter) : undefined;
    s.pageMask = mask?.slice();
    let kept = s.columns?.count ?? 0;
    if (mask) {
      kept = 0;
      for (let i = 0; i < mask.length; i++) kept += mask[i]!;
    }
    stats.kept = kept;
    wire.client.post({ type: 'filter', mask }, mask ? [mask.buffer as ArrayBuffer] : []);
    wire.host.post({ type: 'filter-applied', filter: text.slice(0, TIMELINE_FILTER_MAX), kept });
    if (s.selected >= 0 && s.pageMask && !s.pageMask[s.selected]) select(-1);
    s.saved = { ...s.saved, filter: text };
    saveState();
    if (s.measure) requestMeasure();
    schedule();
  } catch (err) {
    if (err instanceof FilterSyntaxError) wire.toolbar.setFilterError(err.message);
    else throw err;
  }
}
