/** The extension-side pieces the timeline harness and benchmark need, bundled for Node. */
export { timelineHtml, timelineNonce, timelineCsp } from '../../src/core/pages/timelineHtml';
export { readTimelineFile, readTimelineHeader } from '../../src/core/timeline/timelineFile';
export { HOST_HELD_EVENTS, parseTimelineWebviewMessage } from '../../src/core/timeline/timelineMessages';
export { TimelineEngineHost, processMemory } from '../../src/core/runs/timelineEngineHost';
export { buildIndex } from '../../src/core/timeline/timelineModel';
export { parseLine } from '../../src/core/protocol';
export { applyRecord, newRun } from '../../src/core/run';
export { profileTimeline, profileTimelineMeta } from '../../src/core/profile/profileTimeline';
export { filterMask, kernelFilter, parseFilter } from '../../src/core/timeline/timelineFilter';
