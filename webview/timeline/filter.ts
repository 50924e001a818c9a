/**
 * The filter box: checks the query's syntax, has the engine build its mask (the engine holds
 * the events) and, on its answer, tells the host what it kept.
 */
import { TIMELINE_FILTER_MAX } from '../../src/core/timeline/timelineMessages';
import { FilterSyntaxError, parseFilter } from '../../src/core/timeline/timelineFilter';
import { requestMeasure } from './input';
import { select } from './selection';
import { s, saveState, schedule, stats, wire } from './state';
import { fitToKept } from './viewport';

/** The text of the latest filter asked for, reported to the host with its count. */
let asked = '';

export function applyFilter(text: string): void {
  try {
    parseFilter(text);
  } catch (err) {
    if (err instanceof FilterSyntaxError) return wire.toolbar.setFilterError(err.message);
    throw err;
  }
  wire.toolbar.setFilterError(undefined);
  s.filterVersion++;
  asked = text;
  // One pass over the columns in the engine when the query changes; it applies the mask while aggregating.
  wire.client.post({ type: 'filter', id: ++s.filterId, text });
  s.saved = { ...s.saved, filter: text };
  saveState();
  if (s.measure) requestMeasure();
  schedule();
}

/** The engine's answer: the events kept and their extent. */
export function onFilterApplied(id: number, kept: number, fromNs: number, toNs: number, selectedKept: boolean): void {
  if (id !== s.filterId) return;
  stats.kept = kept;
  wire.host.post({ type: 'filter-applied', filter: asked.slice(0, TIMELINE_FILTER_MAX), kept });
  if (s.selected >= 0 && !selectedKept) select(-1);
  if (s.fitOnFilter) {
    s.fitOnFilter = false;
    fitToKept(fromNs, toNs);
  }
  schedule();
}
