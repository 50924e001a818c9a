/**
 * Copy endpoints: a GPU index, or pinned host memory (`-1` in every record, `host` in flags
 * and settings). `src == dst` (a GPU) is a GPU-local copy. The one place that names an
 * endpoint or a pair for people, so the CLI, the panels, the timeline, the matrix and the
 * advice all say `host → GPU 0` the same way. Browser-safe: the webview bundles it.
 */

/** Host memory in records (`sample.src`, `matrix-cell.dst`, ...), as the helper prints it. */
export const HOST = -1;
/** The largest GPU index the protocol allows. */
export const MAX_GPU_INDEX = 1023;

export interface EndpointPair {
  src: number;
  dst: number;
}

export function isHost(endpoint: number): boolean {
  return endpoint === HOST;
}

/** Whether the value is an endpoint a record may carry: -1 (host) or a GPU index 0..1023. */
export function isEndpoint(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= HOST && x <= MAX_GPU_INDEX;
}

/** `host`, `GPU 0`. */
export function endpointName(endpoint: number): string {
  return isHost(endpoint) ? 'host' : `GPU ${endpoint}`;
}

/** `host → GPU 0`, `GPU 0 → host`, `GPU 0 local`, `GPU 0 → GPU 1`. */
export function pairName(pair: EndpointPair): string {
  if (pair.src === pair.dst && !isHost(pair.src)) return `GPU ${pair.src} local`;
  return `${endpointName(pair.src)} → ${endpointName(pair.dst)}`;
}

/** What a flag or setting says: `host` or the GPU index. */
export function endpointArg(endpoint: number): string {
  return isHost(endpoint) ? 'host' : String(endpoint);
}

/** `host:0`, `0:1`: the helper's `--pairs` element and the `sdmaLens.sweep.endpoints` item. */
export function pairArg(pair: EndpointPair): string {
  return `${endpointArg(pair.src)}:${endpointArg(pair.dst)}`;
}

export function samePair(a: EndpointPair, b: EndpointPair): boolean {
  return a.src === b.src && a.dst === b.dst;
}

/** The pattern a `SRC:DST` text must match (also the setting's JSON-schema pattern). */
export const PAIR_PATTERN = /^(host|\d{1,4}):(host|\d{1,4})$/;

/** `host` or a GPU index, as a flag or setting gives it; throws naming the text when it is neither. */
export function parseEndpoint(text: string): number {
  const t = text.trim();
  if (t === 'host') return HOST;
  if (!/^\d{1,4}$/.test(t) || Number(t) > MAX_GPU_INDEX)
    throw new Error(`"${text}" is not an endpoint: use a GPU index 0..${MAX_GPU_INDEX} or "host"`);
  return Number(t);
}

/** Throws when the pair cannot be a copy: host to host. */
export function checkPair(pair: EndpointPair): EndpointPair {
  if (!isEndpoint(pair.src) || !isEndpoint(pair.dst))
    throw new Error(
      `endpoints must be a GPU index 0..${MAX_GPU_INDEX} or host (got ${String(pair.src)}:${String(pair.dst)})`,
    );
  if (isHost(pair.src) && isHost(pair.dst))
    throw new Error('host:host is not a GPU copy: at least one endpoint must be a GPU');
  return pair;
}

/** `SRC:DST`, e.g. `host:0`, `0:host`, `0:0`, `0:1`. */
export function parsePair(text: string): EndpointPair {
  const t = text.trim();
  if (!PAIR_PATTERN.test(t))
    throw new Error(
      `"${text}" is not an endpoint pair: write SRC:DST with a GPU index or "host" on each side, e.g. host:0, 0:host, 0:0, 0:1`,
    );
  const [src, dst] = t.split(':') as [string, string];
  return checkPair({ src: parseEndpoint(src), dst: parseEndpoint(dst) });
}

/** A comma list of pairs (`host:0,0:host,0:0`); each pair once. */
export function parsePairList(text: string): EndpointPair[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new Error('the pair list is empty: write e.g. host:0,0:host,0:0');
  return uniquePairs(items.map(parsePair));
}

export function uniquePairs(pairs: EndpointPair[]): EndpointPair[] {
  const seen = new Set<string>();
  return pairs.filter((p) => {
    const key = pairArg(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * What a sweep measures when nothing names the endpoints: GPU 0 → GPU 1 on a node with two
 * or more GPUs; host → GPU 0, GPU 0 → host and GPU 0 local on a one-GPU node (the helper's
 * own default; docs/PROTOCOL.md).
 */
export function defaultPairs(gpuCount: number): EndpointPair[] {
  if (gpuCount >= 2) return [{ src: 0, dst: 1 }];
  if (gpuCount === 1)
    return [
      { src: HOST, dst: 0 },
      { src: 0, dst: HOST },
      { src: 0, dst: 0 },
    ];
  return [];
}

/** Throws when a pair names a GPU the node does not have, saying which GPUs there are. */
export function checkPairsOnNode(pairs: EndpointPair[], gpuCount: number): void {
  for (const p of pairs) {
    for (const e of [p.src, p.dst]) {
      if (!isHost(e) && e >= gpuCount) {
        const have =
          gpuCount === 0 ? 'no GPUs' : gpuCount === 1 ? 'one GPU (0)' : `${gpuCount} GPUs (0..${gpuCount - 1})`;
        throw new Error(
          `${pairName(p)}: the node has ${have}, so there is no GPU ${e}; pick endpoints among host${gpuCount > 0 ? ` and ${gpuCount === 1 ? '0' : `0..${gpuCount - 1}`}` : ''}`,
        );
      }
    }
  }
}

/** The order pairs are shown in: GPU-to-GPU first, then host → GPU, GPU → host, GPU-local; by index inside. */
export function comparePairs(a: EndpointPair, b: EndpointPair): number {
  const kind = (p: EndpointPair) => (isHost(p.src) ? 1 : isHost(p.dst) ? 2 : p.src === p.dst ? 3 : 0);
  return kind(a) - kind(b) || a.src - b.src || a.dst - b.dst;
}

/** What kind of copy a pair is, for advice and labels. */
export type PairKind = 'peer' | 'host-to-gpu' | 'gpu-to-host' | 'local';
export function pairKind(pair: EndpointPair): PairKind {
  if (isHost(pair.src)) return 'host-to-gpu';
  if (isHost(pair.dst)) return 'gpu-to-host';
  return pair.src === pair.dst ? 'local' : 'peer';
}
