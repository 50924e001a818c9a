/**
 * The extension host's side of a host-held timeline: starts the engine's worker thread
 * (timelineEngineThread.ts, bundled as dist/timelineEngine.js), tells it which file to open,
 * relays the page's queries to it once each has passed the query schema (a malformed or
 * hostile query is answered with an error, never sent on), and hands its answers back. A
 * thread that fails to open the file, errors or exits is reported once, as a failure; dispose()
 * (Cancel, or the panel closed) terminates it.
 */
import { Worker } from 'node:worker_threads';
import * as v from 'valibot';
import type { FromWorker, ToWorker } from '../timeline/timelineEngineProtocol';
import { EngineQuerySchema } from '../timeline/timelineMessages';
import type { TimelineMeta } from '../timeline/timelineModel';

/** Host -> thread: the file to open, then the engine's queries. */
export type ToThread =
  | { type: 'open'; file: string; meta: Pick<TimelineMeta, 'gpuCus' | 'vendor' | 'simulated'> }
  | Exclude<ToWorker, { type: 'load' }>;

/** Thread -> host: the engine's answers, the read's figures, or why the file could not be opened. */
export type ThreadMessage =
  | FromWorker
  /** The file read whole: its events, the time since open, and how many reader threads shared the overview. */
  | { type: 'read'; count: number; readMs: number; readers: number }
  | { type: 'failed'; message: string };

/** The part of a worker_threads Worker the relay uses (a test may hand it a stand-in). */
export interface EngineThread {
  on(event: 'message', listener: (message: ThreadMessage) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: ToThread): void;
  terminate(): Promise<number>;
}

export interface EngineHostOptions {
  /** dist/timelineEngine.js. */
  bundle: string;
  file: string;
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor' | 'simulated'>;
  /** Each of the engine's answers (the index first), in order. */
  onAnswer(answer: FromWorker): void;
  /** The thread read the file: its events and the time the read took. */
  onRead?(count: number, readMs: number, readers: number): void;
  /** The file could not be opened, or the thread errored or exited: said once, after which nothing more comes. */
  onFailure(message: string): void;
  /** Starts the thread (tests); a worker_threads Worker on `bundle` otherwise. */
  start?(bundle: string): EngineThread;
  /** Reader threads beside the engine (0 to 3); unset: the engine's own choice by processor count. */
  readers?: number;
}

export class TimelineEngineHost {
  private readonly thread: EngineThread;
  private done = false;
  private indexed = false;

  constructor(private readonly options: EngineHostOptions) {
    this.thread = options.start
      ? options.start(options.bundle)
      : (new Worker(options.bundle, {
          name: 'sdma-lens-timeline',
          workerData: options.readers === undefined ? undefined : { readers: options.readers },
        }) as unknown as EngineThread);
    this.thread.on('message', (message) => this.onThread(message));
    this.thread.on('error', (err) => this.fail(`the timeline engine failed: ${err.message}`));
    this.thread.on('exit', (code) => this.fail(`the timeline engine stopped (exit code ${code})`));
    this.thread.postMessage({ type: 'open', file: options.file, meta: options.meta });
  }

  /** Whether the engine has built its index (its answers are the page's from here). */
  get ready(): boolean {
    return this.indexed && !this.done;
  }

  /**
   * Relays one query from the page: checked against the query schema first; a query that does
   * not pass is answered with an error (and false returned), never handed to the engine.
   */
  query(raw: unknown): boolean {
    if (this.done) return false;
    const parsed = v.safeParse(EngineQuerySchema, raw);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      const where = issue?.path?.map((p) => String(p.key)).join('.') ?? '';
      this.options.onAnswer({
        type: 'error',
        message: `a timeline query was refused: ${where ? `${where}: ` : ''}${issue?.message ?? 'not a query'}`.slice(
          0,
          400,
        ),
      });
      return false;
    }
    this.thread.postMessage(parsed.output);
    return true;
  }

  /** Stops the thread (Cancel, the panel closed); no failure is reported for it. */
  dispose(): void {
    if (this.done) return;
    this.done = true;
    void this.thread.terminate();
  }

  private onThread(message: ThreadMessage): void {
    if (this.done) return;
    if (message.type === 'read') {
      this.options.onRead?.(message.count, message.readMs, message.readers);
      return;
    }
    if (message.type === 'failed') {
      this.fail(message.message);
      return;
    }
    // An error before the built index is a failed load; after it, one query's error for the page.
    if (message.type === 'error' && !this.indexed) {
      this.fail(message.message);
      return;
    }
    // The overview's index is the page's to draw from; the engine is built only at its own.
    if (message.type === 'index' && message.stage !== 'overview') this.indexed = true;
    this.options.onAnswer(message);
  }

  private fail(message: string): void {
    if (this.done) return;
    this.done = true;
    void this.thread.terminate();
    this.options.onFailure(message);
  }
}
