/**
 * The level-of-detail worker: aggregation of up to millions of events happens here, never on
 * the page's thread, so panning and zooming stay responsive while a new level is computed.
 */
import { createEngine } from '../../src/core/timeline/timelineEngine';
import type { FromWorker, ToWorker } from '../../src/core/timeline/timelineEngineProtocol';

interface WorkerScope {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
const engine = createEngine();
scope.onmessage = (event) =>
  engine.handle(event.data, (message, transfer) => scope.postMessage(message, transfer ?? []));
