/**
 * Starts the level-of-detail worker from a blob: URL (VS Code webviews cannot load a worker
 * from an extension resource; the CSP allows `worker-src blob:` for exactly this). Its code
 * is bundled into this page by the build as a string. When a worker cannot start, the same
 * engine runs on the page's thread: slower on huge timelines, but never a blank panel.
 */
import type { EngineQuery } from '../../src/core/timeline/timelineMessages';
import { createEngine } from '../../src/core/timeline/timelineEngine';
import type { FromWorker, ToWorker } from '../../src/core/timeline/timelineEngineProtocol';

declare const TIMELINE_WORKER_SOURCE: string | undefined;

export interface LodClient {
  readonly inWorker: boolean;
  post(message: ToWorker, transfer?: ArrayBuffer[]): void;
}

export function startLodClient(
  onMessage: (message: FromWorker) => void,
  onProblem: (message: string) => void,
): LodClient {
  const source = typeof TIMELINE_WORKER_SOURCE === 'string' ? TIMELINE_WORKER_SOURCE : undefined;
  if (source && typeof Worker === 'function') {
    try {
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      const worker = new Worker(url);
      worker.onmessage = (event: MessageEvent<FromWorker>) => onMessage(event.data);
      worker.onerror = (event) => onProblem(`timeline worker: ${event.message}`);
      return { inWorker: true, post: (message, transfer) => worker.postMessage(message, transfer ?? []) };
    } catch (err) {
      onProblem(`timeline worker could not start (${(err as Error).message}); computing on the page instead`);
    }
  }
  const engine = createEngine();
  return {
    inWorker: false,
    // Asynchronous like a worker, so callers see one behaviour.
    post: (message) => setTimeout(() => engine.handle(message, onMessage), 0),
  };
}

/**
 * The client of a host-held timeline: the extension host holds the events and runs the engine
 * (an engine process it starts), so each query goes to the host as a message ('engine-query'); the
 * answers come back as host messages. There is nothing to load: the host loaded it.
 */
export function hostLodClient(send: (query: EngineQuery) => void): LodClient {
  return {
    inWorker: true,
    post: (message) => {
      // The same queries; only the lanes list is readonly on this side.
      if (message.type !== 'load') send(message as EngineQuery);
    },
  };
}
