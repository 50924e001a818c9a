/** The extension-side pieces the timeline harness and benchmark need, bundled for Node. */
export { timelineHtml, timelineNonce, timelineCsp } from '../../src/core/timelineHtml';
export { readTimelineFile } from '../../src/core/timelineFile';
export { buildIndex } from '../../src/core/timelineModel';
export { parseLine } from '../../src/core/protocol';
export { applyRecord, newRun } from '../../src/core/run';
export { runModeTimeline, runModeTimelineMeta } from '../../src/core/runModeTimeline';
export { filterMask, kernelFilter, parseFilter } from '../../src/core/timelineFilter';
