/**
 * The extension host's side of a host-held timeline: starts the engine in a process of its own
 * (timelineEngineProcess.ts, bundled as dist/timelineEngine.js, run by the extension host's own
 * Node), tells it which file to open, relays the page's queries to it once each has passed the
 * query schema (a malformed or hostile query is answered with an error, never sent on), and
 * hands its answers back. An engine that fails to open the file, errors or exits is reported
 * once, as a failure (with the end of what it wrote to stderr); dispose() (Cancel, or the panel
 * closed) kills it.
 *
 * A process, not a thread of the extension host: the engine holds 80 to 110 bytes an event
 * (about 1 GB at 10^7 events: bench/timelineHost.mjs), which would add to every other
 * extension's memory in the one extension host, and an engine that runs out of memory or
 * crashes ends itself, never the extension host.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import * as v from 'valibot';
import { escapeControls } from '../text';
import type { FromWorker, ToWorker } from '../timeline/timelineEngineProtocol';
import { ENGINE_PROCESS_ENV } from '../timeline/timelineEngineProtocol';
import { EngineQuerySchema } from '../timeline/timelineMessages';
import type { TimelineMeta } from '../timeline/timelineModel';

/** Host -> engine: the file to open, then the engine's queries. */
export type ToEngine =
  | { type: 'open'; file: string; meta: Pick<TimelineMeta, 'gpuCus' | 'vendor' | 'simulated'> }
  | Exclude<ToWorker, { type: 'load' }>;

/** Engine -> host: the engine's answers, the read's figures, or why the file could not be opened. */
export type EngineMessage =
  | FromWorker
  /** The file read whole: its events, the time since open, and how many reader threads shared the overview. */
  | { type: 'read'; count: number; readMs: number; readers: number }
  | { type: 'failed'; message: string };

/** The part of the engine's process the relay uses (a test may hand it a stand-in: a worker thread, or one in this thread). */
export interface EngineLink {
  on(event: 'message', listener: (message: EngineMessage) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: ToEngine): void;
  terminate(): Promise<number>;
  /** The engine's process id, when it is a process. */
  readonly pid?: number;
  /** The end of what the engine wrote to stderr (a crash's message), when it is a process. */
  stderrTail?(): string;
}

export interface EngineHostOptions {
  /** dist/timelineEngine.js. */
  bundle: string;
  file: string;
  meta: Pick<TimelineMeta, 'gpuCus' | 'vendor' | 'simulated'>;
  /** Each of the engine's answers (the index first), in order. */
  onAnswer(answer: FromWorker): void;
  /** The engine read the file: its events and the time the read took. */
  onRead?(count: number, readMs: number, readers: number): void;
  /** The file could not be opened, or the engine errored or exited: said once, after which nothing more comes. */
  onFailure(message: string): void;
  /** Starts the engine (tests); its own process on `bundle` otherwise (startEngineProcess). */
  start?(bundle: string): EngineLink;
  /** Reader threads beside the engine (0 to 3); unset: the engine's own choice by processor count. */
  readers?: number;
}

/** The most of the engine's stderr kept, for the failure's message. */
const STDERR_KEPT = 2000;

/**
 * dist/timelineEngine.js in a process of its own, run by this process's Node (the extension
 * host's: Electron's, as Node, in the desktop VS Code), with none of this process's Node options
 * (an inspector's port, NODE_* variables), messages in Node's structured clone (typed arrays as
 * they are).
 * Its stdout is dropped; the end of its stderr is kept for the failure's message.
 */
export function startEngineProcess(bundle: string, readers?: number): EngineLink {
  // None of this process's Node settings (NODE_OPTIONS, NODE_EXTRA_CA_CERTS: a certificate
  // bundle read at every start, for an engine that connects to nothing, ...).
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toUpperCase().startsWith('NODE_')),
  );
  env.ELECTRON_RUN_AS_NODE = '1';
  env[ENGINE_PROCESS_ENV] = readers === undefined ? 'auto' : String(readers);
  const child = fork(bundle, [], {
    execArgv: [],
    env,
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEPT)));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 128)));
  const link: EngineLink = {
    pid: child.pid,
    on(event: 'message' | 'error' | 'exit', listener: (arg: never) => void) {
      if (event === 'exit')
        child.on('exit', (code, signal) =>
          (listener as (code: number) => void)(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)),
        );
      else child.on(event, listener as (arg: unknown) => void);
      return link;
    },
    postMessage(message) {
      if (child.connected) child.send(message);
    },
    terminate() {
      child.kill('SIGKILL');
      return exited;
    },
    stderrTail: () => stderr,
  };
  return link;
}

/**
 * A process's resident memory now and at most (MiB), from /proc (Linux); undefined elsewhere or
 * once it has ended.
 */
export function processMemory(pid: number): { residentMb: number; peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const residentMb = kb('VmRSS') / 1024;
    const peakMb = kb('VmHWM') / 1024;
    return Number.isFinite(residentMb) && Number.isFinite(peakMb) ? { residentMb, peakMb } : undefined;
  } catch {
    return undefined;
  }
}

export class TimelineEngineHost {
  private readonly engine: EngineLink;
  private done = false;
  private indexed = false;

  constructor(private readonly options: EngineHostOptions) {
    this.engine = options.start ? options.start(options.bundle) : startEngineProcess(options.bundle, options.readers);
    this.engine.on('message', (message) => this.onEngine(message));
    this.engine.on('error', (err) => this.fail(`the timeline engine failed: ${err.message}`));
    this.engine.on('exit', (code) => this.fail(`the timeline engine stopped (exit code ${code})${this.said()}`));
    this.engine.postMessage({ type: 'open', file: options.file, meta: options.meta });
  }

  /** The engine's process id (undefined for a test's stand-in, or when it could not start). */
  get pid(): number | undefined {
    return this.engine.pid;
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
    this.engine.postMessage(parsed.output);
    return true;
  }

  /** Stops the engine (Cancel, the panel closed); no failure is reported for it. */
  dispose(): void {
    if (this.done) return;
    this.done = true;
    void this.engine.terminate();
  }

  private onEngine(message: EngineMessage): void {
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

  /** The end of the engine's stderr, as one line of text to follow a failure's message; empty when it wrote none. */
  private said(): string {
    const tail = this.engine.stderrTail?.().trim();
    return tail ? `: ${escapeControls(tail.split('\n').slice(-3).join(' / ')).slice(-400)}` : '';
  }

  private fail(message: string): void {
    if (this.done) return;
    this.done = true;
    void this.engine.terminate();
    this.options.onFailure(message);
  }
}
