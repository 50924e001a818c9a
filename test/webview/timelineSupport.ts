/** The extension-side pieces the timeline harness and benchmark need, bundled for Node. */
export { timelineHtml, timelineNonce, timelineCsp } from '../../src/core/timelineHtml';
export { readTimelineFile } from '../../src/core/timelineFile';
export { buildIndex } from '../../src/core/timelineModel';
