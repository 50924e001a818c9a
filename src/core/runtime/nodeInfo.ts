/**
 * What a node has, asked of the helper before a sweep runs (`sdma-probe info`): its GPUs,
 * so the endpoints a user names can be checked (no `--dst 9` on a one-GPU node) and offered
 * (the quick pick lists host and each GPU). `info` never checks endpoints and works on any
 * GPU count, including none.
 */
import type { EndpointPair } from '../endpoints';
import { HOST, checkPairsOnNode, defaultPairs, pairName } from '../endpoints';
import { readHelperOutput } from './helperOutput';
import type { Hello, Topology } from '../protocol';
import type { BackendChoice } from '../backendChoice';
import type { Target } from './target';

export interface NodeInfo {
  hello?: Hello;
  topology: Topology;
  /** The helper's warnings (e.g. `no-gpu`). */
  warnings: string[];
}

/** The helper's arguments for `info` on a backend (and a simulated GPU count). */
export function infoArgs(backend: BackendChoice, simGpus?: number): string[] {
  const args = ['info', '--backend', backend];
  if (simGpus !== undefined) args.push('--sim-gpus', String(simGpus));
  return args;
}

/** Runs `info` on the target; throws an Error that says what the helper said when it gives no topology. */
export async function readNodeInfo(
  target: Target,
  helperPath: string,
  backend: BackendChoice,
  simGpus: number | undefined,
  signal?: AbortSignal,
): Promise<NodeInfo> {
  let hello: Hello | undefined;
  let topology: Topology | undefined;
  const warnings: string[] = [];
  const errors: string[] = [];
  const stderr: string[] = [];
  const exit = await readHelperOutput(target.spawn(helperPath, infoArgs(backend, simGpus), { signal }), {
    onLine: (r) => {
      if (r.kind !== 'record') return;
      const rec = r.record;
      if (rec.type === 'hello') hello = rec;
      else if (rec.type === 'topology') topology = rec;
      else if (rec.type === 'warning') warnings.push(rec.message);
      else if (rec.type === 'error') errors.push(`${rec.message}${rec.hint ? ` (${rec.hint})` : ''}`);
    },
    onStderr: (line, last) => {
      if (last || stderr.length < 20) stderr.push(line);
    },
  });
  if (topology) return { ...(hello ? { hello } : {}), topology, warnings };
  const why =
    exit.spawnError ??
    exit.lost ??
    errors.at(-1) ??
    stderr.filter(Boolean).at(-1) ??
    `exit code ${String(exit.exitCode)}${exit.signal ? `, signal ${exit.signal}` : ''}`;
  throw new Error(
    `the helper could not describe the node (sdma-probe ${infoArgs(backend, simGpus).join(' ')}): ${why}`,
  );
}

/** The endpoints a node offers: host, then each GPU, by index. */
export function nodeEndpoints(topology: Topology): number[] {
  return [HOST, ...topology.gpus.map((g) => g.index).sort((a, b) => a - b)];
}

/** The pairs a sweep on this node measures when none are named. */
export function nodeDefaultPairs(topology: Topology): EndpointPair[] {
  return defaultPairs(topology.gpus.length);
}

/** Throws, naming the node's GPUs, when a pair is not on the node (or the node has no GPU). */
export function checkPairsOnTopology(pairs: EndpointPair[], topology: Topology): void {
  if (topology.gpus.length === 0)
    throw new Error(
      `the node (${topology.node.model}) has no GPU, so there is nothing to copy to or from; run on a GPU node, or use --backend sim`,
    );
  checkPairsOnNode(pairs, topology.gpus.length);
}

/** The pairs a run measures, in words: the named ones, else the node's default. */
export function endpointsText(pairs: EndpointPair[], topology?: Topology): string {
  if (pairs.length > 0) return pairs.map(pairName).join(', ');
  if (topology) return `node default: ${nodeDefaultPairs(topology).map(pairName).join(', ') || 'none (no GPU)'}`;
  return 'node default (GPU 0 → GPU 1 with 2+ GPUs; host → GPU 0, GPU 0 → host, GPU 0 local with one)';
}

/** Every pair the node's endpoints make (host and each GPU; never host → host), GPU pairs first. */
export function nodePairs(topology: Topology): EndpointPair[] {
  const endpoints = nodeEndpoints(topology);
  const gpus = endpoints.filter((e) => e !== HOST);
  const pairs: EndpointPair[] = [];
  for (const a of gpus) for (const b of gpus) if (a !== b) pairs.push({ src: a, dst: b });
  for (const g of gpus) pairs.push({ src: HOST, dst: g }, { src: g, dst: HOST }, { src: g, dst: g });
  return pairs;
}
