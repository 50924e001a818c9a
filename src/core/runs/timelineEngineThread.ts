/**
 * The engine of a host-held timeline, in a Node worker thread of the extension host (its own
 * bundle, dist/timelineEngine.js): it reads the sdmatl file itself with the panel's safe reader
 * (the same checks, the same refusal of a file too large), builds the index with the engine's
 * 'load', and answers the page's queries (relayed and validated by the host,
 * timelineEngineHost.ts). The host's own thread never reads, indexes or aggregates the events.
 */
import { parentPort } from 'node:worker_threads';
import { timelineFits } from '../timeline/timelineCompact';
import { createEngine } from '../timeline/timelineEngine';
import type { FromWorker, ToWorker } from '../timeline/timelineEngineProtocol';
import type { ThreadMessage, ToThread } from './timelineEngineHost';
import { loadTimelineFile } from './timelineSource';

/** The part of a MessagePort the engine talks through (parentPort, or a test's stand-in). */
export interface EnginePort {
  on(event: 'message', listener: (message: ToThread) => void): void;
  postMessage(message: ThreadMessage, transfer?: ArrayBuffer[]): void;
}

/** Serves one timeline on `port`: 'open' first, then the engine's queries in order. */
export function serveEngine(port: EnginePort): void {
  const engine = createEngine();
  const reply = (message: FromWorker, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);
  let opened: Promise<void> | undefined;
  port.on('message', (message) => {
    if (message.type === 'open') {
      if (opened) return;
      opened = open(message.file, message.meta).catch((err: unknown) =>
        port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
    // Queries sent while the file is read wait for it, in order.
    const query: ToWorker = message;
    void (opened ?? Promise.resolve()).then(() => engine.handle(query, reply));
  });

  async function open(file: string, meta: Extract<ToThread, { type: 'open' }>['meta']): Promise<void> {
    const t0 = performance.now();
    const columns = await loadTimelineFile(file);
    const fit = timelineFits(columns.count);
    if (!fit.ok) throw new Error(fit.message);
    port.postMessage({ type: 'read', count: columns.count, readMs: performance.now() - t0 });
    engine.handle({ type: 'load', columns, meta }, reply);
  }
}

if (parentPort) serveEngine(parentPort as unknown as EnginePort);
