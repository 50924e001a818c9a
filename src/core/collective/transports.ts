/**
 * What each path a collective point reports (`transport`: docs/COLLECTIVES.md, "Which path
 * actually ran") means, for the panel's legend and tooltips and the CLI table's key. Only our
 * own words: a transport no rule knows gets none, and the name itself stays run text.
 * Browser-safe: no imports.
 */

const WORDS: Record<string, string> = {
  lsa: 'load/store: CU kernels write straight into the peer GPU\u2019s memory (RCCL\u2019s LSA copy kernel)',
  sdma: 'the SDMA copy engines move the bytes (RCCL\u2019s GIN-SDMA puts), no CUs',
  ce: 'the copy engines move the bytes (NCCL\u2019s copy-engine collectives; RCCL\u2019s NCCL_CTA_POLICY=ZERO path on AMD), no SMs/CUs',
  kernel: 'the library\u2019s kernels moved the bytes on the SMs/CUs (a graph capture of one call saw kernel nodes)',
  'symmetric-kernel': 'NCCL\u2019s kernels on symmetric buffers, on the SMs',
};

/** An NCCL tuner pair, `algorithm/protocol` as the helper lower-cases it: `ring/simple`, `tree/ll`, `nvls/ll128`. */
const ALGO_PROTO = /^[a-z_]+\/(simple|ll|ll128)$/;

/** Our words for a reported path, or undefined when it is not one we know. */
export function transportMeaning(transport: string): string | undefined {
  if (Object.hasOwn(WORDS, transport)) return WORDS[transport];
  if (ALGO_PROTO.test(transport)) {
    const [algo, proto] = transport.split('/');
    return `NCCL\u2019s algorithm / protocol from its tuner: the ${algo} algorithm with the ${proto === 'simple' ? 'Simple' : proto!.toUpperCase()} protocol, run by kernels on the SMs/CUs`;
  }
  return undefined;
}

/** The known paths among `transports`, each once, in the order given, with their meaning. */
export function transportLegend(transports: readonly (string | null)[]): { transport: string; meaning: string }[] {
  const seen = new Set<string>();
  const out: { transport: string; meaning: string }[] = [];
  for (const t of transports) {
    if (t === null || seen.has(t)) continue;
    seen.add(t);
    const meaning = transportMeaning(t);
    if (meaning !== undefined) out.push({ transport: t, meaning });
  }
  return out;
}
