/**
 * A fleet's nodes read and reduced in parallel: a bounded pool of worker threads (at most
 * `availableParallelism()`), each reading a node's runs from the runs folder (`readNode`, the
 * same reader and safe open as on the main thread) and handing back only its figures
 * (`NodeFigures`: a few numbers and strings a node). The main thread gives each worker a batch
 * of nodes in one message, two batches at most, so nothing piles up, and each batch is answered
 * in one message (every message wakes both threads), as JSON text whose strings (figure keys,
 * labels, settings) are each sent once a batch; the results come back in the index's
 * order whatever order the workers finish in. Cancel terminates the workers. A worker that stops
 * (a crash, out of memory) costs only the node it was reading (which it writes in a slot shared
 * with the main thread before reading it), said as a problem naming that node (stopped between
 * nodes, the batch it had read and not yet sent); its other nodes go to a fresh worker. A worker that cannot start at all (its script missing or not runnable)
 * leaves the pool empty and the caller reads in-process.
 *
 * The worker side is this module loaded in a worker thread with `workerData` marked as below
 * (the caller's `script` is a bundle that includes it, e.g. the CLI's fleet bundle).
 */
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Run } from '../run';
import { RunStore } from '../runs/runStore';
import { statSync } from 'node:fs';
import type { FleetIndex } from '../fleet/fleetIndex';
import type { Figure } from '../fleet/figures';
import type { NodeFigures, NodeRuns } from '../fleet/fleetView';
import type { PathName } from '../protocol';
import { nodeFigures } from '../fleet/fleetView';

/** The mark in `workerData` that makes this module serve as a fleet reader. */
const MARK = 'sdma-lens-fleet-reader';

/**
 * On the main thread, a node's run up to this size is read synchronously (a few milliseconds at
 * most); a larger one asynchronously. A reader thread reads every run synchronously.
 */
export const SYNC_READ_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Nodes in one message to a worker, at most: enough that the messages (each a wake-up of both
 * threads) cost little beside the reading, few enough to bound memory and to share the last
 * nodes between the workers. A worker holds two batches: the one it reads, and the next.
 */
const BATCH_NODES = 32;
const BATCHES_PER_WORKER = 2;

/** What reading one node gave: its figures, and its runs that could not be read, each in a sentence. */
export interface NodeRead {
  figures: NodeFigures;
  problems: string[];
}

/** The size of what is at `file`, as a hint only (the open checks what it is); 0 when it cannot be looked at. */
function sizeOf(file: string): number {
  try {
    return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

/** One node's runs read (a small one synchronously, a large one asynchronously), as the main thread's reader does. */
export async function readNode(
  store: RunStore,
  n: FleetIndex['nodes'][number],
  open: (runId: string) => Promise<Run>,
  signal?: AbortSignal,
): Promise<NodeRead> {
  const mine: NodeRuns = {};
  const problems: string[] = [];
  for (const r of n.runs) {
    signal?.throwIfAborted();
    try {
      mine[r.command] = await open(r.runId);
    } catch (err) {
      problems.push(`${n.node}: run ${r.runId} could not be read: ${(err as Error).message}`);
    }
  }
  // The runs go out of reach here: only their figures are kept.
  return { figures: nodeFigures(mine), problems };
}

/** The default open of a run in `store`: synchronous up to SYNC_READ_MAX_BYTES. */
export function openRun(store: RunStore, runId: string, signal?: AbortSignal): Promise<Run> {
  return sizeOf(store.fileOf(runId)) <= SYNC_READ_MAX_BYTES
    ? Promise.resolve().then(() => store.openSync(runId, { signal }))
    : store.open(runId, { signal });
}

type ToWorker = { jobs: number[]; nodes: FleetIndex['nodes'] };
/**
 * A figure as sent back: its strings as indices in the batch's string table (a path -1 when it
 * has none), its value, whether low is weak (1) or not (0). Every node of a batch has mostly the
 * same keys and labels: each is sent once a batch, not once a node.
 */
type SentFigure = [
  key: number,
  kind: number,
  label: number,
  path: number,
  pair: number,
  value: number,
  unit: number,
  lowIsWeak: number,
];
/** A node read as sent back, its figures and settings in the batch's string table; or why its figures could not be made. */
type Answer =
  | {
      figures: SentFigure[];
      settings?: number[];
      statuses: NodeFigures['statuses'];
      simulated: boolean;
      problems: string[];
    }
  | { error: string };
type FromWorker = { ready: true } | { jobs: number[]; strings: string[]; reads: Answer[] };

/** The strings of a batch's answer, each once, by index. */
class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  of(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

/** A node's read as sent back (`fromAnswer` makes it again on the main thread). */
function toAnswer(read: NodeRead, table: StringTable): Answer {
  const f = read.figures;
  return {
    figures: f.figures.map((x) => [
      table.of(x.key),
      table.of(x.kind),
      table.of(x.label),
      x.path === undefined ? -1 : table.of(x.path),
      table.of(x.pair),
      x.value,
      table.of(x.unit),
      x.lowIsWeak ? 1 : 0,
    ]),
    ...(f.settings ? { settings: f.settings.map((x) => table.of(x)) } : {}),
    statuses: f.statuses,
    simulated: f.simulated,
    problems: read.problems,
  };
}

/** The read `toAnswer` sent, with the figures' fields in the order `sweepFigures` and `matrixFigures` give them. */
function fromAnswer(a: Exclude<Answer, { error: string }>, strings: readonly string[]): NodeRead {
  const figures: Figure[] = a.figures.map(([key, kind, label, path, pair, value, unit, lowIsWeak]) => ({
    key: strings[key]!,
    kind: strings[kind] as Figure['kind'],
    label: strings[label]!,
    ...(path >= 0 ? { path: strings[path] as PathName } : {}),
    pair: strings[pair]!,
    value,
    unit: strings[unit] as Figure['unit'],
    lowIsWeak: lowIsWeak === 1,
  }));
  return {
    figures: {
      figures,
      ...(a.settings ? { settings: a.settings.map((i) => strings[i]!) } : {}),
      statuses: a.statuses,
      simulated: a.simulated,
    },
    problems: a.problems,
  };
}

/**
 * The worker's side: reads each batch of nodes it is sent, one node after the other, and answers
 * the batch in one message (a message costs the two threads a wake-up each, whatever it holds).
 * Before each node it writes the node's job number in `reading`, shared with the main thread: a
 * worker that stops mid-batch is known to have stopped on that node.
 */
function serve(root: string, reading: Int32Array): void {
  const store = new RunStore(root);
  const port = parentPort!;
  // In a thread of its own a run is read with synchronous calls whatever its size: only this
  // thread waits, and the reader's memory is bounded either way (it reads a chunk at a time).
  const open = (id: string) => Promise.resolve().then(() => store.openSync(id));
  let queue = Promise.resolve();
  port.on('message', (m: ToWorker) => {
    queue = queue.then(async () => {
      const reads: Answer[] = [];
      const table = new StringTable();
      for (let k = 0; k < m.jobs.length; k++) {
        // A turn of the event loop between nodes: V8's own tasks (the collector's) run there; a
        // batch read in one go holds them back, which cost a third more peak memory and CPU.
        if (k > 0) await new Promise((resolve) => setImmediate(resolve));
        Atomics.store(reading, 0, m.jobs[k]!);
        try {
          reads.push(toAnswer(await readNode(store, m.nodes[k]!, open), table));
        } catch (err) {
          reads.push({ error: (err as Error).message });
        }
      }
      Atomics.store(reading, 0, -1);
      // As JSON text: one string is cloned in a fraction of the time of the objects it holds.
      port.postMessage(JSON.stringify({ jobs: m.jobs, strings: table.strings, reads } satisfies FromWorker));
    });
  });
  port.postMessage(JSON.stringify({ ready: true } satisfies FromWorker));
}

if (!isMainThread && (workerData as { mark?: string } | null)?.mark === MARK) {
  const data = workerData as { root: string; reading: SharedArrayBuffer };
  serve(data.root, new Int32Array(data.reading));
}

/** Strings that repeat across nodes (figure keys, labels, pairs), kept once. */
class Interner {
  private readonly seen = new Map<string, string>();
  of(s: string): string {
    const had = this.seen.get(s);
    if (had !== undefined) return had;
    this.seen.set(s, s);
    return s;
  }
}

export interface ReaderPoolOptions {
  /** A script that loads this module (a bundle of the fleet's code). */
  script: string | URL;
  /** Workers at most (default and cap: `availableParallelism()`). */
  count?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Every node of `nodes` read by a pool of workers, in `nodes`' order; undefined when no worker
 * could start (the caller then reads in-process). Throws the signal's reason when cancelled.
 */
export async function readNodesInWorkers(
  root: string,
  nodes: FleetIndex['nodes'],
  options: ReaderPoolOptions,
): Promise<NodeRead[] | undefined> {
  const { signal } = options;
  signal?.throwIfAborted();
  const cap = availableParallelism();
  const count = Math.max(1, Math.min(Math.floor(options.count ?? cap) || 1, cap, nodes.length));
  const out = new Array<NodeRead | undefined>(nodes.length);
  const interner = new Interner();
  const pending: number[] = nodes.map((_, i) => i).reverse();
  let done = 0;
  const live = new Set<Worker>();

  return new Promise<NodeRead[] | undefined>((resolve, reject) => {
    let settled = false;
    const finish = (result: NodeRead[] | undefined, error?: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      // Settled once every worker has stopped: none is left running after the call.
      const stopping = [...live].map((w) => w.terminate().catch(() => undefined));
      live.clear();
      void Promise.all(stopping).then(() => (error !== undefined ? reject(error) : resolve(result)));
    };
    const onAbort = () => finish(undefined, signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    /** Nodes a batch takes now: the last nodes in smaller batches, shared between the workers. */
    const batchSize = () =>
      Math.max(1, Math.min(BATCH_NODES, Math.ceil(pending.length / (count * BATCHES_PER_WORKER))));
    const spawn = () => {
      // The job number of the node the worker is reading (-1: none), written by the worker.
      const reading = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
      // Its stdout kept apart (never read: a reader prints nothing), so nothing it could print mixes into ours (fleet show --json).
      const w = new Worker(options.script, {
        workerData: { mark: MARK, root, reading: reading.buffer },
        stdout: true,
        stderr: false,
      });
      live.add(w);
      /** The batches sent to this worker and not answered, oldest (the one it is reading) first. */
      const sent: number[][] = [];
      let ready = false;
      const feed = () => {
        while (sent.length < BATCHES_PER_WORKER && pending.length > 0) {
          const jobs: number[] = [];
          for (let k = batchSize(); k > 0 && pending.length > 0; k--) jobs.push(pending.pop()!);
          sent.push(jobs);
          w.postMessage({ jobs, nodes: jobs.map((i) => nodes[i]!) } satisfies ToWorker);
        }
      };
      const settleIfDone = () => {
        if (done === nodes.length) finish(out as NodeRead[]);
      };
      const answered = (job: number, read: NodeRead) => {
        out[job] = read;
        done++;
        options.onProgress?.(done, nodes.length);
      };
      w.on('message', (text: string) => {
        if (settled) return;
        const m = JSON.parse(text) as FromWorker;
        if ('ready' in m) ready = true;
        else {
          // Batches are read in the order sent: the answer is of the oldest.
          sent.shift();
          // The batch's strings kept once across batches (figure keys, labels, pairs, settings).
          const strings = m.strings.map((x) => interner.of(x));
          m.jobs.forEach((job, k) => {
            const a = m.reads[k]!;
            answered(
              job,
              'error' in a ? failed(nodes[job]!, `its figures could not be made: ${a.error}`) : fromAnswer(a, strings),
            );
          });
        }
        feed();
        settleIfDone();
      });
      const stopped = (why: string) => {
        if (settled || !live.has(w)) return;
        live.delete(w);
        void w.terminate();
        const held = sent.flat();
        if (!ready) {
          // It never started: its nodes back to the queue, for the others; with none left, the caller reads in-process.
          pending.push(...held.reverse());
          if (live.size === 0) finish(undefined);
          return;
        }
        // The node it was reading is lost, said; the others it held, read or not, go to a fresh
        // worker. Stopped between nodes (answering a batch read whole), that batch is lost: each
        // stop costs at least one node, so a fleet never keeps a fresh worker stopping forever.
        const at = Atomics.load(reading, 0);
        const lost = at >= 0 && held.includes(at) ? [at] : (sent[0] ?? []);
        for (const i of lost) answered(i, failed(nodes[i]!, why));
        pending.push(...held.filter((i) => !lost.includes(i)).reverse());
        if (pending.length > 0) spawn();
        settleIfDone();
      };
      w.on('error', (err) => stopped(`the reader stopped: ${err.message}`));
      w.on('exit', (code) => stopped(`the reader stopped (exit code ${code})`));
    };
    for (let k = 0; k < count; k++) spawn();
  });
}

/** A node whose reader stopped: no figures, each of its runs named as not read. */
function failed(n: FleetIndex['nodes'][number], why: string): NodeRead {
  return {
    figures: nodeFigures(undefined),
    problems:
      n.runs.length > 0
        ? n.runs.map((r) => `${n.node}: run ${r.runId} could not be read: ${why}`)
        : [`${n.node}: ${why}`],
  };
}
